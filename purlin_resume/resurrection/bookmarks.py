"""Bookmarks: names for agents worth resurrecting, in JSONL files (one bookmark per line).

Two files: the project's ``.purlin/bookmarks.jsonl`` (searched first) and the global
``<Claude data folder>/history/bookmarks.jsonl``. Fields: bookmark_id (``bmk-YYYY-MM-DD-NNN``
in a project, ``bmk-YYYY-MM-DD-gNNN`` in the global file, so that an id names one bookmark
whichever file it is in),
name, description, session_id, agent_id, project_path, hostname, tags, created_at,
resurrection_count, last_resurrected, plus archive (the compressed copy of the transcripts,
relative to the history folder) and uuid (made once per bookmark, never reused: the readable id
of a removed bookmark can come back, its uuid cannot), and cli for a conversation of another
agent CLI than Claude Code (``codex``, ``gemini``, ``opencode``; absent for Claude Code's, which
alone have an archive). This module is the one reader and writer
of both files; every change is a locked read-modify-write, and a file with a line that does not
parse is never rewritten.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, gitrepo, ids, redact, store
from purlin_resume.core.errors import Ambiguous, CorruptFile, NotFound, PurlinError, UsageError
from purlin_resume.resurrection import team_outbox as mirror

FILE_NAME = "bookmarks.jsonl"
# the words ``resurrect`` and ``bookmark`` take as commands: a bookmark so named could never be
# resurrected by name
RESERVED = frozenset({"find", "done", "list", "show", "name", "direct", "recommended"})
ID = re.compile(r"^bmk-(\d{4}-\d{2}-\d{2})-(g?)(\d{3,})$")
GLOBAL_MARK = "g"  # in the ids of global bookmarks


@dataclass
class Bookmark:
    """One bookmark as its file holds it (TR-2)."""

    bookmark_id: str
    name: str
    session_id: str
    description: str | None = None
    agent_id: str | None = None
    project_path: str | None = None
    hostname: str | None = None
    tags: list[str] = field(default_factory=list)
    created_at: str | None = None
    resurrection_count: int = 0
    last_resurrected: str | None = None
    archive: str | None = None
    uuid: str | None = None
    cli: str | None = None  # another agent CLI's conversation; None: Claude Code's
    scope: str = "local"  # where it was read from; not stored

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("scope")
        if data["cli"] is None:
            data.pop("cli")  # a Claude Code bookmark reads as it always did
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], scope: str) -> Bookmark:
        """A bookmark as its file holds it; a field of another type than its own (a file
        edited by hand or committed by someone else) reads as absent."""
        made: dict[str, Any] = {}
        for name in (f.name for f in fields(cls) if f.name in data and f.name != "scope"):
            value = data[name]
            if name == "tags":
                value = tags_of(value)
            elif name == "resurrection_count":
                value = _count(value)
            elif not isinstance(value, str):
                value = None
            made[name] = value
        return cls(**made, scope=scope)


def tags_of(value: Any) -> list[str]:
    """The tags of a bookmark as a file or a row holds them: the texts of a list, else none."""
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _update(path: Path, change: Callable[[str | None], str]) -> None:
    """A locked change of a bookmarks file, kept private and out of ``git status``."""
    gitrepo.exclude_state_files(path.parent, path.name, path.name + ".lock")
    store.update_text(path, change, private=True)


def check_name(name: str) -> str:
    if not ids.BOOKMARK_NAME.valid(name) or name in RESERVED:
        raise UsageError(
            f"bookmark name {name!r}: use {ids.BOOKMARK_NAME.shape}, "
            f"and not one of {', '.join(sorted(RESERVED))}"
        )
    if kind := ids.secret_in(name):
        raise UsageError(f"that bookmark name holds a secret ({kind}); choose another")
    return name


def _parse(path: Path, text: str | None) -> list[dict[str, Any]]:
    items = []
    for number, line in enumerate((text or "").split("\n"), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            raise CorruptFile(path, f"line {number} is not JSON") from None
        if not isinstance(item, dict) or not isinstance(item.get("bookmark_id"), str):
            raise CorruptFile(path, f"line {number} is not a bookmark")
        for kind, key in (
            (ids.BOOKMARK, "bookmark_id"),
            (ids.BOOKMARK_NAME, "name"),
            (ids.SESSION, "session_id"),
            (ids.AGENT, "agent_id"),
        ):
            if (key != "agent_id" or item.get(key) is not None) and not kind.valid(item.get(key)):
                raise CorruptFile(path, f"line {number}: {kind.problem(item.get(key))}")
        items.append(item)
    return items


def _dump(items: list[dict[str, Any]]) -> str:
    """The file's text; every bookmark passes through redaction on every write."""
    items = redact.redact_data(items)[0]
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


def load(path: Path, scope: str) -> list[Bookmark]:
    try:
        text = store.read_text(path)
    except NotFound:
        return []
    return [Bookmark.from_dict(item, scope) for item in _parse(path, text)]


def next_id(items: list[dict[str, Any]], day: str, scope: str = "local") -> str:
    """The next id of ``day`` in a file of ``scope``: global ids carry a ``g``, so a project's
    bookmark and a global one made the same day never share an id."""
    mark = GLOBAL_MARK if scope == "global" else ""
    numbers = [
        int(match.group(3))
        for item in items
        if (match := ID.match(str(item.get("bookmark_id"))))
        and match.group(1) == day
        and match.group(2) == mark
    ]
    return f"bmk-{day}-{mark}{max(numbers, default=0) + 1:03d}"


