"""What ``sessions`` lists, kept between runs: the figures of each session by the size, mtime and
inode of its files.

Listing a session means reading its transcript in full (turns, time span, title candidates,
subagents). The figures found are kept in the user cache folder, one JSON file per Claude data
folder (``sessions-<digest>.json``, beside the search index), and a session is read again only
when one of its files changed: its own file, its ``subagents/`` folder or the ``agent-*.jsonl``
files beside the sessions of its project folder (the same files the search index watches).

The file is a cache, read and written as every kept file is (``core/cache_home.py``): replaced
whole, 0600 in a 0700 folder, the last writer winning; one behind a link or that others may
write is not believed, a damaged one is ignored and rewritten, and one that cannot be written
(a read-only folder) only means the next run reads the transcripts again. Every text value in
it is redacted first (with the counts of what was redacted, so that the command still reports
them); a value redacted under rules other than the ones in use (a project's own patterns or
allow-list) is read again.
"""

from __future__ import annotations

import contextlib
import json
from hashlib import sha256
from pathlib import Path
from typing import Any

from purlin_resume.claude import signatures
from purlin_resume.core import cache_home

VERSION = 1


def cache_path(root: Path, cache: Path) -> Path:
    digest = sha256(str(Path(root).resolve()).encode()).hexdigest()[:12]
    return Path(cache) / f"sessions-{digest}.json"


def rules() -> str:
    """The redaction rules in use, as a short fingerprint (empty: the built-in ones)."""
    from purlin_resume.core import redact

    current = redact.scanner()
    if not current.extra and not current.allow:
        return ""
    shown = repr(([(k, p.pattern) for k, p in current.extra], [p.pattern for p in current.allow]))

    return sha256(shown.encode()).hexdigest()[:16]


class Kept:
    """The kept figures of one Claude data folder's sessions, loaded once, saved once."""

    def __init__(self, root: Path, cache: Path):
        self.path = cache_path(root, cache)
        self.current = signatures.of(root)
        self.entries: dict[str, dict[str, Any]] = {}
        self.changed = False
        self.counts: dict[str, dict[str, int]] = {}  # redacted text -> what was redacted in it
        kept = cache_home.open_kept(self.path)  # None: none yet, or not the user's own
        try:
            if kept is not None:
                with kept:
                    data = json.loads(kept.read())
                if data.get("version") == VERSION and isinstance(data.get("sessions"), dict):
                    self.entries = data["sessions"]
        except (OSError, ValueError, AttributeError, RecursionError):
            pass  # damaged: rebuilt as sessions are read

    def get(self, key: str) -> dict[str, Any] | None:
        """The kept entry of the session file ``key`` when its files are unchanged."""
        entry = self.entries.get(key)
        now = self.current.get(key)
        if not isinstance(entry, dict) or now is None or entry.get("sig") != now[2]:
            return None
        if "rules" in entry and entry["rules"] != rules():
            return None
        return entry

    def put(self, key: str, entry: dict[str, Any] | None) -> None:
        """Keep ``entry`` for the session file ``key`` (None: keep nothing for it)."""
        now = self.current.get(key)
        if now is None or entry is None:
            self.entries.pop(key, None)
        else:
            self.entries[key] = {"sig": now[2], **entry}
        self.changed = True

    def text(self, value: Any) -> str | None:
        """A kept text value (``[text, counts]`` when something in it was redacted)."""
        if isinstance(value, list) and len(value) == 2 and isinstance(value[1], dict):
            self.counts[value[0]] = value[1]
            return value[0]
        return value if isinstance(value, str) else None

    def save(self) -> None:
        """Write the entries back (those of sessions gone dropped); a failure is not one."""
        stale = [key for key in self.entries if key not in self.current]
        if not self.changed and not stale:
            return
        for key in stale:
            del self.entries[key]
        data = json.dumps({"version": VERSION, "sessions": self.entries}, separators=(",", ":"))
        # replaced whole, the last writer winning; a cache that cannot be written is only slower
        with contextlib.suppress(Exception):
            cache_home.keep(self.path, [data.encode()])


def redacted(value: str | None) -> tuple[Any, bool]:
    """``value`` as kept: itself, or ``[text, counts]`` when it held a secret; and whether it did."""
    if value is None:
        return None, False
    from purlin_resume.core import redact

    done = redact.redact(value)
    if not done.counts:
        return value, False
    return [done.text, done.counts], True
