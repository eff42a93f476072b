"""Team sharing: every teammate's resurrection log and bookmarks, shared through git or a SQL
server.

Each teammate's JSONL log and bookmark files stay the source of truth; the team's copy is made
from them, row by row, each row under a key that never repeats (``uuid``), so ``team sync``
can always send again whatever the team lacks. Git is the default transport (``gitstore``):
each teammate appends only to files of their own on a ref of the team's remote, and the
``--team`` reads go through a local SQLite index of everyone's files (``index``). A team that
wants SQL uses a MySQL-wire server instead (``server``: Dolt sql-server, MySQL, MariaDB), with
the same tables (``schema``). Only ``server`` needs an extra (PyMySQL, in ``team``).
"""

from __future__ import annotations

from purlin_resume.core.errors import PurlinError

INSTALL = "a SQL team server needs the team extra: pip install 'purlin-resume[team]'"


class TeamError(PurlinError):
    """The team's copy cannot do what was asked; local files are untouched."""


class TeamUnavailable(PurlinError):
    """The ``team`` extra (PyMySQL) is not installed."""

    def __init__(self, message: str = INSTALL):
        super().__init__(message)
