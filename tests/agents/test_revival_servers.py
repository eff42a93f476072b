"""Agents on tmux servers other than the configured one (``tmux -L``, any ``$TMUX`` socket), a
server that is not reachable, and a successor whose briefing cannot be confirmed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from purlin_resume.agents import lineage, registry
from purlin_resume.claude import hooks
from purlin_resume.core import tmux
from purlin_resume.core.project import Project
from purlin_resume.integration import capture
from tests.agents_setup import (
    agent_record,
    configure,
    dead_pid,
    prompts,
    standin_command,
    write_registry,
)


def _status(cli) -> dict[str, dict]:
    result = cli("agents-status", "--json")
    assert result.exit_code == 0, result.stderr
    return {a["agent_id"]: a for a in json.loads(result.stdout)["agents"]}


def _wait_registered(root, session_id: str, timeout: float = 20) -> registry.RegisteredAgent:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = registry.load(Project(root)).get(session_id)
        if found is not None and found.pid is not None:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{session_id} never registered itself")


def _wait_gone(agent: registry.RegisteredAgent, timeout: float = 30) -> None:
    """Until the agent's process is gone (its id, reused by a later process on a busy machine,
    is not it: told by its start time, as the registry tells it)."""
    assert agent.pid is not None
    deadline = time.monotonic() + timeout
    while registry.pid_alive(agent.pid, agent.pid_start_ticks) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not registry.pid_alive(agent.pid, agent.pid_start_ticks)


def test_server_names_and_paths():
    assert tmux.Server.parse("") == tmux.Server()
    assert tmux.Server.parse("work") == tmux.Server(name="work")
    assert tmux.Server.parse("/tmp/s/sock") == tmux.Server(socket=Path("/tmp/s/sock"))
    assert tmux.Server.parse("~/sock") == tmux.Server(socket=Path.home() / "sock")
    assert tmux.Server(name="work").argv("ls") == ["tmux", "-L", "work", "ls"]
    assert tmux.Server.parse("./sock").argv("ls") == ["tmux", "-S", "sock", "ls"]
    client = tmux.Server.of_client({"TMUX": "/tmp/tmux-0/work,1234,0"})
    assert client is not None
    assert str(client.socket) == "/tmp/tmux-0/work"
    assert tmux.Server.of_client({"TMUX": "/tmp/odd,name/sock,99,1"}).socket.name == "sock"
    assert tmux.Server.of_client({}) is None
    with pytest.raises(Exception, match="control characters"):
        tmux.Server.parse("work\x1b[2J")


def test_the_session_start_hook_records_the_server_with_the_pane(repo):
    payload = hooks.parse(
        "session-start",
        json.dumps({"session_id": "s-1", "cwd": str(repo), "hook_event_name": "SessionStart"}),
    )
    env = {"TMUX": "/tmp/tmux-0/work,77,0", "TMUX_PANE": "%4"}

    capture.session_started(Project(repo), payload, env)

    agent = registry.load(Project(repo))["s-1"]
    assert (agent.tmux_pane, agent.tmux_socket) == ("%4", "/tmp/tmux-0/work")


def test_a_pane_id_alone_never_makes_a_running_agent_dead(repo, tmux_server, tmp_path, cli):
    """Regression: an agent in another server (its pane id unknown to the configured one) was
    reported dead while its process ran, and revive offered to start a duplicate."""
    configure(repo, tmux_server, tmp_path / "agent")
    tmux.new_session(tmux_server, "other", repo, "cat")  # the configured server runs
    write_registry(
        repo,
        {
            "elsewhere": agent_record(repo, pid=os.getpid(), tmux_pane="%77"),
            "no-server": agent_record(repo, tmux_pane="%3", tmux_socket=str(tmp_path / "gone")),
        },
    )

    states = _status(cli)
    revive = cli("revive", "elsewhere")

    assert (states["elsewhere"]["state"], states["elsewhere"]["why"]) == (
        "alive",
        f"process {os.getpid()} runs",
    )
    assert states["no-server"]["state"] == "dead"
    assert "tmux server -S" in states["no-server"]["why"]
    assert revive.exit_code == 1
    assert "is alive" in revive.stderr


@pytest.mark.parametrize("option", [None, "--tmux-socket"])
def test_end_to_end_an_agent_on_a_named_server_is_revived_there(
    repo, tmux_named_server, tmp_path, cli, option
):
    """An agent runs in ``tmux -L NAME`` while the project is configured for another server: its
    SessionStart hook records the socket, status sees it alive, and once it dies its successor
    opens on the same server (or the one ``--tmux-socket NAME`` names), briefed exactly once."""
    server = tmux_named_server
    successor_record = tmp_path / "successor"
    configure(
        repo,
        tmux.Server(socket=tmp_path / "configured.sock"),  # no server runs there
        successor_record,
        agent_command=standin_command(successor_record, hooks=True),
    )
    claude = tmp_path / "claude-data"
    first = tmp_path / "first"
    first.mkdir()
    command = standin_command(first, hooks=True) + " --session-id first-agent"
    tmux.new_session(server, "editor", repo, "cat")  # the user's other windows keep it running
    pane = tmux.new_window(server, "work", repo, command, env={"CLAUDE_CONFIG_DIR": str(claude)})
    agent = _wait_registered(repo, "first-agent")
    assert agent.tmux_pane == pane
    assert agent.tmux_socket == str(tmux.socket_path(server))

    assert _status(cli)["first-agent"]["state"] == "alive"
    refused = cli("revive", "first-agent")
    assert refused.exit_code == 1
    assert "is alive" in refused.stderr

    tmux.kill_pane(server, pane)
    _wait_gone(agent)
    assert _status(cli)["first-agent"]["state"] == "dead"
    extra = [option, server.name] if option else []
    result = cli("revive", "first-agent", *extra, "--claude-dir", str(claude), "--json")

    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)
    assert done["outcome"] == "success"
    assert done["tmux_server"] == (f"-L {server.name}" if option else f"-S {agent.tmux_socket}")
    assert tmux.pane_alive(server, done["tmux_pane"])
    [instruction] = prompts(successor_record, 1)
    assert instruction.startswith("Revival: you succeed agent first-agent, which stopped: ")
    assert f"--claude-dir {claude}" in instruction
    started = json.loads((successor_record / "started.json").read_text())
    assert started["env"]["CLAUDE_CONFIG_DIR"] == str(claude)
    successor = _wait_registered(repo, done["successor"])
    assert successor.tmux_socket == agent.tmux_socket
    assert successor.previous_agent_id == "first-agent"
    assert _status(cli)[done["successor"]]["state"] == "alive"
    time.sleep(0.5)
    assert len(prompts(successor_record, 1)) == 1


def test_an_unreachable_socket_is_named_and_nothing_is_opened(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(repo, {"dead-1": agent_record(repo, pid=dead_pid())})

    result = cli("revive", "dead-1", "--tmux-socket", "/no/such.sock")

    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: --tmux-socket /no/such.sock: no tmux server listens there"
    )
    assert len(result.stderr.strip().splitlines()) == 1
    assert list(registry.load(Project(repo))) == ["dead-1"]
    bad = cli("revive", "dead-1", "--tmux-socket", "a\x07b")
    assert bad.exit_code == 2
    assert "control characters" in bad.stderr


def test_a_briefing_that_cannot_be_confirmed_is_partial_and_the_window_stays(
    repo, tmux_server, tmp_path, cli
):
    """The successor reads without showing what it reads: its briefing is pasted once, not
    submitted, reported and logged partial; its window stays open for a person to look."""
    received = tmp_path / "received"
    command = f"sh -c 'stty -echo -icanon; echo \"? for shortcuts\"; exec cat > {received}'"
    configure(repo, tmux_server, tmp_path / "agent", agent_command=command, agent_session_flag="")
    write_registry(repo, {"dead-1": agent_record(repo, pid=dead_pid())})

    result = cli("revive", "dead-1")

    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("partial: the text was pasted once into tmux pane ")
    assert "not all confirmed" in result.stdout
    [entry] = [
        json.loads(line)
        for line in (repo / ".purlin" / "cache" / "revivals.jsonl").read_text().splitlines()
    ]
    assert entry["outcome"] == "partial"
    assert "pasted once" in entry["reason"]
    assert tmux.pane_alive(tmux_server, entry["tmux_pane"])
    time.sleep(0.3)
    text = received.read_text()
    assert text.startswith("Revival: you succeed agent dead-1")
    assert text.count("Revival:") == 1
    agents = registry.load(Project(repo))
    successor = next(a for a in agents.values() if a.previous_agent_id == "dead-1")
    assert successor.ended_at is None
    assert lineage.liveness(successor, tmux_server).state == "alive"


def test_the_transcript_command_survives_a_hostile_data_folder_name(repo, fixtures_copy, cli):
    """The revival instruction's command, run by a shell as an agent would, reads the named
    folder and runs nothing hidden in its name."""
    import shutil
    import subprocess
    import sys

    odd = fixtures_copy.parent / "data $(touch PWNED) 'q' `id`"
    shutil.move(fixtures_copy, odd)
    session = "4d5611e5-241a-462a-8d15-5122611a9569"
    write_registry(repo, {session: agent_record(repo, ended_at="2026-02-12T21:10:00Z")})
    planned = cli("revive", session[:8], "--claude-dir", str(odd), "--dry-run", "--json")
    instruction = json.loads(planned.stdout)["injections"][-1]["text"]
    line = next(x for x in instruction.splitlines() if "purlin-resume transcript" in x).strip()
    (repo / ".purlin" / "cache").mkdir(parents=True)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"

    done = subprocess.run(
        ["bash", "-c", line], cwd=repo, env={**os.environ, "PATH": path}, capture_output=True
    )

    assert done.returncode == 0, done.stderr
    assert (
        (repo / ".purlin" / "cache" / f"revival-{session}.md").read_text().startswith("# Session")
    )
    assert not (repo / "PWNED").exists()


@pytest.mark.parametrize("kind", ["paste", "lines"])
def test_watch_nudges_an_agent_on_its_own_server_exactly_once(
    repo, tmux_named_server, tmp_path, cli, kind
):
    """The stall watch finds a stalled agent's pane on the server it recorded (not the
    configured one) and types the resume prompt into it once, whichever kind of agent it is."""
    from tests.agents.test_stall import LONG_AGO, age_everything
    from tests.agents_setup import start_standin

    record = tmp_path / "agent"
    configure(repo, tmux.Server(socket=tmp_path / "configured.sock"), record)
    pane = start_standin(tmux_named_server, repo, record, kind=kind)
    socket = str(tmux.socket_path(tmux_named_server))
    age_everything(repo, LONG_AGO)
    write_registry(repo, {"w-1": agent_record(repo, tmux_pane=pane, tmux_socket=socket)})

    result = cli("watch", "--once", "--json")

    assert result.exit_code == 0, result.stderr
    [decision] = json.loads(result.stdout)["decisions"]
    assert decision["action"] == "nudged", decision
    prompts(record, 1)
    time.sleep(1)  # every line has arrived, and nothing more comes
    received = [
        json.loads(line)["text"] for line in (record / "prompts.jsonl").read_text().splitlines()
    ]
    text = "\n".join(received)
    first = text.splitlines()[0]
    assert first
    assert text.count(first) == 1
    assert len(received) == (1 if kind == "paste" else len(text.splitlines()))


def test_how_the_instruction_says_the_predecessor_stopped():
    """Regression: it read "which tmux pane %4 died"."""
    from purlin_resume.agents import revival

    ended = registry.RegisteredAgent("a", ended_at="2026-01-15T15:00:00Z")
    running = registry.RegisteredAgent("b", tmux_pane="%4")
    assert revival.stopped(ended, lineage.Liveness("dead", "ended at …")) == (
        "which ended at 2026-01-15T15:00:00Z"
    )
    assert revival.stopped(running, lineage.Liveness("dead", "tmux pane %4 is gone")) == (
        "which stopped: tmux pane %4 is gone"
    )
