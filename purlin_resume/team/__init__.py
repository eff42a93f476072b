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

from urllib.parse import unquote, urlsplit

from purlin_resume.core import redact
from purlin_resume.core.errors import PurlinError, UsageError

INSTALL = "a SQL team server needs the team extra: pip install 'purlin-resume[team]'"


class TeamError(PurlinError):
    """The team's copy cannot do what was asked; local files are untouched."""


class TeamUnavailable(PurlinError):
    """The ``team`` extra (PyMySQL) is not installed."""

    def __init__(self, message: str = INSTALL):
        super().__init__(message)


def refuse_secrets(url: str, what: str) -> None:
    """Refuse a team URL (a git remote, a DSN without its password) that carries a password,
    or a secret in any part (a token as the user, in the path or the query), with one line
    that does not show it."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise UsageError(f"{what}: the URL holds control characters; give a plain URL")
    try:
        password = urlsplit(url).password if "://" in url else None
    except ValueError:  # a netloc urllib cannot read: git decides
        password = None
    if password is not None:
        raise UsageError(
            f"{what}: leave the password or token out of the URL (any user could read it in "
            "ps); let git's credential helper or ssh give it"
        )
    if redact.find(url) or redact.find(unquote(url)):
        raise UsageError(
            f"{what}: the URL holds a token or other secret; leave it out and let git's "
            "credential helper, ssh or the password options give it"
        )
