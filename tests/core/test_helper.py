"""The forked helper (``core/helper``): a job's results come back whole and in order as they
are made, requests are answered or given back, and whatever the helper does not deliver whole
(it fails, it is killed, it cannot start) is simply missing; it leaves no process, descriptor or
file behind."""

from __future__ import annotations

import os
import signal
import stat
import time

import pytest

from purlin_resume.core import helper as helpers
from tests.conftest import ends_within, no_children_left


def _descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def _echo(payload: bytes) -> tuple[bytes, bytes]:
    return payload.upper(), str(len(payload)).encode()


def _results(helper: helpers.Helper) -> list[tuple[bytes, bytes]]:
    """Every result of the helper's job, with its blob, waiting for the job to end."""
    found = []
    while True:
        more = helper.more(wait=True)
        found += [(key, helper.blob(position, length)) for key, position, length in more]
        if not more and not helper.job_running:
            return found


@pytest.fixture
def started(tmp_path):
    """Start a helper on a job and a serve function; closed (and checked gone) afterwards."""
    made: list[helpers.Helper] = []
    before = _descriptors()

    def start(job, serve=_echo):
        helper = helpers.start(job, serve, tmp_path)
        assert helper is not None
        made.append(helper)
        return helper

    yield start
    for helper in made:
        helper.close()
    assert no_children_left()
    assert _descriptors() == before
    assert list(tmp_path.iterdir()) == []  # the spool files never had a name here


def test_the_job_hears_what_this_process_tells_it(started, tmp_path):
    heard = tmp_path.parent / f"{tmp_path.name}-heard"

    def job(sink):
        assert sink.heard() is None
        sink.put(b"asked", b"")
        sink.mark(1)
        while sink.heard() != 42:
            time.sleep(0.01)
        heard.write_text(str(sink.heard()))

    helper = started(job)
    try:
        assert [key for key, _, _ in helper.more(wait=True)] == [b"asked"]
        helper.tell(7)
        helper.tell(42)
        assert _results(helper) == [] and heard.read_text() == "42"
        helper.tell(43)  # the job is over: nobody listens, nothing breaks
        ticket = helper.submit(b"after")
        assert helper.answer(ticket) == (b"AFTER", b"5")
    finally:
        heard.unlink(missing_ok=True)


def test_results_come_back_in_order_with_their_blobs_and_marks(started):
    def job(sink):
        for number in range(5000):  # more than one batch of records, and of blob bytes
            sink.put(f"key {number}".encode(), bytes([number % 251]) * (number % 300))
            sink.mark(number + 1)

    helper = started(job)
    found = _results(helper)
    assert [key for key, _ in found] == [f"key {n}".encode() for n in range(5000)]
    assert all(blob == bytes([n % 251]) * (n % 300) for n, (_, blob) in enumerate(found))
    assert helper.reached == 5000


def test_results_are_read_while_the_job_still_runs(started, tmp_path):
    gate = tmp_path.parent / f"{tmp_path.name}-gate"

    def job(sink):
        sink.put(b"first", b"x" * (1 << 18))  # a full batch: written and told at once
        while not gate.exists():
            time.sleep(0.01)
        sink.put(b"second", b"y")

    helper = started(job)
    try:
        first = helper.more(wait=True)
        assert [key for key, _, _ in first] == [b"first"] and helper.job_running
        gate.touch()
        assert [key for key, _ in _results(helper)] == [b"second"]
    finally:
        gate.unlink(missing_ok=True)


def test_a_mark_is_told_at_once(started, tmp_path):
    gate = tmp_path.parent / f"{tmp_path.name}-gate"

    def job(sink):
        sink.mark(10 << 20)  # nothing put: the mark is told on its own
        while not gate.exists():
            time.sleep(0.01)

    helper = started(job)
    try:
        while helper.reached != 10 << 20:
            assert helper.job_running
            helper.more(wait=True)
    finally:
        gate.touch()
    assert _results(helper) == [] and not helper.job_running
    gate.unlink()


