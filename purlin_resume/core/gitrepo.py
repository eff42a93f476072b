"""The only code that talks to git: the `git` binary for an ordinary work tree (started and read
by ``plain_git``, which loads nothing but ``os``), GitPython otherwise."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from purlin_resume.core import plain_git, store
from purlin_resume.core.errors import PurlinError

TYPE_CHECKING = False  # (``typing`` is not loaded for this: short commands do without it)
if TYPE_CHECKING:
    from purlin_resume.core.spawned import Started


def _git():
    import git  # imported on first use: hooks that never touch git stay fast

    return git


@lru_cache(maxsize=32)
def _repo(root: str):
    git = _git()
    try:
        return git.Repo(root)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise PurlinError(
            f"{root} is not a git repository; run inside one or pass --project"
        ) from None


def _execute(
    root: Path, args: tuple[str, ...], env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """``git ARGS`` run in the work tree at ``root``: (exit status, stdout, stderr).

    The top of an ordinary work tree gets a plain ``git`` process, as GitPython would start it
    (C locale, no standard input): importing GitPython and opening the repository cost far more
    than the command. Anything else (a sub-folder, a bare repository, ``$GIT_DIR``, no
    repository at all) goes through GitPython, which explains what is wrong. ``env``: variables
    added to the environment of this command.
    """
    return _started(root, args, env)()


def _started(
    root: Path,
    args: tuple[str, ...],
    env: dict[str, str] | None = None,
    started: Started | None = None,
) -> Callable[[], tuple[int, str, str]]:
    """``_execute`` under way: a plain ``git`` process starts now (``plain_git``) and runs
    beside the caller; calling what this returns waits for it and gives what ``_execute`` gives
    (raising what starting it raised). Through GitPython, everything happens in that call.
    ``started``: that same process, started earlier (``agents/git_ahead``); it is used only
    where this would start a plain process itself."""
    if os.environ.get("GIT_DIR") or _git_dirs(root) is None:
        return lambda: _repo(str(root)).git.execute(
            ["git", *args],
            with_extended_output=True,
            with_exceptions=False,
            strip_newline_in_stdout=False,
            env=env,
        )
    try:
        child = started or plain_git.start(os.fspath(root), args, env)
    except OSError as exc:
        failure = exc

        def fail() -> tuple[int, str, str]:
            raise failure

        return fail

    def finish() -> tuple[int, str, str]:
        status, out, err = child.finish()
        return (
            status,
            out.decode("utf-8", "surrogateescape"),
            err.decode("utf-8", "surrogateescape").rstrip("\n"),
        )

    return finish


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return _start(root, *args, env=env)()


def _start(
    root: Path, *args: str, env: dict[str, str] | None = None, started: Started | None = None
) -> Callable[[], str]:
    """``_run`` under way (see ``_started``): calling the result gives its output."""
    pending = _started(root, args, env, started)

    def output() -> str:
        status, out, err = pending()
        if status != 0:
            lines = err.strip().splitlines()
            reasons = [line for line in lines if line.startswith(("fatal:", "error:"))] or lines
            reason = reasons[0] if reasons else f"exit status {status}"
            raise PurlinError(f"git {' '.join(args)} failed: {reason}")
        return out

    return output


def toplevel(path: Path) -> Path | None:
    """The top-level folder of the work tree containing ``path``, or None outside git."""
    found = work_tree_root(path)
    if found is not None or not os.environ.get("GIT_DIR"):
        return found  # without $GIT_DIR, git itself would find no other work tree
    git = _git()
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    return Path(repo.working_tree_dir).resolve() if repo.working_tree_dir else None


def has_commits(root: Path) -> bool:
    if isinstance(_head_from_files(root), str):  # HEAD's hash, read without starting git
        return True
    try:  # no commit yet, or refs these files do not hold (reftable): git decides
        _run(root, "rev-parse", "--verify", "--quiet", "HEAD")
    except PurlinError:
        return False
    return True


def branch(root: Path) -> str:
    """The current branch as ``git rev-parse --abbrev-ref HEAD`` names it (``HEAD`` if detached)."""
    if not has_commits(root):  # an unborn branch has a name but no commit yet
        return _run(root, "symbolic-ref", "--short", "HEAD").strip()
    return _run(root, "rev-parse", "--abbrev-ref", "HEAD").strip()


def status_lines(root: Path) -> list[str]:
    """``git status --porcelain`` lines: changed, staged and untracked paths (ignored ones left out)."""
    out = _run(root, "status", "--porcelain=v1", "--untracked-files=normal")
    return [line for line in out.split("\n") if line.strip()]


def recent_commits(root: Path, count: int = 10) -> list[str]:
    """``git log --oneline -<count>`` lines; empty for a repository with no commit."""
    if not has_commits(root):
        return []
    out = _run(root, "log", "--oneline", f"-{count}")
    return [line for line in out.split("\n") if line.strip()]


def head_commit(root: Path) -> str | None:
    """The full hash of HEAD, or None before the first commit."""
    read = _head_from_files(root)
    if read is not False:
        return read
    if not has_commits(root):
        return None
    return _run(root, "rev-parse", "HEAD").strip()


def is_ignored(root: Path, relative: str) -> bool:
    return _execute(root, ("check-ignore", "-q", "--no-index", relative))[0] == 0


def _ignore_line(relative: str) -> str:
    return "/" + relative.lstrip("/")


def _add_line(line: str):
    def change(text: str | None) -> str:
        text = text or ""
        if line in text.split("\n"):
            return text
        if text and not text.endswith("\n"):
            text += "\n"
        return text + line + "\n"

    return change


def exclude_locally(root: Path, relative: str) -> bool:
    """Ignore ``relative`` in this clone only (``info/exclude``): for our lock files."""
    if _excluded_in_file(root, relative) or is_ignored(root, relative):
        return False
    common = Path(_run(root, "rev-parse", "--git-common-dir").strip())
    if not common.is_absolute():
        common = Path(root) / common
    store.update_text(common / "info" / "exclude", _add_line(_ignore_line(relative)))
    return True


def ensure_ignored(root: Path, relative: str) -> bool:
    """Make sure git ignores ``relative`` (a folder ends with ``/``); True when .gitignore changed.

    The project's .gitignore gets the entry; the lock file taken while writing it is ignored in
    this clone only, so nothing of ours shows up in ``git status``.
    """
    if is_ignored(root, relative):
        return False
    exclude_locally(root, ".gitignore.lock")
    store.update_text(Path(root) / ".gitignore", _add_line(_ignore_line(relative)))
    return True


def commit_exists(root: Path, rev: str) -> bool:
    """True when ``rev`` names a commit in this repository."""
    try:
        _run(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except PurlinError:
        return False
    return True


def _paths(out: str) -> list[str]:
    return [path for path in out.split("\0") if path]


def changed_between(root: Path, base: str, tip: str = "HEAD") -> list[str]:
    """``git diff --name-only BASE..TIP``: paths changed from ``base`` to ``tip`` (renames as both)."""
    return _paths(_run(root, "diff", "--name-only", "--no-renames", "-z", f"{base}..{tip}"))


def changed_since_fork(root: Path, bases: tuple[str, ...]) -> list[str]:
    """Paths the current branch changed since it left the first of ``bases`` that exists
    (``git diff --name-only BASE...HEAD``); none when no base exists or HEAD is the base."""
    for base in bases:
        if commit_exists(root, base):
            return _paths(_run(root, "diff", "--name-only", "--no-renames", "-z", f"{base}...HEAD"))
    return []


def commits_between(root: Path, base: str, tip: str = "HEAD", count: int = 20) -> list[str]:
    """``git log --oneline BASE..TIP`` lines, newest first, at most ``count``."""
    out = _run(root, "log", "--oneline", f"-{count}", f"{base}..{tip}")
    return [line for line in out.split("\n") if line.strip()]


def uncommitted_paths(root: Path) -> list[str]:
    """Paths with staged, unstaged or untracked changes in the work tree (renames as both)."""
    return start_uncommitted_paths(root)()


def start_uncommitted_paths(root: Path, started: Started | None = None) -> Callable[[], list[str]]:
    """``uncommitted_paths`` with git started now (or ``started``: the same process, started
    earlier with ``plain_git.start_uncommitted``): calling the result waits for its answer."""
    output = _start(root, *plain_git.UNCOMMITTED, env=plain_git.NO_OPTIONAL_LOCKS, started=started)
    return lambda: sorted({record[3:] for record in output().split("\0") if len(record) > 3})


def untracked_paths(root: Path) -> list[str]:
    out = _run(root, "ls-files", "-z", "--others", "--exclude-standard")
    return _paths(out)


def work_tree_commit(root: Path) -> str:
    """A commit holding the work tree's tracked changes (``git stash create``), else HEAD.

    Nothing in the work tree, the index or the refs changes: the commit is only an object.
    """
    # The commit needs an author even where none is configured; it is never stored under a ref.
    identity = ("-c", "user.name=purlin-resume", "-c", "user.email=purlin-resume@localhost")
    made = _run(root, *identity, "stash", "create").strip()
    return made or _run(root, "rev-parse", "HEAD").strip()


def merge_conflicts(root: Path, ours: str, theirs: str) -> list[str] | None:
    """Paths that conflict when ``theirs`` is merged into ``ours`` (``git merge-tree --write-tree``).

    An empty list means the merge is clean; None means git could not merge them at all
    (no common history). Neither the work tree nor the index is touched.
    """
    status, out, err = _execute(
        root,
        ("merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", ours, theirs),
    )
    if status not in (0, 1):
        if "unrelated histories" in err:
            return None
        detail = err.strip().splitlines()
        raise PurlinError(
            f"git merge-tree {ours} {theirs} failed: {detail[-1] if detail else status}"
        )
    return sorted(set(_paths(out)[1:]))


def exclude_state_files(root: Path, *relative: str) -> None:
    """Keep our state and lock files under ``root`` out of ``git status`` in this clone.

    Outside a git repository there is nothing to do.
    """
    folder = Path(root).resolve()
    existing = next(p for p in (folder, *folder.parents) if p.is_dir())  # it may not exist yet
    top = toplevel(existing)
    if top is None:
        return
    for name in relative:
        exclude_locally(top, (folder / name).relative_to(top).as_posix())


@dataclass(frozen=True)
class Commit:
    """A commit as ``git log`` tells it, with the paths it touched."""

    sha: str
    committed_at: int  # seconds since the epoch
    author_name: str
    author_email: str
    message: str
    files: tuple[str, ...]


def commits_since(root: Path, since_epoch: int) -> list[Commit]:
    """Commits reachable from HEAD committed after ``since_epoch``, newest first, with their paths."""
    return start_commits_since(root, since_epoch)()


def start_commits_since(
    root: Path, since_epoch: int, started: Started | None = None
) -> Callable[[], list[Commit]]:
    """``commits_since`` with git started now (or ``started``: the same process, started
    earlier with ``plain_git.start_log_since``): calling the result waits for its answer."""
    if not has_commits(root):
        return list
    return _start_log(root, plain_git.since(since_epoch), started=started)


def commits_in(root: Path, base: str, tip: str = "HEAD") -> list[Commit]:
    """The commits of ``BASE..TIP``, newest first, with their messages and paths."""
    return _log(root, f"{base}..{tip}")


def _log(root: Path, *selection: str) -> list[Commit]:
    return _start_log(root, *selection)()


def _start_log(
    root: Path, *selection: str, started: Started | None = None
) -> Callable[[], list[Commit]]:
    output = _start(root, *plain_git.log(*selection), started=started)
    return lambda: _commits(output())


def _commits(out: str) -> list[Commit]:
    found = []
    for chunk in out.split("\x1e")[1:]:
        parts = chunk.split("\x1f")
        if len(parts) < 6:
            continue
        sha, stamp, name, email, message, rest = parts[:6]
        files = tuple(filter(None, [path.strip("\n") for path in rest.split("\0")]))
        found.append(Commit(sha, int(stamp), name, email, message.strip(), files))
    return found


# --- reading a repository's files without starting git (hooks must be fast) ---------------------


def work_tree_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` holding ``.git`` (a folder, or a worktree's file).

    What ``git rev-parse --show-toplevel`` answers for an ordinary checkout, without a process;
    None when there is none (or ``$GIT_DIR`` is set, which only git itself can interpret).
    """
    found = plain_git.work_tree_root(os.fspath(path))
    return None if found is None else Path(found)


