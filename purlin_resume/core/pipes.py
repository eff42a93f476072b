"""Pipes wide enough to hold a whole answer, for work running beside a command (a forked child's
result, ``core/forked``; a program's output, ``core/spawned``).

With the default 64 KiB, the other side writes its answer in turns, blocked until the command
reads each part: a walk's 350 KB, or ``git log`` naming the 10,000 paths of one commit (260 KB),
then comes over only once the command asks for it. Widened, the other side writes it all, ends
and is done before it is asked for.
"""

from __future__ import annotations

import os

SIZE = 1 << 20  # Linux allows up to /proc/sys/fs/pipe-max-size, 1 MiB by default


def pipe() -> tuple[int, int]:
    """(read end, write end) of a new pipe, widened where the system allows it, neither end
    numbered 0-2 (when this process was started with one of those closed, a program given the
    write end as its output would lose it to the very ``dup2`` meant to give it there)."""
    read, write = os.pipe()
    read, write = _above_standard(read), _above_standard(write)
    try:
        import fcntl

        fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, SIZE)
    except (ImportError, AttributeError, OSError):
        pass  # another system, or a lower limit: the default size
    return read, write


def _above_standard(fd: int) -> int:
    """``fd``, or a copy of it numbered 3 or more (the original closed)."""
    if fd > 2:
        return fd
    import fcntl

    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    finally:
        os.close(fd)