def add(path: Path, bookmark: Bookmark) -> Bookmark:
    """Store ``bookmark`` with a new id; a name already used in that file is refused."""
    check_name(bookmark.name)

    def change(text: str | None) -> str:
        items = _parse(path, text)
        _refuse_taken(path, items, bookmark.name)
        moment = clock.now()
        bookmark.bookmark_id = next_id(items, moment.strftime("%Y-%m-%d"), bookmark.scope)
        bookmark.created_at = bookmark.created_at or clock.iso(moment)
        bookmark.uuid = str(uuid.uuid4())
        return _dump([*items, bookmark.to_dict()])

    _update(path, change)
    _shared(path, "add", bookmark.to_dict())
    return bookmark


def check_free(path: Path, name: str) -> None:
    """Refuse, before anything is made for it, a bookmark ``add`` would refuse: a bad name, a
    corrupt ``path`` or a name already used in it."""
    check_name(name)
    try:
        text = store.read_text(path)
    except NotFound:
        return
    _refuse_taken(path, _parse(path, text), name)


def _refuse_taken(path: Path, items: list[dict[str, Any]], name: str) -> None:
    if any(item.get("name") == name for item in items):
        raise PurlinError(
            f"a bookmark named {name!r} exists in {path}; "
            "choose another name or change it with 'purlin-resume bookmark update'"
        )


def _shared(path: Path, op: str, item: dict[str, Any]) -> None:
    """Queue the change for the team database, if this user has joined one (never fails)."""

    mirror.bookmark_changed(path, op, item)


def _matches(item: dict[str, Any], key: str) -> bool:
    return item.get("name") == key or item.get("bookmark_id") == key


def update(path: Path, key: str, changes: dict[str, Any]) -> Bookmark:
    """Apply ``changes`` to the bookmark named (or with the id) ``key`` in ``path``."""
    found: list[dict[str, Any]] = []
    if "name" in changes:
        check_name(changes["name"])

    def change(text: str | None) -> str:
        items = _parse(path, text)
        for item in items:
            if _matches(item, key):
                if changes.get("name") not in (None, item.get("name")) and any(
                    other.get("name") == changes["name"] for other in items
                ):
                    raise PurlinError(f"a bookmark named {changes['name']!r} exists in {path}")
                item.update(changes)
                found.append(item)
                return _dump(items)
        raise NotFound(
            f"no bookmark {key!r} in {path}; list them with 'purlin-resume bookmark list'"
        )

    if not path.is_file():
        raise NotFound(f"no bookmark {key!r}: {path} does not exist")
    _update(path, change)
    _shared(path, "update", found[0])
    return Bookmark.from_dict(found[0], "")


def remove(path: Path, key: str) -> Bookmark:
    removed: list[dict[str, Any]] = []

    def change(text: str | None) -> str:
        items = _parse(path, text)
        kept = [item for item in items if not _matches(item, key)]
        if len(kept) == len(items):
            raise NotFound(
                f"no bookmark {key!r} in {path}; list them with 'purlin-resume bookmark list'"
            )
        removed.extend(item for item in items if _matches(item, key))
        return _dump(kept)

    if not path.is_file():
        raise NotFound(f"no bookmark {key!r}: {path} does not exist")
    _update(path, change)
    _shared(path, "remove", removed[0])
    return Bookmark.from_dict(removed[0], "")


def record_resurrection(path: Path, bookmark_id: str, when: str) -> None:
    """Count one resurrection of a bookmark (FR-5): resurrection_count + 1, last_resurrected."""

    counted: list[dict[str, Any]] = []

    def change(text: str | None) -> str:
        items = _parse(path, text)
        for item in items:
            if item.get("bookmark_id") == bookmark_id:
                item["resurrection_count"] = _count(item.get("resurrection_count")) + 1
                item["last_resurrected"] = when
                counted.append(item)
        return _dump(items)

    _update(path, change)
    for item in counted:
        _shared(path, "count", item)


@dataclass(frozen=True)
class Shelves:
    """The bookmark files in lookup order: the project's, then the global one."""

    local: Path | None
    global_: Path

    def paths(self) -> list[tuple[str, Path]]:
        found = [("local", self.local)] if self.local is not None else []
        return [*found, ("global", self.global_)]

    def all(self) -> list[Bookmark]:
        return [mark for scope, path in self.paths() for mark in load(path, scope)]

    def find(self, key: str) -> Bookmark | None:
        """The bookmark named (or with the id) ``key``: local first, then global. An id found in
        both files (made before ids told the scopes apart) is ambiguous: an error. A file that
        does not parse is an error only when the other does not hold ``key``."""
        marks, broken = [], None
        for scope, path in self.paths():  # a broken file stops only a search that needs it
            try:
                marks += load(path, scope)
            except CorruptFile as exc:
                broken = broken or exc
        same_id = [mark for mark in marks if mark.bookmark_id == key]
        if len(same_id) > 1:
            where = ", ".join(f"{mark.name} ({mark.scope})" for mark in same_id)
            raise Ambiguous(
                f"bookmark id {key} is in both files ({where}); give the bookmark's name"
            )
        for mark in marks:
            if key in (mark.name, mark.bookmark_id):
                return mark
        if broken is not None:
            raise broken
        return None

    def not_in(self, key: str, scope: str) -> NotFound:
        """The error for ``key`` missing from the ``scope`` file, naming the other file's option
        when the bookmark is there."""
        other = "local" if scope == "global" else "global"
        path = dict(self.paths()).get(other)
        here = dict(self.paths()).get(scope)
        if path is not None and any(key in (m.name, m.bookmark_id) for m in load(path, other)):
            hint = "add --global" if other == "global" else "leave out --global"
            return NotFound(f"no bookmark {key!r} in {here}; it is a {other} bookmark: {hint}")
        return NotFound(
            f"no bookmark {key!r} in {here}; list them with 'purlin-resume bookmark list'"
        )

    def path_of(self, mark: Bookmark) -> Path:
        return dict(self.paths())[mark.scope]
