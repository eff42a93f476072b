"""tmux through its real binary, on a private server."""

from __future__ import annotations

import time

import pytest

from purlin_resume.core import tmux
from purlin_resume.core.errors import PurlinError


def test_windows_start_in_the_folder_with_the_environment(tmux_server, tmp_path):
    pane = tmux.new_window(
        tmux_server,
        "work",
        tmp_path,
        "sh -c 'echo \"FOO=$FOO in $(pwd)\"; exec cat'",
        env={"FOO": "bar baz"},
    )
    assert pane.startswith("%")
    assert tmux.wait_for(tmux_server, pane, f"FOO=bar baz in {tmp_path}", timeout=5)
    second = tmux.new_window(
        tmux_server, "work", tmp_path, "sh -c 'echo \"FOO=${FOO-unset}\"; exec cat'", name="second"
    )
    assert second != pane
    assert tmux.pane_info(tmux_server, second)["session_name"] == "work"
    # the first window's environment stayed its own: the session did not keep it
    assert tmux.wait_for(tmux_server, second, "FOO=unset", timeout=5)


def test_a_long_multiline_paste_arrives_whole(tmux_server, tmp_path):
    target = tmp_path / "received.txt"
    pane = tmux.new_session(tmux_server, "paste", tmp_path, f"cat > {target}")
    lines = [
        f"line {n:03d}: " + "x" * (n % 70) + " [brackets] $dollars `ticks` 'quotes'"
        for n in range(120)
    ]
    text = "\n".join(lines)
    assert len(text) > 5000
    tmux.paste(tmux_server, pane, text)
    tmux.send_enter(tmux_server, pane)
    tmux.run(tmux_server, "send-keys", "-t", pane, "C-d")
    for _ in range(50):
        if not tmux.pane_alive(tmux_server, pane):
            break
        time.sleep(0.1)
    assert target.read_text() == text + "\n"


def test_dead_and_unknown_panes(tmux_server, tmp_path):
    keeper = tmux.new_session(tmux_server, "short", tmp_path, "cat")
    assert tmux.pane_alive(tmux_server, keeper)
    assert tmux.pane_info(tmux_server, "%999") is None
    assert tmux.pane_alive(tmux_server, "%999") is False
    brief = tmux.new_window(tmux_server, "short", tmp_path, "sh -c 'exit 0'")
    deadline = time.monotonic() + 5
    while tmux.pane_alive(tmux_server, brief) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tmux.pane_alive(tmux_server, brief), "an exited command's pane is gone"
    assert tmux.pane_alive(tmux_server, keeper)


def test_a_tmux_failure_is_one_line(tmux_server):
    with pytest.raises(PurlinError) as caught:
        tmux.capture(tmux_server, "%12345")
    assert caught.value.message.startswith("tmux capture-pane failed: ")
    assert "\n" not in caught.value.message


def test_live_panes_lists_every_running_pane_in_one_call(tmux_server, tmp_path):
    assert tmux.live_panes(tmux_server) == set()  # no server yet: nothing runs
    first = tmux.new_session(tmux_server, "one", tmp_path, "sleep 60")
    second = tmux.new_window(tmux_server, "one", tmp_path, "sleep 60")

    assert tmux.live_panes(tmux_server) == {first, second}
    tmux.kill_pane(tmux_server, second)
    assert tmux.live_panes(tmux_server) == {first}


def test_a_session_made_meanwhile_by_another_process_takes_the_window(
    tmux_server, tmp_path, monkeypatch
):
    """Another process creates the session between the check and the creation: the window opens
    in that session instead of failing with tmux's "duplicate session"."""
    theirs = tmux.new_session(tmux_server, "agents", tmp_path, "cat")
    monkeypatch.setattr(tmux, "session_exists", lambda server, name: False)  # asked just before

    ours = tmux.new_window(tmux_server, "agents", tmp_path, "cat", env={"FOO": "bar"}, name="ours")

    assert ours != theirs
    assert tmux.pane_info(tmux_server, ours)["session_name"] == "agents"
    assert tmux.live_panes(tmux_server) == {theirs, ours}
