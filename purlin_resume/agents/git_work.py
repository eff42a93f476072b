"""What git says about an agent's work tree, for the activity sources: its recent commits and
its newest uncommitted change, each asked of git at once and read when needed (``GitWork``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from purlin_resume.core import gitrepo
from purlin_resume.core.errors import PurlinError

T = TypeVar("T")

HORIZON = timedelta(hours=24)  # older evidence says nothing of activity
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".purlin",
        ".planning",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".cache",
        ".eggs",
    }
)
SKIPPED_FILES = frozenset({".coverage"})  # the tests source's evidence, not an edit

Change = tuple[str, float]  # (path relative to the work tree, mtime)


def _is_virtualenv(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, "pyvenv.cfg"))


def _skipped(relative: str, root: str, venvs: dict[str, bool]) -> bool:
    """True for paths that are not work: under .git, virtualenvs, node_modules, caches, .purlin."""
    parts = relative.split("/")
    if parts[-1] in SKIPPED_FILES or any(part in SKIPPED_DIRS for part in parts[:-1]):
        return True
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if folder not in venvs:
            venvs[folder] = _is_virtualenv(os.path.join(root, folder))
        if venvs[folder]:
            return True
    return False


def _walk(worktree: Path) -> list[str]:
    """Every file under a folder git does not know (relative paths), skipped folders pruned."""
    found = []
    for folder, dirs, files in os.walk(worktree):
        dirs[:] = [
            d for d in dirs if d not in SKIPPED_DIRS and not _is_virtualenv(os.path.join(folder, d))
        ]
        base = os.path.relpath(folder, worktree)
        found += [name if base == "." else f"{base}/{name}" for name in files]
    return found


def _newest_of(root: Path, paths: list[str]) -> Change | None:
    venvs: dict[str, bool] = {}
    best: Change | None = None
    for relative in paths:
        if _skipped(relative, str(root), venvs):
            continue
        try:
            moment = os.stat(os.path.join(root, relative), follow_symlinks=False).st_mtime
        except OSError:
            continue  # deleted: nothing to date it by
        if best is None or moment > best[1]:
            best = (relative, moment)
    return best


def _failing(failure: Exception) -> Callable[[], Any]:
    def fail() -> Any:
        raise failure

    return fail


def _begun(start: Callable[[], Callable[[], T]]) -> Callable[[], T]:
    """``start()``; when starting fails, a function that raises what it raised."""
    try:
        return start()
    except (PurlinError, OSError, ValueError) as exc:
        return _failing(exc)


def _start_newest_change(worktree: Path, top: Path | None) -> Callable[[], Change | None]:
    if top is None:
        return lambda: _newest_of(worktree, _walk(worktree))
    inside = worktree.resolve().relative_to(top).as_posix()
    prefix = "" if inside == "." else inside + "/"
    paths = gitrepo.start_uncommitted_paths(top)
    return lambda: _newest_of(top, [p for p in paths() if p.startswith(prefix)])


def newest_change(worktree: Path) -> Change | None:
    """(relative path, mtime) of the newest changed file of the worktree.

    In a git work tree: among its uncommitted changes (modified, staged, untracked but not
    ignored), since committed work is the git source's evidence. Elsewhere: among all its files.
    """
    return _start_newest_change(worktree, gitrepo.toplevel(worktree))()


def commits_within_horizon(worktree: Path, now: datetime) -> list[gitrepo.Commit]:
    """The commits of the work tree within ``HORIZON`` of ``now``, newest first (none outside
    git)."""
    root = gitrepo.toplevel(worktree)
    return _start_commits(root, now)()


def _start_commits(root: Path | None, now: datetime) -> Callable[[], list[gitrepo.Commit]]:
    if root is None:
        return list
    return gitrepo.start_commits_since(root, int((now - HORIZON).timestamp()))


@dataclass(frozen=True)
class GitWork:
    """``commits_within_horizon`` and (when asked for) ``newest_change`` of one work tree as of
    ``now``, their git processes started by ``start`` and running beside the caller. Calling
    ``commits`` or ``newest`` waits for the answer, or raises what asking for it raised (a
    failure to start git included): the caller meets an error where it reads the answer."""

    worktree: Path
    now: datetime
    commits: Callable[[], list[gitrepo.Commit]]
    newest: Callable[[], Change | None] | None

    @classmethod
    def start(cls, worktree: Path, now: datetime, changes: bool = True) -> GitWork:
        try:
            top = gitrepo.toplevel(worktree)
        except PurlinError as exc:  # git cannot be started: reading either answer says so
            return cls(worktree, now, _failing(exc), _failing(exc) if changes else None)
        commits = _begun(lambda: _start_commits(top, now))
        newest = _begun(lambda: _start_newest_change(worktree, top)) if changes else None
        return cls(worktree, now, commits, newest)
