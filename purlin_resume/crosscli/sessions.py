"""The sessions of every agent CLI in one listing, and any CLI's conversation opened by its id.

Claude Code's sessions come from its catalog (and the listing cache it keeps); Codex CLI's,
Gemini CLI's and opencode's from their readers, each at its CLI's default place
(``$CODEX_HOME`` or ``~/.codex``; ``~/.gemini``; ``$XDG_DATA_HOME/opencode`` or
``~/.local/share/opencode``). A child session (a subagent) is not listed on its own line: its
parent counts it, ``agents`` shows it, and its id opens it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from purlin_resume.agentcli.shape import (
    CLAUDE,
    CODEX,
    GEMINI,
    OPENCODE,
    Conversation,
    NativeSession,
    inside,
)
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.codex import rollouts
from purlin_resume.core import cache_home
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.gemini import chats
from purlin_resume.opencode import storage

if TYPE_CHECKING:
    from purlin_resume.claude.catalog import Catalog, Session

CLIS = (CLAUDE, CODEX, GEMINI, OPENCODE)
OTHERS = (CODEX, GEMINI, OPENCODE)


def chosen(names: str | None) -> tuple[str, ...]:
    """The CLIs a ``--cli`` value names (comma-separated; none: all of them)."""
    if not names:
        return CLIS
    wanted = tuple(dict.fromkeys(n.strip().lower() for n in names.split(",") if n.strip()))
    unknown = [n for n in wanted if n not in CLIS]
    if unknown or not wanted:
        raise UsageError(f"--cli takes {', '.join(CLIS)} (comma-separated), not '{names}'")
    return wanted


def other_sessions(cli: str) -> list[NativeSession]:
    """Every session of ``cli`` (not Claude Code), children included, at its default place."""
    if cli == CODEX:
        return rollouts.sessions(rollouts.root())
    if cli == GEMINI:
        return chats.sessions(chats.root())
    return storage.sessions(storage.root())


def list_sessions(
    catalog: Catalog | None,
    clis: tuple[str, ...],
    scope: Path | None,
    cache: Path | None = None,
) -> list[Session | NativeSession]:
    """The sessions of ``clis`` (of ``scope`` and folders under it, when given), oldest first;
    children left out (their parents count them)."""
    listed: list[Any] = []
    if CLAUDE in clis and catalog is not None:
        listed += catalog.sessions(scope, cache=cache)
    for cli in clis:
        if cli == CLAUDE:
            continue
        listed += [
            s
            for s in other_sessions(cli)
            if s.parent_id is None and (scope is None or inside(s.project_path, str(scope)))
        ]
    listed.sort(key=lambda s: (s.started_at or "", s.id))
    return listed


def sources(clis: tuple[str, ...] = OTHERS) -> dict[str, tuple[str, Any, str]]:
    """Every conversation of ``clis`` (Claude Code left out), children included, at their
    default places: key -> (cli, what ``read_source`` needs, signature). The key is the file
    (Codex CLI, Gemini CLI) or ``<database>#<session id>`` (opencode); the signature is the
    file's size, mtime and inode, or the session row's update time with its message and part
    counts. What reads every conversation (the search index) reads one again only when its
    signature changed."""
    found: dict[str, tuple[str, Any, str]] = {}
    if CODEX in clis:
        for thread, path in rollouts.rollout_files(rollouts.root()):
            found[str(path)] = (CODEX, thread, cache_home.signature(path) or "gone")
    if GEMINI in clis:
        for path, parent, project in chats.conversations(chats.root()):
            found[str(path)] = (GEMINI, (parent, project), cache_home.signature(path) or "gone")
    if OPENCODE in clis:
        folder = storage.root()
        counts = storage.row_counts(folder)
        for session in storage.listed(folder):
            mark = f"{session.ended_at}:{counts.get(session.id, '')}"
            found[f"{session.path}#{session.id}"] = (OPENCODE, session, mark)
    return found


def read_source(key: str, cli: str, reference: Any, options: ReadOptions) -> Conversation:
    """The conversation ``sources`` lists under ``key``, read with ``options``."""
    if cli == CODEX:
        return rollouts.read(reference, Path(key), options)
    if cli == GEMINI:
        parent, project = reference
        return chats.read(Path(key), parent, project, options)
    return storage.read(reference, options)


def has_sessions() -> bool:
    """Whether any CLI other than Claude Code keeps sessions at its default place."""
    codex, opencode = rollouts.root(), storage.root()
    return (
        (codex / "sessions").is_dir()
        or (codex / "archived_sessions").is_dir()
        or (chats.root() / "tmp").is_dir()
        or (opencode / "opencode.db").is_file()
        or (opencode / "storage" / "session").is_dir()
    )


def cli_of(session: Any) -> str:
    return session.cli if isinstance(session, NativeSession) else CLAUDE


@dataclass
class Opened:
    """A conversation of a CLI other than Claude Code, found by id: read, with its children."""

    conversation: Conversation
    kind: str  # "session" or "agent" (a child session)
    children: list[NativeSession] = field(default_factory=list)

    @property
    def session(self) -> NativeSession:
        return self.conversation.session


def _known(cli: str) -> list[NativeSession]:
    """Every session of ``cli`` with its id and parent, read no further than these need."""
    if cli == CODEX:
        return rollouts.threads(rollouts.root())
    if cli == OPENCODE:
        return storage.listed(storage.root())
    return chats.sessions(chats.root())


def _read(session: NativeSession, options: ReadOptions) -> Conversation:
    if session.cli == CODEX:
        return rollouts.read(session.id, session.path, options)
    if session.cli == GEMINI:
        return chats.read(session.path, session.parent_id, session.project_path, options)
    return storage.read(session, options)


def open_conversation(
    identifier: str, options: ReadOptions | None = None, clis: tuple[str, ...] = OTHERS
) -> Opened:
    """The session or child session of Codex CLI, Gemini CLI or opencode whose id is
    ``identifier`` (or starts with it, when only one does), read with ``options``."""
    options = options or ReadOptions()
    query = identifier.strip()
    if not query:
        raise UsageError("an id is required: a session id, an agent id or a unique prefix")
    everything = {cli: _known(cli) for cli in clis if cli != CLAUDE}
    found = [s for listed in everything.values() for s in listed if s.id == query]
    if not found:
        found = [s for listed in everything.values() for s in listed if s.id.startswith(query)]
    if not found:
        raise NotFound(f"no session or agent matches '{query}' in {', '.join(everything)}")
    if len(found) > 1:
        shown = ", ".join(f"{s.id} ({s.cli})" for s in found[:10])
        raise PurlinError(f"'{query}' is ambiguous: it matches {shown}; give more characters")
    session = found[0]
    children = [
        _read(s, ReadOptions()).session
        for s in everything[session.cli]
        if s.parent_id == session.id
    ]
    conversation = _read(session, options)
    return Opened(conversation, "agent" if session.parent_id else "session", children)
