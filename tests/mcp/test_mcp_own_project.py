"""The MCP tools work on the session's own project: another repository given as ``project`` is
refused (nothing written into it) unless the user's own settings list it."""

from __future__ import annotations

import json

import pytest

from purlin_resume.core import store
from tests.conftest import git

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.mcp.test_mcp_server import _call  # noqa: E402

SAVE = {"role": "qa", "in_progress": "x", "next": ["n"], "fields": {
    "scenario_progress": "1 of 2", "current_scenario": "s1"}}  # fmt: skip


def _other(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    return other


def test_another_repository_is_refused(repo, tmp_path):
    other = _other(tmp_path)
    calls = [
        ("save_checkpoint", {**SAVE, "project": str(other)}),
        ("list_interrupted_subagents", {"project": str(other)}),
        ("agents_status", {"project": str(other)}),
        ("save_checkpoint", {**SAVE, "project": str(repo)}),
    ]
    _, results = _call(repo, tmp_path / "claude", calls)
    for result in results[:3]:
        assert result.is_error
        assert "works on" in result.content[0].text
    assert not results[3].is_error
    assert not (other / ".purlin").exists()
    assert not (other / ".gitignore").exists()


def test_a_project_the_user_listed_is_served(repo, tmp_path):
    other = _other(tmp_path)
    mine = store.user_settings()
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(json.dumps({"resume": {"mcp_projects": [str(other)]}}))
    _, [result] = _call(
        repo, tmp_path / "claude", [("save_checkpoint", {**SAVE, "project": str(other)})]
    )
    assert not result.is_error, result.content
    assert (other / ".purlin" / "cache").is_dir()
