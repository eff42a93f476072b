from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest

from purlin_resume.agents import registry
from purlin_resume.core import clock
from purlin_resume.core.project import Project
from tests.conftest import commit_file, git
from tests.gsd_files import entry, one_error_line, read_history, snapshot, statuses, write_history

TEN_LINES = "".join(f"line {i}\n" for i in range(1, 11))


def spawn(cli, agent_id, *extra):
    result = cli(
        "history", "spawn", "--agent-id", agent_id, "--task", f"Execute plan of {agent_id}",
        "--phase", "05", "--plan", "01", *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result


def ago(minutes: float) -> str:
    return clock.iso(clock.now() - timedelta(minutes=minutes))


def edit_line(text: str, number: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[number - 1] = new + "\n"
    return "".join(lines)


# --- choosing what to resume -------------------------------------------------------------------


def test_no_argument_resumes_the_most_recent_interrupted_agent(repo, cli):
    spawn(cli, "agent_a")
    spawn(cli, "agent_b")
    spawn(cli, "agent_c")
    for agent in ("agent_a", "agent_b"):
        assert cli("history", "interrupt", agent).exit_code == 0

    first = cli("resume-task")
    assert first.exit_code == 0, first.stderr
    assert "## Agent agent_b" in first.stdout
    assert "agent_a" not in first.stdout
    second = cli("resume-task", "--json")
    assert json.loads(second.stdout)["agents"][0]["agent_id"] == "agent_a"
    third = cli("resume-task")
    assert third.exit_code == 1
    message = one_error_line(third)
    assert "no interrupted agent" in message
    assert "agent_c" in message
    assert statuses(repo) == [
        ("agent_a", "interrupted"),
        ("agent_b", "interrupted"),
        ("agent_c", "spawned"),
        ("agent_b", "resumed"),
        ("agent_a", "resumed"),
    ]


def test_resume_records_the_spec_pair_and_the_successor_can_complete(repo, cli, monkeypatch):
    monkeypatch.setenv("PURLIN_SESSION_ID", "first-session")
    spawn(cli, "agent_01HXY123ABC", "--segment", "2")
    cli("history", "interrupt", "agent_01HXY", "--files", "src/a.py")
    head = commit_file(repo, "other.txt", "someone else\n")
    monkeypatch.setenv("PURLIN_SESSION_ID", "second-session")

    result = cli("resume-task", "agent_01")
    assert result.exit_code == 0, result.stderr
    old, new = read_history(repo)["entries"]
    assert old["status"] == "interrupted"
    assert old["session_id"] == "first-session"
    assert new["status"] == "resumed"
    assert new["agent_id"] == "agent_01HXY123ABC"
    assert new["session_id"] == "second-session"
    assert new["spawn_commit"] == head
    assert new["completion_timestamp"] is None
    assert new["files_modified"] == ["src/a.py"]
    assert (repo / ".planning" / "current-agent-id.txt").read_text() == "agent_01HXY123ABC\n"

    briefing = result.stdout
    for expected in (
        "Execute plan of agent_01HXY123ABC",
        "Phase 05, plan 01, segment 2",
        "`src/a.py`",
        "change other.txt",
        "`other.txt`",
        "purlin-resume history complete agent_01HXY123ABC --files FILE",
        "not reachable from here (it ran in session first-session)",
    ):
        assert expected in briefing, expected

    assert cli("history", "complete", "agent_01HXY123ABC").exit_code == 0
    assert statuses(repo) == [
        ("agent_01HXY123ABC", "interrupted"),
        ("agent_01HXY123ABC", "completed"),
    ]


def test_briefing_mentions_the_old_agent_when_this_session_spawned_it(repo, cli):
    spawn(cli, "agent_a", "--session", "s-1")
    cli("history", "interrupt", "agent_a")
    same = cli("resume-task", "--session", "s-1")
    assert "SendMessage to `agent_a`" in same.stdout
    assert json.loads(cli("history", "list", "--json").stdout)["entries"][-1]["session_id"] == "s-1"


def test_resume_of_a_gsd_written_minimal_entry(repo, cli):
    write_history(repo, [{"agent_id": "agent_min", "status": "interrupted"}])
    result = cli("resume-task")
    assert result.exit_code == 0, result.stderr
    assert "(no task description was recorded)" in result.stdout
    assert "no spawn commit was recorded" in result.stdout
    assert statuses(repo) == [("agent_min", "interrupted"), ("agent_min", "resumed")]


def test_a_secret_in_a_hand_made_entry_is_not_copied_into_the_new_one(repo, cli):
    secret = "Hunter2Secret99xq"
    task = f"Execute plan 01-02 password={secret}"
    write_history(repo, [entry("agent_old", "interrupted", task_description=task)])
    assert cli("resume-task", "agent_old").exit_code == 0
    old, resumed = read_history(repo)["entries"]
    assert old["task_description"] == task  # what the file held is left as it was
    assert resumed["status"] == "resumed"
    assert "[REDACTED:" in resumed["task_description"]
    assert secret not in json.dumps(resumed)


@pytest.mark.parametrize(
    ("status", "says"),
    [
        ("spawned", "history interrupt agent_x"),
        ("resumed", "history interrupt agent_x"),
        ("completed", "only an interrupted agent"),
        ("failed", "only an interrupted agent"),
        ("queued", "only an interrupted agent"),
    ],
)
def test_an_agent_that_is_not_interrupted_is_not_resumed(repo, cli, status, says):
    write_history(repo, [entry("agent_x", status, timestamp=ago(1))])
    before = snapshot(repo)
    result = cli("resume-task", "agent_x")
    assert result.exit_code == 1
    assert says in one_error_line(result)
    assert snapshot(repo) == before


def test_unknown_and_ambiguous_ids_to_resume(repo, cli):
    write_history(repo, [entry("agent_1a", "interrupted"), entry("agent_1b", "interrupted")])
    before = snapshot(repo)
    unknown = cli("resume-task", "agent_9")
    assert unknown.exit_code == 1
    assert "no agent 'agent_9'" in one_error_line(unknown)
    ambiguous = cli("resume-task", "agent_1")
    assert ambiguous.exit_code == 1
    assert "agent_1a" in one_error_line(ambiguous)
    assert "agent_1b" in ambiguous.stderr
    assert snapshot(repo) == before


# --- batches -----------------------------------------------------------------------------------


def test_batch_resumes_every_interrupted_agent_of_the_group(repo, cli):
    group = "phase-05-batch-1736676000"
    for agent in ("p1", "p2", "p3"):
        spawn(cli, agent, "--group", group)
    spawn(cli, "other", "--new-group")
    spawn(cli, "solo")
    for agent in ("p1", "p3", "other", "solo"):
        cli("history", "interrupt", agent)
    cli("history", "complete", "p2")

    result = cli("resume-task", "--batch", group, "--json")
    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)
    assert [a["agent_id"] for a in done["agents"]] == ["p1", "p3"]
    assert done["group"] == group
    briefing = done["briefing"]
    assert f"# Resume briefing: parallel group {group}" in briefing
    assert "## Agent p1" in briefing
    assert "## Agent p3" in briefing
    assert "p2" not in briefing
    assert statuses(repo)[-2:] == [("p1", "resumed"), ("p3", "resumed")]
    assert ("other", "interrupted") in statuses(repo)
    assert ("solo", "interrupted") in statuses(repo)

    again = cli("resume-task", "p2", "--batch")
    assert again.exit_code == 1
    assert f"parallel group {group} has no interrupted agents" in one_error_line(again)


def test_batch_without_argument_takes_the_group_of_the_latest_interrupted_agent(repo, cli):
    spawn(cli, "g1", "--group", "group-one")
    spawn(cli, "g2", "--group", "group-two")
    spawn(cli, "g3", "--group", "group-two")
    spawn(cli, "solo")
    for agent in ("g1", "g2", "g3", "solo"):
        cli("history", "interrupt", agent)
    result = cli("resume-task", "--batch", "--json")
    assert [a["agent_id"] for a in json.loads(result.stdout)["agents"]] == ["g2", "g3"]


def test_batch_of_an_agent_outside_any_group_is_refused(repo, cli):
    spawn(cli, "solo")
    cli("history", "interrupt", "solo")
    before = snapshot(repo)
    result = cli("resume-task", "solo", "--batch")
    assert result.exit_code == 1
    assert "no parallel group" in one_error_line(result)
    assert snapshot(repo) == before


# --- conflicts ---------------------------------------------------------------------------------


@pytest.fixture
def agent_on_branch(repo, cli, tmp_path):
    """An agent spawned with its own worktree branch, then interrupted; returns that worktree."""
    commit_file(repo, "src/shared.txt", TEN_LINES)
    spawn(cli, "agent_w", "--ref", "agent-w")
    worktree = tmp_path / "agent-w"
    git(repo, "worktree", "add", "-q", "-b", "agent-w", str(worktree))
    commit_file(worktree, "src/shared.txt", edit_line(TEN_LINES, 1, "line 1 by the agent"))
    commit_file(worktree, "src/own.txt", "only the agent\n")
    assert cli("history", "interrupt", "agent_w").exit_code == 0
    return worktree


def test_a_clean_overlap_is_reported_and_does_not_stop_the_resume(repo, cli, agent_on_branch):
    commit_file(repo, "src/shared.txt", edit_line(TEN_LINES, 10, "line 10 by another agent"))
    result = cli("resume-task", "agent_w", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)["agents"][0]["conflicts"]
    assert report["agent_files"] == ["src/own.txt", "src/shared.txt"]
    assert report["agent_files_from"] == "work_ref"
    assert report["overlaps"] == [{"path": "src/shared.txt", "kind": "clean"}]
    assert report["blocking"] == []
    assert (
        "`src/shared.txt`: changed on both sides, merges cleanly"
        in json.loads(result.stdout)["briefing"]
    )


def test_a_real_conflict_stops_the_resume_until_forced(repo, cli, agent_on_branch):
    commit_file(repo, "src/shared.txt", edit_line(TEN_LINES, 1, "line 1 by another agent"))
    before = snapshot(repo)
    result = cli("resume-task", "agent_w")
    assert result.exit_code == 1
    message = one_error_line(result)
    assert "agent agent_w: src/shared.txt (conflict)" in message
    assert "--force" in message
    assert result.stdout == ""
    assert snapshot(repo) == before, "a stopped resume records nothing"

    forced = cli("resume-task", "agent_w", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "`src/shared.txt`: CONFLICT with the agent's own changes" in forced.stdout
    assert statuses(repo)[-1] == ("agent_w", "resumed")


def test_uncommitted_changes_count_as_changed_since_spawn(repo, cli, agent_on_branch):
    (repo / "src" / "shared.txt").write_text(
        edit_line(TEN_LINES, 1, "line 1 edited, not committed")
    )
    result = cli("resume-task", "agent_w")
    assert result.exit_code == 1
    assert "src/shared.txt (conflict)" in one_error_line(result)
    (repo / "src" / "shared.txt").write_text(
        edit_line(TEN_LINES, 5, "line 5 edited, not committed")
    )
    clean = cli("resume-task", "agent_w", "--json")
    assert clean.exit_code == 0, clean.stderr
    report = json.loads(clean.stdout)["agents"][0]["conflicts"]
    assert report["uncommitted"] == ["src/shared.txt"]
    assert report["overlaps"] == [{"path": "src/shared.txt", "kind": "clean"}]


def test_without_the_agents_branch_an_overlap_is_unverified_and_stops(repo, cli):
    commit_file(repo, "src/a.py", "a = 1\n")
    spawn(cli, "agent_s")
    cli("history", "interrupt", "agent_s", "--files", "src/a.py", "--files", "src/b.py")
    commit_file(repo, "src/a.py", "a = 2\n")
    commit_file(repo, "src/unrelated.py", "x = 1\n")
    result = cli("resume-task")
    assert result.exit_code == 1
    message = one_error_line(result)
    assert "src/a.py (unverified)" in message
    assert "src/b.py" not in message
    assert "unrelated" not in message
    forced = cli("resume-task", "--force", "--json")
    report = json.loads(forced.stdout)["agents"][0]["conflicts"]
    assert report["changed"] == ["src/a.py", "src/unrelated.py"]
    assert len(report["commits"]) == 2


def test_our_own_state_files_are_never_someone_elses_change(repo, cli):
    spawn(cli, "agent_s")
    cli("history", "interrupt", "agent_s", "--files", ".planning/agent-history.json")
    result = cli("resume-task", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)["agents"][0]["conflicts"]
    assert report["uncommitted"] == []
    assert report["overlaps"] == []


def test_a_work_ref_that_does_not_exist_is_named(repo, cli):
    spawn(cli, "agent_s", "--ref", "no-such-branch")
    cli("history", "interrupt", "agent_s", "--files", "x.py")
    before = snapshot(repo)
    result = cli("resume-task")
    assert result.exit_code == 1
    assert "no-such-branch" in one_error_line(result)
    assert snapshot(repo) == before


# --- scan: is the spawning session over? -------------------------------------------------------


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_scan_uses_the_registry_then_the_age(repo, cli):
    project = Project(repo)
    registry.record_start(project, "ended", pid=os.getpid())
    registry.record_end(project, "ended")
    registry.record_start(project, "alive", pid=os.getpid())
    registry.record_start(project, "dead", pid=dead_pid())
    write_history(
        repo,
        [
            entry("by_end", timestamp=ago(1), session_id="ended"),
            entry("by_pid", timestamp=ago(1), session_id="dead"),
            entry("running_old", timestamp=ago(600), session_id="alive"),
            entry("unknown_old", timestamp=ago(121), session_id="never-registered"),
            entry("unknown_young", timestamp=ago(30), session_id=None),
            entry("done", "completed", timestamp=ago(600)),
        ],
    )
    result = cli("history", "scan", "--json")
    assert result.exit_code == 0, result.stderr
    found = {d["entry"]["agent_id"]: d["reason"] for d in json.loads(result.stdout)["interrupted"]}
    assert set(found) == {"by_end", "by_pid", "unknown_old"}
    assert "session ended is over" in found["by_end"]
    assert "minutes ago" in found["unknown_old"]
    assert [s for _, s in statuses(repo)] == [
        "interrupted",
        "interrupted",
        "spawned",
        "interrupted",
        "spawned",
        "completed",
    ]
    assert cli("history", "scan").stdout.strip() == "no running agent found interrupted"


def test_scan_names_a_cut_off_spawn_from_its_agents_meta_file(repo, cli, tmp_path):
    """A foreground subagent cut off with its session never returned, so its spawn is still
    keyed by the tool call; the scan takes the agent's id from the ``.meta.json`` Claude Code
    wrote beside the agent's transcript (an unrelated agent's file changes nothing)."""
    project = Project(repo)
    session = tmp_path / "claude" / "projects" / "-project" / "s-cut.jsonl"
    agents = session.with_suffix("") / "subagents"
    agents.mkdir(parents=True)
    session.write_text("")
    (agents / "agent-a0123456789abcdef.meta.json").write_text(
        json.dumps({"agentType": "general-purpose", "toolUseId": "toolu_other"})
    )
    (agents / "agent-afedcba9876543210.meta.json").write_text(
        json.dumps({"agentType": "general-purpose", "toolUseId": "toolu_cut"})
    )
    registry.record_start(project, "s-cut", pid=os.getpid(), transcript_path=str(session))
    registry.record_end(project, "s-cut")
    write_history(
        repo,
        [
            entry("toolu_cut", timestamp=ago(1), session_id="s-cut", tool_use_id="toolu_cut"),
            entry("toolu_lost", timestamp=ago(1), session_id="s-cut", tool_use_id="toolu_lost"),
        ],
    )
    assert cli("history", "scan").exit_code == 0
    kept = {e["tool_use_id"]: e for e in read_history(repo)["entries"]}
    assert kept["toolu_cut"]["agent_id"] == "afedcba9876543210"
    assert kept["toolu_cut"]["status"] == "interrupted"
    assert kept["toolu_lost"]["agent_id"] == "toolu_lost"  # no agent file names it


def test_resume_task_detects_interrupted_agents_itself(repo, cli):
    write_history(repo, [entry("stale", timestamp=ago(500))])
    result = cli("resume-task", "--json")
    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)
    assert done["detected"][0]["agent_id"] == "stale"
    assert statuses(repo) == [("stale", "interrupted"), ("stale", "resumed")]


def test_interrupt_age_is_a_setting(repo, cli):
    write_history(repo, [entry("young", timestamp=ago(5))])
    assert cli("history", "scan", "--json").stdout.count("young") == 0
    config = repo / ".purlin" / "config.json"
    config.parent.mkdir()
    config.write_text('{"resume": {"interrupt_after_minutes": 0}}')
    bad = cli("history", "scan")
    assert bad.exit_code == 1
    assert "interrupt_after_minutes must be a positive number" in one_error_line(bad)
    config.write_text('{"resume": {"interrupt_after_minutes": 1}}')
    assert "young" in cli("history", "scan").stdout
    assert statuses(repo) == [("young", "interrupted")]


def test_a_corrupt_registry_is_named_and_nothing_is_marked(repo, cli):
    write_history(repo, [entry("stale", timestamp=ago(500))])
    agents = repo / ".purlin" / "agents.json"
    agents.parent.mkdir()
    agents.write_text('{"version": 1, "agents": []}')
    before = snapshot(repo)
    result = cli("history", "scan")
    assert result.exit_code == 1
    assert str(agents) in one_error_line(result)
    assert snapshot(repo) == before


def test_the_gsd_slash_command_calls_the_cli_with_its_arguments():
    import yaml

    from purlin_resume.core.resources import commands_dir

    text = (commands_dir() / "gsd/resume-task.md").read_text()
    _, front, body = text.split("---\n", 2)
    meta = yaml.safe_load(front)
    assert meta["allowed-tools"] == "Bash(purlin-resume:*)"
    assert meta["description"]
    assert "--batch" in meta["argument-hint"]
    assert "purlin-resume resume-task $ARGUMENTS" in body
    assert "--force" in body
    assert "history complete" in body


def test_ref_given_at_resume_checks_that_branch_and_is_recorded(repo, cli, tmp_path):
    commit_file(repo, "src/shared.txt", TEN_LINES)
    spawn(cli, "agent_r")
    cli("history", "interrupt", "agent_r", "--files", "src/shared.txt")
    worktree = tmp_path / "agent-r"
    git(repo, "worktree", "add", "-q", "-b", "agent-r", str(worktree), "HEAD")
    commit_file(worktree, "src/shared.txt", edit_line(TEN_LINES, 2, "line 2 by the agent"))
    commit_file(repo, "src/shared.txt", edit_line(TEN_LINES, 9, "line 9 by another agent"))
    assert cli("resume-task", "agent_r").exit_code == 1, "unverified without the branch"
    result = cli("resume-task", "agent_r", "--ref", "agent-r", "--json")
    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)["agents"][0]
    assert done["conflicts"]["overlaps"] == [{"path": "src/shared.txt", "kind": "clean"}]
    assert done["conflicts"]["agent_files_from"] == "files_modified"
    assert read_history(repo)["entries"][-1]["work_ref"] == "agent-r"


def test_without_recorded_files_the_agents_own_transcript_says_what_it_edited(
    repo, cli, tmp_path, monkeypatch
):
    from tests.claude_records import agent_transcript

    commit_file(repo, "src/shared.py", "v = 1\n")
    spawn(cli, "a1b2c3d")
    claude = tmp_path / "claude"
    agent_transcript(
        claude / "projects" / "-project" / "sess-1" / "subagents" / "agent-a1b2c3d.jsonl",
        "a1b2c3d",
        "Edit the shared module",
        [str(repo / "src/shared.py"), "/elsewhere/not/in/the/project.py"],
        None,
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    cli("history", "interrupt", "a1b2c3d")
    commit_file(repo, "src/shared.py", "v = 2\n")
    result = cli("resume-task")
    assert result.exit_code == 1
    assert "src/shared.py (unverified)" in one_error_line(result)
    report = json.loads(cli("resume-task", "--force", "--json").stdout)["agents"][0]["conflicts"]
    assert report["agent_files"] == ["src/shared.py"], "only files inside the project"
    assert report["agent_files_from"] == "transcript"
