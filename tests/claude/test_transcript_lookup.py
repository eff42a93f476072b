"""Finding a conversation however it is stored: by the session id inside a file named otherwise,
in a bookmark's archive once Claude Code deleted it, by agent id alone; and what ``export`` says
of a conversation that is gone."""

from __future__ import annotations

import json
import shutil

from purlin_resume.claude import export
from tests.conftest import not_listable
from tests.resurrection.test_resurrect_cli import _fails, _log, _ok

SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"  # the sessionId inside the fixture short.jsonl


def test_a_session_is_found_by_the_id_its_records_carry(cli, fixtures_copy, repo):
    """Regression: ``agents``/``transcript`` found a session only by its file name."""
    claude = ("--claude-dir", str(fixtures_copy))

    listed = json.loads(_ok(cli("agents", SHORT, "--json", *claude)).stdout)
    by_prefix = json.loads(_ok(cli("transcript", SHORT[:8], "--json", *claude)).stdout)
    shown = _ok(cli("transcript", SHORT, "--max-chars", "0", *claude)).stdout

    assert listed["session_id"] == SHORT
    assert by_prefix["session_id"] == SHORT
    assert by_prefix["turns"] > 0
    assert "mix phx.server doesnt seem to start" in shown
    _fails(cli("transcript", "5560466x", *claude), 1, "no session or agent matches")


def test_a_copy_named_otherwise_is_found_too(cli, fixtures_copy, repo):
    folder = next(fixtures_copy.glob("projects/*spotter-fum"))
    session = folder / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    session.rename(folder / "subagent.jsonl")

    data = json.loads(
        _ok(cli("agents", "8463c716", "--json", "--claude-dir", str(fixtures_copy))).stdout
    )

    assert data["session_id"] == "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    assert any(agent["id"] == "a7be2f0" for agent in data["subagents"])


def test_export_of_a_gone_conversation_has_every_tr3_key(cli, fixtures_copy, repo):
    """Regression: a three-key document came back for a session whose file is gone."""
    next(fixtures_copy.glob("projects/*spotter-dov/4d5611e5-*.jsonl")).unlink()  # agents stay

    data = json.loads(_ok(cli("export", "4d5611e5", "--claude-dir", str(fixtures_copy))).stdout)

    full = json.loads(_ok(cli("export", "8463c716", "--claude-dir", str(fixtures_copy))).stdout)
    assert set(data) == set(full) | {"message"}
    assert data["conversation"] == []
    assert data["agent_id"] is None
    assert data["session_id"].startswith("4d5611e5")
    assert data["final_output"] is None
    assert data["tool_calls_summary"] == {"total": 0, "by_tool": {}}
    assert "No conversation history found" in data["message"]
    assert set(export.no_conversation("x", "agent", "s", None, "m")) == set(data)


def _bookmark_then_delete(cli, claude):
    args = ["bookmark", "add", "dov", "--session", "4d56", "--agent", "a2898e3"]
    _ok(cli(*args, "--claude-dir", str(claude)))
    folder = next(claude.glob("projects/*spotter-dov"))
    shutil.rmtree(folder)


def test_transcript_and_export_read_a_bookmarks_archive(cli, fixtures_copy, repo):
    """Regression: once Claude Code deleted the transcripts, only ``resurrect`` read the archive."""
    _bookmark_then_delete(cli, fixtures_copy)
    claude = ("--claude-dir", str(fixtures_copy))

    shown = _ok(cli("transcript", "a2898e3", "--max-chars", "0", *claude))
    exported = _ok(cli("export", "a2898e3", *claude))

    assert "Explore transcript rendering codebase" in shown.stdout
    assert "read from the archive of session 4d5611e5" in shown.stderr
    data = json.loads(exported.stdout)
    assert data["agent_id"] == "a2898e3"
    assert data["conversation"]
    _fails(cli("transcript", "a9999999", *claude), 1, "no session or agent matches")


def test_resurrect_by_agent_id_alone(cli, fixtures_copy, repo):
    claude = ("--claude-dir", str(fixtures_copy))

    data = json.loads(
        _ok(cli("resurrect", "--agent", "a7be2f0", "--yes", "--json", *claude)).stdout
    )

    assert data["resurrection"]["resurrected_from_session_id"].startswith("8463c716")
    assert data["resurrection"]["resurrected_from_agent_id"] == "a7be2f0"
    ambiguous = cli("resurrect", "--agent", "a", "--yes", *claude)
    _fails(ambiguous, 1, "agent a is ambiguous", "a2898e3 (session 4d5611e5", "a7be2f0 (session")
    _fails(cli("resurrect", "--agent", "a0000000", "--yes", *claude), 1, "no agent a0000000")
    _fails(cli("resurrect", "--yes", *claude), 2, "give --session, --agent or both")


def test_resurrect_by_agent_id_alone_from_the_archive(cli, fixtures_copy, repo):
    _bookmark_then_delete(cli, fixtures_copy)

    args = ["resurrect", "--agent", "a2898e3", "--yes", "--json", "--claude-dir"]
    data = json.loads(_ok(cli(*args, str(fixtures_copy))).stdout)

    assert data["archived"] is True
    assert _log(fixtures_copy)[-1]["resurrected_from_agent_id"] == "a2898e3"


def test_a_project_folder_the_user_may_not_read_is_named_and_the_rest_is_read(
    cli, fixtures_copy, monkeypatch
):
    """Regression: one project folder made root's (``sudo claude`` in that project) stopped
    ``sessions``, ``find``, ``agents`` and ``transcript`` of every session, exit 1."""
    locked = next(fixtures_copy.glob("projects/*spotter-dov"))
    not_listable(locked, monkeypatch)
    line = f"{locked}: Permission denied; the conversations there are not read"
    claude = ("--claude-dir", str(fixtures_copy))

    listed = cli("sessions", "--all", *claude)
    assert listed.exit_code == 0, listed.stderr
    assert listed.stderr == f"warning: {line}: make it readable for you\n"
    assert "8463c716" in listed.stdout
    assert "4d5611e5" not in listed.stdout
    assert "# Session 8463c716" in _ok(cli("transcript", "8463", *claude)).stdout
    _fails(cli("transcript", "4d56", *claude), 1, "no session or agent matches '4d56'", line)
    for search in (("find", "tmux"), ("resurrect", "find", "tmux", "--preview")):
        searched = cli(*search, *claude)
        assert searched.exit_code == 0, searched.stderr
        assert f"warning: {line}: make it readable for you\n" in searched.stderr, search


def test_a_folder_of_subagents_the_user_may_not_read_is_named(cli, fixtures_copy, monkeypatch):
    folder = next(fixtures_copy.glob("projects/*spotter-fum"))
    locked = folder / "8463c716-a2ea-4c14-9efa-87158ebd9f20" / "subagents"
    not_listable(locked, monkeypatch)
    tree = cli("agents", "8463", "--claude-dir", str(fixtures_copy))
    assert tree.exit_code == 0, tree.stderr
    assert f"warning: {locked}: Permission denied" in tree.stderr
    assert "Explore" in tree.stdout  # known from the session's own records
