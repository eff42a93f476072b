from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from purlin_resume.agents import registry
from purlin_resume.core.errors import CorruptFile, UsageError
from purlin_resume.core.project import Project
from tests.conftest import git


def _stat_field_22(pid: int) -> int:
    """The start of process ``pid`` as proc(5) documents it: field 22 of /proc/PID/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return int(text[text.rindex(")") + 2 :].split()[22 - 3])


def test_start_then_end_writes_the_documented_format(repo):
    project = Project(repo)
    started = datetime(2026, 1, 15, 14, 22, 10, tzinfo=timezone.utc)
    registry.record_start(
        project,
        "sess-1",
        pid=os.getpid(),
        started_at=started,
        transcript_path="/t/sess-1.jsonl",
        tmux_pane="%3",
        tmux_socket="/tmp/tmux-1000/work",
        role="builder",
        previous_agent_id="sess-0",
    )
    data = json.loads((repo / ".purlin" / "agents.json").read_text())
    assert data == {
        "version": 1,
        "agents": {
            "sess-1": {
                "pid": os.getpid(),
                "pid_start_ticks": _stat_field_22(os.getpid()),
                "cwd": str(repo),
                "started_at": "2026-01-15T14:22:10Z",
                "ended_at": None,
                "transcript_path": "/t/sess-1.jsonl",
                "tmux_pane": "%3",
                "tmux_socket": "/tmp/tmux-1000/work",
                "role": "builder",
                "previous_agent_id": "sess-0",
            }
        },
    }
    ended = registry.record_end(
        project, "sess-1", datetime(2026, 1, 15, 15, 0, tzinfo=timezone.utc)
    )
    assert ended.ended_at == "2026-01-15T15:00:00Z"
    assert ended.pid == os.getpid()
    assert registry.load(project)["sess-1"].role == "builder"


def test_unknown_keys_and_other_sessions_are_kept(repo):
    path = repo / ".purlin" / "agents.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps({"version": 1, "note": "x", "agents": {"old": {"pid": 1, "color": "red"}}})
    )
    registry.record_end(Project(repo), "old")
    registry.record_start(Project(repo), "new", pid=None)
    data = json.loads(path.read_text())
    assert data["note"] == "x"
    assert data["agents"]["old"]["color"] == "red"
    assert data["agents"]["old"]["ended_at"]
    assert set(data["agents"]) == {"old", "new"}


def test_registry_and_its_lock_stay_out_of_git_status(repo):
    registry.record_start(Project(repo), "sess", pid=os.getpid())
    assert (repo / ".purlin" / "agents.json.lock").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_absent_registry_is_empty(repo):
    assert registry.load(Project(repo)) == {}
    assert not (repo / ".purlin").exists()


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '{"version": 1, "agents": []}',
        '{"version": 1, "agents": {"s": "running"}}',
        '{"version": 2, "agents": {}}',
    ],
)
def test_corrupt_or_foreign_registry_is_kept_and_named(repo, text):
    path = repo / ".purlin" / "agents.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(CorruptFile) as caught:
        registry.record_start(Project(repo), "sess", pid=1)
    assert str(path) in caught.value.message
    with pytest.raises(CorruptFile):
        registry.load(Project(repo))
    assert path.read_text() == text


def test_a_pid_no_process_can_have_is_no_pid(repo, cli):
    path = repo / ".purlin" / "agents.json"
    path.parent.mkdir()
    agents = {"abcd1234": {"pid": 10**30}, "bcde2345": {"pid": -5}, "cdef3456": {"pid": 7.5}}
    path.write_text(json.dumps({"version": 1, "agents": agents}))
    assert {a.pid for a in registry.load(Project(repo)).values()} == {None}
    done = cli("agents-status", "--json")
    assert done.exit_code == 0, done.stderr
    assert [a["state"] for a in json.loads(done.stdout)["agents"]] == ["unknown"] * 3


def test_a_session_id_is_required(repo):
    with pytest.raises(UsageError):
        registry.record_start(Project(repo), "", pid=1)


def test_session_state_from_end_time_and_process():
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    agent = registry.RegisteredAgent
    assert registry.session_state(None) == registry.UNKNOWN
    assert registry.session_state(agent("s", pid=None)) == registry.UNKNOWN
    assert registry.session_state(agent("s", pid=os.getpid())) == registry.RUNNING
    assert registry.session_state(agent("s", pid=finished.pid)) == registry.OVER
    ended = agent("s", pid=os.getpid(), ended_at="2026-01-15T15:00:00Z")
    assert registry.session_state(ended) == registry.OVER


def test_a_zombie_process_is_not_alive():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped yet
        assert not registry.pid_alive(child.pid)
    finally:
        child.wait()


def test_a_start_gives_every_session_as_its_one_update_left_them(repo, tmp_path):
    """SessionStart reads the registry no further: the start's own locked update hands back
    every session, the others as they were and this one as written, its transcript kept when
    the one reported does not exist but the registered one does."""
    project = Project(repo)
    written = tmp_path / "written.jsonl"
    written.write_text("{}\n")
    registry.record_start(project, "other", pid=None, role="qa")
    registry.record_start(project, "sess", pid=1, transcript_path=str(written))
    agents = registry.record_start(
        project, "sess", pid=2, transcript_path=str(tmp_path / "never-written.jsonl")
    )
    assert set(agents) == {"other", "sess"}
    assert agents["other"].role == "qa"
    assert (agents["sess"].pid, agents["sess"].transcript_path) == (2, str(written))
    assert agents == registry.load(project)
    moved = tmp_path / "moved.jsonl"
    moved.write_text("{}\n")
    again = registry.record_start(project, "sess", pid=2, transcript_path=str(moved))["sess"]
    assert again.transcript_path == str(moved)  # a transcript that exists is taken as reported


def test_a_session_started_again_in_its_own_process_keeps_its_start(repo):
    """A compaction starts the session again in the process that runs it: its start stays (the
    stall check counts no evidence from before it); another process, or a session that ended
    or that this process no longer runs, starts anew."""
    project = Project(repo)
    first = datetime(2026, 1, 15, 14, 0, 0, tzinfo=timezone.utc)
    later = datetime(2026, 1, 15, 15, 0, 0, tzinfo=timezone.utc)
    me = os.getpid()

    registry.record_start(project, "sess", pid=me, started_at=first)
    compacted = registry.record_start(project, "sess", pid=me, started_at=later)["sess"]
    assert compacted.started_at == "2026-01-15T14:00:00Z"

    elsewhere = registry.record_start(project, "sess", pid=me + 10**6, started_at=later)["sess"]
    assert elsewhere.started_at == "2026-01-15T15:00:00Z"

    registry.record_start(project, "ends", pid=me, started_at=first)
    registry.record_end(project, "ends")
    resumed = registry.record_start(project, "ends", pid=me, started_at=later)["ends"]
    assert resumed.started_at == "2026-01-15T15:00:00Z"

    registry.record_start(project, "cleared", pid=me, started_at=first)
    registry.record_start(project, "after-clear", pid=me, started_at=later)  # /clear: a new one
    back = registry.record_start(
        project, "cleared", pid=me, started_at=datetime(2026, 1, 15, 16, tzinfo=timezone.utc)
    )["cleared"]
    assert back.started_at == "2026-01-15T16:00:00Z"


def test_a_process_id_now_naming_another_process_is_not_the_agent(repo, cli):
    """The registered process died and its id went to another process: the agent is dead."""
    project = Project(repo)
    registry.record_start(project, "mine", pid=os.getpid())
    assert registry.load(project)["mine"].pid_start_ticks == _stat_field_22(os.getpid())
    path = repo / ".purlin" / "agents.json"
    data = json.loads(path.read_text())
    data["agents"]["other"] = {**data["agents"]["mine"], "pid_start_ticks": 1}  # started at boot
    data["agents"]["older"] = {k: v for k, v in data["agents"]["mine"].items() if "ticks" not in k}
    path.write_text(json.dumps(data))

    agents = registry.load(project)
    status = cli("agents-status", "--json")

    assert registry.session_state(agents["other"]) == registry.OVER
    assert registry.session_state(agents["mine"]) == registry.RUNNING
    assert registry.session_state(agents["older"]) == registry.RUNNING  # no start: as before
    assert status.exit_code == 0, status.stderr
    states = {a["agent_id"]: (a["state"], a["why"]) for a in json.loads(status.stdout)["agents"]}
    assert states["other"] == (
        "dead",
        f"process {os.getpid()} is gone (its id names another process now)",
    )
    assert states["mine"][0] == states["older"][0] == "alive"


def _child_with_pid(pid: int, tries: int = 50) -> subprocess.Popen | None:
    """A ``sleep`` given process id ``pid`` (root: ``ns_last_pid``), or None when another
    process took that id first every time."""
    for _ in range(tries):
        Path("/proc/sys/kernel/ns_last_pid").write_text(str(pid - 1))
        child = subprocess.Popen(["sleep", "60"])
        if child.pid == pid:
            return child
        child.kill()
        child.wait()
    return None


def test_a_dead_agent_whose_process_id_was_reused_stays_dead(repo, cli):
    """As a reboot or a busy machine does it: the agent's process ends, an unrelated one gets
    its id. The agent is dead, and can be revived."""
    assert os.geteuid() == 0, "reusing a process id needs root (ns_last_pid), as CI runs"
    agent = subprocess.Popen(["sleep", "60"])
    registry.record_start(Project(repo), "gone-1", pid=agent.pid)
    agent.kill()
    agent.wait()
    # the registry tells a process by its id and start time, counted in clock ticks: a real
    # reuse of the id comes ticks later (here it could come within the same one)
    time.sleep(3 / os.sysconf("SC_CLK_TCK"))

    unrelated = _child_with_pid(agent.pid)
    assert unrelated is not None, f"no process got id {agent.pid} again"
    try:
        status = cli("agents-status", "--json")
        dry_run = cli("revive", "gone-1", "--dry-run")
    finally:
        unrelated.kill()
        unrelated.wait()

    (state,) = json.loads(status.stdout)["agents"]
    assert (state["state"], state["pid"]) == ("dead", agent.pid)
    assert dry_run.exit_code == 0, dry_run.stderr
    assert "Would revive gone-1 as " in dry_run.stdout
