"""The only code that talks to git: the ``git`` binary, run through ``subprocess`` in the work
tree, in the C locale (messages in English) and with no standard input."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from purlin_resume.core import store
from purlin_resume.core.errors import PurlinError

ENVIRONMENT = {"LANGUAGE": "C", "LC_ALL": "C"}
# ``git status`` of the uncommitted paths, run without optional locks: the index git refreshes on
# the way is not written back, so a git command of the user's (a commit under way) never finds
# our index.lock in its way.
NO_OPTIONAL_LOCKS = {"GIT_OPTIONAL_LOCKS": "0"}
UNCOMMITTED = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
_NOT_A_REPOSITORY = ("not a git repository", "cannot change to")


def _started(
    root: Path,
    args: tuple[str, ...],
    env: dict[str, str] | None = None,
    above: bool = False,
    given: str | None = None,
) -> Callable[[], tuple[int, str, str]]:
    """``git ARGS`` started in the work tree at ``root`` and running beside the caller: calling
    what this returns waits for it and gives (exit status, stdout, stderr). ``env``: variables
    added to the environment of this command; ``given``: its standard input. ``root`` is the top
    of the work tree: git looks for the repository above it only when asked to (``above``)."""
    import subprocess  # here: a hook that runs no git (a subagent's start or end) skips its import

    folder = os.path.abspath(root)
    ceiling = {} if above else {"GIT_CEILING_DIRECTORIES": os.path.dirname(folder)}
    try:
        child = subprocess.Popen(
            ["git", "-C", folder, *args],
            stdin=subprocess.DEVNULL if given is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **ENVIRONMENT, **ceiling, **(env or {})},
        )
    except OSError as exc:
        raise PurlinError(f"git could not be started ({exc.strerror}); is it installed?") from None

    def finish() -> tuple[int, str, str]:
        out, err = child.communicate(
            None if given is None else given.encode("utf-8", "surrogateescape")
        )
        return (
            child.returncode,
            out.decode("utf-8", "surrogateescape"),
            err.decode("utf-8", "surrogateescape").rstrip("\n"),
        )

    return finish


def _execute(
    root: Path,
    args: tuple[str, ...],
    env: dict[str, str] | None = None,
    above: bool = False,
    given: str | None = None,
) -> tuple[int, str, str]:
    """``git ARGS`` run in the work tree at ``root``: (exit status, stdout, stderr)."""
    return _started(root, args, env, above, given)()


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return _start(root, *args, env=env)()


def _start(root: Path, *args: str, env: dict[str, str] | None = None) -> Callable[[], str]:
    """``_run`` under way (see ``_started``): calling the result gives its output, or raises
    ``PurlinError`` with git's reason."""
    pending = _started(root, args, env)

    def output() -> str:
        status, out, err = pending()
        if status != 0:
            raise _failure(root, args, status, err)
        return out

    return output


def _failure(root: Path, args: tuple[str, ...], status: int, err: str) -> PurlinError:
    lines = err.strip().splitlines()
    if any(marker in line for line in lines for marker in _NOT_A_REPOSITORY):
        return _not_a_repository(root)
    reasons = [line for line in lines if line.startswith(("fatal:", "error:"))] or lines
    reason = reasons[0] if reasons else f"exit status {status}"
    return PurlinError(f"git {' '.join(args)} failed: {reason}")


def _not_a_repository(root: Path) -> PurlinError:
    """Why git refused ``root`` as a work tree's top, and where to run instead."""
    top = toplevel(root) if os.path.isdir(root) else None
    if top is not None:
        return PurlinError(
            f"{root} is a folder inside the git repository {top}, not its top; "
            f"run there or pass --project {top}"
        )
    return PurlinError(
        f"{root} is not a git repository; run inside one, or pass its top folder with --project"
    )


def toplevel(path: Path) -> Path | None:
    """The top-level folder of the work tree containing ``path``, as git says; None outside
    git."""
    status, out, _ = _execute(path, ("rev-parse", "--show-toplevel"), above=True)
    found = out.strip()
    return Path(found).resolve() if status == 0 and found else None


def is_git_dir(path: Path) -> bool:
    """Is ``path`` a repository's own folder (a bare repository, a ``.git`` folder) or inside
    one: a place with no working files."""
    status, out, _ = _execute(path, ("rev-parse", "--is-inside-git-dir"), above=True)
    return status == 0 and out.strip() == "true"


