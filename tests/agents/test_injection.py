"""Typing text into an agent exactly once: real tmux, both kinds of stand-in agent (one that shows
Claude Code's paste placeholder, one that echoes the lines it reads), and a program that shows
nothing at all."""

from __future__ import annotations

import time

import pytest

from purlin_resume.agents import injection
from purlin_resume.core import tmux
from purlin_resume.core.errors import PurlinError
from tests.agents_setup import KINDS, prompts, start_standin


def _received_text(record, kind: str, lines: int) -> str:
    """What the stand-in of ``kind`` got, as one text: the paste stand-in takes a paste as one
    input; the line stand-in takes each line as an input of its own."""
    got = prompts(record, 1 if kind == "paste" else lines)
    return "\n".join(got)


@pytest.mark.parametrize("kind", KINDS)
def test_a_long_multiline_text_arrives_exactly_once(tmux_server, tmp_path, kind):
    """Regression: a line-reading agent got a long prompt three times (its first line had
    scrolled out of the captured screen, so each attempt looked like a miss)."""
    record = tmp_path / "agent"
    pane = start_standin(tmux_server, tmp_path, record, kind=kind)
    lines = [
        f"step {n:03d}: " + "y" * (n % 60) + " [brackets] $HOME `ticks` 'quotes' \"dq\" ~tilde"
        for n in range(260)
    ]
    text = "\n".join(lines)

    delivery = injection.deliver(tmux_server, pane, text, settle=0.2)

    assert (delivery.status, delivery.attempts) == ("confirmed", 1)
    assert _received_text(record, kind, len(lines)) == text
    time.sleep(0.5)  # nothing more arrives later
    assert _received_text(record, kind, len(lines)) == text
    assert (record / "prompts.jsonl").read_text().count("step 000:") == 1


def test_a_paste_the_agent_shows_late_on_a_busy_machine_is_confirmed_and_submitted(
    tmux_server, tmp_path
):
    """The pane is watched for a few seconds however short the settle time: a client slow to
    show the paste (a loaded machine) got its text unsubmitted, reported unverified."""
    record = tmp_path / "agent"
    pane = start_standin(tmux_server, tmp_path, record, paste_delay=2.5)

    delivery = injection.deliver(tmux_server, pane, "first line\nsecond line", settle=0.2)

    assert (delivery.status, delivery.attempts) == ("confirmed", 1)
    assert prompts(record, 1) == ["first line\nsecond line"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_one_line_text_is_confirmed_and_submitted_once(tmux_server, tmp_path, kind):
    record = tmp_path / "agent"
    pane = start_standin(tmux_server, tmp_path, record, kind=kind)

    first = injection.deliver(tmux_server, pane, "carry on with the next task", settle=0.2)
    second = injection.deliver(tmux_server, pane, "carry on with the next task", settle=0.2)

    assert first.confirmed, (first, second)
    assert second.confirmed, (first, second)
    assert prompts(record, 2) == ["carry on with the next task"] * 2


def test_text_that_never_shows_is_pasted_once_and_left_unsubmitted(tmux_server, tmp_path):
    """A program that reads without showing anything: the pane cannot tell whether the text
    arrived, so it is not typed again and Enter is not pressed."""
    received = tmp_path / "received"
    pane = tmux.new_session(
        tmux_server, "deaf", tmp_path, f"sh -c 'stty -echo -icanon; echo READY; cat > {received}'"
    )
    assert tmux.wait_for(tmux_server, pane, "READY", timeout=5)

    delivery = injection.deliver(tmux_server, pane, "never seen", settle=0.1)

    assert delivery.status == "unverified"
    assert delivery.attempts == 1
    assert f"pasted once into tmux pane {pane}" in delivery.detail
    assert "press Enter there" in delivery.detail
    time.sleep(0.3)
    assert received.read_text() == "never seen"  # once, and no Enter after it
    assert tmux.pane_alive(tmux_server, pane)


def test_the_last_line_an_unverified_delivery_quotes_is_redacted_whole(tmux_server, tmp_path):
    from tests.core.test_redact import PLANTED

    secret = PLANTED["anthropic-key"]  # longer than the quote: cut first, it is not recognised
    shown = tmp_path / "shown"
    shown.write_text(f"READY\n{secret}\n")
    pane = tmux.new_session(
        tmux_server, "deaf", tmp_path, f"sh -c 'stty -echo -icanon; cat {shown}; cat > /dev/null'"
    )
    assert tmux.wait_for(tmux_server, pane, "READY", timeout=5)

    delivery = injection.deliver(tmux_server, pane, "never seen", settle=0.1)

    assert delivery.status == "unverified"
    assert secret[:20] not in delivery.detail


def test_injection_into_a_gone_pane_fails_with_one_line(tmux_server, tmp_path):
    tmux.new_session(tmux_server, "keep", tmp_path, "cat")

    with pytest.raises(PurlinError) as caught:
        injection.deliver(tmux_server, "%4242", "hello", settle=0.1)

    assert caught.value.message == "tmux pane %4242 is gone; nothing was sent"


def test_what_counts_as_arrival():
    text = "Revival: you succeed agent a\n\n   4. carry on   \n"
    assert injection.needles(text) == (
        "4. carry on",
        "Revival: you succeed agent a",
        "[Pasted text",
    )
    assert injection.needles("") == ("[Pasted text",)
    before = "> 4. carry on\n"
    assert not injection.arrived(before, before, injection.needles(text))
    assert injection.arrived(before, before + "4. carry on\n", injection.needles(text))
    assert injection.arrived("", "[Pasted text #1 +3 lines]", injection.needles(text))
