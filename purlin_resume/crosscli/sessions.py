"""The sessions of every agent CLI in one listing, and any CLI's conversation opened by its id.

Claude Code's sessions come from its catalog (and the listing cache it keeps); Codex CLI's,
Gemini CLI's and opencode's from their readers (through the listing kept for them,
``crosscli.listing``), each at its CLI's default place
(``$CODEX_HOME`` or ``~/.codex``; ``~/.gemini``; ``$XDG_DATA_HOME/opencode`` or
``~/.local/share/opencode``). A child session (a subagent) is not listed on its own line: its
parent counts it, ``agents`` shows it, and its id opens it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from purlin_resume.agentcli.names import CLAUDE, CLIS, CODEX, GEMINI, OPENCODE, OTHERS
from purlin_resume.agentcli.shape import Conversation, NativeSession, inside
from purlin_resume.claude import layout
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.codex import rollouts
from purlin_resume.core.errors import Ambiguous, NotFound, PurlinError, UsageError
from purlin_resume.crosscli import listing
from purlin_resume.crosscli.sources import sources
from purlin_resume.gemini import chats
from purlin_resume.opencode import storage

if TYPE_CHECKING:
    from purlin_resume.claude.catalog import Catalog, Session


def chosen(names: str | None) -> tuple[str, ...]:
    """The CLIs a ``--cli`` value names (comma-separated; none: all of them)."""
    if not names:
        return CLIS
    wanted = tuple(dict.fromkeys(n.strip().lower() for n in names.split(",") if n.strip()))
    unknown = [n for n in wanted if n not in CLIS]
    if unknown or not wanted:
        raise UsageError(f"--cli takes {', '.join(CLIS)} (comma-separated), not '{names}'")
    return wanted


# where each other CLI's sessions are read from: its data folder, and the folders under it
_FOLDERS = {
    CODEX: (rollouts.root, ("", "sessions", "archived_sessions")),
    GEMINI: (chats.root, ("", "tmp")),
    OPENCODE: (storage.root, ("",)),
}


def readable(clis: tuple[str, ...], claude_root: Path | None) -> tuple[tuple[str, ...], list[str]]:
    """The CLIs of ``clis`` whose sessions can be listed, and a line for each other one (its
    folder the user may not read: ``sudo codex`` made it root's); when none is left, the
    first line is the error. ``claude_root``: Claude Code's folder read. A folder deeper in
    Codex's or Gemini's tree is named by the listing that passes it over (``refused_lines``)."""
    skipped = _refused(clis, claude_root)
    if skipped and all(cli in skipped for cli in clis):
        raise PurlinError(next(iter(skipped.values())))
    return tuple(cli for cli in clis if cli not in skipped), list(skipped.values())


def refused_lines(refused: dict[str, list[Path]]) -> list[str]:
    """A line for each CLI naming the folders of its tree a listing passed over as this user
    may not list them (``list_sessions``'s ``refused``)."""
    return [line for line in map(layout.refused_line, refused.values()) if line]


def passed_over(claude_root: Path, refused: dict[str, list[Path]] | None = None) -> list[str]:
    """A line for each folder of an agent CLI this user may not list (``sudo claude`` made it
    root's): its sessions are neither listed nor searched. ``refused``: the folders of each
    CLI's tree a walk has just passed over, by CLI (``sources``: a listing's, a search's);
    a tree it did not walk (none, when None) is walked here."""
    try:
        kept, lines = readable(CLIS, claude_root)
    except PurlinError as exc:  # not one of them can be listed
        kept, lines = (), [exc.message]
    found = dict(refused or {})
    sources(tuple(cli for cli in (CODEX, GEMINI) if cli in kept and cli not in found), found)
    lines += refused_lines({cli: found[cli] for cli in kept if cli in found})
    lines.append(layout.refused_line(layout.unlisted(claude_root)))
    return [line for line in lines if line]


def _refused(clis: tuple[str, ...], claude_root: Path | None) -> dict[str, str]:
    found = {}
    for cli in clis:
        if cli == CLAUDE:
            folders = [claude_root, claude_root / "projects"] if claude_root else []
        else:
            root, parts = _FOLDERS[cli]
            folders = [root() / part for part in parts]
        for folder in folders:
            if os.path.isdir(folder) and not layout.listable(folder):
                found[cli] = (
                    f"{folder}: Permission denied; its {cli} sessions are not listed: "
                    "make it readable for you"
                )
                break
    return found


def list_sessions(
    catalog: Catalog | None,
    clis: tuple[str, ...],
    scope: Path | None,
    cache: Path | None = None,
    refused: dict[str, list[Path]] | None = None,
) -> list[Session | NativeSession]:
    """The sessions of ``clis`` (of ``scope`` and folders under it, when given), oldest first;
    children left out (their parents count them). The folders of a CLI's tree this user may
    not list go to ``refused``, by CLI (Claude Code's: ``catalog.refused``)."""
    listed: list[Any] = []
    if CLAUDE in clis and catalog is not None:
        listed += catalog.sessions(scope, cache=cache)
    for cli in clis:
        if cli == CLAUDE:
            continue
        listed += [
            s
            for s in listing.sessions(cli, cache, refused)
            if s.parent_id is None and (scope is None or inside(s.project_path, str(scope)))
        ]
    listed.sort(key=lambda s: (s.started_at or "", s.id))
    return listed


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
    return chats.heads(chats.root())


def _read(session: NativeSession, options: ReadOptions) -> Conversation:
    if session.cli == CODEX:
        return rollouts.read(session.id, session.path, options)
    if session.cli == GEMINI:
        files = chats.parts(session.path, session.parent_id)
        return chats.read(files, session.parent_id, session.project_path, options)
    return storage.read(session, options)


def _find(identifier: str, clis: tuple[str, ...]) -> tuple[NativeSession, list[NativeSession]]:
    """The listed session ``identifier`` names (by id, or a prefix only one id has), and every
    session of its CLI."""
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
        raise Ambiguous(f"'{query}' is ambiguous: it matches {shown}; give more characters")
    return found[0], everything[found[0].cli]


def located(identifier: str, clis: tuple[str, ...] = OTHERS) -> NativeSession:
    """The session or child session ``identifier`` names with its folder, parent and title,
    its conversation not read (of a Codex thread only its first records)."""
    session, _ = _find(identifier, clis)
    if session.cli == CODEX:
        return rollouts.head(session.id, session.path, rollouts.root())
    return session


def open_conversation(
    identifier: str, options: ReadOptions | None = None, clis: tuple[str, ...] = OTHERS
) -> Opened:
    """The session or child session of Codex CLI, Gemini CLI or opencode whose id is
    ``identifier`` (or starts with it, when only one does), read with ``options``. A file that
    is not a regular one (a FIFO, a folder, a loop of links), or cannot be read at all (no
    permission), is refused, named; one damaged further in is shown as far as it reads."""
    session, listed = _find(identifier, clis)
    children = [
        _read(s, ReadOptions(deferred=True)).session for s in listed if s.parent_id == session.id
    ]
    conversation = _read(session, options or ReadOptions())
    stats = conversation.session.stats
    if stats.unreadable and (not session.path.is_file() or not conversation.transcript.turn_count):
        raise PurlinError(f"cannot read {session.path}: {stats.unreadable}")
    return Opened(conversation, "agent" if session.parent_id else "session", children)
