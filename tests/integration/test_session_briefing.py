"""What SessionStart tells the model, from SessionStart payloads as Claude Code sends them
(``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, ``source``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from purlin_resume.core import clock
from tests.claude_records import Conversation, text, write_jsonl
from tests.gsd_files import entry, write_history
from tests.integration.test_hooks import hook, log_lines

SESSION = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def start(root: Path, source: str, session: str = SESSION, **env: str):
    payload = {
        "session_id": session,
        "transcript_path": str(root.parent / f"{session}.jsonl"),
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": source,
    }
    return hook("session-start", payload, root, **env)


def context(out) -> str:
    assert out.returncode == 0, out.stderr
    assert out.stdout, "no briefing was printed"
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def automatic_checkpoint(root: Path, tmp_path: Path) -> None:
    """What PreCompact leaves in a project that has never heard of Purlin roles."""
    talk = Conversation(SESSION, cwd=str(root))
    transcript = write_jsonl(
        tmp_path / f"{SESSION}.jsonl",
        [talk.user("Fix the flaky upload test"), talk.assistant("m1", text("Looking at it."))],
    )
    payload = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "custom_instructions": "",
    }
    assert hook("pre-compact", payload, root).returncode == 0


@pytest.mark.parametrize("source", ["compact", "clear"])
def test_a_project_without_roles_gets_a_neutral_briefing(repo, tmp_path, source):
    automatic_checkpoint(repo, tmp_path)
    brief = context(start(repo, source))
    assert "Fix the flaky upload test" in brief
    assert "## Git" in brief
    assert "Branch: main" in brief
    for persona in ("Builder", "Architect", "QA", "Role Compact", "/pl-", "Critic"):
        assert persona not in brief
    assert len(brief) < 2000


def test_a_project_with_instructions_gets_the_role_briefing(repo, tmp_path):
    (repo / "instructions").mkdir()
    automatic_checkpoint(repo, tmp_path)
    brief = context(start(repo, "compact"))
    assert "restoring the Builder" in brief
    assert "Role Compact" in brief


def test_a_role_in_the_config_means_the_project_uses_roles(repo, tmp_path):
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "config.json").write_text('{"agents": {"qa": {"model": "x"}}}')
    automatic_checkpoint(repo, tmp_path)
    assert "Role Compact" in context(start(repo, "compact"))


def test_after_clear_interrupted_and_running_subagents_are_listed(repo):
    group = "phase-05-batch-1736676000"
    write_history(
        repo,
        [
            entry("a1b2c3d4e5f6a7b8c", "interrupted", task_description="Explore the parser"),
            entry("agent_p1", "interrupted", parallel_group=group, execution_mode="parallel"),
            entry("agent_p2", "interrupted", parallel_group=group, execution_mode="parallel"),
            entry(
                "agent_run",
                "spawned",
                task_description="Write the migration",
                timestamp=clock.iso(),
            ),
            entry("agent_done", "completed"),
        ],
    )
    brief = context(start(repo, "clear"))
    assert "No checkpoint found" in brief
    assert "`purlin-resume resume-task a1b2c3d4e5f6a7b8c`" in brief
    assert "Explore the parser" in brief
    assert f"`purlin-resume resume-task --batch {group}`" in brief
    assert "Still marked running (1)" in brief
    assert "Write the migration" in brief
    assert "agent_done" not in brief


def test_startup_briefs_when_subagents_wait_even_without_a_checkpoint(repo):
    assert start(repo, "startup").stdout == ""
    write_history(repo, [entry("agent_x", "interrupted")])
    assert "resume-task agent_x" in context(start(repo, "startup"))


def test_an_id_that_is_not_shell_safe_never_reaches_a_command(repo):
    # a branch can carry a hostile id in the committed history: it is refused where it enters,
    # the subagents part is one line naming the file, and no command holding it is printed
    write_history(repo, [entry("x; rm -rf ~", "interrupted")])
    brief = context(start(repo, "clear"))
    broken = [line for line in brief.splitlines() if "subagents unavailable" in line]
    assert len(broken) == 1
    assert "agent-history.json" in broken[0]
    assert "resume-task" not in brief


def test_a_corrupt_agent_history_costs_one_line_not_the_briefing(repo, tmp_path):
    automatic_checkpoint(repo, tmp_path)
    (repo / ".planning").mkdir()
    (repo / ".planning" / "agent-history.json").write_text("{ not json")
    brief = context(start(repo, "compact"))
    assert "Fix the flaky upload test" in brief  # the checkpoint part is still given
    broken = [line for line in brief.splitlines() if "subagents unavailable" in line]
    assert len(broken) == 1
    assert "agent-history.json" in broken[0]
    assert (repo / ".planning" / "agent-history.json").read_text() == "{ not json"


def test_a_corrupt_checkpoint_costs_one_line_and_stays(repo):
    own = repo / ".purlin" / "cache" / "checkpoints" / f"{SESSION}.md"
    own.parent.mkdir(parents=True)
    own.write_text("not a checkpoint at all")
    write_history(repo, [entry("agent_x", "interrupted")])
    brief = context(start(repo, "compact"))
    assert "checkpoint unavailable" in brief
    assert "resume-task agent_x" in brief
    assert own.read_text() == "not a checkpoint at all"


def test_a_corrupt_config_falls_back_to_the_defaults_and_says_so(repo, tmp_path):
    automatic_checkpoint(repo, tmp_path)
    (repo / ".purlin" / "config.json").write_text('{"resume": {"status_timeout": "soon"}}')
    brief = context(start(repo, "compact"))
    assert "Fix the flaky upload test" in brief
    assert "status_timeout must be a positive number; using the default settings" in brief
    assert log_lines(repo) == []


def test_secrets_in_a_checkpoint_never_reach_the_briefing(repo, tmp_path):
    secret = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    talk = Conversation(SESSION, cwd=str(repo))
    transcript = write_jsonl(
        tmp_path / f"{SESSION}.jsonl", [talk.user(f"deploy with token {secret} please")]
    )
    payload = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(repo)}
    hook("pre-compact", {**payload, "hook_event_name": "PreCompact", "trigger": "auto"}, repo)
    brief = context(start(repo, "compact"))
    assert "deploy with token" in brief
    assert secret not in brief


def test_a_task_cut_to_fit_its_line_is_redacted_before_it_is_cut(repo):
    # a history written by GSD's own tooling holds its tasks as they were given
    token = "ghp_" + "S" * 36
    write_history(repo, [entry("agent_x", "interrupted", task_description="x" * 109 + " " + token)])
    brief = context(start(repo, "clear"))
    assert "resume-task agent_x" in brief
    assert "ghp_SS" not in brief


def test_a_long_checkpoint_is_cut_and_the_subagents_waiting_are_still_listed(repo, cli):
    write_history(repo, [entry("agent_x", "interrupted", task_description="Execute plan 01-01")])
    long = "word " * 3000  # past the hook's limit by itself
    saved = cli("save", "--session", SESSION, "--role", "builder", "--step", "1", "--next", "n",
                "--in-progress", long)  # fmt: skip
    assert saved.exit_code == 0, saved.stderr
    brief = context(start(repo, "compact"))
    assert len(brief) <= 10_000
    assert "[... cut to fit the hook's context limit]" in brief
    assert "`purlin-resume resume-task agent_x`" in brief
    assert brief.rstrip().endswith("(an agent or group id).")  # the subagents part, whole
