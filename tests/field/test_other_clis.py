"""The real Codex CLI, Gemini CLI and opencode write sessions the readers read: each CLI runs
offline against the scripted stand-in (``other_clis.record``), then ``sessions``, ``agents``
and ``export`` read what it wrote, and the compaction each CLI makes of a context that
overflows is read once with its summary. Skipped where the CLI is not in the field cache
(``tests/field/install-other-clis`` puts it there); in CI a missing CLI fails the run."""

from __future__ import annotations

import json

import pytest

from tests.field import other_clis

# what tells the readers where each CLI keeps its sessions
VARIABLE = {"codex": "CODEX_HOME", "gemini": "GEMINI_CLI_HOME", "opencode": "XDG_DATA_HOME"}


def _listed(cli_runner, name: str) -> dict[str, dict]:
    result = cli_runner("sessions", "--all", "--cli", name, "--json")
    assert result.exit_code == 0, result.output
    return {s["id"]: s for s in json.loads(result.stdout)["sessions"]}


@pytest.mark.parametrize("name", ["codex", "gemini", "opencode"])
def test_what_the_real_cli_writes_is_read(cli, tmp_path, monkeypatch, name):
    other_clis.need(name)
    recorded = other_clis.record(name, tmp_path / name)
    monkeypatch.setenv(VARIABLE[name], str(recorded if name == "codex" else recorded.parent))
    listed = _listed(cli, name)
    assert len(listed) == 3, listed  # shell, parent (its child not on a line of its own), stopped
    parent = next(s for s in listed.values() if "FIELD-PARENT" in json.dumps(s) or s["subagents"])
    assert parent["subagents"] == 1
    tree = json.loads(cli("agents", parent["id"], "--json").stdout)
    child = tree["subagents"][0]["id"]
    document = json.loads(cli("export", child, "--include-tools").stdout)
    assert document["session_id"] == parent["id"]
    assert document["tool_calls_summary"]["total"] >= 1
    assert all(s["unknown_records"] == 0 and s["malformed_lines"] == 0 for s in listed.values())


@pytest.mark.parametrize("name", ["codex", "gemini", "opencode"])
def test_a_compaction_the_real_cli_makes_is_read_once(cli, tmp_path, monkeypatch, name):
    other_clis.need(name)
    recorded = other_clis.record_compaction(name, tmp_path / name)
    monkeypatch.setenv(VARIABLE[name], str(recorded if name == "codex" else recorded.parent))
    [session] = _listed(cli, name).values()
    assert session["compactions"] == 1
    document = json.loads(cli("export", session["id"]).stdout)
    items = document["conversation"]
    assert [i["content"] for i in items if i.get("type") == "compaction"] == [other_clis.SUMMARY]
    assert json.dumps(items).count("FIELD-SUMMARY") == 1


def test_a_session_resumed_in_a_later_minute_is_one_session(cli, tmp_path, monkeypatch):
    """Gemini CLI resumed in a later minute starts a second file for the session
    (``session-<later minute>-<same id8>``): still one session, read once, all of it."""
    other_clis.need("gemini")
    recorded = other_clis.record_compaction("gemini", tmp_path / "gemini", later_minute=True)
    assert len(list(recorded.glob("tmp/*/chats/session-*"))) == 2
    monkeypatch.setenv(VARIABLE["gemini"], str(recorded.parent))
    [session] = _listed(cli, "gemini").values()
    assert session["compactions"] == 1
    items = json.loads(cli("export", session["id"]).stdout)["conversation"]
    text = json.dumps(items)
    assert text.count("FIELD-SUMMARY") == 1
    assert text.count("FIELD-AGAIN") == 1
