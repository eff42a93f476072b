"""The git hooks (``purlin-resume git-hook NAME [FILE...]``), also offered to other repositories
through ``.pre-commit-hooks.yaml``.

| name | stage | refuses the commit when |
|---|---|---|
| ``agent-history`` | pre-commit | ``.planning/agent-history.json`` is not a valid GSD v1.2 history |
| ``no-cache`` | pre-commit | a file under ``.purlin/cache/`` is committed |
| ``no-secrets`` | pre-commit | a file under ``.planning/`` or a checkpoint file holds a secret (the redaction rules) |
| ``post-commit`` | post-commit | never: it records which agent made the commit in ``.purlin/cache/commits.jsonl`` |

A check is given the files to look at (pre-commit passes the staged ones that match, with what
is not staged put aside); with none, it looks at the files staged in the index, as the index
holds them. Each problem is one line saying what to do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from purlin_resume.agents import commit_log, registry
from purlin_resume.core import clock, gitrepo, processes, redact, store
from purlin_resume.core.errors import CorruptFile, NotFound, UsageError
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from purlin_resume.integration.githook_names import NAMES

HISTORY_PATH = ".planning/agent-history.json"
CACHE_PREFIX = ".purlin/cache/"


@dataclass
class Verdict:
    problems: list[str] = field(default_factory=list)
    note: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def is_checkpoint(relative: str) -> bool:
    return relative == CACHE_PREFIX + "session_checkpoint.md" or (
        relative.startswith(CACHE_PREFIX + "checkpoints/") and relative.endswith(".md")
    )


def shown(name: str) -> str:
    """A file's name in a problem's line: as written, or quoted when it holds a character a
    terminal would act on (an escape sequence, a line break)."""
    return name if name.isprintable() else repr(name)


Reader = Callable[[str], bytes | None]  # what a path to commit holds; None: not there


def work_tree(project: Project) -> Reader:
    """Reads the files as they are in the work tree (pre-commit stashes what is not staged)."""

    def read(name: str) -> bytes | None:
        try:
            return store.read_bytes(project.root / name)
        except NotFound:
            return None  # a deletion: nothing to check

    return read


def staged(project: Project) -> Reader:
    """Reads the files as the index holds them: what the commit takes."""

    def read(name: str) -> bytes | None:
        text = gitrepo.staged_text(project.root, name)
        return None if text is None else text.encode("utf-8", "surrogateescape")

    return read


def _scanned_text(data: bytes) -> str:
    """``data`` as the secret rules read it, whatever its encoding: UTF-16 by its byte order
    mark, else UTF-8 with any other byte as U+FFFD (one stray byte hides no secret)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return data.decode("utf-16", "replace")
    return data.decode("utf-8", "replace")


def agent_history(project: Project, files: list[str], read: Reader | None = None) -> Verdict:
    read = read or work_tree(project)
    verdict = Verdict()
    for name in files:
        if Path(name).as_posix() != HISTORY_PATH:
            continue
        file = project.root / name
        try:
            data = read(name)
            if data is not None:
                history.check(file, store.parse_json(file, store.decoded(file, data)))
        except CorruptFile as exc:
            verdict.problems.append(
                f"{shown(name)} is not a valid GSD v1.2 agent history: {exc.reason}; "
                "fix it before committing (see 'purlin-resume history list')"
            )
    return verdict


def no_cache(project: Project, files: list[str], read: Reader | None = None) -> Verdict:
    cached = [f for f in files if Path(f).as_posix().startswith(CACHE_PREFIX)]
    if not cached:
        return Verdict()
    return Verdict(
        [
            f"{shown(name)}: .purlin/cache/ holds local state and is never committed; "
            "run 'git rm --cached -r .purlin/cache' and 'purlin-resume install' (it ignores the folder)"
            for name in cached
        ]
    )


def no_secrets(project: Project, files: list[str], read: Reader | None = None) -> Verdict:
    read = read or work_tree(project)
    verdict = Verdict()
    for name in files:
        relative = Path(name).as_posix()
        if not (relative.startswith(".planning/") or is_checkpoint(relative)):
            continue
        try:
            text = _scanned_text(read(name) or b"")
        except CorruptFile:
            continue  # no regular file (a FIFO, a loop of links): nothing the commit takes
        for finding in redact.find(text):
            line = text.count("\n", 0, finding.start) + 1
            verdict.problems.append(
                f"{shown(name)}:{line}: looks like a secret ({finding.kind}); remove it or replace it "
                f"with {finding.placeholder} before committing"
            )
    return verdict


def post_commit(project: Project, env: Mapping[str, str]) -> Verdict:
    """Record the commit just made and the agent that made it; never refuses anything."""
    root = project.root
    commit = gitrepo.head_commit(root)
    if commit is None:
        return Verdict(note="no commit to record")
    agent = commit_log.author_session(
        registry.load(project), [pid for pid, _ in processes.ancestors()], env
    )
    entry = commit_log.CommitRecord(
        time=clock.iso(),
        commit=commit,
        branch=gitrepo.branch(root),
        session_id=agent.session_id if agent else None,
        role=agent.role if agent else None,
        tmux_pane=agent.tmux_pane if agent else env.get("TMUX_PANE") or None,
        pid=agent.pid if agent else None,
        files=gitrepo.commit_files(root, commit),
    )
    commit_log.record(project, entry)
    who = agent.session_id if agent else "no registered agent"
    return Verdict(note=f"commit {commit[:12]} recorded ({who})")


CHECKS = {"agent-history": agent_history, "no-cache": no_cache, "no-secrets": no_secrets}


def run(project: Project, name: str, files: list[str], env: Mapping[str, str]) -> Verdict:
    if name == "post-commit":
        return post_commit(project, env)
    check = CHECKS.get(name)
    if check is None:
        raise UsageError(f"unknown git hook {name!r} (known: {', '.join(NAMES)})")
    if files:
        return check(project, files, work_tree(project))
    return check(project, gitrepo.staged_paths(project.root), staged(project))
