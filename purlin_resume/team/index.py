"""The local index of the team's git ref (``team/index.sqlite``): every teammate's rows in the
team tables (``schema``), for the ``--team`` reads and the statistics.

``refresh`` compares each member file's blob id at the fetched tip with the one indexed, and
reads only the files that changed: of a file that grew (the files are only appended to), only
the lines after the part already indexed. This teammate's own rows not synced yet are laid over
them (a version the team already had stays under the team's newer one). The index is a cache:
one that does not open or read as SQLite is deleted and built again, with one warning line.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from purlin_resume.resurrection.team_membership import Membership
from purlin_resume.team import gitstore, members, rows, schema

Warn = Callable[[str], None]
FILES = "indexed_files"
OWN = "own:"  # the indexed_files entry of the local rows laid over the team's


def _create(db: sqlite3.Connection) -> None:
    for statement in schema.statements(mysql=False):
        db.execute(statement)
    db.execute(
        f"CREATE TABLE {FILES} (path TEXT PRIMARY KEY, blob TEXT NOT NULL, length INT NOT NULL)"
    )
    db.execute(f"INSERT INTO {schema.META} VALUES ('schema_version', ?)", (str(schema.VERSION),))


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    found = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if schema.META not in found:
        _create(db)
    else:
        version = db.execute(
            f"SELECT value FROM {schema.META} WHERE name='schema_version'"
        ).fetchone()
        if not version or version[0] != str(schema.VERSION):
            raise sqlite3.DatabaseError("an index of another schema version")
    return db


@contextlib.contextmanager
def opened(m: Membership, warn: Warn) -> Iterator[sqlite3.Connection]:
    """The index, made again when it is broken (the caller holds the team lock)."""
    try:
        db = _open(m.index)
        db.execute(f"SELECT COUNT(*) FROM {FILES}").fetchone()
    except sqlite3.DatabaseError as exc:
        warn(f"the team index {m.index} was unreadable ({exc}); it is built again")
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{m.index}{suffix}")
        db = _open(m.index)
    try:
        yield db
    finally:
        db.close()


def _insert(db: sqlite3.Connection, table: str, found: list[dict[str, Any]]) -> None:
    if not found:
        return
    made = [rows.columns(table, row) for row in found]
    names = list(made[0])
    marks = ", ".join("?" for _ in names)
    db.executemany(
        f"INSERT OR REPLACE INTO {table} ({', '.join(names)}) VALUES ({marks})",
        [tuple(row[n] for n in names) for row in made],
    )


def _member_of(path: str) -> tuple[str, str] | None:
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "members" and parts[2] in (members.LOG, members.BOOKMARKS):
        return parts[1], parts[2]
    return None


def _tail(indexed: tuple[str, int] | None, content: bytes | None) -> bytes | None:
    """What ``content`` holds after the part already indexed, when it only grew since."""
    if indexed is None or content is None or not indexed[1] or len(content) < indexed[1]:
        return None
    blob, length = indexed
    return content[length:] if gitstore.blob_id(content[:length]) == blob else None


def refresh(
    m: Membership,
    db: sqlite3.Connection,
    own: Callable[[], tuple[list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """Bring the index up to the fetched tip and this teammate's local files."""
    tip = gitstore.tip(m)
    listed = gitstore.blobs(m, tip)
    now = {p: b for p, b in listed.items() if _member_of(p)}
    packs = {p for p in listed if p.endswith(members.PACK_SUFFIX)}
    if m.contexts.is_dir():
        packs |= {
            members.pack_path(m.member, f.name[: -len(members.PACK_SUFFIX)])
            for f in m.contexts.glob("*" + members.PACK_SUFFIX)
        }
    known = {p: (b, n) for p, b, n in db.execute(f"SELECT path, blob, length FROM {FILES}")}
    changed = {
        p
        for p in set(now) | {p for p in known if not p.startswith(OWN)}
        if now.get(p) != known.get(p, (None,))[0]
    }
    own_log, own_marks = own()
    mine = {
        members.path(m.member, members.LOG): own_log,
        members.path(m.member, members.BOOKMARKS): own_marks,
    }
    held = gitstore.read_many(m, tip, sorted(p for p in changed | set(mine) if p in now))
    folded = {p: members.fold(held.get(p)) for p in mine}
    pending = {p for p in mine if members.missing(folded[p], mine[p])}
    db.execute("BEGIN")
    try:
        for path in changed | pending | {p for p in mine if OWN + p in known}:
            member, name = _member_of(path) or ("", "")
            table = "resurrection_log" if name == members.LOG else "bookmarks"
            content = held.get(path)
            tail = None if path in mine else _tail(known.get(path), content)
            if tail is None:
                db.execute(f"DELETE FROM {table} WHERE member = ?", (member,))
                found = folded[path] if path in mine else members.fold(content)
            else:
                found = members.fold(tail)
                db.executemany(f"DELETE FROM {table} WHERE uuid = ?", [(k,) for k in found.removed])
            _insert(db, table, found.live())
            db.execute(f"DELETE FROM {FILES} WHERE path IN (?, ?)", (path, OWN + path))
            if path in now:
                db.execute(
                    f"INSERT INTO {FILES} VALUES (?, ?, ?)", (path, now[path], len(content or b""))
                )
            if path in pending:  # own rows laid over the team's: redone on the next read
                db.execute(f"INSERT INTO {FILES} VALUES (?, 'pending', 0)", (OWN + path,))
        db.execute("DELETE FROM context_packs")
        db.executemany(
            "INSERT OR REPLACE INTO context_packs (bookmark_uuid, member, shared_at, pack) "
            "VALUES (?, ?, '', x'')",
            [(p.rsplit("/", 1)[1][: -len(members.PACK_SUFFIX)], p.split("/")[1]) for p in packs],
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
