"""Where checkpoints live in a project, and their life: saved, listed, chosen, consumed.

- ``.purlin/cache/checkpoints/<session>.md``: one per agent session, so parallel agents never
  overwrite each other;
- ``.purlin/cache/session_checkpoint.md``: the single-agent path, used when there is no session;
- ``.purlin/cache/archive/``: consumed checkpoints, moved there (never deleted) by a restore.

``.purlin/cache/`` is kept out of git.
"""

from __future__ import annotations

import glob
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from purlin_resume.checkpoints import format as checkpoint_format
from purlin_resume.checkpoints.format import Checkpoint
from purlin_resume.checkpoints.roles import display_name, with_article
from purlin_resume.core import clock, current_session, gitrepo, redact, store
from purlin_resume.core.errors import (
    Ambiguous,
    Conflict,
    CorruptFile,
    NotFound,
    PurlinError,
    UsageError,
)
from purlin_resume.core.project import Project

PLAIN_NAME = "session_checkpoint.md"
CACHE = ".purlin/cache/"
LARGEST = 256 * 1024  # characters: a checkpoint is a briefing an agent reads whole


session_id = current_session.checked  # the name the checkpoint commands know it by


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
    def role(self) -> str | None:
        """The role the checkpoint was saved for; None when it does not parse."""
        return self.checkpoint.role if self.checkpoint else None

    @property
    def sort_key(self) -> tuple[float, float]:
        """When it was saved (to the second), then when its file was written (finer)."""
        moment = clock.parse(self.checkpoint.timestamp) if self.checkpoint else None
        return (moment.timestamp() if moment else self.modified), self.modified


def read(path: Path) -> Checkpoint:
    """Parse the checkpoint at ``path``; CorruptFile (naming it) when it is not one."""
    try:
        return checkpoint_format.parse(store.read_text(path))
    except UsageError as exc:
        raise CorruptFile(path, exc.message) from None


def in_git(project: Project) -> bool:
    """Whether the project is inside a git work tree."""
    return gitrepo.toplevel(project.root) is not None


def uncommitted(project: Project, git: bool) -> list[str]:
    """``XY path`` lines of the work tree's changes, as a checkpoint lists them, without our own
    cache (before the first ``save`` has it ignored, git lists it as untracked); none outside
    git (``git``: ``in_git``)."""
    if not git:
        return []
    folder = project.purlin_dir
    ours_only = not folder.is_dir() or {p.name for p in folder.iterdir()} <= {"cache"}
    lines = []
    for line in gitrepo.status_lines(project.root):
        path = line[3:].strip('"')
        if path.startswith(CACHE) or (path == ".purlin/" and ours_only):
            continue
        lines.append(f"{line[:2].strip()} {line[3:]}")
    return lines


@dataclass(frozen=True)
class Saved:
    """Where a checkpoint was written, and where an unreadable one it replaced was kept."""

    path: Path
    kept_aside: Path | None = None


def save(project: Project, cp: Checkpoint, git: bool) -> Saved:
    """Write ``cp``, redacted, to its session's path (atomically) and keep the cache out of git
    (``git``: ``in_git``).

    A checkpoint already there that does not parse is moved into the archive first
    (``<name>-unreadable-<time>.md``): whatever it held is never lost by saving over it.
    """
    if git:
        gitrepo.ensure_ignored(project.root, CACHE)
    target = path_for(project, cp.session)
    store.private_folder(project.cache_dir)  # checkpoints hold conversation content
    store.private_folder(target.parent)
    kept = None
    if target.exists():
        try:
            read(target)
        except CorruptFile:
            kept = _archive(project, target, "-unreadable")
    store.write_text(target, checkpoint_format.render(redact.redact_data(cp)[0]))
    return Saved(target, kept)


def _archive(project: Project, path: Path, label: str = "") -> Path:
    stamp = clock.iso().replace(":", "").replace("-", "")
    return store.move(path, archive_dir(project) / f"{path.stem}{label}-{stamp}.md")


