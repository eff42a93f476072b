"""Time as every file of ours writes it: ISO 8601 UTC with ``Z``, to the second."""

from __future__ import annotations

from datetime import datetime, timezone


def now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def render(moment: datetime) -> str:
    """``2026-01-15T14:22:10Z``."""
    return moment.astimezone(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: object) -> datetime | None:
    """The moment an ISO 8601 string names (UTC when it names no zone); None when it is not one."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
