"""``install --cli codex|gemini``: our hooks in Codex CLI's hooks.json and Gemini CLI's
settings.json, and what a hook call naming its CLI records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from purlin_resume.agents import registry
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from tests.integration.test_hooks import hook

CODEX_SESSION = "01a21cdd-7cc7-7022-895f-a77c2af7d599"
CODEX_CHILD = "01a21cdd-8600-7f82-96c4-d6fe691b2b8d"
FIXTURES = Path(__file__).parent.parent / "fixtures"
CODEX_ROLLOUT = FIXTURES / (
    "codex/sessions/2026/11/27/rollout-2026-11-27T08-35-31-01a21c25-3856-72b2-af61-b2807cc1fe09.jsonl"
)
GEMINI_CHAT = FIXTURES / "gemini/tmp/project/chats/session-2026-11-27T08-38-445d2a96.jsonl"


def _commands(document: dict) -> dict[str, list]:
    return {
        event: [(h["command"], h["timeout"]) for g in groups for h in g["hooks"]]
        for event, groups in document["hooks"].items()
    }


def test_install_cli_codex_writes_the_users_hooks_json_once_and_uninstall_removes_it(
    cli, repo, tmp_path, monkeypatch
):
    codex_home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    result = cli("install", "--cli", "codex", "--user")
    assert result.exit_code == 0, result.stderr
    written = json.loads((codex_home / "hooks.json").read_text())
    assert _commands(written) == {
        "SessionStart": [("purlin-resume hook session-start --cli codex", 60)],
        "SessionEnd": [("purlin-resume hook session-end --cli codex", 3)],
        "SubagentStart": [("purlin-resume hook subagent-start --cli codex", 30)],
        "SubagentStop": [("purlin-resume hook subagent-stop --cli codex", 30)],
        "PreCompact": [("purlin-resume hook pre-compact --cli codex", 60)],
    }
    assert "trust them: open /hooks" in result.stdout
    assert "Nothing to change" in cli("install", "--cli", "codex", "--user").stdout
    assert cli("uninstall", "--cli", "codex", "--user").exit_code == 0
    assert not (codex_home / "hooks.json").exists()


def test_install_cli_gemini_keeps_the_projects_other_settings(cli, repo):
    settings = repo / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"general": {"vimMode": True}}, indent=2) + "\n")
    result = cli("install", "--cli", "gemini")
    assert result.exit_code == 0, result.stderr
    written = json.loads(settings.read_text())
    assert written["general"] == {"vimMode": True}
    assert _commands(written) == {
        "SessionStart": [("purlin-resume hook session-start --cli gemini", 60000)],
        "SessionEnd": [("purlin-resume hook session-end --cli gemini", 10000)],
        "PreCompress": [("purlin-resume hook pre-compact --cli gemini", 60000)],
    }
    assert history.path(Project(repo)).exists()  # the project is set up as for Claude Code
    cli("uninstall", "--cli", "gemini")
    assert json.loads(settings.read_text()) == {"general": {"vimMode": True}}


def test_install_cli_takes_codex_or_gemini(cli, repo):
    result = cli("install", "--cli", "copilot")
    assert result.exit_code == 2
    assert "--cli takes codex, gemini" in result.stderr


def test_codex_hook_calls_register_the_cli_and_record_the_subagent(repo):
    base = {"session_id": CODEX_SESSION, "cwd": str(repo)}
    started = hook("session-start --cli codex", {**base, "source": "startup"}, repo)
    assert started.returncode == 0, started.stderr
    child = {**base, "agent_id": CODEX_CHILD, "agent_type": "default"}
    hook("subagent-start --cli codex", child, repo)
    hook("subagent-stop --cli codex", {**child, "last_assistant_message": "3 files."}, repo)
    hook("session-end --cli codex", {**base, "reason": "other"}, repo)
    agent = registry.load(Project(repo))[CODEX_SESSION]
    assert (agent.cli, agent.agent_cli) == ("codex", "codex")
    assert agent.ended_at
    (entry,) = json.loads(history.path(Project(repo)).read_text())["entries"]
    assert (entry["agent_id"], entry["status"]) == (CODEX_CHILD, "completed")
    assert not (repo / ".purlin" / "cache" / "hook.log").exists()


def test_only_the_calls_own_known_cli_names_the_caller(repo):
    """An unknown ``--cli`` and a PURLIN_AGENT_CLI left in the environment are not taken: the
    session is Claude Code's, and what revival later runs never comes from them."""
    base = {"session_id": "5b0f0e7e-1c1d-4e2f-9a3b-0c4d5e6f7a8b", "cwd": str(repo)}
    started = hook("session-start --cli bogus", {**base, "source": "startup"}, repo)
    assert started.returncode == 0, started.stderr
    inherited = {"session_id": "6c1f0e7e-1c1d-4e2f-9a3b-0c4d5e6f7a8b", "cwd": str(repo)}
    hook("session-start", {**inherited, "source": "startup"}, repo, PURLIN_AGENT_CLI="codex")
    agents = registry.load(Project(repo))
    assert agents[base["session_id"]].agent_cli == "claude"
    assert agents[inherited["session_id"]].agent_cli == "claude"


