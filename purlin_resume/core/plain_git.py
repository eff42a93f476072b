"""Plain git, with ``os`` alone: where a work tree's repository is, read from its files, and
``git`` started in it as a plain process (``core/spawned``).

``core/gitrepo`` builds on this (and on GitPython where git's files say something it does not
read); ``agents/git_ahead`` uses it before anything else of ``stall check`` is loaded.
"""

from __future__ import annotations

import os

from purlin_resume.core.spawned import Started

TYPE_CHECKING = False  # (``typing`` is not loaded for this: ``stall check`` starts git first)
if TYPE_CHECKING:
    from collections.abc import Mapping

# As GitPython starts git: messages in English, whatever the user's locale.
ENVIRONMENT = {"LANGUAGE": "C", "LC_ALL": "C"}
NO_OPTIONAL_LOCKS = {"GIT_OPTIONAL_LOCKS": "0"}  # as ``git --no-optional-locks``

# ``git status`` of the uncommitted paths (``gitrepo.start_uncommitted_paths``), run without
# optional locks: the index git refreshes on the way is not written back, so a git command of
# the user's (a commit under way) never finds our index.lock in its way.
UNCOMMITTED = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
# What ``git log`` tells of each commit, paths included (``gitrepo`` reads the format back).
LOG = ("--no-renames", "--name-only", "-z", "--format=%x1e%H%x1f%ct%x1f%an%x1f%ae%x1f%B%x1f")


def since(epoch: int) -> str:
    """The ``git log`` selection of commits after ``epoch`` ("@N +0000" is git's raw date; a
    bare "@N" is guessed at, and "@0" comes out as now)."""
    return f"--since=@{int(epoch)} +0000"


def start(root: str, args: tuple[str, ...], env: Mapping[str, str] | None = None) -> Started:
    """``git ARGS`` started in the work tree at ``root`` (``env`` added to this environment)."""
    environment = {**os.environ, **ENVIRONMENT, **(env or {})}
    return Started(["git", "-C", os.fspath(root), *args], environment)


def start_uncommitted(root: str) -> Started:
    """``git status`` of the uncommitted paths, as ``gitrepo.start_uncommitted_paths`` runs it."""
    return start(root, UNCOMMITTED, NO_OPTIONAL_LOCKS)


def log(*selection: str) -> tuple[str, ...]:
    """The ``git log`` of the commits ``selection`` names, with what ``LOG`` tells of each."""
    return ("log", *selection, *LOG)


def start_log_since(root: str, epoch: int) -> Started:
    """``git log`` of the commits after ``epoch``, as ``gitrepo.start_commits_since`` runs it."""
    return start(root, log(since(epoch)))


def work_tree_root(path: str) -> str | None:
    """The nearest folder at or above ``path`` holding ``.git`` (a folder, or a worktree's file).

    What ``git rev-parse --show-toplevel`` answers for an ordinary checkout, without a process;
    None when there is none (or ``$GIT_DIR`` is set, which only git itself can interpret).
    """
    if os.environ.get("GIT_DIR"):
        return None
    folder = os.path.realpath(path)
    while True:
        marker = os.path.join(folder, ".git")
        if os.path.isfile(os.path.join(marker, "HEAD")) or (
            os.path.isfile(marker) and gitdir_of(marker) is not None
        ):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def gitdir_of(marker: str) -> str | None:
    """The folder a ``.git`` file (``gitdir: PATH``) points to."""
    try:
        with open(marker, encoding="utf-8") as file:
            text = file.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = text[len("gitdir:") :].strip()
    if os.path.isabs(target):
        return target
    return os.path.realpath(os.path.join(os.path.dirname(marker), target))


def git_dirs(root: str) -> tuple[str, str] | None:
    """(git dir, common dir) of the work tree at ``root``, read from its files; None when they
    are not an ordinary repository's."""
    marker = os.path.join(root, ".git")
    gitdir = marker if os.path.isdir(marker) else gitdir_of(marker)
    if gitdir is None or not os.path.isfile(os.path.join(gitdir, "HEAD")):
        return None
    common = gitdir
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as file:
            pointer = file.read().strip()
    except (OSError, UnicodeDecodeError):
        pointer = ""
    if pointer:
        common = pointer
        if not os.path.isabs(pointer):
            common = os.path.realpath(os.path.join(gitdir, pointer))
    return gitdir, common
