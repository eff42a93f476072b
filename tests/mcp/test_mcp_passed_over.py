"""The MCP agent tools name the folders of an agent CLI this user may not list, redacted, as
search_sessions does (``passed_over``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from purlin_resume.mcp import server
from purlin_resume.mcp.protocol import ToolError
from tests.conftest import listings, not_listable
from tests.core.test_redact import PLANTED
from tests.gsd_files import entry, write_history
from tests.other_cli_data import codex_home, gemini_home


def test_the_agent_tools_name_a_folder_the_user_may_not_list_redacted(repo, tmp_path, monkeypatch):
    secret = PLANTED["github-token"]
    codex = tmp_path / secret
    codex.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    monkeypatch.setattr(server, "_SERVED", {"claude_dir": None})
    write_history(repo, [entry("agent-cut-1", "interrupted")])
    assert server.agents_status()["passed_over"] == []
    not_listable(codex, monkeypatch)

    agents, interrupted = server.agents_status(), server.list_interrupted_subagents()

    assert [e["agent_id"] for e in interrupted["interrupted"]] == ["agent-cut-1"]
    for answer in (agents, interrupted):
        [line] = answer["passed_over"]
        assert "Permission denied; its codex sessions are not listed" in line
        assert "[REDACTED:github-token:" in line
        assert secret not in json.dumps(answer)


def test_search_sessions_walks_codex_and_gemini_once_as_agents_status_does(
    repo, tmp_path, monkeypatch
):
    """search_sessions lists the folders of Codex's and Gemini's trees as agents_status does:
    in one walk, the one that finds their sessions for its index and notes the folders it
    passes over (it walked them again for ``passed_over``, which still names the folder)."""
    trees = [codex_home(), gemini_home()]
    locked = next(trees[0].glob("sessions/*/*/*"))
    not_listable(locked, monkeypatch)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    monkeypatch.setattr(server, "_SERVED", {"claude_dir": None})
    assert server.search_sessions("git log")["results"]  # the index built
    listed = listings(monkeypatch)

    def walked(answer: dict) -> dict[Path, int]:
        [line] = answer["passed_over"]
        assert line.startswith(f"{locked}: Permission denied;")
        found = {path: n for path, n in listed.items() if any(map(path.is_relative_to, trees))}
        listed.clear()
        return found

    by_agents_status = walked(server.agents_status())
    assert len(by_agents_status) > 5
    assert walked(server.search_sessions("git log")) == by_agents_status


def test_a_project_with_no_agent_history_has_no_interrupted_subagent(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    monkeypatch.setattr(server, "_SERVED", {"claude_dir": None})
    answer = server.list_interrupted_subagents()
    assert answer["interrupted"] == []
    assert answer["path"].endswith(".planning/agent-history.json")
    assert not (repo / ".planning").exists()  # nothing written by a listing


def test_an_interrupted_subagent_with_a_huge_prompt_is_listed_short(repo, tmp_path, monkeypatch):
    """A committed history may hold a prompt of megabytes: the answer, which goes into the
    model's context, cuts each text and says how long it is."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    monkeypatch.setattr(server, "_SERVED", {"claude_dir": None})
    huge = "x" * 3_000_000
    write_history(repo, [entry("agent-big", "interrupted", task_description=huge)])
    [listed] = server.list_interrupted_subagents()["interrupted"]
    assert listed["agent_id"] == "agent-big"
    assert listed["task_description"].endswith("… (3000000 characters)")
    assert len(json.dumps(listed)) < 10_000


def test_the_briefing_of_a_subagent_with_a_huge_task_is_short(repo, tmp_path, monkeypatch):
    """resume_task_briefing answers with the interrupted entry, the resumed one and the
    briefing: a committed task of megabytes is cut in each, saying how long it was."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    monkeypatch.setattr(server, "_SERVED", {"claude_dir": None})
    huge = "x" * 3_000_000
    write_history(repo, [entry("agent-big", "interrupted", task_description=huge)])
    answer = server.resume_task_briefing("agent-big")
    assert len(json.dumps(answer)) < 100_000
    [done] = answer["agents"]
    for text in (done["interrupted"]["task_description"], done["resumed"]["task_description"]):
        assert text.endswith("… (3000000 characters)")
    assert "… (3000000 characters)" in answer["briefing"]


def test_a_conflict_stops_the_briefing_until_the_agent_asks_with_force(repo, tmp_path, monkeypatch):
    """The conflict check's way on (``--force``, ``--ref``) is the tool's own ``force`` and
    ``ref``: a model can do what the refusal says."""
    from tests.conftest import commit_file, git

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    monkeypatch.setattr(server, "_SERVED", {"claude_dir": None})
    spawn = git(repo, "rev-parse", "HEAD").strip()
    commit_file(repo, "src/api.py", "changed by another agent\n")
    files = {"spawn_commit": spawn, "files_modified": ["src/api.py"]}
    write_history(repo, [entry("agent-c1", "interrupted", **files)])

    with pytest.raises(ToolError, match="run again with --force"):
        server.resume_task_briefing("agent-c1")
    with pytest.raises(ToolError, match="is not a commit or branch here"):
        server.resume_task_briefing("agent-c1", ref="no-such-branch")
    pwned = tmp_path / "pwned"
    with pytest.raises(ToolError):  # a ref from a model is no option git takes
        server.resume_task_briefing("agent-c1", ref=f"--output={pwned}")
    assert not pwned.exists()
    answer = server.resume_task_briefing("agent-c1", force=True)

    assert [done["resumed"]["status"] for done in answer["agents"]] == ["resumed"]


def test_a_server_started_outside_a_repository_says_where_to_start_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    with pytest.raises(ToolError) as refused:
        server.list_interrupted_subagents(project=str(tmp_path))
    assert "serves no project" in str(refused.value)
    assert "start it in the project's folder" in str(refused.value)
    assert "--project" not in str(refused.value)
