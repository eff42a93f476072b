"""The real Codex CLI, Gemini CLI and opencode write sessions the readers read: each CLI runs
offline against the scripted stand-in (``other_clis.record_*``), then ``sessions``, ``agents``
and ``export`` read what it wrote. Skipped where the CLI is not in the field cache
(``tests/field/install-other-clis`` puts it there); in CI a missing CLI fails the run."""

from __future__ import annotations

import json

import pytest

from tests.field import other_clis


def _listed(cli_runner, name: str) -> dict[str, dict]:
    result = cli_runner("sessions", "--all", "--cli", name, "--json")
    assert result.exit_code == 0, result.output
    return {s["id"]: s for s in json.loads(result.stdout)["sessions"]}


@pytest.mark.parametrize("name", ["codex", "gemini", "opencode"])
def test_what_the_real_cli_writes_is_read(cli, tmp_path, monkeypatch, name):
    other_clis.need(name)
    recorded = getattr(other_clis, f"record_{name}")(tmp_path / name)
    if name == "codex":
        monkeypatch.setenv("CODEX_HOME", str(recorded))
    elif name == "gemini":
        monkeypatch.setenv("GEMINI_CLI_HOME", str(recorded.parent))
    else:
        monkeypatch.setenv("XDG_DATA_HOME", str(recorded.parent))
    listed = _listed(cli, name)
    assert len(listed) == 3, listed  # shell, parent (its child not on a line of its own), stopped
    parent = next(s for s in listed.values() if "FIELD-PARENT" in json.dumps(s) or s["subagents"])
    assert parent["subagents"] == 1
    tree = json.loads(cli("agents", parent["id"], "--json").stdout)
    child = tree["subagents"][0]["id"]
    document = json.loads(cli("export", child, "--include-tools").stdout)
    assert document["session_id"] == parent["id"] and document["tool_calls_summary"]["total"] >= 1
    assert all(s["unknown_records"] == 0 and s["malformed_lines"] == 0 for s in listed.values())
