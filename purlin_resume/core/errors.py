"""The errors every part of purlin-resume raises for expected failures.

Each carries one line for the user and the process exit code the CLI ends with:
1 when an operation failed, 2 when the command was used wrongly (141 when the reader of the
output stopped early, as other Unix tools end).
"""

from __future__ import annotations

import errno
from pathlib import Path

FAILED = 1
USAGE = 2
READER_GONE = 141  # the reader of the output stopped early (``| head``): SIGPIPE's, as git's


class PurlinError(Exception):
    """An expected failure: one line that names what is wrong and what to do."""

    exit_code = FAILED

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class UsageError(PurlinError):
    """The command was called wrongly (bad argument, missing field, unknown option)."""

    exit_code = USAGE


class NotFound(PurlinError):
    """Something the command needs does not exist (file, checkpoint, agent)."""


class Ambiguous(PurlinError):
    """An id or prefix that names more than one thing: the caller must give more of it."""


class Conflict(PurlinError):
    """The operation does not fit the current state (reviving a live agent, for one)."""


class NotStarted(PurlinError):
    """A program that was to start did not (an agent in tmux that never got ready)."""


class CorruptFile(PurlinError):
    """A state file does not parse; it is kept untouched and named."""

    def __init__(self, path: Path, reason: str):
        self.path = Path(path)
        self.reason = reason
        self.problem = f"{path} is corrupt ({reason}); it was left untouched"  # without what to do
        super().__init__(f"{self.problem}: fix or move it aside, then run the command again")


_REFUSED = (errno.EACCES, errno.EPERM)
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def system_refusal(exc: OSError, consequence: str = "", path: Path | None = None) -> str:
    """One line for an operating system's refusal (a read-only folder, a full disk), without
    Python's ``[Errno N]``: the file (``path`` when the error names none), the reason,
    ``consequence`` and what to do."""
    named = exc.filename or path
    reason = exc.strerror or str(exc) or type(exc).__name__
    line = f"{named}: {reason}" if named else reason
    if consequence:
        line += f"; {consequence}"
    name = Path(str(named)) if named else None
    if name is not None and exc.errno in _REFUSED:
        writable = f"{name} readable and writable" if _exists(name) else f"{name.parent} writable"
        line += f"; make {writable} for you, then try again"
    elif exc.errno in _FULL:
        line += "; free some disk space, then try again"
    return line


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; when the folder holding it may not be looked into, it is taken
    to (the refusal is the folder's: what to make readable is the path and what leads to it)."""
    try:
        return path.exists()
    except OSError:
        return True
