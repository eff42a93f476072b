"""Work done on the other core while this process loads what it needs: a function run in a forked
child, its result handed back through a pipe when it is asked for.

A short command spends most of its time loading modules, on one core. Work that needs nothing
the command loads (walking the transcripts' folders before a search) can run meanwhile in a
child forked before the loading. ``ahead(name, function, *args)`` starts it; ``taken(name)``
returns its result once, or ``MISSING``: nothing was started under that name, the child could
not be forked, it failed, or what it sent was not whole. The caller then does the work itself,
so the child saves time and never changes an answer.

Results travel as ``marshal`` data: plain values only (str, int, tuples, lists, dicts...). The
child runs nothing of this process's exit (``os._exit``): no ``atexit`` handler, no flush of an
output buffer inherited from it.
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False  # (``typing`` is not loaded for this: ``find`` forks before it loads it)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MISSING: Any = object()
_pending: dict[str, tuple[int, int]] = {}  # name -> (child's pid, read end of its pipe)


def ahead(name: str, function: Callable[..., Any], *args: Any) -> None:
    """Run ``function(*args)`` in a forked child; its result is ``taken(name)`` (a second
    start under one name replaces the first, whose child is let go)."""
    discard(name)
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return
    if pid == 0:
        _child(read, write, function, args)
    os.close(write)
    _pending[name] = (pid, read)


def _child(read: int, write: int, function: Callable[..., Any], args: tuple) -> None:
    status = 1
    try:
        os.close(read)
        data = marshal.dumps(function(*args))
        with open(write, "wb") as pipe:
            pipe.write(data)
        status = 0
    except BaseException:  # noqa: BLE001 - the parent does the work itself
        pass
    finally:
        os._exit(status)


def started(name: str) -> bool:
    """Whether work under ``name`` was started and not yet taken or discarded."""
    return name in _pending


def taken(name: str) -> Any:
    """The result of the work started under ``name``, else ``MISSING``; once."""
    started = _pending.pop(name, None)
    if started is None:
        return MISSING
    pid, read = started
    try:
        with open(read, "rb") as pipe:
            data = pipe.read()
    except OSError:
        data = b""
    if _reaped(pid) != 0:
        return MISSING
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return MISSING


def discard(name: str) -> None:
    """Stop the work started under ``name``, unread."""
    started = _pending.pop(name, None)
    if started is not None:
        pid, read = started
        os.close(read)
        import contextlib
        import signal

        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        _reaped(pid)


def _reaped(pid: int) -> int:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return 1
    return status