def _checkpoints(repo: Path, session: str) -> list[str]:
    found = sorted((repo / ".purlin" / "cache").glob(f"**/{session}*.md"))
    return [path.read_text() for path in found]


@pytest.mark.parametrize(
    ("name", "transcript", "session", "trigger"),
    [
        ("codex", CODEX_ROLLOUT, "01a21c25-3856-72b2-af61-b2807cc1fe09", "auto"),
        ("gemini", GEMINI_CHAT, "445d2a96-f739-4418-b95b-cc287cf9b98a", "manual"),
    ],
)
def test_a_compaction_checkpoints_from_the_clis_own_session(
    repo, name, transcript, session, trigger
):
    said = {"session_id": session, "cwd": str(repo), "transcript_path": str(transcript)}
    done = hook(f"pre-compact --cli {name}", {**said, "trigger": trigger}, repo)
    assert done.returncode == 0, done.stderr
    (checkpoint,) = _checkpoints(repo, session)
    assert "**In Progress:** FIELD-SHELL show the git log" in checkpoint
    assert "The project has one commit: start." in checkpoint  # its last answer
    assert not (repo / ".purlin" / "cache" / "hook.log").exists()


def test_gemini_precompress_before_every_request_writes_no_checkpoint(repo):
    session = "445d2a96-f739-4418-b95b-cc287cf9b98a"
    said = {"session_id": session, "cwd": str(repo), "transcript_path": str(GEMINI_CHAT)}
    assert hook("pre-compact --cli gemini", {**said, "trigger": "auto"}, repo).returncode == 0
    assert _checkpoints(repo, session) == []


def test_a_resumed_gemini_session_keeps_the_chat_file_it_writes(repo, tmp_path):
    """Gemini CLI, resuming, names a new chat file at SessionStart but writes the old one."""
    session = "445d2a96-f739-4418-b95b-cc287cf9b98a"
    chat = tmp_path / "chats" / "session-2026-11-27T08-38-445d2a96.jsonl"
    chat.parent.mkdir()
    chat.write_bytes(GEMINI_CHAT.read_bytes())
    said = {"session_id": session, "cwd": str(repo), "transcript_path": str(chat)}
    hook("session-start --cli gemini", {**said, "source": "startup"}, repo)
    hook("session-end --cli gemini", {**said, "reason": "exit"}, repo)
    named = str(chat.with_name("session-2026-11-27T09-10-445d2a96.jsonl"))  # never written
    hook("session-start --cli gemini", {**said, "transcript_path": named, "source": "resume"}, repo)
    agent = registry.load(Project(repo))[session]
    assert (agent.transcript_path, agent.ended_at) == (str(chat), None)
    assert not (repo / ".purlin" / "cache" / "hook.log").exists()
