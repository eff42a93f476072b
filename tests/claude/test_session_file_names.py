"""A session stored under another file name (a copy such as ``short.jsonl`` or
``subagent.jsonl``) is listed, read and opened by the session id its records carry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

MARCO = "-home-marco-projects-spotter"
SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"  # what every record of short.jsonl says


def test_a_renamed_session_is_listed_and_read_by_its_recorded_id(cli, fixtures_copy):
    """Regression: it was listed as ``short`` and only the file name found it."""
    claude = ("--claude-dir", str(fixtures_copy))

    listed = json.loads(cli("sessions", "--all", "--json", *claude).stdout)["sessions"]
    by_prefix = cli("transcript", SHORT[:6], "--max-chars", "0", *claude)
    by_name = cli("transcript", "short", "--max-chars", "0", *claude)

    found = json.loads(cli("find", "mix phx.server doesnt start", "--json", *claude).stdout)
    ids = {s["id"] for s in listed}
    assert SHORT in ids
    assert "short" not in ids
    assert found["results"][0]["session_id"] == SHORT
    assert by_prefix.exit_code == 0, by_prefix.stderr
    assert by_prefix.stdout == by_name.stdout
    assert f"# Session {SHORT}" in by_prefix.stdout


def test_subagent_jsonl_is_opened_by_its_session_id(cli, fixtures_copy, tmp_path, monkeypatch):
    """Regression: ``open 5560`` said the transcript of the session was gone."""
    folder = fixtures_copy / "projects" / MARCO
    shutil.move(folder / "short.jsonl", folder / "subagent.jsonl")
    work = Path("/home/marco/projects/spotter")
    if not work.is_dir():  # the folder the session recorded, as Claude Code needs it
        cwd = tmp_path / "spotter"
        cwd.mkdir()
        path = folder / "subagent.jsonl"
        path.write_text(path.read_text().replace(str(work), str(cwd)))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(fixtures_copy))

    result = cli("open", SHORT[:4], "--spawn", "print", "--json")

    assert result.exit_code == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["session_id"] == SHORT
    assert plan["argv"][-2:] == ["--resume", SHORT]
    assert any("subagent.jsonl" in note for note in plan["notes"])


def test_a_recorded_id_that_is_no_session_id_is_not_taken(cli, fixtures_copy):
    """A copy whose records say ``"sessionId": "../../elsewhere"`` keeps its file name: the id
    never becomes a path (a session's subagents folder is named after it)."""
    folder = fixtures_copy / "projects" / MARCO
    lines = (folder / "short.jsonl").read_text().splitlines()
    hostile = [line.replace(SHORT, "../../elsewhere") for line in lines]
    (folder / "short.jsonl").write_text("\n".join(hostile) + "\n")
    listed = cli("sessions", "--all", "--json", "--claude-dir", str(fixtures_copy))
    assert listed.exit_code == 0, listed.stderr
    ids = {s["id"] for s in json.loads(listed.stdout)["sessions"]}
    assert "short" in ids
    assert not any(".." in i for i in ids)
