"""Whether this Claude data folder belongs to a team, and who its teammate is.

Everything lives in ``<Claude data folder>/history/team/``: ``team.json`` (0600: the transport,
``git`` with a ``remote`` URL and a ``ref``, or ``mysql`` with a ``dsn``), ``member`` (this
teammate's id, kept across a new ``team init``), the local copy of the team's git ref
(``repo.git``), the index the ``--team`` reads use (``index.sqlite``), the tombstones of the
bookmarks removed and the rows purged since joining (``removed.jsonl``) and the contexts shared
(``contexts/``). Reading it costs one ``stat`` when there is no team: the hook path calls
``joined``.
"""

from __future__ import annotations

import getpass
import os
import re
import secrets
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from purlin_resume.core import store
from purlin_resume.core.errors import CorruptFile, NotFound

FOLDER = "team"
CONFIG = "team.json"
MEMBER = "member"
REPO = "repo.git"
INDEX = "index.sqlite"
REMOVED = "removed.jsonl"
CONTEXTS = "contexts"
LOCK = "team"  # store.locked(folder / LOCK) guards the local copy, the index and the config
MEMBER_PATTERN = "[a-z0-9][a-z0-9-]{2,39}"  # a teammate's id, in team.json and the ref's paths
MEMBER_ID = re.compile(MEMBER_PATTERN)  # fullmatch: the whole text is one id
DEFAULT_REF = "refs/purlin/team"


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
    ref: str = DEFAULT_REF
    group: str | None = None

    @property
    def folder(self) -> Path:
        return folder(self.history)

    @property
    def repo(self) -> Path:
        return self.folder / REPO

    @property
    def index(self) -> Path:
        return self.folder / INDEX

    @property
    def removed(self) -> Path:
        return self.folder / REMOVED

    @property
    def contexts(self) -> Path:
        return self.folder / CONTEXTS

    @property
    def lock(self) -> Path:
        return self.folder / LOCK

    @property
    def transport(self) -> str:
        return "mysql" if self.dsn else "git"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"transport": self.transport, "member": self.member}
        if self.dsn:
            data["dsn"] = self.dsn
        else:
            data.update(remote=self.remote, ref=self.ref, group=self.group)
        return data


def _user() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = os.environ.get("USER") or "member"
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24] or "member"


def member_id(history: Path) -> str:
    """This teammate's id (``<user>-<6 hex>``): made once, then kept in ``team/member``."""
    path = folder(history) / MEMBER
    try:
        known = store.read_text(path).strip()
    except NotFound:
        known = ""
    if MEMBER_ID.fullmatch(known):
        return known

    made = f"{_user()}-{secrets.token_hex(3)}"
    store.private_folder(path.parent)
    store.write_text(path, made + "\n")
    return made


def load(history: Path) -> Membership | None:
    """The membership of ``history``, or None when it has not joined a team."""
    path = folder(history) / CONFIG
    try:
        data = store.read_json(path)
    except NotFound:
        return None
    if (
        not isinstance(data, dict)
        or not MEMBER_ID.fullmatch(str(data.get("member") or ""))
        or not (data.get("remote") or data.get("dsn"))
    ):
        raise CorruptFile(path, "expected {transport, remote or dsn, member}")
    return Membership(
        Path(history),
        data["member"],
        data.get("remote"),
        data.get("dsn"),
        data.get("ref") or DEFAULT_REF,
        data.get("group"),
    )


def save(membership: Membership) -> None:
    """Write ``team.json`` readable by its owner only (a DSN may carry a password): made 0600
    before anything is written into it."""
    store.private_folder(membership.folder)
    store.write_json(membership.folder / CONFIG, membership.to_dict())
    os.chmod(membership.folder / CONFIG, 0o600)


def _made_key(*parts: Any) -> str:
    """A key for a record written before records carried a ``uuid``: a UUID made from what
    never changes in it, so every sync of the same record finds the same key."""
    text = "\x1f".join("" if part is None else str(part) for part in parts)
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "purlin-resume:" + text))


def event_key(entry: dict[str, Any]) -> str:
    """The team key of a log entry: its ``uuid``, or one made from its first line's fields."""
    if isinstance(entry.get("uuid"), str) and entry["uuid"]:
        return entry["uuid"]
    return _made_key(
        "event",
        entry.get("resurrection_id"),
        entry.get("resurrected_at"),
        entry.get("resurrected_in_session"),
        entry.get("resurrected_from_session_id"),
        entry.get("query"),
    )


def bookmark_key(mark: dict[str, Any]) -> str:
    """The team key of a bookmark: its ``uuid``, or one made from its id, time and session."""
    if isinstance(mark.get("uuid"), str) and mark["uuid"]:
        return mark["uuid"]
    return _made_key(
        "bookmark",
        mark.get("bookmark_id"),
        mark.get("created_at"),
        mark.get("session_id"),
        mark.get("project_path"),
    )
