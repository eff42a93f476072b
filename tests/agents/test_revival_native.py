"""``revive --native`` (Claude Code resumes the dead agent's own conversation) and ``revive --all``
(every agent a reboot or a killed tmux server left dead), through real tmux and the stand-in."""

from __future__ import annotations

import json
import os
import time

from purlin_resume.agents import registry
from purlin_resume.core import tmux
from purlin_resume.core.project import Project
from purlin_resume.resurrection import native_resume
from tests.agents_setup import agent_record, configure, dead_pid, prompts, write_registry
from tests.claude_records import Conversation, text, write_jsonl

DEAD = "d0d0d0d0-0000-4000-8000-000000000001"


def _transcript(claude, cwd, session_id: str = DEAD):
    chat = Conversation(session_id, cwd=str(cwd))
    folder = claude / "projects" / native_resume.project_folder_name(str(cwd))
    return write_jsonl(
        folder / f"{session_id}.jsonl",
        [chat.user("refactor the store"), chat.assistant("m1", text("halfway there"))],
    )


def _started(record, timeout: float = 15) -> dict:
    path = record / "started.json"
    deadline = time.monotonic() + timeout
    while not path.is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    return json.loads(path.read_text())


def test_native_revival_resumes_the_own_conversation_as_a_registered_successor(
    repo, tmux_server, tmp_path, cli, monkeypatch
):
    claude = tmp_path / "claude-data"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    _transcript(claude, repo)
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    write_registry(repo, {DEAD: agent_record(repo, pid=dead_pid(), role="builder")})

    result = cli("revive", DEAD[:8], "--native", "--json")

    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)
    successor = done["successor"]
    assert done["native"] is True
    assert done["injections"] == []
    started = _started(record)
    assert started["argv"] == ["--resume", DEAD, "--fork-session", "--session-id", successor]
    assert os.path.realpath(started["cwd"]) == os.path.realpath(repo)
    assert started["env"]["PURLIN_PREVIOUS_AGENT_ID"] == DEAD
    assert started["env"]["PURLIN_AGENT_ID"] == successor
    assert started["env"]["CLAUDE_CONFIG_DIR"] == str(claude)
    agents = registry.load(Project(repo))
    assert agents[successor].previous_agent_id == DEAD
    assert agents[successor].role == "builder"
    assert agents[successor].tmux_pane == done["tmux_pane"]
    assert tmux.wait_for(tmux_server, done["tmux_pane"], "? for shortcuts", timeout=15)
    assert not (record / "prompts.jsonl").exists()  # nothing typed: it has its whole context
    lineage = json.loads(cli("lineage", successor, "--json").stdout)
    assert lineage["predecessors"] == [{"agent_id": DEAD, "registered": True}]


def test_native_revival_without_a_transcript_says_to_revive_plainly(
    repo, tmux_server, tmp_path, cli, monkeypatch
):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "empty"))
    configure(repo, tmux_server, tmp_path / "agent")
    path = write_registry(repo, {DEAD: agent_record(repo, pid=dead_pid())})
    before = path.read_bytes()

    result = cli("revive", DEAD, "--native")

    assert result.exit_code == 1
    assert "transcript of agent" in result.stderr
    assert "without --native" in result.stderr
    assert path.read_bytes() == before
    assert not (tmp_path / "agent" / "started.json").exists()


def test_revive_all_revives_each_dead_agent_once_in_its_own_window(
    repo, tmux_server, tmp_path, cli
):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record, tmux_session="crew")
    keeper = tmux.new_session(tmux_server, "other", repo, "cat")
    write_registry(
        repo,
        {
            "crashed-a": agent_record(repo, pid=dead_pid(), tmux_pane="%900", role="builder"),
            "crashed-b": agent_record(repo, pid=dead_pid(), tmux_pane="%901"),
            "finished": agent_record(repo, pid=dead_pid(), ended_at="2026-01-15T16:00:00Z"),
            "alive": agent_record(repo, tmux_pane=keeper),
            "old": agent_record(repo, pid=dead_pid(), started_at="2026-01-15T13:00:00Z"),
            "old-successor": agent_record(
                repo, pid=os.getpid(), previous_agent_id="old", started_at="2026-01-15T13:30:00Z"
            ),
        },
    )

    planned = cli("revive", "--all", "--dry-run", "--json")
    shown = cli("revive", "--all", "--dry-run").stdout
    result = cli("revive", "--all", "--json")
    again = cli("revive", "--all", "--json")

    assert planned.exit_code == 0, planned.stderr
    assert sorted(p["predecessor"] for p in json.loads(planned.stdout)["revive"]) == [
        "crashed-a",
        "crashed-b",
    ]
    plans = [line for line in shown.splitlines() if "Would revive" in line or "Left " in line]
    assert [line.split()[0] for line in plans] == ["Would", "Would", *["Left"] * 4]  # each alone
    assert "\n\nWould revive crashed-" in shown
    assert result.exit_code == 0, result.stderr
    swept = json.loads(result.stdout)
    revived = {r["predecessor"]: r for r in swept["revived"]}
    assert sorted(revived) == ["crashed-a", "crashed-b"]
    left = {s["agent_id"]: s["why"] for s in swept["skipped"]}
    assert left["finished"] == "ended its session at 2026-01-15T16:00:00Z; revive it by its id"
    assert left["old"] == "already succeeded by old-successor"
    assert "alive" in left
    assert "old-successor" in left
    panes = [r["tmux_pane"] for r in revived.values()]
    assert len(set(panes)) == 2
    for pane in panes:
        assert tmux.pane_info(tmux_server, pane)["session_name"] == "crew"
    windows = tmux.run(tmux_server, "list-windows", "-t", "=crew", "-F", "#{window_id}").split()
    assert len(windows) == 2
    assert len(prompts(record, 3)) >= 3  # persona + revival for a, revival for b
    # Run again: both now have live successors, nothing is started twice.
    assert again.exit_code == 0, again.stderr
    second = json.loads(again.stdout)
    assert second["revived"] == []
    told = cli("revive", "--all", "--dry-run").stdout
    assert told.startswith("No agent to revive.\nLeft ")  # each agent left, with why
    assert "Left finished: ended its session at" in told
    again_left = {s["agent_id"]: s["why"] for s in second["skipped"]}
    assert again_left["crashed-a"].startswith("already succeeded by")
    agents = registry.load(Project(repo))
    assert sum(1 for a in agents.values() if a.previous_agent_id == "crashed-a") == 1


def test_revive_needs_one_agent_or_all(repo, cli):
    neither = cli("revive")
    both = cli("revive", "x", "--all")

    assert neither.exit_code == 2
    assert "give one AGENT_ID or --all" in neither.stderr
    assert both.exit_code == 2


def test_two_sweeps_at_once_revive_each_agent_once(repo, tmux_server, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    record = tmp_path / "agent"
    configure(repo, tmux_server, record, tmux_session="crew")
    write_registry(repo, {"crashed": agent_record(repo, pid=dead_pid(), tmux_pane="%950")})
    root = Path(__file__).resolve().parents[2]
    command = [
        sys.executable,
        "-c",
        "from purlin_resume.cli.entry import main; main()",
        "revive",
        "--all",
        "--json",
    ]
    env = {**os.environ, "PYTHONPATH": str(root)}
    runs = [
        subprocess.Popen(
            command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]

    assert all(run.returncode == 0 for run in runs), outputs
    revived = [len(json.loads(out)["revived"]) for out, _ in outputs]
    assert sorted(revived) == [0, 1]
    agents = registry.load(Project(repo))
    assert sum(1 for a in agents.values() if a.previous_agent_id == "crashed") == 1