def take(
    project: Project,
    role: str,
    values: Mapping[str, object],
    session: str | None,
    spelled: Callable[[checkpoint_format.Field], str] = checkpoint_format.Field.as_option,
) -> tuple[Saved, Checkpoint]:
    """Save a checkpoint of ``role`` from ``values`` (redacted as given, before they are put on
    one line each); branch and uncommitted changes from git. ``spelled`` names a missing field
    as the caller writes it (``checkpoint_format.from_fields``)."""
    git = in_git(project)
    cp = checkpoint_format.from_fields(
        role,
        redact.redact_data(dict(values))[0],
        timestamp=clock.iso(),
        branch=gitrepo.branch(project.root),
        uncommitted=uncommitted(project, git),
        session=session,
        spelled=spelled,
    )
    size = len(checkpoint_format.render(cp))
    if size > LARGEST:
        raise UsageError(
            f"the checkpoint would be {size // 1024} KiB, more than the {LARGEST // 1024} KiB "
            "an agent reads whole; shorten its fields (nothing was saved)"
        )
    return save(project, cp, git), cp


def _live_at(path: Path, session: str | None) -> LiveCheckpoint | None:
    try:
        modified = path.lstat().st_mtime  # a link's own: what it leads to is not read
    except FileNotFoundError:
        return None
    try:
        return LiveCheckpoint(path, session, modified, checkpoint=read(path))
    except PurlinError as exc:  # not one (a link leading out, a folder): listed, never used
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


def owner(found: LiveCheckpoint) -> str | None:
    """The session a checkpoint belongs to: its file's, else (the single-agent file) the one
    it names."""
    return found.session or (found.checkpoint.session if found.checkpoint else None)


def choose(
    project: Project,
    role: str,
    session: str | None,
    explicit: bool,
    busy: frozenset[str] = frozenset(),
    prefer: Sequence[str] = (),
    claimed: Path | None = None,
) -> Choice:
    """Pick the checkpoint for a restore of ``role``.

    An explicitly named session must have one. Otherwise: this session's own checkpoint, then
    the one it already took over (``claimed``, archived: a SessionStart briefing handed it
    over), then the newest of the sessions in ``prefer`` (those its process ran before it,
    ``/clear`` after ``/clear``), then the single-agent file, then the newest checkpoint of
    another session saved for the same role. A checkpoint of a session in
    ``busy`` (still running) is never taken: it is that session's. A checkpoint that does not
    parse stops the restore (CorruptFile), untouched.
    """
    if explicit:
        return _named(project, role, session, busy)
    if session is not None:
        own = _live_at(path_for(project, session), session)
        if own is not None:
            return Choice(_checked(own), _role_notice(own, role))
    return _among_live(project, role, session, busy, prefer, claimed)


def _named(project: Project, role: str, session: str | None, busy: frozenset[str]) -> Choice:
    """The checkpoint of the session named (or the only one whose id starts so): refused when
    it has none, or is still running."""
    own = _live_at(path_for(project, session), session)
    found = live(project) if own is None else []
    starting = [c.session for c in found if c.session and session and c.session.startswith(session)]
    if len(starting) == 1:
        session = starting[0]
        own = _live_at(path_for(project, session), session)
    if own is None and len(starting) > 1:
        raise Ambiguous(
            f"session {session} names more than one checkpoint ({', '.join(starting)}): "
            "give more of its id"
        )
    if own is None:
        sessions = [c.session or "(no session)" for c in found]
        raise NotFound(
            f"no checkpoint for session {session}"
            + (f"; live checkpoints: {', '.join(sessions)}" if sessions else "")
        )
    if session in busy:
        raise Conflict(f"session {session} is still running: its checkpoint is its own to restore")
    return Choice(_checked(own), _role_notice(own, role))


