"""A forked helper working beside a long command on the other core.

It has two phases. First a job: ``job(sink)`` calls ``sink.put(key, blob)`` for each result and
``sink.mark(n)`` to say how far it got (a number of its own meaning, told with every result put
before it); this process reads the results as they come (``more``, ``reached``) while it does
its own part of the work, and may ``tell`` the job a number of its own (where it has got to),
which the job reads with ``sink.heard()``. Then, until this process is done with it, the
helper answers requests: ``serve(payload)`` returns an answer and a small ``extra``; this process
``submit``s a payload when the helper is ``free`` and takes the ``answer`` later, redacting the
next batch meanwhile, say.

Nothing the helper does can change an answer. Whatever it does not deliver whole (it could not
be forked, its job failed part way, it was killed, a request failed) is missing, and the caller
does that part itself: a job's results are complete records or nothing, an answer is whole or
None.

How results travel: blobs, answers and payloads go through anonymous files in a private folder
(no name on disk, gone when both processes close them), read and written at explicit offsets
(the two processes share each file's position, so neither moves it); the pipes carry only short
messages (under ``PIPE_BUF``, so each is written whole), which keeps either side from blocking
on a full pipe while the other waits for it. The helper runs nothing of this process's exit
(``os._exit``), and ends when this process closes its side or dies.
"""

from __future__ import annotations

import contextlib
import os
import select
import struct
from collections.abc import Callable
from pathlib import Path

_MESSAGE = struct.Struct("<cQQQI")  # kind, three numbers, length of the bytes that follow
_RECORD = struct.Struct("<QQI")  # an index record: blob position, blob length, key length
_PROGRESS, _DONE, _ANSWER, _FAILED, _REQUEST, _NEWS = b"p", b"d", b"a", b"f", b"r", b"n"
_MESSAGE_MAX = 4096  # PIPE_BUF on Linux: a message this short is written whole, never in parts
_GATHER_BYTES = 1 << 18  # blobs gathered before they are written and told
_GATHER_RECORDS = 4096
_WINDOW = 1 << 20  # bytes of blobs read at once
MAX_OUTSTANDING = 2  # requests the helper holds at once: one in work, one waiting
_FAILURE = (-1, -1, b"")


class Sink:
    """The helper's side of its job: results gathered and written a batch at a time (blobs
    first, so that an index record never points past what is written), each batch told to
    this process; then the answers to its requests."""

    def __init__(self, results: int, index: int, up: int, down: int):
        self._results, self._index, self._up, self._down = results, index, up, down
        self._results_end = self._index_end = 0
        self._blobs: list[bytes] = []
        self._records: list[bytes] = []
        self._gathered = 0
        self._mark = 0
        self._heard: int | None = None
        self._incoming = b""

    def heard(self) -> int | None:
        """The last number this process told the job (None: nothing yet); read without waiting."""
        os.set_blocking(self._down, False)
        try:
            while data := os.read(self._down, 4096):
                self._incoming += data
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(self._down, True)
        while len(self._incoming) >= _MESSAGE.size:
            kind, number, _, _, _ = _MESSAGE.unpack_from(self._incoming)
            if kind != _NEWS:
                break  # a request: the job is over by then
            self._heard = number
            self._incoming = self._incoming[_MESSAGE.size :]
        return self._heard

    def request(self) -> tuple[int, int, int] | None:
        """The next request (ticket, position, length), waiting for it; None: no more."""
        while True:
            while len(self._incoming) < _MESSAGE.size:
                data = os.read(self._down, 4096)
                if not data:
                    return None
                self._incoming += data
            kind, ticket, position, length, _ = _MESSAGE.unpack_from(self._incoming)
            self._incoming = self._incoming[_MESSAGE.size :]
            if kind == _REQUEST:
                return ticket, position, length

    def put(self, key: bytes, blob: bytes) -> None:
        """One result: ``key`` says what it is, ``blob`` is read back on demand."""
        self._blobs.append(blob)
        position = self._results_end + self._gathered
        self._records.append(_RECORD.pack(position, len(blob), len(key)) + key)
        self._gathered += len(blob)
        if self._gathered >= _GATHER_BYTES or len(self._records) >= _GATHER_RECORDS:
            self._flush(_PROGRESS)

    def mark(self, reached: int) -> None:
        """Tell this process ``reached`` now, with every result put so far."""
        self._mark = reached
        self._flush(_PROGRESS)

    def _flush(self, kind: bytes) -> None:
        if self._records:
            blobs, records = b"".join(self._blobs), b"".join(self._records)
            _write_at(self._results, blobs, self._results_end)
            _write_at(self._index, records, self._index_end)
            self._results_end += len(blobs)
            self._index_end += len(records)
            self._blobs, self._records, self._gathered = [], [], 0
        message = _MESSAGE.pack(kind, self._index_end, self._mark, 0, 0)
        _tell(self._up, message, wait=kind == _DONE)

    def done(self) -> None:
        self._flush(_DONE)

    def answer(self, ticket: int, answer: bytes, extra: bytes) -> None:
        if _MESSAGE.size + len(extra) > _MESSAGE_MAX:
            raise ValueError("extra too long for one message")
        _write_at(self._results, answer, self._results_end)
        message = _MESSAGE.pack(_ANSWER, ticket, self._results_end, len(answer), len(extra))
        self._results_end += len(answer)
        _tell(self._up, message + extra, wait=True)


