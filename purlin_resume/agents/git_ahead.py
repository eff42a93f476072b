"""``stall check``'s git, started before anything else of the command is loaded
(``cli/head_start``): the agent named on the command line is looked up in the registry with
``os`` and ``json`` alone, and the two git processes ``GitWork`` starts for it (``git log`` of
the last day's commits, ``git status`` of the uncommitted paths) start in its work tree.

``taken`` hands them to the command as a ``GitWork``, which the detector uses only when it is the
git work it would start itself (``GitWork.serves``: the same work tree at the same moment). So a
registry or an argument read otherwise than the command reads it costs time, never a different
answer; anything unexpected here (no project, a damaged registry, an unknown or ambiguous id,
``$GIT_DIR``, a repository git's files do not plainly describe) starts nothing.
"""

from __future__ import annotations

import os
import time

from purlin_resume.core import plain_git

TYPE_CHECKING = False  # (``typing`` is not loaded for this: git starts first)
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from purlin_resume.agents.git_work import GitWork

HORIZON_SECONDS = 24 * 60 * 60  # ``git_work.HORIZON``: older evidence says nothing of activity
REGISTRY = (".purlin", "agents.json")  # ``registry.path``

_started: dict[str, tuple[int, str, Any, Any]] = {}


def start(agent_query: str, project: str | None) -> None:
    """Start the git work of ``stall check AGENT [--project DIR]``; ``taken`` returns it."""
    seconds = int(time.time())  # the command's moment: ``clock.now`` drops the fraction too
    try:
        worktree = work_folder(agent_query, project)
        top = None if worktree is None else plain_git.work_tree_root(worktree)
        if top is None or plain_git.git_dirs(top) is None:
            return  # no work tree, or one only git itself can read: the command decides
        log = plain_git.start_log_since(top, seconds - HORIZON_SECONDS)
        status = plain_git.start_uncommitted(top)
    except (OSError, ValueError):
        return
    _started["stall check"] = (seconds, worktree, log, status)


def taken() -> tuple[datetime | None, GitWork | None]:
    """(the moment ``start`` was called, its git work), else (None, None); once."""
    state = _started.pop("stall check", None)
    if state is None:
        return None, None
    from datetime import datetime, timezone
    from pathlib import Path

    from purlin_resume.agents.git_work import GitWork

    seconds, worktree, log, status = state
    now = datetime.fromtimestamp(seconds, timezone.utc)
    return now, GitWork.start(Path(worktree), now, ahead=(log, status))


def project_root(project: str | None) -> str | None:
    """The folder ``project.locate`` gives: ``--project`` when it is a folder, else the git work
    tree of the working folder; None where it would fail."""
    if project is not None:
        folder = os.path.expanduser(project)
        return os.path.realpath(folder) if os.path.isdir(folder) else None
    try:
        here = os.getcwd()
    except FileNotFoundError:
        return None
    return plain_git.work_tree_root(here)


def work_folder(agent_query: str, project: str | None) -> str | None:
    """The resolved folder ``registry.work_folder`` gives for the agent ``registry.resolve``
    finds (its id, or the one id starting with it); None where anything is amiss."""
    root = project_root(project)
    query = agent_query.strip()
    if root is None or not query:
        return None
    import json

    try:
        with open(os.path.join(root, *REGISTRY), "rb") as file:
            data = json.load(file)
    except (OSError, ValueError, RecursionError):
        return None
    agents = data.get("agents") if isinstance(data, dict) else None
    if not isinstance(agents, dict):
        return None
    found = [query] if query in agents else [name for name in agents if name.startswith(query)]
    record = agents[found[0]] if len(found) == 1 else None
    if not isinstance(record, dict):
        return None
    cwd = record.get("cwd")
    folder = cwd if isinstance(cwd, str) and cwd else root
    return os.path.realpath(folder if os.path.isdir(folder) else root)
