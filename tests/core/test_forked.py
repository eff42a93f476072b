"""Work run ahead in a forked child (``core/forked``): the result comes back whole or not at all,
and the child leaves nothing behind."""

from __future__ import annotations

import os
import time

import pytest

from purlin_resume.core import forked
from tests.conftest import no_children_left


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_the_result_comes_back_once_and_the_child_is_reaped():
    data = {"/p/a.jsonl": ("/p", "a", "a.jsonl:1:2:3"), "many": list(range(1000))}
    forked.ahead("test", lambda: data)
    assert forked.taken("test") == data
    assert forked.taken("test") is forked.MISSING
    assert no_children_left()


def test_a_result_larger_than_a_pipe_holds_comes_back_whole():
    forked.ahead("test", lambda: "x" * 3_000_000 + "end")
    result = forked.taken("test")
    assert len(result) == 3_000_003 and result.endswith("end")


@pytest.mark.parametrize(
    "function",
    [
        lambda: 1 / 0,  # the work fails
        lambda: object(),  # a result marshal cannot carry
        lambda: os._exit(0),  # the child ends without a word
        lambda: os.kill(os.getpid(), 9),  # the child is killed
    ],
    ids=["raises", "not-plain-data", "exits-silently", "killed"],
)
def test_a_child_that_fails_gives_missing(function):
    forked.ahead("test", function)
    assert forked.taken("test") is forked.MISSING
    assert no_children_left()


def test_nothing_started_under_a_name_is_missing():
    assert forked.taken("never started") is forked.MISSING


def test_when_fork_fails_the_work_is_missing_and_no_descriptor_leaks(monkeypatch):
    def refuse():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    before = _open_descriptors()
    forked.ahead("test", lambda: 1)
    assert forked.taken("test") is forked.MISSING
    assert _open_descriptors() == before


def test_discarding_stops_a_child_that_is_still_working():
    before = _open_descriptors()
    forked.ahead("test", lambda: time.sleep(60))
    started = time.monotonic()
    forked.discard("test")
    assert time.monotonic() - started < 10
    assert no_children_left()
    assert _open_descriptors() == before
    assert forked.taken("test") is forked.MISSING


def test_a_second_start_under_one_name_replaces_the_first():
    forked.ahead("test", lambda: time.sleep(60))
    forked.ahead("test", lambda: "second")
    assert forked.taken("test") == "second"
    assert no_children_left()


def test_the_child_flushes_nothing_of_this_process_and_runs_no_exit_handler(tmp_path):
    """What this process buffered for a file is written once, by this process; the child's
    end writes nothing (it would if it ran the exit of a normal interpreter)."""
    target = tmp_path / "out.txt"
    with open(target, "w", buffering=1 << 16) as out:
        out.write("written once\n")  # still in this process's buffer
        forked.ahead("test", lambda: "done")
        assert forked.taken("test") == "done"
    assert target.read_text() == "written once\n"
