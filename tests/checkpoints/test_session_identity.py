"""Which session a command or hook belongs to, as real Claude Code tells it.

Claude Code sets ``CLAUDE_CODE_SESSION_ID`` for its hooks and for the commands its agent runs
through the Bash tool, and puts ``session_id`` in every hook payload; older slash commands pass
``${CLAUDE_SESSION_ID}`` in their text. The scenario of the QA agent that came back as the
Builder after compaction is replayed with those inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from purlin_resume.agents import commit_log, registry
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.core import current_session
from purlin_resume.core.project import Project
from tests.claude_records import Conversation, text, tool, write_jsonl
from tests.integration.test_hooks import hook

SESSION = "7d1f0c2a-4b5e-4c61-9a8e-3f2b1c0d9e8f"
QA_FIELDS = [
    "--role",
    "qa",
    "--in-progress",
    "verifying the export scenarios",
    "--scenario-progress",
    "5 of 8 scenarios completed",
    "--current-scenario",
    "Export with filters",
    "--next",
    "Verify scenario 6",
]


def qa_transcript(folder: Path) -> Path:
    """A QA session as Claude Code 2.1 writes it: a request, a todo list, an edit, an answer."""
    talk = Conversation(SESSION, cwd=str(folder))
    records = [
        talk.user("Verify the export feature scenarios and record discoveries"),
        talk.assistant(
            "msg_01QA",
            tool(
                "toolu_01TODO",
                "TodoWrite",
                todos=[
                    {"content": "Scenario 5", "status": "completed", "activeForm": "x"},
                    {"content": "Scenario 6", "status": "in_progress", "activeForm": "x"},
                ],
            ),
        ),
        talk.result("toolu_01TODO", "Todos have been modified successfully"),
        talk.assistant("msg_01QB", text("Scenario 5 passes; moving on to scenario 6.")),
    ]
    return write_jsonl(folder / ".claude-data" / f"{SESSION}.jsonl", records)


def payload(event: str, transcript: Path, root: Path, **fields) -> dict:
    return {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def briefing_of(out) -> str:
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_environment_names_the_session_in_the_documented_order():
    env = {
        "CLAUDE_SESSION_ID": "old",
        "CLAUDE_CODE_SESSION_ID": "claude-code",
        "PURLIN_SESSION_ID": "",
    }
    assert current_session.from_environment(env) == "claude-code"
    assert current_session.from_environment({**env, "PURLIN_SESSION_ID": "mine"}) == "mine"
    assert current_session.from_environment({"CLAUDE_SESSION_ID": "old"}) == "old"
    assert current_session.from_environment({"CLAUDE_CODE_SESSION_ID": "  "}) is None
    assert current_session.resolve("given", env) == "given"


def test_save_run_by_the_agent_is_keyed_by_claude_code_session_id(repo, cli):
    saved = cli("save", *QA_FIELDS, env={"CLAUDE_CODE_SESSION_ID": SESSION})
    assert saved.exit_code == 0, saved.stderr
    assert (repo / f".purlin/cache/checkpoints/{SESSION}.md").is_file()
    assert not (repo / ".purlin/cache/session_checkpoint.md").exists()


def test_an_unfilled_session_placeholder_falls_back_to_the_environment(repo, cli):
    # A slash command on a Claude Code that does not substitute ${CLAUDE_SESSION_ID}: the
    # shell expands it to nothing.
    saved = cli("save", *QA_FIELDS, "--session", "", env={"CLAUDE_CODE_SESSION_ID": SESSION})
    assert saved.exit_code == 0, saved.stderr
    assert (repo / f".purlin/cache/checkpoints/{SESSION}.md").is_file()


def test_history_spawn_and_commit_attribution_read_claude_code_session_id(repo, cli):
    spawned = cli(
        "history",
        "spawn",
        "--agent-id",
        "agent_01",
        "--task",
        "Execute plan 02-01",
        "--phase",
        "02",
        "--plan",
        "01",
        env={"CLAUDE_CODE_SESSION_ID": SESSION},
    )
    assert spawned.exit_code == 0, spawned.stderr
    entry = json.loads((repo / ".planning/agent-history.json").read_text())["entries"][0]
    assert entry["session_id"] == SESSION
    author = commit_log.author_session({}, [], {"CLAUDE_CODE_SESSION_ID": SESSION})
    assert author is not None
    assert author.session_id == SESSION


def test_a_qa_agent_comes_back_as_qa_after_compaction(repo, cli, tmp_path):
    """The agent saved with /pl-resume save (its Bash tool has CLAUDE_CODE_SESSION_ID); the
    PreCompact hook keeps that checkpoint; SessionStart(compact) briefs the QA agent as QA."""
    transcript = qa_transcript(tmp_path)
    env = {"CLAUDE_CODE_SESSION_ID": SESSION}
    hook("session-start", payload("SessionStart", transcript, repo, source="startup"), repo, **env)
    assert cli("save", *QA_FIELDS, env=env).exit_code == 0
    own = repo / f".purlin/cache/checkpoints/{SESSION}.md"
    saved_text = own.read_text()

    out = hook(
        "pre-compact",
        payload("PreCompact", transcript, repo, trigger="auto", custom_instructions=""),
        repo,
        **env,
    )
    assert out.returncode == 0
    assert own.read_text() == saved_text  # the agent's own save wins over the automatic one

    context = briefing_of(
        hook("session-start", payload("SessionStart", transcript, repo, source="compact"), repo)
    )
    assert "restoring the QA" in context
    assert "restoring the Builder" not in context
    assert "Scenario progress: 5 of 8 scenarios completed" in context
    assert own.exists()  # a checkpoint the agent saved stays live for /pl-resume


def test_an_automatic_checkpoint_takes_the_role_of_the_sessions_own_last_save(repo, cli, tmp_path):
    transcript = qa_transcript(tmp_path)
    env = {"CLAUDE_CODE_SESSION_ID": SESSION}
    assert cli("save", *QA_FIELDS, env=env).exit_code == 0
    assert cli("restore", env=env).exit_code == 0  # consumed into the archive
    assert not (repo / f".purlin/cache/checkpoints/{SESSION}.md").exists()

    hook("pre-compact", payload("PreCompact", transcript, repo, trigger="auto"), repo, **env)
    automatic = checkpoints.read(repo / f".purlin/cache/checkpoints/{SESSION}.md")
    assert automatic.source == "PreCompact hook (auto compaction)"
    assert automatic.role == "qa"
    assert automatic.scenario_progress == "5 of 8 scenarios completed"  # the plan goes on
    context = briefing_of(
        hook("session-start", payload("SessionStart", transcript, repo, source="compact"), repo)
    )
    assert "restoring the QA" in context


def test_an_automatic_checkpoint_without_any_save_is_the_builders(repo, tmp_path):
    transcript = qa_transcript(tmp_path)
    hook("pre-compact", payload("PreCompact", transcript, repo, trigger="manual"), repo)
    automatic = checkpoints.read(repo / f".purlin/cache/checkpoints/{SESSION}.md")
    assert automatic.role == "builder"


def test_a_session_started_with_a_role_keeps_it(repo, cli, tmp_path):
    transcript = qa_transcript(tmp_path)
    hook(
        "session-start",
        payload("SessionStart", transcript, repo, source="startup"),
        repo,
        PURLIN_ROLE="architect",
    )
    assert registry.load(Project(repo))[SESSION].role == "architect"
    hook("pre-compact", payload("PreCompact", transcript, repo, trigger="auto"), repo)
    assert checkpoints.read(repo / f".purlin/cache/checkpoints/{SESSION}.md").role == "architect"


def test_restore_without_a_role_uses_this_sessions_checkpoint_first(repo, cli, tmp_path):
    env = {"CLAUDE_CODE_SESSION_ID": SESSION}
    assert cli("save", *QA_FIELDS, env=env).exit_code == 0
    prompt = tmp_path / "system.md"
    prompt.write_text("You are the Builder of this project.\n")
    out = cli("restore", "--system-prompt", str(prompt), "--keep", env=env)
    assert out.exit_code == 0, out.stderr
    assert "Role: QA (from the session's own checkpoint)" in out.stdout
    other = cli("restore", "--system-prompt", str(prompt), "--keep", env={})
    assert "Role: Builder (from the system prompt)" in other.stdout


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("You are the Builder. Later: you are the QA agent.", "names 2 roles (builder and qa)"),
        ("A helpful assistant.", "none found in the system prompt"),
    ],
)
def test_restore_says_why_it_could_not_tell_the_role(repo, cli, tmp_path, prompt, message):
    path = tmp_path / "system.md"
    path.write_text(prompt)
    out = cli("restore", "--system-prompt", str(path), input="")
    assert out.exit_code == 2
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_the_slash_command_passes_the_session_placeholder():
    from purlin_resume.core.resources import commands_dir

    command = (commands_dir() / "pl-resume.md").read_text()
    assert 'purlin-resume save --session "${CLAUDE_SESSION_ID}" --from -' in command
