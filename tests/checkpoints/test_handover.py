"""Checkpoints between agents working in one project at once: a running agent's checkpoint is
its own, a checkpoint is taken once, and the role and plan go with the session that took it."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest

from purlin_resume.agents import handover, registry
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.core.project import Project
from tests.integration.test_hooks import hook

QA = ["--role", "qa", "--next", "n", "--scenario-progress", "1 of 2", "--current-scenario", "s"]


@pytest.fixture
def live_process():
    """A process standing for a Claude Code that still runs."""
    with subprocess.Popen(["sleep", "120"]) as process:
        yield process.pid
        process.kill()


def save(cli, session: str, work: str, role_fields=QA) -> None:
    done = cli("save", *role_fields, "--in-progress", work, "--session", session)
    assert done.exit_code == 0, done.output


def test_a_restore_leaves_the_checkpoint_of_a_running_agent_alone(repo, cli, live_process):
    project = Project(repo)
    save(cli, "A", "A's work")
    save(cli, "B", "B's work")
    registry.record_start(project, "A", pid=12345678)  # A's process is gone
    registry.record_end(project, "A")
    registry.record_start(project, "B", pid=live_process)
    env = {"CLAUDE_CODE_SESSION_ID": "A2"}
    out = cli("restore", "qa", env=env)
    assert out.exit_code == 0, out.output
    assert "A's work" in out.stdout
    assert "B's work" not in out.stdout
    assert [c.session for c in checkpoints.live(project)] == ["B"]
    again = cli("restore", "qa", env={"CLAUDE_CODE_SESSION_ID": "A3"})
    assert "B's work" not in again.stdout
    assert "still running" in again.stdout
    assert cli("restore", "--session", "B").exit_code == 1  # not even when named
    assert [c.session for c in checkpoints.live(project)] == ["B"]


def test_two_restores_at_once_never_take_one_checkpoint_twice(repo, cli):
    project = Project(repo)
    save(cli, "dead-1", "the only work")
    both_chose = threading.Barrier(2)
    results: dict[str, tuple] = {}

    def restore(name: str) -> None:
        first = [True]

        def choosing():
            choice = checkpoints.choose(project, "qa", name, False)
            if first:  # both have chosen the same checkpoint before either takes it
                first.clear()
                both_chose.wait(10)
            return choice

        results[name] = checkpoints.claim(project, choosing)

    threads = [threading.Thread(target=restore, args=(n,)) for n in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    # the one that lost chose again and found nothing left
    assert sorted(str(c.chosen and c.chosen.session) for c, _ in results.values()) == [
        "None",
        "dead-1",
    ]
    taken = [archived for _choice, archived in results.values() if archived is not None]
    assert len(taken) == 1
    assert taken[0].exists()
    assert checkpoints.live(project) == []


def test_after_clear_restore_without_a_role_takes_the_agents_own_checkpoint(repo, cli):
    """/clear starts a new session in the same process; it is still the same QA agent."""
    project = Project(repo)
    registry.record_start(project, "before", pid=999_999_01)
    save(cli, "before", "before-clear work")
    save(cli, "other", "another QA's work")  # newer, of an agent that ended
    registry.record_end(project, "before")
    registry.record_start(project, "after", pid=999_999_01)
    assert handover.role_of(project, "after") == "qa"
    out = cli("restore", env={"CLAUDE_CODE_SESSION_ID": "after"})
    assert out.exit_code == 0, out.output
    assert "before-clear work" in out.stdout
    # from now on the role and the plan are the restoring session's
    agent = registry.load(project)["after"]
    assert agent.role == "qa"
    assert agent.restored_from.startswith(".purlin/cache/archive/")
    carried = handover.carried(project, "after")
    assert carried is not None
    assert carried.in_progress == "before-clear work"


def test_a_session_started_again_keeps_its_role_and_predecessor(repo):
    project = Project(repo)
    registry.record_start(project, "s", pid=1, role="qa", previous_agent_id="p")
    again = registry.record_start(project, "s", pid=2)["s"]  # SessionStart(compact), no role
    assert (again.role, again.previous_agent_id, again.pid) == ("qa", "p", 2)


def test_a_process_runs_one_session_at_a_time(repo, live_process):
    project = Project(repo)
    registry.record_start(project, "first", pid=live_process)
    registry.record_start(project, "second", pid=live_process)  # /clear, no SessionEnd seen
    agents = registry.load(project)
    assert registry.running_sessions(agents) == {"second"}
    assert registry.predecessor_in_process(agents, "second").session_id == "first"
    assert registry.predecessor_in_process(agents, "first") is None


def test_a_fork_registers_its_new_id_not_the_one_it_resumed(repo, tmp_path):
    """``claude --resume X --fork-session --session-id N`` reports X at SessionStart."""
    project = Project(repo)
    registry.record_start(project, "x-dead", pid=12345678, role="qa")
    registry.record_end(project, "x-dead")
    payload = {
        "session_id": "x-dead",
        "transcript_path": str(tmp_path / "x-dead.jsonl"),
        "cwd": str(repo),
        "hook_event_name": "SessionStart",
        "source": "resume",
    }
    env = {"PURLIN_PREVIOUS_AGENT_ID": "x-dead", "PURLIN_AGENT_ID": "n-new", "PURLIN_ROLE": "qa"}
    assert hook("session-start", payload, repo, **env).returncode == 0
    agents = registry.load(project)
    assert agents["x-dead"].ended_at is not None  # the dead agent stays dead
    new = agents["n-new"]
    assert (new.previous_agent_id, new.role, new.ended_at) == ("x-dead", "qa", None)
    assert new.transcript_path == str(tmp_path / "n-new.jsonl")


def started(repo, session: str, source: str, **env: str) -> str:
    """SessionStart of ``session`` through the real hook (all in this test's process, as one
    Claude Code process runs its sessions one after another); the briefing given."""
    payload = {"session_id": session, "cwd": str(repo), "source": source}
    out = hook("session-start", payload, repo, **env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def ended(repo, session: str, reason: str = "clear") -> None:
    payload = {"session_id": session, "cwd": str(repo), "reason": reason}
    assert hook("session-end", payload, repo).returncode == 0


def test_after_two_clears_the_agent_gets_back_its_own_work_not_a_newer_one(repo, cli):
    """A0 saves, /clear to A1, QA agent C saves and quits, /clear to A2: A's work, however many
    /clears ago it was saved, not C's newer one."""
    started(repo, "A0", "startup")
    save(cli, "A0", "A-WORK")
    ended(repo, "A0")
    started(repo, "A1", "clear")
    save(cli, "C", "C-WORK")
    ended(repo, "A1")
    brief = started(repo, "A2", "clear")
    assert "A-WORK" in brief
    assert "C-WORK" not in brief
    out = cli("restore", env={"CLAUDE_CODE_SESSION_ID": "A2"})
    assert out.exit_code == 0, out.output
    assert "A-WORK" in out.stdout
    assert "C-WORK" not in out.stdout
    assert "(from the agent's role)" in out.stdout
    assert [c.session for c in checkpoints.live(Project(repo))] == ["C"]  # the next QA's


