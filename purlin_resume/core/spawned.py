"""A program started with ``os`` alone, its output read back when it is asked for: ``Started``.

``stall check`` starts its two git processes before the command has loaded anything
(``agents/git_ahead``), and ``subprocess`` alone costs a short command about 7 ms to load
(``threading``, ``signal``, ``selectors``, ``locale``). Every plain ``git`` of ``core/gitrepo``
starts here too, so both start it the same way: what ``subprocess.Popen`` does with
``stdin=DEVNULL``, ``stdout=PIPE``, ``stderr=PIPE`` and its defaults (signals the interpreter
ignores, such as ``SIGPIPE``, back to their default in the program).
"""

from __future__ import annotations

import os

from purlin_resume.core import pipes

TYPE_CHECKING = False  # (``typing`` is not loaded for this: ``stall check`` starts git first)
if TYPE_CHECKING:
    from collections.abc import Mapping


def _signals():
    """The signal numbers: ``_signal`` holds them without the enums ``signal`` builds on import."""
    try:
        import _signal as signals
    except ImportError:
        import signal as signals
    return signals


def _default_signals() -> tuple[int, ...]:
    """The signals ``subprocess`` restores to their default in the program (``restore_signals``)."""
    signals = _signals()
    names = ("SIGPIPE", "SIGXFZ", "SIGXFSZ")
    return tuple(getattr(signals, name) for name in names if hasattr(signals, name))


class Started:
    """``argv`` running beside the caller (``argv[0]`` looked up on ``PATH``), with ``env`` for
    its environment, ``/dev/null`` for its input and pipes for its output and errors.

    Starting raises ``OSError`` as ``subprocess`` would (``FileNotFoundError`` for a program
    that is not there). ``finish`` waits for it and gives (exit status, output, errors), the
    status negative for a signal as in ``subprocess``. One never finished is stopped and
    reaped when it is dropped, so a long-running process leaves neither zombies nor pipes.
    """

    def __init__(self, argv: list[str], env: Mapping[str, str]) -> None:
        self.pid = 0
        self._result: tuple[int, bytes, bytes] | None = None
        self._pipes: tuple[int, int] | None = None
        out_read, out_write = pipes.pipe()
        try:
            err_read, err_write = pipes.pipe()
        except OSError:
            os.close(out_read)
            os.close(out_write)
            raise
        try:
            self.pid = os.posix_spawnp(
                argv[0],
                argv,
                env,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_DUP2, out_write, 1),
                    (os.POSIX_SPAWN_DUP2, err_write, 2),
                ],
                setsigdef=_default_signals(),
            )
        except BaseException:
            os.close(out_read)
            os.close(err_read)
            raise
        finally:
            os.close(out_write)
            os.close(err_write)
        self._pipes = (out_read, err_read)

    def finish(self) -> tuple[int, bytes, bytes]:
        """(exit status, everything it wrote to its output, to its errors), once it has ended;
        the same answer on every call."""
        if self._result is None:
            out, err = self._read_all()
            self._result = (self._wait(block=True) or 0, out, err)
        return self._result

    def _read_all(self) -> tuple[bytes, bytes]:
        """Both pipes read to their end, taking from whichever has something: reading one to
        its end first would leave the program blocked on the other once it is full."""
        import select

        assert self._pipes is not None
        ends, self._pipes = self._pipes, None
        chunks: dict[int, list[bytes]] = {fd: [] for fd in ends}
        poller = select.poll()
        for fd in ends:
            poller.register(fd, select.POLLIN)
        try:
            open_pipes = len(ends)
            while open_pipes:
                for fd, _ in poller.poll():
                    data = os.read(fd, pipes.SIZE)
                    if data:
                        chunks[fd].append(data)
                    else:
                        poller.unregister(fd)
                        open_pipes -= 1
        finally:
            for fd in ends:
                os.close(fd)
        return b"".join(chunks[ends[0]]), b"".join(chunks[ends[1]])

    def _wait(self, block: bool) -> int | None:
        """Its exit status once it has ended (waiting for it when ``block``), None while it
        runs; 0 when it is no longer this process's to wait for (reaped by another, as
        ``subprocess`` says too)."""
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return 0
        return os.waitstatus_to_exitcode(status) if pid else None

    def __del__(self) -> None:
        if self._result is not None or not self.pid:
            return
        try:
            for fd in self._pipes or ():
                os.close(fd)
            self._pipes = None
            if self._wait(block=False) is None:
                os.kill(self.pid, _signals().SIGTERM)  # still running: nobody will read it
                self._wait(block=True)
        except (OSError, TypeError, AttributeError, ImportError):
            pass  # gone meanwhile, or the interpreter is shutting down: the system reaps it
