"""Where checkpoints live in a project, and their life: saved, listed, chosen, consumed.

- ``.purlin/cache/checkpoints/<session>.md``: one per agent session, so parallel agents never
  overwrite each other;
- ``.purlin/cache/session_checkpoint.md``: the single-agent path, used when there is no session;
- ``.purlin/cache/archive/``: consumed checkpoints, moved there (never deleted) by a restore.

``.purlin/cache/`` is kept out of git.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from purlin_resume import checkpoint as checkpoint_format
from purlin_resume import clock, gitrepo, store
from purlin_resume.checkpoint import Checkpoint
from purlin_resume.errors import CorruptFile, NotFound, UsageError
from purlin_resume.project import Project

PLAIN_NAME = "session_checkpoint.md"
_SESSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
SESSION_ENV = ("PURLIN_SESSION_ID", "CLAUDE_SESSION_ID")


def session_id(explicit: str | None, env: Mapping[str, str] = os.environ) -> str | None:
    """``--session``, else ``$PURLIN_SESSION_ID``, else ``$CLAUDE_SESSION_ID``; checked to be a safe name."""
    value = (
        explicit
        if explicit is not None
        else next((env[k] for k in SESSION_ENV if env.get(k)), None)
    )
    if value is None:
        return None
    if not _SESSION.fullmatch(value) or value.endswith(".md"):
        raise UsageError(
            f"session id '{value}' is not usable as a name: letters, digits, '.', '_' and '-' only"
        )
    return value


def path_for(project: Project, session: str | None) -> Path:
    if session is None:
        return project.cache_dir / PLAIN_NAME
    return project.cache_dir / "checkpoints" / f"{session}.md"


def archive_dir(project: Project) -> Path:
    return project.cache_dir / "archive"


@dataclass(frozen=True)
class LiveCheckpoint:
    """A checkpoint file on disk; ``checkpoint`` is None when it does not parse (see ``error``)."""

    path: Path
    session: str | None
    modified: float
    checkpoint: Checkpoint | None = None
    error: str | None = None

    @property
    def sort_key(self) -> float:
        moment = clock.parse(self.checkpoint.timestamp) if self.checkpoint else None
        return moment.timestamp() if moment else self.modified


def read(path: Path) -> Checkpoint:
    """Parse the checkpoint at ``path``; CorruptFile (naming it) when it is not one."""
    try:
        return checkpoint_format.parse(store.read_text(path))
    except UsageError as exc:
        raise CorruptFile(path, exc.message) from None


def save(project: Project, cp: Checkpoint) -> Path:
    """Write ``cp`` to its session's path (atomically) and keep the cache out of git."""
    if gitrepo.toplevel(project.root) is not None:
        gitrepo.ensure_ignored(project.root, ".purlin/cache/")
    target = path_for(project, cp.session)
    store.private_folder(project.cache_dir)  # checkpoints hold conversation content
    store.private_folder(target.parent)
    store.write_text(target, checkpoint_format.render(cp))
    return target


def _live_at(path: Path, session: str | None) -> LiveCheckpoint | None:
    try:
        modified = path.stat().st_mtime
    except FileNotFoundError:
        return None
    try:
        return LiveCheckpoint(path, session, modified, checkpoint=read(path))
    except (CorruptFile, NotFound) as exc:
        return LiveCheckpoint(path, session, modified, error=exc.message)


def live(project: Project) -> list[LiveCheckpoint]:
    """Every checkpoint not yet consumed, newest first (unreadable ones included, with their error)."""
    found = [_live_at(path_for(project, None), None)]
    keyed = project.cache_dir / "checkpoints"
    if keyed.is_dir():
        found += [_live_at(p, p.stem) for p in keyed.glob("*.md")]
    return sorted((c for c in found if c is not None), key=lambda c: c.sort_key, reverse=True)


@dataclass
class Choice:
    """The checkpoint a restore will use, and what the agent should hear about the others."""

    chosen: LiveCheckpoint | None
    notices: list[str] = field(default_factory=list)


def choose(project: Project, role: str, session: str | None, explicit: bool) -> Choice:
    """Pick the checkpoint for a restore of ``role``.

    An explicitly named session must have one. Otherwise: this session's own checkpoint, then
    the single-agent file, then the newest checkpoint of another session saved for the same
    role. A checkpoint that does not parse stops the restore (CorruptFile), untouched.
    """
    if explicit:
        own = _live_at(path_for(project, session), session)
        if own is None:
            sessions = [c.session or "(no session)" for c in live(project)]
            raise NotFound(
                f"no checkpoint for session {session}"
                + (f"; live checkpoints: {', '.join(sessions)}" if sessions else "")
            )
        return Choice(_checked(own), _role_notice(own, role))
    if session is not None:
        own = _live_at(path_for(project, session), session)
        if own is not None:
            return Choice(_checked(own), _role_notice(own, role))
    candidates = live(project)
    notices = []
    for broken in (c for c in candidates if c.error):
        if broken.session is None:  # the single-agent checkpoint is everyone's: stop on it
            _checked(broken)
        notices.append(f"Unreadable checkpoint left in place: {broken.error}")
    readable = [c for c in candidates if c.checkpoint is not None]
    plain = [c for c in readable if c.session is None and c.checkpoint.role == role]
    keyed = [c for c in readable if c.session is not None and c.checkpoint.role == role]
    notices += [
        f"Left for its own role: the {c.checkpoint.role} checkpoint of session {c.session}."
        for c in readable
        if c.checkpoint.role != role and c.session is not None
    ]
    pick = (plain or keyed or [None])[0]
    others = [c for c in keyed if c is not pick]
    if pick is not None and others:
        notices.append(
            f"{len(others)} other {role} checkpoint(s) remain: "
            + ", ".join(c.session or PLAIN_NAME for c in others)
            + " (restore one with --session)"
        )
    return Choice(pick, notices)


def _checked(found: LiveCheckpoint) -> LiveCheckpoint:
    if found.error:
        raise CorruptFile(found.path, found.error)
    return found


def _role_notice(found: LiveCheckpoint, role: str) -> list[str]:
    if found.checkpoint and found.checkpoint.role != role:
        return [f"This checkpoint was saved by a {found.checkpoint.role}, restored as {role}."]
    return []


def consume(project: Project, found: LiveCheckpoint) -> Path:
    """Move a restored checkpoint into the archive; returns where it went."""
    stamp = clock.iso().replace(":", "").replace("-", "")
    name = f"{found.session or 'session_checkpoint'}-{stamp}.md"
    return store.move(found.path, store.private_folder(archive_dir(project)) / name)
