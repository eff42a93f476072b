"""Team sharing: the resurrection log and bookmarks mirrored into a Dolt database.

The JSONL files stay each teammate's source of truth. Every change to them (a resurrection, its
outcome, a bookmark added, changed, counted or removed) is also queued here and committed into
a team database with a Dolt commit that names it; ``team sync`` commits, pulls, merges and
pushes. Two back ends share one schema (``schema``): an embedded Dolt database per teammate
(``doltlite``) with a ``file://`` or ``http://`` remote, or a Dolt SQL server (MySQL wire
protocol, through PyMySQL) that every teammate writes to.

Both libraries come with the ``team`` extra. Nothing outside this package imports them. The
resurrection wing queues its changes itself (``resurrection.team_outbox``, with the membership
files in ``resurrection.team_membership``) and imports nothing from here, so the hook path and CLI
start-up stay as light as before and no wing depends on this shell.
"""

from __future__ import annotations

from purlin_resume.core.errors import PurlinError

INSTALL = "team sharing needs the team extra: pip install 'purlin-resume[team]'"


class TeamUnavailable(PurlinError):
    """The ``team`` extra is not installed (or cannot load)."""

    def __init__(self, message: str = INSTALL):
        super().__init__(message)