def test_a_job_that_fails_part_way_keeps_what_it_put_and_still_serves(started):
    def job(sink):
        sink.put(b"kept", b"blob")
        raise RuntimeError("the job breaks")

    helper = started(job)
    assert _results(helper) == [(b"kept", b"blob")]
    assert helper.free()
    ticket = helper.submit(b"abc")
    assert helper.answer(ticket) == (b"ABC", b"3")


def test_requests_are_answered_in_any_order_and_big_payloads_travel_whole(started):
    helper = started(lambda sink: None)
    _results(helper)
    big = os.urandom(3 << 20)  # far more than a pipe holds
    first, second = helper.submit(big), helper.submit(b"small")
    assert not helper.free()  # two held: one in work, one waiting
    assert helper.answer(second) == (b"SMALL", b"5")
    assert helper.answer(first) == (big.upper(), str(len(big)).encode())
    assert helper.free()


def test_a_request_the_helper_fails_is_given_back(started):
    def serve(payload):
        if payload == b"bad":
            raise ValueError("cannot")
        if payload == b"chatty":
            return b"", b"x" * 5000  # an extra too long for one message
        return _echo(payload)

    helper = started(lambda sink: None, serve)
    _results(helper)
    bad, chatty, good = helper.submit(b"bad"), helper.submit(b"chatty"), None
    assert helper.answer(bad) is None and helper.answer(chatty) is None
    good = helper.submit(b"good")
    assert helper.answer(good) == (b"GOOD", b"4")


def test_a_helper_killed_at_its_job_leaves_whole_results_and_no_answers(started, tmp_path):
    def job(sink):
        for number in range(3000):
            sink.put(f"key {number}".encode(), b"z" * 500)
        time.sleep(60)

    helper = started(job)
    first = []
    while not first:
        first = [(key, helper.blob(at, length)) for key, at, length in helper.more(wait=True)]
    os.kill(helper.pid, signal.SIGKILL)
    found = first + _results(helper)
    assert not helper.job_running
    assert all(blob == b"z" * 500 for _, blob in found)
    assert [key for key, _ in found] == [f"key {n}".encode() for n in range(len(found))]
    assert helper.submit(b"late") is None  # gone: the caller does it itself


def test_close_stops_a_helper_still_at_its_job(started):
    helper = started(lambda sink: time.sleep(60))
    started_at = time.monotonic()
    helper.close()
    assert time.monotonic() - started_at < 10
    assert no_children_left()


def test_the_helper_ends_when_this_process_goes_away(tmp_path):
    """The helper of a process that dies without closing it does not linger: it reads the end
    of its requests (here: this test closes the descriptors as a dead process would)."""
    helper = helpers.start(lambda sink: None, _echo, tmp_path)
    assert helper is not None
    _results(helper)
    for fd in (helper._down, helper._up):
        os.close(fd)
    assert ends_within(helper.pid, 10), "the helper did not end"
    for fd in (helper._results, helper._index_file, helper._requests):
        os.close(fd)


def test_no_fork_means_no_helper_and_no_leak(monkeypatch, tmp_path):
    before = _descriptors()

    def refuse():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refuse)
    assert helpers.start(lambda sink: None, _echo, tmp_path) is None
    assert _descriptors() == before
    monkeypatch.delattr(os, "fork")
    assert helpers.start(lambda sink: None, _echo, tmp_path) is None


def test_a_folder_that_takes_no_file_means_no_helper(tmp_path):
    assert helpers.start(lambda sink: None, _echo, tmp_path / "gone") is None


def test_spool_files_are_private(started, tmp_path):
    helper = started(lambda sink: sink.put(b"k", b"v"))
    _results(helper)
    for fd in (helper._results, helper._index_file, helper._requests):
        info = os.fstat(fd)
        assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_nlink == 0
