"""Local records (the JSONL log, the bookmark files) as team rows, and back.

Team ids: a teammate's local ids (``res-2026-02-09-001``, ``bmk-2026-02-09-001``) are only
unique on their own machine, so a row's team id is the local id, a dot, and the teammate's
member id (``res-2026-02-09-001.alice-3f9c2a``). Every teammate writes only rows with their own
member id, and never deletes one (a removed bookmark gets ``removed_at``), so a Dolt merge of
two teammates' work never meets the same primary key from both sides: it never conflicts and
never drops a row. Every text value is redacted before it becomes a row.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from purlin_resume.core import redact
from purlin_resume.team import schema

REQUIRED = frozenset(
    name
    for name, sqlite_type, _ in schema.LOG_COLUMNS
    if "NOT NULL" in sqlite_type and name not in ("member", "local_resurrection_id")
)
KNOWN = frozenset(schema.LOG_NAMES)
BOOKMARK_FIELDS = (
    "name",
    "description",
    "session_id",
    "agent_id",
    "project_path",
    "hostname",
    "created_at",
    "resurrection_count",
    "last_resurrected",
)


def _strings(value: Any, into: list[str]) -> list[str]:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                into.append(key)
            if isinstance(item, str):
                into.append(item)
            elif isinstance(item, (dict, list, tuple)):
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


def team_id(local_id: str, member: str) -> str:
    """The team id of a local id; a team id (a teammate's bookmark) stays as it is."""
    return local_id if "." in local_id else f"{local_id}.{member}"


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def log_row(entry: dict[str, Any], member: str) -> dict[str, Any]:
    """The ``resurrection_log`` row of one local log entry."""
    entry = redacted(entry)
    row: dict[str, Any] = {}
    for name in schema.LOG_NAMES:
        value = entry.get(name)
        if name in ("context_size_tokens", "new_agent_duration_ms", "new_agent_tool_calls"):
            value = _number(value)
        elif name == "latency_ms":
            value = round(value) if isinstance(value, (int, float)) else None
        elif value is not None and not isinstance(value, str):
            value = json.dumps(value)
        row[name] = "" if (value is None and name in REQUIRED) else value
    row["resurrection_id"] = team_id(str(entry["resurrection_id"]), member)
    row["local_resurrection_id"] = str(entry["resurrection_id"])
    row["member"] = member
    if entry.get("bookmark_id"):
        row["bookmark_id"] = team_id(str(entry["bookmark_id"]), member)
    row["created_at"] = None  # the database's default
    extra = {k: v for k, v in entry.items() if k not in KNOWN}
    row["extra"] = json.dumps(extra, ensure_ascii=False, sort_keys=True) if extra else None
    return row


def log_entry(row: dict[str, Any]) -> dict[str, Any]:
    """A ``resurrection_log`` row in the shape of a local log entry (team ids, ``member``)."""
    entry = dict(row)
    extra = entry.pop("extra", None)
    for name in REQUIRED:
        if entry.get(name) == "":
            entry[name] = None
    if extra:
        with contextlib.suppress(ValueError, AttributeError):
            entry.update({k: v for k, v in json.loads(extra).items() if k not in entry})
    return entry


def bookmark_row(mark: dict[str, Any], member: str, scope: str | None) -> dict[str, Any]:
    """The ``bookmarks`` row of one local bookmark."""
    mark = redacted(mark)
    row = {name: mark.get(name) for name in BOOKMARK_FIELDS}
    row["session_id"] = row["session_id"] or ""
    row["resurrection_count"] = _number(row["resurrection_count"]) or 0
    tags = mark.get("tags")
    row["tags"] = json.dumps(tags if isinstance(tags, list) else [], ensure_ascii=False)
    row["bookmark_id"] = team_id(str(mark["bookmark_id"]), member)
    row["local_bookmark_id"] = str(mark["bookmark_id"])
    row["member"] = member
    row["scope"] = scope
    row["removed_at"] = None
    return row


def bookmark_entry(row: dict[str, Any]) -> dict[str, Any]:
    mark = {name: row.get(name) for name in schema.BOOKMARK_NAMES}
    try:
        mark["tags"] = json.loads(row.get("tags") or "[]")
    except ValueError:
        mark["tags"] = []
    return mark
