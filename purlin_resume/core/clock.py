"""Time as every file of ours writes it: ISO 8601, UTC, with ``Z``, to the second."""

from __future__ import annotations

from datetime import datetime, timezone


def now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def iso(moment: datetime | None = None) -> str:
    """``2026-02-28T15:30:00Z``; the current time when no moment is given."""
    moment = now() if moment is None else moment
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: object) -> datetime | None:
    """The moment an ISO 8601 string names (``Z`` or an offset; none means UTC), else None."""
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
