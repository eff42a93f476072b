"""A teammate's files on the team's git ref, and what they hold.

``members/<member>/log/`` and ``members/<member>/bookmarks/`` hold segments (``000001.jsonl``,
``000002.jsonl``, …) of one row version per line, read in order as one file (a later line of
a key is its newer version; a line with ``removed_at`` and no ``name``, a tombstone, says the
row was removed or purged); ``members/<member>/contexts/<uuid>.json.z`` holds the context
shared with one bookmark. A sync appends to the last segment, or starts a new one once that
holds ``SEGMENT_BYTES``, so what each sync stores stays small however long the log grows; a
removed row's earlier lines are dropped from its segments (``compact``), its tombstone stays.
``fold`` reads the lines back, and ``missing`` says which local rows the team lacks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from purlin_resume.resurrection.team_membership import MEMBER_PATTERN, Membership
from purlin_resume.team import gitstore, rows

LOG = "log"
BOOKMARKS = "bookmarks"
TABLES = {LOG: "resurrection_log", BOOKMARKS: "bookmarks"}
CONTEXTS = "contexts"
PACK_SUFFIX = ".json.z"
SEGMENT_SUFFIX = ".jsonl"
SEGMENT_BYTES = 64 * 1024


def folder(member: str) -> str:
    return f"members/{member}"


def segment(member: str, name: str, number: int) -> str:
    return f"{folder(member)}/{name}/{number:06d}{SEGMENT_SUFFIX}"


_PATH = re.compile(rf"members/({MEMBER_PATTERN})/({'|'.join((*TABLES, CONTEXTS))})/([\w.-]+)")
_SEGMENT = re.compile(r"\d{6,}" + re.escape(SEGMENT_SUFFIX))


def owner(path: str) -> tuple[str, str] | None:
    """(member, ``LOG`` or ``BOOKMARKS``) of a segment's path; None for any other path (a
    file named otherwise is no segment, whoever put it there)."""
    found = _PATH.fullmatch(path)
    if found is None or found[2] not in TABLES or not _SEGMENT.fullmatch(found[3]):
        return None
    return found[1], found[2]


def pack_owner(path: str) -> tuple[str, str] | None:
    """(bookmark key, member) of a shared context's path; None for any other path."""
    found = _PATH.fullmatch(path)
    if found is None or found[2] != CONTEXTS or not found[3].endswith(PACK_SUFFIX):
        return None
    return found[3][: -len(PACK_SUFFIX)], found[1]


def segments(listed: dict[str, str] | set[str], member: str, name: str) -> list[str]:
    """The paths of one teammate's segments of ``name`` among ``listed``, in order."""
    return sorted(p for p in listed if owner(p) == (member, name))


def read(m: Membership, tip: str | None, member: str) -> dict[str, bytes]:
    """One teammate's segments at ``tip``, each table's read as one file: ``LOG`` and
    ``BOOKMARKS`` -> text (one listing of the tree, one read of the files)."""
    listed = gitstore.blobs(m, tip)
    paths = {name: segments(listed, member, name) for name in TABLES}
    held = gitstore.read_many(m, tip, [p for found in paths.values() for p in found])
    return {name: joined(held[p] for p in found if p in held) for name, found in paths.items()}


def joined(texts: Iterable[bytes]) -> bytes:
    """Segments read as one file."""
    return b"".join(text if text.endswith(b"\n") else text + b"\n" for text in texts if text)


def pack_path(member: str, key: str) -> str:
    return f"{folder(member)}/{CONTEXTS}/{key}{PACK_SUFFIX}"


def dumps(row: dict[str, Any]) -> str:
    return rows.canonical(row) + "\n"


def tombstone(row: dict[str, Any]) -> bool:
    """A line saying its key was removed (a bookmark removed, a row purged)."""
    return bool(row.get("removed_at")) and "name" not in row


@dataclass
class Folded:
    """One file's rows: the newest version of each key, every version seen, the removed keys."""

    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    versions: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)

    def add(self, row: dict[str, Any], text: str | None = None) -> None:
        key = row.get("uuid")
        if not isinstance(key, str):
            return
        self.versions.add(rows.version(row, text))
        if tombstone(row):
            self.removed.add(key)
            self.latest.pop(key, None)
        elif key not in self.removed:
            self.latest[key] = row

    def live(self) -> list[dict[str, Any]]:
        return list(self.latest.values())


def _parsed(text: bytes | str | None) -> list[tuple[dict[str, Any], str]]:
    """Each line of a member file that parses (one cut short by a crash does not), with its
    text. Lines end at ``\n`` only: a row's text may hold U+2028 or U+0085 (``dumps`` keeps them
    unescaped)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    found = []
    for line in (text or "").split("\n"):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            found.append((row, line))
    return found


def lines(text: bytes | str | None) -> list[dict[str, Any]]:
    """Every row version a member file holds, oldest first."""
    return [row for row, _ in _parsed(text)]


def fold(text: bytes | str | None) -> Folded:
    """A member file read back."""
    found = Folded()
    for row, line in _parsed(text):  # written canonical (``dumps``): its text is its version's
        found.add(row, line)
    return found


def missing(team: Folded, local: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The local rows whose version the team never had (a removed key is never sent again)."""
    wanted = []
    for row in local:
        if row.get("uuid") in team.removed or rows.version(row) in team.versions:
            continue
        wanted.append(row)
        team.add(row)
    return wanted


def compact(text: bytes, removed: set[str]) -> bytes:
    """A member file without the lines of the ``removed`` keys, their tombstones kept."""
    kept = [
        row_text
        for row, row_text in _parsed(text)
        if row.get("uuid") not in removed or tombstone(row)
    ]
    return "".join(row_text + "\n" for row_text in kept).encode("utf-8")


def written(
    held: dict[str, bytes], member: str, name: str, removed: set[str], wanted: list[dict[str, Any]]
) -> dict[str, bytes | None]:
    """The segments to write: ``held`` without the lines of ``removed`` keys (a segment left
    empty is deleted), and ``wanted`` appended to the last one, or to a new one when the last
    is full."""
    changes: dict[str, bytes | None] = {}
    for path, text in held.items() if removed else ():
        kept = compact(text, removed)
        if kept != text:
            changes[path] = kept or None
    if wanted:
        added = "".join(map(dumps, wanted)).encode("utf-8")
        last = max(held, default=None)
        current = changes.get(last, held.get(last)) if last else None
        if last is not None and current is not None and len(current) < SEGMENT_BYTES:
            changes[last] = joined([current]) + added
        else:
            number = int(last.rsplit("/", 1)[1][: -len(SEGMENT_SUFFIX)]) + 1 if last else 1
            changes[segment(member, name, number)] = added
    return changes
