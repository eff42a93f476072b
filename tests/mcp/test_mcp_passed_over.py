"""The MCP agent tools name the folders of an agent CLI this user may not list, redacted, as
search_sessions does (``passed_over``)."""

from __future__ import annotations

import json

from purlin_resume.mcp import server
from tests.conftest import not_listable
from tests.core.test_redact import PLANTED
from tests.gsd_files import entry, write_history


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
