"""A teammate's files on the team's git ref, and what they hold.

``members/<member>/log.jsonl`` and ``members/<member>/bookmarks.jsonl`` hold one row version
per line (a later line of a key is its newer version; a line with ``removed_at`` and no ``name``,
a tombstone, says the row was removed or purged); ``members/<member>/contexts/<uuid>.json.z``
holds the context shared with one bookmark. A teammate appends to their files, except that a
removed row's earlier lines are dropped from them (``compact``): only its tombstone stays.
``fold`` reads such a file back, and ``missing`` says which local rows the team lacks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from purlin_resume.team import rows

LOG = "log.jsonl"
BOOKMARKS = "bookmarks.jsonl"
CONTEXTS = "contexts"
PACK_SUFFIX = ".json.z"


def folder(member: str) -> str:
    return f"members/{member}"


def path(member: str, name: str) -> str:
    return f"{folder(member)}/{name}"


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
    text."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    found = []
    for line in (text or "").splitlines():
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
    kept = []
    for line in text.splitlines(keepends=True):
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash
        if not isinstance(row, dict) or row.get("uuid") not in removed or tombstone(row):
            kept.append(line if line.endswith(b"\n") else line + b"\n")
    return b"".join(kept)
