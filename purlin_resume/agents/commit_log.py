"""``.purlin/cache/commits.jsonl``: which agent made each commit, for stall detection and conflicts.

The post-commit git hook appends one object per commit (JSON Lines, newest last)::

    {"time": "2026-01-15T14:22:10Z", "commit": "<full hash>", "branch": "main",
     "session_id": "<Claude Code session, or null>", "role": "builder", "tmux_pane": "%3",
     "pid": 4242, "files": ["src/a.py"]}

The session is the registered Claude Code process the commit ran under (its pid is an ancestor
of the hook), else the environment's session (``$PURLIN_SESSION_ID``,
``$CLAUDE_CODE_SESSION_ID``, ``$CLAUDE_SESSION_ID``), else the registered running
session in the same tmux pane; null when the commit was made by a person. This module is the
only reader and writer of the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.agents import registry
from purlin_resume.core import current_session, gitrepo, store
from purlin_resume.core.errors import NotFound
from purlin_resume.core.project import Project

FILE_NAME = "commits.jsonl"


@dataclass(frozen=True)
class CommitRecord:
    time: str
    commit: str
    branch: str | None = None
    session_id: str | None = None
    role: str | None = None
    tmux_pane: str | None = None
    pid: int | None = None
    files: list[str] = field(default_factory=list)


def path(project: Project) -> Path:
    return project.cache_dir / FILE_NAME


def author_session(
    agents: Mapping[str, registry.RegisteredAgent],
    ancestor_pids: Iterable[int],
    env: Mapping[str, str],
) -> registry.RegisteredAgent | None:
    """The registered session that made a commit, from its process, environment or tmux pane."""
    running = {a.pid: a for a in agents.values() if a.pid is not None and a.ended_at is None}
    for pid in ancestor_pids:
        if pid in running and registry.pid_alive(pid, running[pid].pid_start_ticks):
            return running[pid]
    session = current_session.from_environment(env)
    if session:
        return agents.get(session) or registry.RegisteredAgent(session)
    pane = env.get("TMUX_PANE")
    if pane:
        in_pane = [a for a in agents.values() if a.tmux_pane == pane and a.ended_at is None]
        if len(in_pane) == 1:
            return in_pane[0]
    return None


def sessions_by_commit(project: Project) -> dict[str, str]:
    """Full commit hash -> the session that made it, for the commits recorded with one."""
    return {
        r["commit"]: r["session_id"]
        for r in read(project)
        if isinstance(r.get("commit"), str) and isinstance(r.get("session_id"), str)
    }


def record(project: Project, entry: CommitRecord) -> None:
    """Append ``entry``; the log and its lock kept out of ``git status`` (a repository that
    takes only the git hooks never ignored ``.purlin/cache/``, and the next commit took them)."""
    store.private_folder(project.cache_dir)
    target = path(project)
    gitrepo.exclude_state_files(target.parent, target.name, target.name + ".lock")
    store.append_jsonl(target, asdict(entry))


def read(project: Project) -> list[dict[str, Any]]:
    """Every record, oldest first; lines that do not parse are skipped."""
    try:
        text = store.read_text(path(project))
    except NotFound:
        return []
    return store.jsonl_rows(text)