def work_tree_of(folder: Path) -> Path | None:
    """``toplevel`` of the existing ``folder``; None outside git: how a hook finds its project.
    A folder holding ``.git`` (a folder with its ``HEAD``, or a file: a linked work tree, a
    submodule) is the answer whether git takes that repository or refuses it, so git is not
    asked, unless ``$GIT_DIR`` or ``$GIT_WORK_TREE`` may name another."""
    folder = Path(folder).resolve()
    dot_git = folder / ".git"
    here = dot_git.is_file() or (dot_git / "HEAD").is_file()
    if here and not {"GIT_DIR", "GIT_WORK_TREE"} & set(os.environ):
        return folder
    return toplevel(folder)


def head_commit(root: Path) -> str | None:
    """The full hash of HEAD, or None before the first commit."""
    status, out, err = _execute(root, ("rev-parse", "--verify", "--quiet", "HEAD"))
    if status == 0:
        return out.strip()
    if err:
        raise _failure(root, ("rev-parse", "HEAD"), status, err)
    return None


def has_commits(root: Path) -> bool:
    return head_commit(root) is not None


def branch(root: Path) -> str:
    """The current branch, also before its first commit; ``HEAD`` when detached (as
    ``git rev-parse --abbrev-ref HEAD`` names it)."""
    status, out, err = _execute(root, ("symbolic-ref", "--short", "--quiet", "HEAD"))
    if status == 0:
        return out.strip()
    if err:
        raise _failure(root, ("symbolic-ref", "HEAD"), status, err)
    return "HEAD"


def status_lines(root: Path) -> list[str]:
    """``git status --porcelain`` lines: changed, staged and untracked paths (ignored ones left out)."""
    out = _run(root, "status", "--porcelain=v1", "--untracked-files=normal")
    return [line for line in out.split("\n") if line.strip()]


def recent_commits(root: Path, count: int = 10) -> list[str]:
    """``git log --oneline -<count>`` lines; empty for a repository with no commit."""
    args = ("log", "--oneline", f"-{count}")
    status, out, err = _execute(root, args)
    if status == 0:
        return [line for line in out.split("\n") if line.strip()]
    if not has_commits(root):
        return []
    raise _failure(root, args, status, err)


def is_ignored(root: Path, relative: str) -> bool:
    return _execute(root, ("check-ignore", "-q", "--no-index", relative))[0] == 0


def _ignore_line(relative: str) -> str:
    return "/" + relative.lstrip("/")


def _add_line(*lines: str) -> Callable[[str | None], str]:
    def change(text: str | None) -> str:
        text = text or ""
        for line in lines:
            if line in text.split("\n"):
                continue
            if text and not text.endswith("\n"):
                text += "\n"
            text += line + "\n"
        return text

    return change


def exclude_locally(root: Path, relative: str) -> bool:
    """Ignore ``relative`` in this clone only (``info/exclude``): for our lock files."""
    if is_ignored(root, relative):
        return False
    _exclude(root, relative)
    return True


def _exclude(root: Path, *relative: str) -> None:
    """``relative`` paths (from the top ``root``) added to this clone's ``info/exclude``."""
    common = Path(_run(root, "rev-parse", "--git-common-dir").strip())
    if not common.is_absolute():
        common = Path(root) / common
    lines = (_ignore_line(name) for name in relative)
    store.update_text(common / "info" / "exclude", _add_line(*lines))


def ensure_ignored(root: Path, relative: str) -> bool:
    """Make sure git ignores ``relative`` (a folder ends with ``/``); True when .gitignore changed.

    The project's .gitignore gets the entry; the lock file taken while writing it is ignored in
    this clone only, so nothing of ours shows up in ``git status``. A .gitignore that is a
    symbolic link (a repository may commit one to ``~/.ssh/id_rsa``) is left as it is: the entry
    goes to this clone's ``info/exclude``.
    """
    if is_ignored(root, relative):
        return False
    if (Path(root) / ".gitignore").is_symlink():  # committed so: never read through, nor replaced
        return exclude_locally(root, relative)
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


def is_ancestor(root: Path, commit: str, tip: str = "HEAD") -> bool:
    """Whether the commit ``commit`` is in the history of ``tip`` (``git merge-base
    --is-ancestor``)."""
    args = ("merge-base", "--is-ancestor", commit, tip)
    status, _, err = _execute(root, args)
    if status not in (0, 1):
        raise _failure(root, args, status, err)
    return status == 0


