"""The sessions of Codex CLI, Gemini CLI and opencode as ``sessions`` lists them, kept between
runs in the cache's ``sessions`` table (``claude/listing.Kept``, one folder per CLI's data
folder): a conversation is read again only when its signature (``sources.sources``) changed.
Text values are kept redacted, with the counts of what was redacted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from purlin_resume.agentcli.names import CODEX, GEMINI
from purlin_resume.agentcli.shape import NativeSession, family
from purlin_resume.claude import listing
from purlin_resume.claude.records import ReadStats
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.codex import rollouts
from purlin_resume.crosscli.sources import read_source, sources
from purlin_resume.gemini import chats
from purlin_resume.opencode import storage

TEXTS = ("title", "project_path", "git_branch", "agent_type", "version")
PLAIN = ("id", "started_at", "ended_at", "parent_id", "turns", "compactions", "size", "tokens")
STATS = ("lines", "records", "malformed", "blank", "truncated", "binary")


def _root(cli: str) -> Path:
    if cli == CODEX:
        return rollouts.root()
    if cli == GEMINI:
        return chats.root()
    return storage.root()


def _entry(session: NativeSession) -> dict[str, Any]:
    entry: dict[str, Any] = {name: getattr(session, name) for name in PLAIN}
    entry.update(path=str(session.path), exists=session.exists)
    for name in TEXTS:
        entry[name] = listing.redacted(getattr(session, name))[0]
    stats = session.stats
    entry["stats"] = {name: getattr(stats, name) for name in STATS}
    entry["stats"]["unknown_types"] = dict(stats.unknown_types)
    entry["stats"]["unreadable"] = listing.redacted(stats.unreadable)[0]
    return entry


def _session(cli: str, entry: dict[str, Any], kept: listing.Kept) -> NativeSession:
    session = NativeSession(cli, entry["id"], Path(entry["path"]), exists=entry["exists"])
    for name in PLAIN:
        setattr(session, name, entry[name])
    for name in TEXTS:
        setattr(session, name, kept.text(entry[name]))
    stats, figures = ReadStats(), entry["stats"]
    for name in STATS:
        setattr(stats, name, figures[name])
    stats.unknown_types.update(figures["unknown_types"])
    stats.unreadable = kept.text(figures["unreadable"])
    session.stats = stats
    values = {name: getattr(session, name) for name in TEXTS}
    session.redactions = {n: kept.counts[v] for n, v in values.items() if v in kept.counts}
    return session


def sessions(
    cli: str, cache: Path | None, refused: dict[str, list[Path]] | None = None
) -> list[NativeSession]:
    """Every session of ``cli`` (not Claude Code), children included, oldest first: from
    the kept listing of ``cache`` where unchanged (None: every one read). The folders of its
    tree this user may not list go to ``refused``, under ``cli`` (``sources``)."""
    current = sources((cli,), refused)
    kept = listing.Kept(_root(cli), cache, current) if cache is not None else None
    found = []
    for key, (_, reference, _) in current.items():
        entry = kept.get(key) if kept is not None else None
        try:
            session = _session(cli, entry, kept) if entry is not None and kept else None
        except (KeyError, TypeError, ValueError):  # a damaged row: read the source again
            session = None
        if session is None:
            session = read_source(key, cli, reference, ReadOptions(deferred=True)).session
            if kept is not None:
                kept.put(key, _entry(session))
        found.append(session)
    if kept is not None:
        kept.save()
    if cli == CODEX:
        names = rollouts.thread_names(_root(cli))
        for session in found:
            session.title = names.get(session.id, session.title)
    return family(found)
