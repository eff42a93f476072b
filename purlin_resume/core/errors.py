"""The errors every part of purlin-resume raises for expected failures.

Each carries one line for the user and the process exit code the CLI ends with:
1 when an operation failed, 2 when the command was used wrongly.
"""

from __future__ import annotations

from pathlib import Path

FAILED = 1
USAGE = 2


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


class Conflict(PurlinError):
    """The operation does not fit the current state (reviving a live agent, for one)."""


class CorruptFile(PurlinError):
    """A state file does not parse; it is kept untouched and named."""

    def __init__(self, path: Path, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(
            f"{path} is corrupt ({reason}); it was left untouched: "
            "fix or move it aside, then run the command again"
        )
