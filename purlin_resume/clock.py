"""Time as purlin-resume writes it: ISO 8601, UTC, with ``Z``."""

from __future__ import annotations

from datetime import datetime, timezone


def now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime | None = None) -> str:
    """``2026-02-28T15:30:00Z`` (seconds precision)."""
    moment = now() if moment is None else moment
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> datetime | None:
    """An ISO 8601 time (``Z`` or offset; naive means UTC), or None when it is not one."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
