"""What the team tables tell: everyone's resurrections, bookmarks, statistics and shared
contexts, read from the local index (git, brought up to date first) or from the team server.

``share`` keeps a bookmark's context pack in ``team/contexts/<uuid>.json.z`` (the compressed
context a resurrection needs, redacted again value by value; never a transcript), which the
next sync publishes.
"""

from __future__ import annotations

import contextlib
import shlex
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from purlin_resume.core import clock, redact, store
from purlin_resume.core.errors import NotFound
from purlin_resume.resurrection import compress
from purlin_resume.resurrection import team_membership as membership
from purlin_resume.resurrection.team_membership import Membership
from purlin_resume.team import gitstore, index, members, rows, stats, sync
from purlin_resume.team.gitstore import silent
from purlin_resume.team.sync import Warn

_MARKS = (
    "SELECT b.*, (SELECT COUNT(*) FROM resurrection_log r WHERE r.bookmark_uuid = b.uuid)"
    " AS team_resurrections, (SELECT COUNT(*) FROM context_packs p"
    " WHERE p.bookmark_uuid = b.uuid) AS shared FROM bookmarks b ORDER BY b.name, b.uuid"
)


class _Index:
    """The local index as the reads see it."""

    mysql = False

    def __init__(self, m: Membership, db: Any):
        self.m, self.db = m, db

    def tuples(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.db.execute(sql, params).fetchall()

    def dicts(self, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
        cursor = self.db.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def pack(self, key: str) -> bytes | None:
        found = self.tuples("SELECT member FROM context_packs WHERE bookmark_uuid = ?", (key,))
        if not found:
            return None
        if found[0][0] == self.m.member:
            with contextlib.suppress(OSError):
                return (self.m.contexts / f"{key}{members.PACK_SUFFIX}").read_bytes()
        path = members.pack_path(found[0][0], key)
        return gitstore.read(self.m, gitstore.tip(self.m), path)


@contextlib.contextmanager
def tables(history: Path, shelves: list[tuple[str, Path]], warn: Warn = silent) -> Iterator[Any]:
    """The team tables: the refreshed local index, or a connection to the team server."""
    m = sync.require(history)
    if m.dsn:
        db = sync.connect(m)
        try:
            yield db
        finally:
            db.close()
        return
    with sync.locked(m), index.opened(m, warn) as db:
        index.refresh(m, db, lambda: sync.local_rows(m, shelves))
        yield _Index(m, db)


def resurrections(
    history: Path, shelves: list[tuple[str, Path]], warn: Warn = silent
) -> list[dict[str, Any]]:
    """Every teammate's resurrections, oldest first, shaped like local log entries."""
    with tables(history, shelves, warn) as db:
        found = db.dicts("SELECT * FROM resurrection_log ORDER BY resurrected_at, uuid")
    return _checked("resurrection_log", found, warn)


def _checked(table: str, found: list[dict[str, Any]], warn: Warn) -> list[dict[str, Any]]:
    """The rows of ``found`` as local records, but those whose ids are none of their kinds (a
    teammate's hand-made or hostile row), left out with one line each."""
    kept = []
    for row in found:
        record = rows.entry(table, row)
        problem = rows.wrong_id(table, record)
        if problem is None:
            kept.append(record)
        else:
            warn(f"a row of teammate {record.get('member')!r} left out: {problem}")
    return kept


def figures(history: Path, shelves: list[tuple[str, Path]], warn: Warn = silent) -> dict:
    """The resurrection metrics of the whole team, computed in SQL."""
    with tables(history, shelves, warn) as db:
        return stats.figures(db.tuples, db.mysql)


def bookmarks(
    history: Path, shelves: list[tuple[str, Path]], warn: Warn = silent
) -> list[dict[str, Any]]:
    """Every teammate's bookmarks; ``shared`` when a context comes with it."""
    with tables(history, shelves, warn) as db:
        found = db.dicts(_MARKS)
    marks = _checked("bookmarks", found, warn)
    for mark in marks:
        mark["team_resurrections"] = int(mark.get("team_resurrections") or 0)
        mark["shared"] = bool(mark.get("shared"))
    return marks


def find(history: Path, shelves, query: str, limit: int = 10, warn: Warn = silent) -> list:
    """Team bookmarks matching ``query``: every word in the name, description, tags, project
    or teammate; ranked by how close the name is."""
    words = [w.lower() for w in query.split() if w.strip()]
    found = []
    for mark in bookmarks(history, shelves, warn):
        text = " ".join(
            str(part)
            for part in (
                mark["name"],
                mark.get("description"),
                " ".join(mark["tags"]),
                mark.get("project_path"),
                mark.get("member"),
            )
            if part
        ).lower()
        if all(word in text for word in words) or fuzz.WRatio(query, mark["name"]) >= 80:
            mark["score"] = round(fuzz.WRatio(query.lower(), mark["name"].lower()), 1)
            found.append(mark)
    found.sort(key=lambda mark: (-mark["score"], mark["name"]))
    return found[:limit]


def lookup(marks: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The team bookmark named ``key`` (or with that uuid, or that ``bookmark_id`` and only one)."""
    matches = [m for m in marks if key == m["uuid"]] or [
        m for m in marks if key in (m["name"], m["bookmark_id"])
    ]
    if not matches:
        raise NotFound(
            f"no team bookmark {key!r}; list them with 'purlin-resume bookmark list --team' "
            "(a teammate's bookmark arrives with 'purlin-resume team sync')"
        )
    if len(matches) > 1:
        ids = ", ".join(f"{m['uuid']} ({m['member']})" for m in matches)
        raise NotFound(f"several team bookmarks are named {key!r}: give one's uuid: {ids}")
    return matches[0]


def share(
    history: Path, mark: dict[str, Any], context: dict[str, Any], tokens: int, method: str
) -> dict[str, Any]:
    """Keep ``mark``'s context pack for the next sync; what was kept (without its bytes)."""
    m = sync.require(history)
    context, counts = redact.redact_data(context)
    key = membership.bookmark_key(mark)
    pack = sync.shared_pack(context, method, tokens, clock.iso())
    store.private_folder(m.contexts)
    store.write_bytes(m.contexts / f"{key}{members.PACK_SUFFIX}", pack)
    return {
        "uuid": key,
        "bookmark_id": mark.get("bookmark_id"),
        "name": mark.get("name"),
        "member": m.member,
        "method": method,
        "tokens": tokens,
        "redactions": counts,
        "bytes": len(pack),
    }


def context_of(
    history: Path, shelves: list[tuple[str, Path]], key: str
) -> tuple[dict[str, Any], compress.Context]:
    """A team bookmark and the context its owner shared with it, for a resurrection."""
    with tables(history, shelves) as db:
        mark = lookup(_checked("bookmarks", db.dicts(_MARKS), silent), key)
        pack = db.pack(mark["uuid"]) if mark["shared"] else None
    if pack is None:
        raise NotFound(
            f"team bookmark {key!r} ({mark['member']}) has no shared context: its owner "
            f"publishes one with 'purlin-resume bookmark share {shlex.quote(mark['name'])}'"
        )
    try:
        data = sync.unpacked(bytes(pack))
        return mark, compress.Context.from_dict(data["context"])
    except (zlib.error, ValueError, TypeError, KeyError):  # msgspec's errors are ValueErrors
        raise NotFound(
            f"the shared context of {key!r} does not decode; ask its owner to share it again"
        ) from None
