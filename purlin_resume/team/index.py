"""The local index of the team's git ref (``team/index.sqlite``): every teammate's rows in the
team tables (``schema``), for the ``--team`` reads and the statistics.

``refresh`` compares the blob ids of each teammate's segments at the fetched tip with those
indexed, and reads only the teammates and tables that changed: when their segments only grew or
new ones came after them, only the lines they gained. This teammate's own rows not synced yet are laid over
them (a version the team already had stays under the team's newer one). The index is a cache:
one that does not open or read as SQLite is deleted and built again, with one warning line.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
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


def _insert(db: sqlite3.Connection, table: str, member: str, found: list[dict[str, Any]]) -> None:
    """``found`` rows of the teammate whose folder holds them (whatever ``member`` a row
    claims): a row without a column the table needs is left out, and a key another teammate's
    row already holds is not taken over."""
    required = [n for n, kind, _ in schema.TABLES[table] if "NOT NULL" in kind and n != "member"]
    made = [rows.columns(table, {**row, "member": member}) for row in found]
    made = [row for row in made if all(row[n] is not None for n in required)]
    if not made:
        return
    names = list(made[0])
    marks = ", ".join("?" for _ in names)
    update = ", ".join(f"{n} = excluded.{n}" for n in names if n != "uuid")
    db.executemany(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks}) ON CONFLICT (uuid) "
        f"DO UPDATE SET {update} WHERE {table}.member = excluded.member",
        [tuple(row[n] for n in names) for row in made],
    )


def _tail(indexed: tuple[str, int] | None, content: bytes) -> bytes | None:
    """What ``content`` holds after the part already indexed (all of it for a segment not
    indexed yet), when it only grew since; None when it changed otherwise."""
    if indexed is None:
        return content
    blob, length = indexed
    if len(content) < length or gitstore.blob_id(content[:length]) != blob:
        return None
    return content[length:]


Group = tuple[str, str]  # (member, members.LOG or members.BOOKMARKS)


def _grouped(paths: Iterable[str]) -> dict[Group, list[str]]:
    """The segments among ``paths`` by teammate and table, in order."""
    found: dict[Group, list[str]] = {}
    for path in sorted(paths):
        group = members.owner(path)
        if group is not None:
            found.setdefault(group, []).append(path)
    return found


class _Files:
    """The segments at the tip and those indexed, by teammate and table."""

    def __init__(self, now: dict[str, str], known: dict[str, tuple[str, int]]):
        self.now, self.known = now, known
        self.paths = _grouped(now)
        self.indexed = _grouped(known)

    def unchanged(self, group: Group) -> bool:
        at_tip = {p: self.now[p] for p in self.paths.get(group, [])}
        return at_tip == {p: self.known[p][0] for p in self.indexed.get(group, [])}

    def gained(self, group: Group, held: dict[str, bytes]) -> bytes | None:
        """The lines ``group`` gained since it was indexed, when that is all that happened
        (segments grew, or came after the indexed ones); None when it must be read whole."""
        paths, before = self.paths.get(group, []), self.indexed.get(group, [])
        if any(p not in self.now for p in before):
            return None
        if before and any(p < before[-1] for p in paths if p not in before):
            return None
        tails = []
        for path in paths:
            if path in before and self.known[path][0] == self.now[path]:
                continue
            tail = _tail(self.known.get(path), held[path])
            if tail is None:
                return None
            tails.append(tail)
        return members.joined(tails)


def refresh(
    m: Membership,
    db: sqlite3.Connection,
    own: Callable[[], tuple[list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    """Bring the index up to the fetched tip and this teammate's local files: the segments of
    each teammate and table that changed are read (only what they gained, when that is all that
    happened), and this teammate's own rows not synced yet are laid over them."""
    tip = gitstore.tip(m)
    listed = gitstore.blobs(m, tip)
    packs = {found for p in listed if (found := members.pack_owner(p))}
    if m.contexts.is_dir():
        packs |= {
            (f.name[: -len(members.PACK_SUFFIX)], m.member)
            for f in m.contexts.glob("*" + members.PACK_SUFFIX)
        }
    known = {p: (b, n) for p, b, n in db.execute(f"SELECT path, blob, length FROM {FILES}")}
    files = _Files({p: b for p, b in listed.items() if members.owner(p)}, known)
    own_log, own_marks = own()
    mine = {members.LOG: own_log, members.BOOKMARKS: own_marks}
    stale = {(m.member, name) for name in mine} | {
        group for group in files.paths.keys() | files.indexed.keys() if not files.unchanged(group)
    }
    wanted = sorted(p for group in stale for p in files.paths.get(group, []))
    held = gitstore.read_many(m, tip, wanted)
    db.execute("BEGIN")
    try:
        for group in sorted(stale, key=lambda g: (g[0] != m.member, g)):  # own rows first
            _index(m, db, group, files, held, mine.get(group[1], []))
        db.execute("DELETE FROM context_packs")
        owned = set(db.execute("SELECT uuid, member FROM bookmarks"))  # a pack is its owner's
        db.executemany(
            "INSERT INTO context_packs (bookmark_uuid, member, shared_at, pack) "
            "VALUES (?, ?, '', x'')",
            sorted(packs & owned),
        )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _index(m: Membership, db, group: Group, files: _Files, held, own: list) -> None:
    """Index one teammate's segments of one table (this teammate's with their own rows)."""
    member, name = group
    table = members.TABLES[name]
    paths = files.paths.get(group, [])
    marker = f"{OWN}{member}/{name}"
    pending: list[dict[str, Any]] = []
    found = None
    if member == m.member:
        everything = members.fold(members.joined(held[p] for p in paths))
        pending = members.missing(everything, own)
        if pending or marker in files.known:
            found = everything
        elif files.unchanged(group):
            return
    gained = None if found is not None else files.gained(group, held)
    if found is None:
        found = members.fold(members.joined(held[p] for p in paths) if gained is None else gained)
    if gained is None:
        db.execute(f"DELETE FROM {table} WHERE member = ?", (member,))
    else:
        db.executemany(
            f"DELETE FROM {table} WHERE uuid = ? AND member = ?",
            [(key, member) for key in found.removed],
        )
    _insert(db, table, member, found.live())
    gone = [*files.indexed.get(group, []), marker]
    db.executemany(f"DELETE FROM {FILES} WHERE path = ?", [(p,) for p in gone])
    db.executemany(
        f"INSERT INTO {FILES} VALUES (?, ?, ?)",
        [(p, files.now[p], len(held[p])) for p in paths],
    )
    if pending:  # own rows laid over the team's: redone on the next read
        db.execute(f"INSERT INTO {FILES} VALUES (?, 'pending', 0)", (marker,))
