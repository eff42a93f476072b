"""Whether this Claude data folder belongs to a team, and who its teammate is.

Everything lives in ``<Claude data folder>/history/team/``: ``team.json`` (the back end: a
``remote`` URL or a ``dsn``), ``member`` (this teammate's id, kept across a new ``team init``),
the embedded database ``purlin-team.db``, the queue of changes not yet committed
(``outbox.jsonl``) and the last mirroring failure (``mirror.log``). Reading it costs one
``stat`` when there is no team: the hook path calls ``joined``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FOLDER = "team"
CONFIG = "team.json"
MEMBER = "member"
DATABASE = "purlin-team.db"
OUTBOX = "outbox.jsonl"
FAILURES = "mirror.log"
LOCK = "team"  # store.locked(folder / LOCK) guards the database and the outbox
MEMBER_ID = re.compile(r"^[a-z0-9][a-z0-9-]{2,39}$")


def folder(history: Path) -> Path:
    return Path(history) / FOLDER


def joined(history: Path) -> bool:
    return (folder(history) / CONFIG).is_file()


@dataclass(frozen=True)
class Membership:
    """One teammate's view of the team: where the team data is and who they are."""

    history: Path
    member: str
    remote: str | None = None
    dsn: str | None = None

    @property
    def folder(self) -> Path:
        return folder(self.history)

    @property
    def database(self) -> Path:
        return self.folder / DATABASE

    @property
    def outbox(self) -> Path:
        return self.folder / OUTBOX

    @property
    def lock(self) -> Path:
        return self.folder / LOCK

    @property
    def backend(self) -> str:
        return "mysql" if self.dsn else "doltlite"

    def to_dict(self) -> dict[str, Any]:
        return {"remote": self.remote, "dsn": self.dsn, "member": self.member}


def _user() -> str:
    import getpass

    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = os.environ.get("USER") or "member"
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24] or "member"


def member_id(history: Path) -> str:
    """This teammate's id (``<user>-<6 hex>``): made once, then kept in ``team/member``."""
    from purlin_resume.core import store
    from purlin_resume.core.errors import NotFound

    path = folder(history) / MEMBER
    try:
        known = store.read_text(path).strip()
    except NotFound:
        known = ""
    if MEMBER_ID.match(known):
        return known
    import secrets

    made = f"{_user()}-{secrets.token_hex(3)}"
    store.write_text(path, made + "\n")
    return made


def load(history: Path) -> Membership | None:
    """The membership of ``history``, or None when it has not joined a team."""
    from purlin_resume.core import store
    from purlin_resume.core.errors import CorruptFile, NotFound

    path = folder(history) / CONFIG
    try:
        data = store.read_json(path)
    except NotFound:
        return None
    if not isinstance(data, dict) or not MEMBER_ID.match(str(data.get("member") or "")):
        raise CorruptFile(path, "expected {remote or dsn, member}")
    return Membership(Path(history), data["member"], data.get("remote"), data.get("dsn"))


def save(membership: Membership) -> None:
    from purlin_resume.core import store

    store.write_json(membership.folder / CONFIG, membership.to_dict())
    os.chmod(membership.folder / CONFIG, 0o600)  # a DSN may carry a password
