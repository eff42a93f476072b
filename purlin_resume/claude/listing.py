"""What ``sessions`` lists, kept between runs: the figures of each session by the signature of
its files (Claude Code's here; the other agent CLIs' through ``crosscli.listing``, one folder
each).

Listing a session means reading its transcript in full (turns, time span, title candidates,
subagents). The figures found are kept in the ``sessions`` table of the cache
(``core/cache_home``), one row per session file of a Claude data folder, and a session is read
again only when one of its files changed: its own file, its ``subagents/`` folder or the
``agent-*.jsonl`` files beside the sessions of its project folder (``signatures``). Every text
value in a row is redacted first (with the counts of what was redacted, so that the command
still reports them); a value redacted under rules other than the ones in use (a project's own
patterns or allow-list) is read again. A cache that cannot be opened or written only means the
transcripts are read again.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from purlin_resume.claude import signatures
from purlin_resume.core import cache_home, redact


class Kept:
    """The kept figures of one Claude data folder's sessions, loaded once, saved once."""

    def __init__(self, root: Path, cache: Path, current: dict[str, tuple] | None = None):
        """``current``: key -> (…, signature) of every session of ``root`` (default: Claude
        Code's, ``signatures.of``; another CLI's: ``crosscli.sources``)."""
        self.folder = os.path.realpath(root)  # a loop of links stays as it is
        self.cache = cache
        self.current = signatures.of(root) if current is None else current
        self.entries: dict[str, dict[str, Any]] = {}
        self.changed: set[str] = set()
        self.counts: dict[str, dict[str, int]] = {}  # redacted text -> what was redacted in it
        rows = cache_home.read(
            "SELECT file, entry FROM sessions WHERE folder = ?", (self.folder,), cache
        )
        for file, entry in rows or ():
            with contextlib.suppress(ValueError, RecursionError):
                self.entries[file] = json.loads(entry)

    def get(self, key: str) -> dict[str, Any] | None:
        """The kept entry of the session file ``key`` when its files are unchanged."""
        entry = self.entries.get(key)
        now = self.current.get(key)
        if not isinstance(entry, dict) or now is None or entry.get("sig") != now[2]:
            return None
        if entry.get("rules") != redact.fingerprint():
            return None  # redacted under other rules
        return entry

    def put(self, key: str, entry: dict[str, Any] | None) -> None:
        """Keep ``entry`` for the session file ``key`` (None: keep nothing for it)."""
        now = self.current.get(key)
        if now is None or entry is None:
            self.entries.pop(key, None)
        else:
            # what it holds was redacted under these rules
            self.entries[key] = {"sig": now[2], **entry, "rules": redact.fingerprint()}
        self.changed.add(key)

    def text(self, value: Any) -> str | None:
        """A kept text value (``[text, counts]`` when something in it was redacted)."""
        if isinstance(value, list) and len(value) == 2 and isinstance(value[1], dict):
            self.counts[value[0]] = value[1]
            return value[0]
        return value if isinstance(value, str) else None

    def save(self) -> None:
        """Write the entries that changed, and drop those of sessions gone; a failure is not
        one (the next run reads those sessions again)."""
        stale = [key for key in self.entries if key not in self.current]
        if not self.changed and not stale:
            return
        kept = [
            (self.folder, k, json.dumps(self.entries[k])) for k in self.changed if k in self.entries
        ]
        gone = [(self.folder, k) for k in {*stale, *self.changed} - {k for _, k, _ in kept}]
        cache_home.write(
            [
                ("DELETE FROM sessions WHERE folder = ? AND file = ?", gone),
                ("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?)", kept),
            ],
            self.cache,
        )


def redacted(value: str | None) -> tuple[Any, bool]:
    """``value`` as kept: itself, or ``[text, counts]`` when it held a secret; and whether it did."""
    if value is None:
        return None, False

    done = redact.redact(value)
    if not done.counts:
        return value, False
    return [done.text, done.counts], True