Job = Callable[[Sink], None]
Serve = Callable[[bytes], tuple[bytes, bytes]]


class Helper:
    """This process's side of a started helper (see ``start``)."""

    def __init__(self, pid: int, up: int, down: int, spools: tuple[int, int, int]):
        self.pid = pid
        self._up, self._down = up, down  # messages from the helper, requests to it
        # spool files: blobs and answers, index records (both the helper's), payloads (ours)
        self._results, self._index_file, self._requests = spools
        self._buffer = b""
        self._index_end = 0  # of the index records the helper has written whole
        self._index_read = 0
        self._index = bytearray()  # index records read, not yet parsed
        self._blobs_end = 0  # where the job's blobs that records point to end
        self._window: tuple[int, bytes] = (0, b"")  # a stretch of the job's blobs, read ahead
        self.reached: int | None = None  # the job's last mark this process knows of
        self._job_done = False
        self._alive = True
        self._request_end = 0
        self._tickets = 0
        # ticket -> where its answer is and its extra; None: not yet; _FAILURE: failed
        self._outstanding: dict[int, tuple[int, int, bytes] | None] = {}
        self._poller = select.poll()
        self._poller.register(up, select.POLLIN)

    # the job -------------------------------------------------------------------------------

    @property
    def job_running(self) -> bool:
        return self._alive and not self._job_done

    def more(self, wait: bool = False) -> list[tuple[bytes, int, int]]:
        """The job's results delivered since the last call: (key, blob position, blob length).
        ``wait``: while the job runs, wait until it tells of more (results or a mark)."""
        known = (self._index_end, self.reached)
        self._receive(block=False)
        while wait and (self._index_end, self.reached) == known and self.job_running:
            self._receive(block=True)
        return self._records()

    def blob(self, position: int, length: int) -> bytes | None:
        """A blob (or answer) the helper wrote; None when it cannot be read whole. The job's
        blobs are read a window at a time (they are asked for about in the order written)."""
        end = position + length
        start, window = self._window
        if start <= position and end <= start + len(window):
            return window[position - start : end - start]
        try:
            if end <= self._blobs_end:  # written whole, as is everything up to _blobs_end
                size = max(length, min(_WINDOW, self._blobs_end - position))
                self._window = (position, _read_at(self._results, size, position))
                return self._window[1][:length]
            return _read_at(self._results, length, position)
        except OSError:
            return None

    def _records(self) -> list[tuple[bytes, int, int]]:
        if self._index_read < self._index_end:
            try:
                more = _read_at(
                    self._index_file, self._index_end - self._index_read, self._index_read
                )
            except OSError:
                self._alive = False
                return []
            self._index += more
            self._index_read = self._index_end
        found = []
        at = 0
        data = self._index
        while at + _RECORD.size <= len(data):
            position, length, key_length = _RECORD.unpack_from(data, at)
            end = at + _RECORD.size + key_length
            if end > len(data):
                break
            found.append((bytes(data[at + _RECORD.size : end]), position, length))
            self._blobs_end = max(self._blobs_end, position + length)
            at = end
        del self._index[:at]
        return found

    def tell(self, number: int) -> None:
        """Let the job know ``number`` (``sink.heard()``): where this process has got to, say."""
        if self.job_running:
            with contextlib.suppress(OSError):  # dropped when the pipe is full: news is news
                _tell(self._down, _MESSAGE.pack(_NEWS, number, 0, 0, 0), wait=False)

    # requests ------------------------------------------------------------------------------

    def free(self) -> bool:
        """Whether the helper takes a request now: its job is over and it holds fewer than
        ``MAX_OUTSTANDING``."""
        self._receive(block=False)
        pending = sum(1 for answer in self._outstanding.values() if answer is None)
        return self._alive and self._job_done and pending < MAX_OUTSTANDING

    def submit(self, payload: bytes) -> int | None:
        """Hand ``payload`` to the helper; its ticket, or None (the caller does it itself)."""
        if not self._alive:
            return None
        position = self._request_end
        try:
            _write_at(self._requests, payload, position)
            os.write(self._down, _MESSAGE.pack(_REQUEST, self._tickets, position, len(payload), 0))
        except OSError:
            self._alive = False
            return None
        self._request_end += len(payload)
        ticket = self._tickets
        self._tickets += 1
        self._outstanding[ticket] = None
        return ticket

    def answered(self, ticket: int) -> bool:
        """Whether ``answer(ticket)`` returns at once."""
        self._receive(block=False)
        return not self._alive or self._outstanding.get(ticket) is not None

    def answer(self, ticket: int) -> tuple[bytes, bytes] | None:
        """The answer to a submitted payload and its ``extra``, waiting for it; None when the
        helper failed it or is gone (the caller does it itself)."""
        while self._alive and self._outstanding.get(ticket) is None:
            self._receive(block=True)
        got = self._outstanding.pop(ticket, None)
        if got is None or got is _FAILURE:
            return None
        position, length, extra = got
        data = self.blob(position, length)
        return None if data is None else (data, extra)

    def close(self) -> None:
        """Stop the helper and let go of everything it used: told to stop when it is waiting
        for requests, killed when it is still at its job."""
        self._receive(block=False)
        if self.job_running:
            import signal

            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self._down)  # a waiting helper reads the end of its requests and exits
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)
        self._alive = False
        for fd in (self._up, self._results, self._index_file, self._requests):
            with contextlib.suppress(OSError):
                os.close(fd)

    # messages ------------------------------------------------------------------------------

    def _receive(self, block: bool) -> None:
        """Read the messages that have come (waiting for at least one when ``block``)."""
        while self._alive and self._poller.poll(None if block else 0):
            try:
                data = os.read(self._up, 65536)
            except OSError:
                data = b""
            if not data:  # the helper is gone: what it delivered whole stays usable
                self._alive = False
                return
            self._buffer += data
            self._parse()
            block = False

    def _parse(self) -> None:
        data = self._buffer
        at = 0
        while at + _MESSAGE.size <= len(data):
            kind, first, second, third, length = _MESSAGE.unpack_from(data, at)
            end = at + _MESSAGE.size + length
            if end > len(data):
                break
            if kind in (_PROGRESS, _DONE):
                self._index_end = max(self._index_end, first)
                self.reached = second
                self._job_done = self._job_done or kind == _DONE
            elif kind == _ANSWER and first in self._outstanding:
                self._outstanding[first] = (second, third, bytes(data[at + _MESSAGE.size : end]))
            elif kind == _FAILED and first in self._outstanding:
                self._outstanding[first] = _FAILURE
            at = end
        self._buffer = data[at:]


