"""What the team tables tell: everyone's resurrections, bookmarks and shared contexts.

Reads commit the queued changes first, so a teammate's own latest work is always in them.
``share`` publishes a bookmark's context pack: the compressed context a resurrection needs,
redacted again value by value, zlib-compressed; never a transcript.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, redact
from purlin_resume.core.errors import NotFound
from purlin_resume.team import rows
from purlin_resume.team.sync import flush_into, opened, require

STATS_FIELDS = (
    # what resurrection_log.stats and select read
    "resurrection_id",
    "resurrected_at",
    "resurrected_from_agent_id",
    "resurrected_from_session_id",
    "resurrected_as_agent_id",
    "resurrected_from_project",
    "resurrected_in_project",
    "resurrected_from_agent_type",
    "resurrection_mode",
    "context_size_tokens",
    "outcome",
    "outcome_reason",
    "latency_ms",
)


def resurrections(history: Path, fields: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """Every teammate's resurrections, oldest first, shaped like local log entries (only
    ``fields`` of them when given: the statistics read a few columns of many rows)."""
    m = require(history)
    columns = ", ".join(fields) if fields else "*"
    sql = f"SELECT {columns} FROM resurrection_log ORDER BY resurrected_at, resurrection_id"
    with opened(m) as db:
        flush_into(db, m)
        return [rows.log_entry(row) for row in db.query(sql)]


_MARKS_SELECT = (
    "SELECT b.*, (SELECT COUNT(*) FROM resurrection_log r WHERE r.bookmark_id = b.bookmark_id)"
    " AS team_resurrections, (SELECT COUNT(*) FROM context_packs p"
    " WHERE p.bookmark_id = b.bookmark_id) AS shared FROM bookmarks b"
    " WHERE b.removed_at IS NULL ORDER BY b.name, b.bookmark_id"
)


def bookmarks(history: Path) -> list[dict[str, Any]]:
    """Every teammate's live bookmarks; ``shared`` when a context pack comes with it."""
    m = require(history)
    with opened(m) as db:
        flush_into(db, m)
        found = []
        for row in db.query(_MARKS_SELECT):
            mark = rows.bookmark_entry(row)
            mark["team_resurrections"] = int(row.get("team_resurrections") or 0)
            mark["shared"] = bool(row.get("shared"))
            found.append(mark)
        return found


def find(history: Path, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Team bookmarks matching ``query``: every word in the name, description, tags or
    project; ranked by how close the name is."""
    from rapidfuzz import fuzz

    words = [w.lower() for w in query.split() if w.strip()]
    found = []
    for mark in bookmarks(history):
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


def lookup(history: Path, key: str) -> dict[str, Any]:
    """The team bookmark named (or with the team id) ``key``."""
    matches = [m for m in bookmarks(history) if key in (m["name"], m["bookmark_id"])]
    if not matches:
        raise NotFound(
            f"no team bookmark {key!r}; list them with 'purlin-resume bookmark list --team' "
            "(a teammate's bookmark arrives with 'purlin-resume team sync')"
        )
    if len(matches) > 1:
        ids = ", ".join(m["bookmark_id"] for m in matches)
        raise NotFound(f"several team bookmarks are named {key!r} ({ids}): give the id")
    return matches[0]


def share(
    history: Path,
    mark: dict[str, Any],
    scope: str,
    context: dict[str, Any],
    tokens: int,
    method: str,
) -> dict[str, Any]:
    """Publish ``mark`` with its context pack; the pack row as stored (without its bytes)."""
    m = require(history)
    context, counts = redact.redact_data(context)
    pack = zlib.compress(json.dumps(context, ensure_ascii=False).encode("utf-8"), 9)
    with opened(m) as db:
        flush_into(db, m)
        bookmark = rows.bookmark_row(mark, m.member, scope)
        row = {
            "bookmark_id": bookmark["bookmark_id"],
            "member": m.member,
            "shared_at": clock.iso(),
            "method": method,
            "tokens": tokens,
            "redactions": json.dumps(counts, sort_keys=True),
            "pack": pack,
        }
        db.begin()
        try:
            db.upsert("bookmarks", [bookmark])
            db.upsert("context_packs", [row])
            db.end()
        except BaseException:
            db.rollback()
            raise
        db.commit(f"bookmark share {bookmark['name']} ({bookmark['bookmark_id']})")
    return {
        **{k: v for k, v in row.items() if k != "pack"},
        "bytes": len(pack),
        "name": bookmark["name"],
    }


def context_of(history: Path, key: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A team bookmark and the context its owner shared, for a resurrection."""
    mark = lookup(history, key)
    m = require(history)
    with opened(m) as db:
        found = db.query(
            "SELECT pack FROM context_packs WHERE bookmark_id = ?", (mark["bookmark_id"],)
        )
    if not found:
        raise NotFound(
            f"team bookmark {key!r} ({mark['member']}) has no shared context: its owner "
            f"publishes one with 'purlin-resume bookmark share {mark['name']}'"
        )
    try:
        context = json.loads(zlib.decompress(bytes(found[0]["pack"])).decode("utf-8"))
    except (zlib.error, ValueError, UnicodeDecodeError):
        raise NotFound(
            f"the shared context of {key!r} does not decode; ask its owner to share it again"
        ) from None
    return mark, context
