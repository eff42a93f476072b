"""Bookmarks, the dashboard's session pages and the MCP tools over the real sessions of Codex
CLI, Gemini CLI and opencode, beside Claude Code's, redacted as everywhere."""

from __future__ import annotations

import json
from pathlib import Path

from purlin_resume.core.project import Project
from purlin_resume.mcp import server
from purlin_resume.web import views
from tests.dashboard_setup import board
from tests.other_cli_data import (
    CODEX_PARENT,
    CODEX_SHELL,
    GEMINI_CHILD,
    GEMINI_PARENT,
    OPENCODE_CHILD,
    OPENCODE_PARENT,
    aws_key,
    home,
    rollout,
)

RECORDED = Path("/tmp/purlin-field-record")  # where the fixtures were recorded (their cwd)


def _bookmark(cli, name: str, *options: str):
    return cli("bookmark", "add", name, "--global", *options)


def test_bookmarks_of_other_clis(cli, every_cli):
    assert _bookmark(cli, "codex-work", "--session", CODEX_PARENT[:13]).exit_code == 0
    added = _bookmark(cli, "oc-child", "--session", OPENCODE_CHILD, "--json")
    assert added.exit_code == 0, added.output
    child = json.loads(added.stdout)
    assert (child["cli"], child["session_id"], child["agent_id"]) == (
        "opencode",
        OPENCODE_PARENT,
        OPENCODE_CHILD,
    )
    assert child["archive"] is None
    both = _bookmark(cli, "gem-child", "--session", GEMINI_PARENT, "--agent", GEMINI_CHILD)
    assert both.exit_code == 0
    assert "no archive: gemini keeps it" in both.stdout
    listed = json.loads(cli("bookmark", "list", "--json").stdout)["bookmarks"]
    assert {(m["name"], m.get("cli")) for m in listed} == {
        ("codex-work", "codex"),
        ("oc-child", "opencode"),
        ("gem-child", "gemini"),
    }
    assert "codex session " + CODEX_PARENT in cli("bookmark", "list").stdout
    found = json.loads(cli("find", "oc-child", "--json").stdout)["results"]
    assert (found[0]["cli"], found[0]["agent_id"], found[0]["bookmark"]) == (
        "opencode",
        OPENCODE_CHILD,
        "oc-child",
    )


def test_a_child_of_another_session_is_refused(cli, every_cli):
    result = _bookmark(cli, "wrong", "--session", CODEX_PARENT, "--agent", GEMINI_CHILD)
    assert result.exit_code == 1
    assert f"no child of session {CODEX_PARENT}" in result.stderr
    assert not (home() / ".claude" / "history" / "bookmarks.jsonl").exists()


def _planted() -> str:
    secret = aws_key()
    path = rollout(CODEX_SHELL)
    path.write_text(path.read_text().replace("show the git log", f"show the git log {secret}"))
    return secret


def test_dashboard_lists_and_opens_other_clis_sessions(every_cli):
    secret = _planted()
    client, guard = board(RECORDED)
    headers = {"x-purlin-token": guard.token}
    listed = client.get("/api/sessions", headers=headers).json()["sessions"]
    assert {s["cli"] for s in listed} == {"codex", "gemini", "opencode"}
    assert CODEX_PARENT in {s["id"] for s in listed}
    page = client.get("/sessions", headers=headers)
    assert page.status_code == 200
    assert f"transcripts/{CODEX_SHELL}" in page.text
    opened = client.get(f"/api/transcripts/{GEMINI_CHILD}", headers=headers).json()
    assert (opened["cli"], opened["kind"]) == ("gemini", "agent")
    assert opened["turns"] >= 1
    for path in (f"/api/transcripts/{CODEX_SHELL}", f"/transcripts/{CODEX_SHELL}"):
        shown = client.get(path, headers=headers)
        assert shown.status_code == 200
        assert "git log" in shown.text
        assert secret not in shown.text
        assert "REDACTED" in shown.text


def test_dashboard_sessions_of_a_project_in_views(every_cli):
    found = views.sessions(views.Scope(Project(RECORDED / "opencode")))
    assert {s["cli"] for s in found} == {"opencode"}


def test_mcp_tools_read_other_clis(every_cli):
    secret = _planted()
    page = server.get_transcript(CODEX_SHELL, include_tools=True)
    assert page["cli"] == "codex"
    assert "git log" in page["text"]
    assert secret not in json.dumps(page)
    assert page["redactions"]
    child = server.get_transcript(OPENCODE_CHILD)
    assert (child["cli"], child["kind"]) == ("opencode", "agent")
    found = server.search_sessions("FIELD-CHILD", limit=20)["results"]
    ours = [r for r in found if r["agent_id"] == OPENCODE_CHILD]
    assert ours
    assert ours[0]["cli"] == "opencode"
    assert ours[0]["open"] is None