def branches_containing(root: Path, commit: str) -> list[str]:
    """The local branches whose history holds the commit ``commit``."""
    out = _run(
        root, "for-each-ref", "--format=%(refname:short)", "--contains", commit, "refs/heads/"
    )
    return [line for line in out.splitlines() if line]


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


def start_uncommitted_paths(root: Path) -> Callable[[], list[str]]:
    """``uncommitted_paths`` with git started now: calling the result waits for its answer."""
    output = _start(root, *UNCOMMITTED, env=NO_OPTIONAL_LOCKS)
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

    Done before a file is first made: one that exists was excluded then, and git is not asked
    again (a hook writes these files on every call). Outside a git repository there is nothing
    to do.
    """
    relative = tuple(name for name in relative if not (Path(root) / name).exists())
    if not relative:
        return
    folder = Path(root).resolve()
    existing = next(p for p in (folder, *folder.parents) if p.is_dir())  # it may not exist yet
    # asked from where they are (no need to find the top first); git names the ignored ones
    asked = {(folder / name).relative_to(existing).as_posix(): folder / name for name in relative}
    args = ("check-ignore", "--no-index", "--stdin", "-z")  # -z: names as they are, unquoted
    status, out, _ = _execute(existing, args, above=True, given="\0".join(asked) + "\0")
    if status not in (0, 1):  # 0: some ignored, 1: none, else outside a repository
        return
    ignored = set(out.split("\0"))
    wanted = [path for name, path in asked.items() if name not in ignored]
    top = toplevel(existing) if wanted else None
    if top is None:
        return
    _exclude(top, *(path.relative_to(top).as_posix() for path in wanted))


class Commit(NamedTuple):
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


def start_commits_since(root: Path, since_epoch: int) -> Callable[[], list[Commit]]:
    """``commits_since`` with git started now: calling the result waits for its answer (none
    before the first commit)."""
    # "@N +0000" is git's raw date; a bare "@N" is guessed at, and "@0" comes out as now
    mark = os.urandom(8).hex()
    output = _started(root, ("log", f"--since=@{int(since_epoch)} +0000", *_log_options(mark)))

    def commits() -> list[Commit]:
        status, out, err = output()
        if status == 0:
            return _commits(out, mark)
        if not has_commits(root):
            return []
        raise _failure(root, ("log",), status, err)

    return commits


def commits_in(root: Path, base: str, tip: str = "HEAD") -> list[Commit]:
    """The commits of ``BASE..TIP``, newest first, with their messages and paths."""
    return _log(root, f"{base}..{tip}")


def _log(root: Path, *selection: str) -> list[Commit]:
    mark = os.urandom(8).hex()
    return _commits(_run(root, "log", *selection, *_log_options(mark)), mark)


def _log_options(mark: str) -> tuple[str, ...]:
    """What ``git log`` tells of each commit, paths included, ``mark`` between the parts: a
    random one, which no message, name or path can hold (``_commits`` reads it back)."""
    fields = mark.join(("%H", "%ct", "%an", "%ae", "%B", ""))
    return ("--no-renames", "--name-only", "-z", f"--format=%x1e{mark}{fields}")


def _commits(out: str, mark: str) -> list[Commit]:
    found = []
    for chunk in out.split("\x1e" + mark)[1:]:
        parts = chunk.split(mark)
        if len(parts) != 6:
            continue
        sha, stamp, name, email, message, rest = parts
        files = tuple(filter(None, [path.strip("\n") for path in rest.split("\0")]))
        found.append(Commit(sha, int(stamp), name, email, message.strip(), files))
    return found


def commit_files(root: Path, rev: str = "HEAD") -> list[str]:
    """Paths the commit ``rev`` changed (against its first parent; every path for a root commit)."""
    out = _run(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "--root", "-z", rev)
    return _paths(out)


def staged_text(root: Path, relative: str) -> str | None:
    """The text the index holds for ``relative`` (what the next commit takes), None when it
    holds none (a deletion)."""
    status, out, _ = _execute(root, ("cat-file", "blob", f":0:{relative}"))
    return out if status == 0 else None


def staged_paths(root: Path) -> list[str]:
    """Paths staged in the index for the next commit (added, changed, deleted)."""
    return _paths(_run(root, "diff", "--cached", "--name-only", "--no-renames", "-z"))
