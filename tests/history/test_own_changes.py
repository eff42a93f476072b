"""Conflict detection tells an interrupted agent's own changes from other agents'.

The agent is captured by the hooks as Claude Code calls them for a background agent
(PreToolUse, then PostToolUse with ``status: async_launched`` and its ``agentId``); its own
transcript lives where Claude Code 2.1 writes it, ``<session>/subagents/agent-<id>.jsonl``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from purlin_resume.agents import commit_log
from purlin_resume.core.project import Project
from tests.claude_records import agent_transcript, tool, write_jsonl
from tests.conftest import commit_file
from tests.integration.test_hooks import hook

SESSION = "5e0c1d2b-7a8f-4e3c-9b1a-2c3d4e5f6a7b"
AGENT = "a3f9c2e1b4d5a6f70"  # 17 hex characters, as Claude Code names agents


@pytest.fixture
def claude_dir(tmp_path) -> Path:
    return tmp_path / "claude"


@pytest.fixture
def interrupted(repo, claude_dir, tmp_path):
    """A background agent that edited src/app.py (left uncommitted), then its session died."""
    commit_file(repo, "src/app.py", "one\ntwo\nthree\n")
    folder = claude_dir / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
    transcript = write_jsonl(folder / f"{SESSION}.jsonl", [])
    call = tool("toolu_01Bg", "Agent", description="Refactor app", prompt="Refactor src/app.py")
    base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(repo)}
    env = {"CLAUDE_CONFIG_DIR": str(claude_dir)}
    hook("session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"}, repo)
    spawn = {**base, "tool_name": "Agent", "tool_input": call["input"], "tool_use_id": call["id"]}
    hook("pre-tool-use", {**spawn, "hook_event_name": "PreToolUse"}, repo, **env)
    response = {"status": "async_launched", "agentId": AGENT, "description": "Refactor app"}
    post = {**spawn, "hook_event_name": "PostToolUse", "tool_response": response}
    hook("post-tool-use", post, repo, **env)
    agent_transcript(
        folder / SESSION / "subagents" / f"agent-{AGENT}.jsonl",
        AGENT,
        "Refactor src/app.py",
        [str(repo / "src" / "app.py")],
        None,
    )
    (repo / "src" / "app.py").write_text("one\nTWO\nthree\n")  # its work in progress
    hook("session-end", {**base, "hook_event_name": "SessionEnd", "reason": "other"}, repo)
    hook(
        "session-start",
        {**base, "session_id": "after", "hook_event_name": "SessionStart", "source": "startup"},
        repo,
    )
    return env


def other_commit(repo: Path, message: str) -> None:
    """Someone else commits src/app.py; the agent's uncommitted version stays in the work tree."""
    work = (repo / "src" / "app.py").read_text()
    commit_file(repo, "src/app.py", "one\ntwo\n3\n", message)
    (repo / "src" / "app.py").write_text(work)


def resume(cli, env, *extra):
    return cli("resume-task", AGENT, "--json", *extra, env=env)


def test_work_in_progress_left_by_the_agent_resumes_without_force(repo, cli, interrupted):
    result = resume(cli, interrupted)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    report = out["agents"][0]["conflicts"]
    assert report["agent_files"] == ["src/app.py"]
    assert report["own_uncommitted"] == ["src/app.py"]
    assert report["blocking"] == []
    assert "Its work in progress, uncommitted in the work tree" in out["briefing"]


def test_a_commit_with_the_agents_trailer_is_its_own(repo, cli, interrupted):
    commit_file(repo, "src/app.py", "one\nTWO\nTHREE\n", f"refactor app\n\nAgent-Id: {AGENT}")
    result = resume(cli, interrupted)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)["agents"][0]["conflicts"]
    assert [c.split(" ", 1)[1] for c in report["own_commits"]] == ["refactor app"]
    assert report["overlaps"] == []


def test_a_commit_recorded_from_the_agents_session_is_its_own(repo, cli, interrupted):
    sha = commit_file(repo, "src/app.py", "one\nTWO\nTHREE\n", "refactor app")
    record = commit_log.CommitRecord(
        "2026-01-01T00:00:00Z", sha, "main", SESSION, files=["src/app.py"]
    )
    commit_log.record(Project(repo), record)
    result = resume(cli, interrupted)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["agents"][0]["conflicts"]["overlaps"] == []


def test_another_agents_commit_on_its_file_still_stops_the_resume(repo, cli, interrupted):
    other_commit(repo, "fix\n\nAgent-Id: a0000000000000000")
    result = resume(cli, interrupted)
    assert result.exit_code == 1
    assert "other agents changed since the spawn" in result.stderr
    assert "src/app.py (unverified)" in result.stderr
    assert resume(cli, interrupted, "--force").exit_code == 0


def test_a_person_commit_from_no_session_is_not_the_agents(repo, cli, interrupted):
    other_commit(repo, "hand edit")
    assert resume(cli, interrupted).exit_code == 1


def test_uncommitted_edits_to_a_file_another_agent_records_are_not_its_own(repo, cli, interrupted):
    spawned = cli(
        "history", "spawn", "--agent-id", "agent_other", "--task", "t", "--phase", "1",
        "--plan", "1",
    )  # fmt: skip
    assert spawned.exit_code == 0
    cli("history", "complete", "agent_other", "--files", "src/app.py")
    result = resume(cli, interrupted)
    assert result.exit_code == 1
    assert "src/app.py" in result.stderr