def start(job: Job, serve: Serve, folder: Path) -> Helper | None:
    """Fork a helper that runs ``job`` and then ``serve``s requests; None when it cannot be
    started (no ``fork``, no spool files in ``folder``): the caller works alone."""
    if not hasattr(os, "fork"):
        return None
    opened: list[int] = []
    try:
        for _ in range(3):
            opened.append(_anonymous_file(folder))
        opened += os.pipe()  # up: messages from the helper
        opened += os.pipe()  # down: requests to it
        pid = os.fork()
    except OSError:
        for fd in opened:
            with contextlib.suppress(OSError):
                os.close(fd)
        return None
    results, index, requests, up_read, up_write, down_read, down_write = opened
    if pid == 0:
        _helper(job, serve, (results, index, requests), up_write, down_read, (up_read, down_write))
    os.close(up_write)
    os.close(down_read)
    return Helper(pid, up_read, down_write, (results, index, requests))


def _helper(
    job: Job, serve: Serve, spools: tuple[int, int, int], up: int, down: int, theirs: tuple
) -> None:
    """The helper's whole life: the job, then requests until this process closes the pipe."""
    status = 1
    try:
        for fd in theirs:
            os.close(fd)
        sink = Sink(spools[0], spools[1], up, down)
        with contextlib.suppress(Exception):  # what was put stays; the caller does the rest
            job(sink)
        sink.done()
        while (asked := sink.request()) is not None:
            ticket, position, length = asked
            try:
                sink.answer(ticket, *serve(_read_at(spools[2], length, position)))
            except Exception:  # noqa: BLE001 - the caller does this one itself
                _tell(up, _MESSAGE.pack(_FAILED, ticket, 0, 0, 0), wait=True)
        status = 0
    except BaseException:  # noqa: BLE001 - this process's caller goes on without the helper
        pass
    finally:
        os._exit(status)


def _tell(fd: int, message: bytes, wait: bool) -> None:
    """Send one message; without ``wait``, drop it when the pipe is full (a later one says
    more: each tells everything done so far)."""
    if wait:
        os.write(fd, message)
        return
    os.set_blocking(fd, False)
    try:
        os.write(fd, message)
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


def _read_at(fd: int, length: int, position: int) -> bytes:
    parts = []
    while length > 0:
        data = os.pread(fd, min(length, 1 << 24), position)
        if not data:
            raise OSError("the spool ended early")
        parts.append(data)
        length -= len(data)
        position += len(data)
    return b"".join(parts)


def _write_at(fd: int, data: bytes, position: int) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, position)
        view = view[written:]
        position += written


def _anonymous_file(folder: Path) -> int:
    """A file open for reading and writing with no name in ``folder`` (0600)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if flag:
        try:
            return os.open(folder, flag | os.O_RDWR, 0o600)
        except OSError:
            pass  # a file system without unnamed files: make one and take its name away
    import tempfile

    fd, name = tempfile.mkstemp(dir=folder)
    os.unlink(name)
    return fd