def test_a_save_after_clear_supersedes_the_agents_checkpoint_from_before(repo, cli):
    """A saves OLD, /clear, saves NEW and quits: a new QA agent gets NEW, the next one not OLD."""
    project = Project(repo)
    started(repo, "A0", "startup")
    save(cli, "A0", "OLD-WORK")
    ended(repo, "A0")
    started(repo, "A1", "clear")
    save(cli, "A1", "NEW-WORK")
    ended(repo, "A1", "prompt_input_exit")
    assert [c.session for c in checkpoints.live(project)] == ["A1"]
    first = cli("restore", "qa", env={"CLAUDE_CODE_SESSION_ID": "N1"})
    assert "NEW-WORK" in first.stdout
    assert "OLD-WORK" not in first.stdout
    assert "remain" not in first.stdout
    second = cli("restore", "qa", env={"CLAUDE_CODE_SESSION_ID": "N2"})
    assert "OLD-WORK" not in second.stdout
    assert "No checkpoint found" in second.stdout


def test_a_save_archives_what_the_same_process_saved_before_clear(repo, cli):
    """Even when no briefing took the older checkpoint over, the newer save supersedes it."""
    project = Project(repo)
    registry.record_start(project, "A0", pid=999_999_02, source="startup")
    save(cli, "A0", "OLD-WORK")
    save(cli, "other", "another QA's work")  # an agent that ended: left alone
    registry.record_start(project, "A1", pid=999_999_02, source="clear")  # no hook ran
    said = cli("save", *QA, "--in-progress", "NEW-WORK", "--session", "A1", "--json")
    assert said.exit_code == 0, said.output
    assert sorted(c.session for c in checkpoints.live(project)) == ["A1", "other"]
    (kept,) = checkpoints.archive_dir(project).glob("*.md")
    assert kept.name.startswith("A0-superseded-")
    assert "OLD-WORK" in kept.read_text()
    assert json.loads(said.stdout)["superseded"] == [project.relative(kept)]
    again = cli("save", *QA, "--in-progress", "NEWER", "--session", "A1")
    assert "before /clear" not in again.stdout  # nothing more to archive
    assert handover.role_of(project, "A1") == "qa"


def test_two_agents_starting_together_are_not_briefed_with_one_checkpoint(repo, cli):
    """A dead QA's checkpoint is handed to the first QA agent's briefing, which claims it."""
    project = Project(repo)
    save(cli, "C", "C-WORK")
    registry.record_end(project, "C")
    briefs = {}

    def start(session: str) -> None:
        briefs[session] = started(repo, session, "startup", PURLIN_ROLE="qa")

    threads = [threading.Thread(target=start, args=(s,)) for s in ("X", "Y")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    got = sorted(s for s, brief in briefs.items() if "C-WORK" in brief)
    assert len(got) == 1, briefs
    assert checkpoints.live(project) == []
    (taker,) = got
    other = "Y" if taker == "X" else "X"
    # the one briefed restores it; the other finds nothing of C's
    mine = cli("restore", env={"CLAUDE_CODE_SESSION_ID": taker})
    assert "C-WORK" in mine.stdout, mine.output
    theirs = cli("restore", "qa", env={"CLAUDE_CODE_SESSION_ID": other})
    assert "C-WORK" not in theirs.stdout