def _git_dirs(root: Path) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the work tree at ``root``, read from its files."""
    found = plain_git.git_dirs(os.fspath(root))
    return None if found is None else (Path(found[0]), Path(found[1]))


_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def _head_from_files(root: Path) -> str | None | bool:
    """HEAD's hash read from the ref files; None before the first commit; False when unsure."""
    dirs = _git_dirs(root)
    if dirs is None:
        return False
    gitdir, common = dirs
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return False
    if _SHA.fullmatch(head):
        return head
    if not head.startswith("ref: "):
        return False
    ref = head[5:].strip()
    for folder in (gitdir, common):
        try:
            value = (folder / ref).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        return value if _SHA.fullmatch(value) else False
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return False
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _SHA.fullmatch(sha):
            return sha
    return None


def _excluded_in_file(root: Path, relative: str) -> bool:
    """True when ``info/exclude`` already holds our line for ``relative`` (no git needed)."""
    dirs = _git_dirs(root)
    if dirs is None:
        return False
    try:
        text = (dirs[1] / "info" / "exclude").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return _ignore_line(relative) in text.split("\n")


def commit_files(root: Path, rev: str = "HEAD") -> list[str]:
    """Paths the commit ``rev`` changed (against its first parent; every path for a root commit)."""
    out = _run(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "--root", "-z", rev)
    return _paths(out)


def staged_paths(root: Path) -> list[str]:
    """Paths staged in the index for the next commit (added, changed, deleted)."""
    return _paths(_run(root, "diff", "--cached", "--name-only", "--no-renames", "-z"))
