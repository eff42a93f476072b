"""A search's query: its time words (``today``, ``yesterday``, ``this/last week``, ``this/last
month``, ``N days ago``, ``last N days``, a date ``YYYY-MM-DD``), which restrict the results to
the conversations active then, and its words, without the stop words. ``last week`` reaches from
the start of the previous calendar week to today (on a Friday, Tuesday is last week too).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import NamedTuple

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_DAYS_AGO = re.compile(r"\b(\d{1,3}) days? ago\b")
_LAST_DAYS = re.compile(r"\blast (\d{1,3}) days\b")
_TIME_PHRASES = ("today", "yesterday", "this week", "last week", "this month", "last month")
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "about",
        "from",
        "by",
        "who",
        "which",
        "that",
        "what",
        "where",
        "when",
        "agent",
        "agents",
        "subagent",
        "session",
        "sessions",
        "find",
        "me",
        "my",
        "i",
        "we",
        "did",
        "do",
        "was",
        "were",
        "is",
        "are",
        "it",
        "its",
        "analyzed",
        "analysed",
        "worked",
        "working",
        "looked",
    ]
)


class Query(NamedTuple):
    """A search's words and its time window (conversations active in [start, end))."""

    text: str
    words: list[str]
    start: datetime | None = None
    end: datetime | None = None
    time_label: str | None = None


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def parse(text: str, now: datetime | None = None) -> Query:
    """Time words and search words of ``text`` (``now`` anchors the relative time words)."""
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    today = _day(now)
    rest = " " + text.lower() + " "
    window: tuple[datetime, datetime] | None = None
    label = None
    match = _DATE.search(rest)
    if match:
        try:
            day = datetime.strptime(match.group(1), "%Y-%m-%d").replace(tzinfo=timezone.utc)
            window, label = (day, day + timedelta(days=1)), match.group(1)
        except ValueError:
            pass
        rest = rest.replace(match.group(0), " ")
    for pattern, make in (
        (_DAYS_AGO, lambda n: (today - timedelta(days=n), today - timedelta(days=n - 1))),
        (_LAST_DAYS, lambda n: (today - timedelta(days=n), now + timedelta(seconds=1))),
    ):
        found = pattern.search(rest)
        if found and window is None:
            window, label = make(int(found.group(1))), found.group(0).strip()
            rest = rest.replace(found.group(0), " ")
    for phrase in _TIME_PHRASES:
        if f" {phrase} " in rest and window is None:
            week = today - timedelta(days=today.weekday())
            month = today.replace(day=1)
            previous_month = (month - timedelta(days=1)).replace(day=1)
            window = {
                "today": (today, today + timedelta(days=1)),
                "yesterday": (today - timedelta(days=1), today),
                "this week": (week, week + timedelta(days=7)),
                # what a user means by it on a Friday includes Tuesday: the previous
                # calendar week and the days since, so never less than the last seven days
                "last week": (week - timedelta(days=7), today + timedelta(days=1)),
                "this month": (month, (month + timedelta(days=32)).replace(day=1)),
                "last month": (previous_month, month),
            }[phrase]
            label = phrase
            rest = rest.replace(f" {phrase} ", " ")
    words = [word for word in _WORD.findall(rest) if word not in STOP_WORDS]
    words = list(dict.fromkeys(words))
    if window is None:
        return Query(text, words)
    return Query(text, words, window[0], window[1], label)
