"""Local records (the JSONL log, the bookmark files) as team rows, and rows as table columns.

A row is the local record, redacted, under its key (``uuid``, see ``team_membership``) and its
teammate (``member``); a bookmark row also says its scope and leaves out the local path of its
archive. A row's ``version`` is the hash of its content: the team keeps every version a
teammate sent, and a version already sent is never sent again, so a local file rolled back to
an older copy sends nothing over the newer rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from purlin_resume.core import ids, redact
from purlin_resume.resurrection import bookmarks
from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.resurrection import team_membership as membership
from purlin_resume.team import schema

LOCAL_ONLY = frozenset({"archive", "revision"})


def _strings(value: Any, into: list[str]) -> list[str]:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            into.append(str(key))
            _strings(item, into)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _strings(item, into)
    return into


def redacted(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with every string redacted. One scan over all its strings at once finds
    nothing in almost every record; only then is each value redacted on its own."""
    if not redact.find("\n\n".join(_strings(record, []))):
        return record
    return redact.redact_data(record)[0]


CHUNK = 256


def redacted_all(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``redacted`` over many records: one scan per chunk of them, each record of a chunk where
    something was found redacted on its own."""
    made = []
    for start in range(0, len(found), CHUNK):
        chunk = found[start : start + CHUNK]
        texts: list[str] = []
        for record in chunk:
            _strings(record, texts)
        made += [redacted(r) for r in chunk] if redact.find("\n\n".join(texts)) else chunk
    return made


def canonical(row: dict[str, Any]) -> str:
    """A row as one line of text: the same row, the same text."""
    return json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def version(row: dict[str, Any], text: str | None = None) -> str:
    """The hash of a row's content (``text``: the row already as ``canonical`` text)."""
    return hashlib.sha1((text or canonical(row)).encode("utf-8")).hexdigest()


def log_rows(history: Path, member: str) -> list[dict[str, Any]]:
    """Every entry of the local log as a team row, oldest first."""
    entries, _ = resurrection_log.read(Path(history) / resurrection_log.FILE_NAME)
    made = []
    for entry in entries:
        row = {k: v for k, v in entry.items() if k not in LOCAL_ONLY}
        row.update(uuid=membership.event_key(entry), member=member)
        made.append(row)
    return redacted_all(made)


def bookmark_rows(shelves: list[tuple[str, Path]], member: str) -> list[dict[str, Any]]:
    """Every bookmark of the given files as a team row."""
    made = []
    for scope, path in shelves:
        for mark in bookmarks.load(path, scope):
            data = mark.to_dict()
            row = {k: v for k, v in data.items() if k not in LOCAL_ONLY}
            row.update(uuid=membership.bookmark_key(data), member=member, scope=scope)
            made.append(row)
    return redacted_all(made)


def clamped(name: str, value: Any, limit: int | None = None) -> Any:
    """A value the column ``name`` takes: an integer kept within INT's range, a text cut to
    ``limit`` characters, anything else of a number column dropped."""
    if name in schema.INTS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        low, high = schema.INT_RANGE
        return max(low, min(high, round(value)))
    if value is not None and not isinstance(value, (str, bytes)):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if limit is not None and isinstance(value, str):
        value = value[:limit]
    return value


def columns(
    table: str, row: dict[str, Any], limits: dict[str, int] | None = None
) -> dict[str, Any]:
    """``row`` as the columns of ``table``: what has no column goes into ``extra`` as JSON."""
    names = [name for name, _, _ in schema.TABLES[table]]
    limits = limits or {}
    made = {
        name: clamped(name, row.get(name), limits.get(name))
        for name in names
        if name not in ("extra", "created_at") or table == "bookmarks"
    }
    if table == "bookmarks":
        tags = row.get("tags")
        made["tags"] = json.dumps(tags if isinstance(tags, list) else [], ensure_ascii=False)
    if "extra" in names:
        rest = {k: v for k, v in row.items() if k not in names}
        made["extra"] = json.dumps(rest, ensure_ascii=False, sort_keys=True) if rest else None
    return made


# the ids a teammate's row holds, each checked as a local record's is where it enters: they are
# shown, and put into the commands a message suggests
_ID_KINDS = {
    "bookmarks": {
        "name": ids.BOOKMARK_NAME,
        "bookmark_id": ids.BOOKMARK,
        "session_id": ids.SESSION,
        "agent_id": ids.AGENT,
    },
    "resurrection_log": {
        "resurrection_id": ids.RESURRECTION,
        "bookmark_id": ids.BOOKMARK,
        "resurrected_from_session_id": ids.SESSION,
        "resurrected_from_agent_id": ids.AGENT,
        "resurrected_as_agent_id": ids.SESSION,
    },
}


def wrong_id(table: str, record: dict[str, Any]) -> str | None:
    """Why an id of ``record`` (a row of ``table``) is not one of its kind; None when each
    present is."""
    for name, kind in _ID_KINDS.get(table, {}).items():
        value = record.get(name)
        if value not in (None, "") and not kind.valid(value):  # a server keeps none as ""
            return f"{name}: {kind.problem(value)}"
    return None


def entry(table: str, found: dict[str, Any]) -> dict[str, Any]:
    """A table row back in the shape of a local record (``extra`` folded in)."""
    record = dict(found)
    extra = record.pop("extra", None)
    if extra:
        with contextlib.suppress(ValueError, AttributeError):
            record.update({k: v for k, v in json.loads(extra).items() if record.get(k) is None})
    if table == "bookmarks":
        try:
            tags = json.loads(record.get("tags") or "[]")
        except ValueError:
            tags = []
        record["tags"] = bookmarks.tags_of(tags)
    return record
