"""``resurrect --spawn tmux`` into both kinds of stand-in agent, on a real private tmux server."""

from __future__ import annotations

import json
import time
from pathlib import Path

from purlin_resume.core import tmux
from tests.agents_setup import configure, prompts, socket_setting
from tests.resurrection.test_resurrect_cli import _fails, _log, _ok

ARGS = ("resurrect", "--session", "short", "--yes", "--spawn", "tmux", "--json")


def test_end_to_end_a_line_reading_agent_receives_the_prompt_exactly_once(
    cli, fixtures_copy, repo, tmp_path, tmux_named_server
):
    """Regression: an agent that reads plain lines (no paste placeholder) got the whole
    resurrection prompt three times, then its window was closed and a failure logged."""
    record = tmp_path / "agent"
    configure(repo, tmux_named_server, record, kind="lines")

    result = _ok(
        cli(*ARGS, "--tmux-socket", tmux_named_server.name, "--claude-dir", str(fixtures_copy))
    )

    data = json.loads(result.stdout)
    prompt = data["prompt"].rstrip()  # a final newline is not typed
    lines = prompt.splitlines()
    assert len(lines) > 20
    received = prompts(record, len(lines))
    assert "\n".join(received) == prompt
    time.sleep(0.5)
    assert len(prompts(record, len(lines))) == len(lines), "nothing arrives a second time"
    assert data["launch"]["delivery"] == {"status": "confirmed", "attempts": 1, "detail": ""}
    assert tmux.pane_alive(tmux_named_server, data["launch"]["pane"])
    started = json.loads((record / "started.json").read_text())
    assert started["env"]["CLAUDE_CONFIG_DIR"] == str(fixtures_copy)
    [entry] = _log(fixtures_copy)
    # the fixture's project is on another machine: a note, not an outcome
    assert (entry["outcome"], entry["outcome_reason"]) == ("success", None)
    assert "/home/marco/projects/spotter is not on this machine" in entry["notes"]


def test_a_prompt_that_cannot_be_confirmed_is_logged_partial_and_its_window_stays(
    cli, fixtures_copy, repo, tmp_path, tmux_server
):
    received = tmp_path / "received"
    command = f"sh -c 'stty -echo -icanon; echo \"? for shortcuts\"; exec cat > {received}'"
    configure(repo, tmux_server, tmp_path / "agent", agent_command=command)

    data = json.loads(_ok(cli(*ARGS, "--claude-dir", str(fixtures_copy))).stdout)

    assert data["launch"]["delivery"]["status"] == "unverified"
    assert tmux.pane_alive(tmux_server, data["launch"]["pane"])
    [entry] = _log(fixtures_copy)
    assert entry["outcome"] == "partial"
    assert "pasted once" in entry["outcome_reason"]
    time.sleep(0.3)
    assert received.read_text() == data["prompt"].rstrip()  # once, not submitted


def test_an_unreachable_server_is_named_and_logged(cli, fixtures_copy, repo, tmp_path, tmux_server):
    configure(repo, tmux.Server(socket=Path("/no/such.sock")), tmp_path / "agent")

    result = cli(*ARGS, "--claude-dir", str(fixtures_copy))  # the tmux_socket setting

    error = _fails(result, 1, "the tmux server -S /no/such.sock is not reachable")
    assert "no window was opened" in error
    assert "capture-pane" not in error
    [entry] = _log(fixtures_copy)
    assert entry["outcome"] == "failure"
    assert "not reachable" in entry["outcome_reason"]


def test_the_socket_setting_takes_a_name(cli, fixtures_copy, repo, tmp_path, tmux_named_server):
    record = tmp_path / "agent"
    configure(repo, tmux_named_server, record)
    assert socket_setting(tmux_named_server) == tmux_named_server.name

    data = json.loads(_ok(cli(*ARGS, "--claude-dir", str(fixtures_copy))).stdout)

    assert data["launch"]["tmux_server"] == f"-L {tmux_named_server.name}"
    assert prompts(record, 1) == [data["prompt"].rstrip()]
