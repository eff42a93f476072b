"""Where the conversations of Codex CLI, Gemini CLI and opencode are, each with the signature
that tells when it changed, and how one is read: what the search index and the kept listing
share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from purlin_resume.agentcli.names import CODEX, GEMINI, OPENCODE, OTHERS
from purlin_resume.agentcli.shape import Conversation
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.codex import rollouts
from purlin_resume.core import cache_home
from purlin_resume.gemini import chats
from purlin_resume.opencode import storage


def sources(
    clis: tuple[str, ...] = OTHERS, refused: dict[str, list[Path]] | None = None
) -> dict[str, tuple[str, Any, str]]:
    """Every conversation of ``clis`` (Claude Code left out), children included, at their
    default places: key -> (cli, what ``read_source`` needs, signature). The key is the file
    (Codex CLI, Gemini CLI) or ``<database>#<session id>`` (opencode); the signature is the
    file's size, mtime and inode, or the session row's update time with its message and part
    counts. What reads every conversation (the search index) reads one again only when its
    signature changed. The folders of Codex's and Gemini's trees this user may not list are
    passed over; once a tree is walked whole, they go to ``refused`` under its CLI."""
    found: dict[str, tuple[str, Any, str]] = {}
    if CODEX in clis:
        passed: list[Path] = []
        for thread, path in rollouts.rollout_files(rollouts.root(), passed):
            found[str(path)] = (CODEX, thread, cache_home.signature(path) or "gone")
        if refused is not None:
            refused[CODEX] = passed
    if GEMINI in clis:
        passed = []
        for files, parent, project in chats.sessions(chats.root(), passed):
            found[str(files[0])] = (GEMINI, (files, parent, project), chats.signature(files))
        if refused is not None:
            refused[GEMINI] = passed
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
        files, parent, project = reference
        return chats.read(files, parent, project, options)
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