def _among_live(
    project: Project,
    role: str,
    session: str | None,
    busy: frozenset[str],
    prefer: Sequence[str],
    claimed: Path | None,
) -> Choice:
    """The newest checkpoint of ``prefer``, else the one ``claimed``, else the single-agent
    one, else the newest of another session, for ``role``; with notices of those left in place
    and why."""
    candidates = live(project)
    notices = []
    for broken in (c for c in candidates if c.error):
        if broken.session is None:  # the single-agent checkpoint is everyone's: stop on it
            _checked(broken)
        notices.append(f"Unreadable checkpoint left in place: {broken.error}")
    readable = [c for c in candidates if c.checkpoint is not None]
    held = [c for c in readable if owner(c) in busy and owner(c) != session]
    readable = [c for c in readable if c not in held]
    preferred = [c for c in readable if owner(c) in prefer and c.role == role]
    plain = [c for c in readable if c.session is None and c.role == role]
    keyed = [c for c in readable if c.session is not None and c.role == role]
    notices += [
        f"Left for its own role: the {c.role} checkpoint of session {c.session}."
        for c in readable
        if c.role != role and c.session is not None
    ]
    notices += [f"Left to session {owner(c)}, which is still running." for c in held]
    taken = [c for c in [taken_over(claimed)] if c is not None and c.role == role]
    pick = next(iter(preferred or taken or plain or keyed), None)
    others = [c for c in keyed if c is not pick]
    if pick is not None and others:
        notices.append(
            f"{len(others)} other {role} checkpoint(s) remain: "
            + ", ".join(c.session or PLAIN_NAME for c in others)
            + " (restore one with --session)"
        )
    return Choice(pick, notices)


CLAIM_ATTEMPTS = 5


def claim(
    project: Project,
    choosing: Callable[[], Choice],
    taking: Callable[[LiveCheckpoint], bool] = lambda found: True,
) -> tuple[Choice, Path | None]:
    """Choose (``choosing`` runs ``choose``), then take the chosen checkpoint (unless
    ``taking`` says it stays): move it into the archive under its lock. Of two restores (or
    briefings) that chose the same checkpoint at once only one gets it; the other chooses again
    among what is left. Returns the choice and where the checkpoint went."""
    for _ in range(CLAIM_ATTEMPTS):
        choice = choosing()
        if choice.chosen is None or not taking(choice.chosen):
            return choice, None
        if choice.chosen.path.parent == archive_dir(project):
            return choice, choice.chosen.path  # taken over before (a briefing handed it over)
        try:
            return choice, consume(project, choice.chosen)
        except NotFound:
            continue  # taken by another restore a moment ago
    raise Conflict("other sessions keep restoring the same checkpoints; try again")


def taken_over(claimed: Path | None) -> LiveCheckpoint | None:
    """The checkpoint a session took over (now in the archive), as its owner left it; None when
    there is none, or it is gone or unreadable."""
    found = _live_at(claimed, None) if claimed is not None else None
    if found is None or found.checkpoint is None:
        return None
    return replace(found, session=found.checkpoint.session)


def _checked(found: LiveCheckpoint) -> LiveCheckpoint:
    if found.error:
        raise PurlinError(found.error)  # already names the file and what to do
    return found


def _role_notice(found: LiveCheckpoint, role: str) -> list[str]:
    if found.checkpoint and found.checkpoint.role != role:
        saver, restorer = with_article(found.checkpoint.role), display_name(role)
        return [f"This checkpoint was saved by {saver}, restored as {restorer}."]
    return []


def of_session(project: Project, session: str, *, include_archive: bool = True) -> list[Checkpoint]:
    """Every readable checkpoint ``session`` wrote, live or consumed, newest first."""
    paths = [path_for(project, session), path_for(project, None)]
    if include_archive and archive_dir(project).is_dir():
        paths += archive_dir(project).glob(f"{glob.escape(session)}-*.md")
        paths += archive_dir(project).glob("session_checkpoint-*.md")
    found = []
    for path in paths:
        try:
            cp = read(path)
        except (CorruptFile, NotFound, OSError):
            continue
        if cp.session == session:
            found.append(cp)
    return sorted(found, key=written_at, reverse=True)


def written_at(cp: Checkpoint) -> float:
    moment = clock.parse(cp.timestamp)
    return moment.timestamp() if moment else 0.0


def supersede(project: Project, found: LiveCheckpoint) -> Path:
    """Archive a checkpoint its agent replaced with a newer one (``<session>-superseded-<time>.md``)."""
    store.private_folder(archive_dir(project))
    return _archive(project, found.path, "-superseded")


def consume(project: Project, found: LiveCheckpoint) -> Path:
    """Move a restored checkpoint into the archive; returns where it went."""
    stamp = clock.iso().replace(":", "").replace("-", "")
    name = f"{found.session or 'session_checkpoint'}-{stamp}.md"
    return store.move(found.path, store.private_folder(archive_dir(project)) / name)
