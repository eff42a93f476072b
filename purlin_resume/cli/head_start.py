"""Work a command starts before it loads what it needs (its own modules, and Typer when the
command line is not plain): loading takes most of a short command's time, and git processes run
on another core meanwhile.

Only ``stall check`` has such work: the ``git log`` and ``git status`` of the agent's work tree,
started with nothing loaded but the registry and ``agents/git_work``. ``begin`` reads the agent
and ``--project`` from the raw arguments; the command takes the work back with ``taken`` once
its arguments are parsed. The work is used only where it is exactly what
the command would start itself (the same work tree, the same moment: ``GitWork.serves``), so a
misread argument costs time, never a different answer.
"""

from __future__ import annotations

from typing import Any

_started: dict[str, Any] = {}
_VALUED = ("--lookback", "--project")


def stall_check_arguments(args: list[str]) -> tuple[str, str | None] | None:
    """(agent, --project or None) of ``[--no-redact] stall check AGENT [--json] [--lookback N]
    [--project DIR]`` in any order, ``--opt=value`` forms included; None for anything else."""
    at = 0
    while at < len(args) and args[at] == "--no-redact":
        at += 1
    if args[at : at + 2] != ["stall", "check"]:
        return None
    agent: list[str] = []
    project = None
    rest = iter(args[at + 2 :])
    for arg in rest:
        name, equals, value = arg.partition("=")
        if arg == "--":
            agent += list(rest)
        elif arg == "--json":
            continue
        elif name in _VALUED:
            value = value if equals else next(rest, None)
            if value is None:
                return None
            if name == "--project":
                project = value
        elif arg.startswith("-"):
            return None  # --help, or an option this does not know: the command decides
        else:
            agent.append(arg)
    return (agent[0], project) if len(agent) == 1 else None


def begin(args: list[str]) -> None:
    """Start the git work of ``stall check`` when ``args`` are its arguments."""
    found = stall_check_arguments(args)
    if found is None:
        return
    from pathlib import Path

    from purlin_resume.agents import registry
    from purlin_resume.agents.git_work import GitWork
    from purlin_resume.core import clock
    from purlin_resume.core.errors import PurlinError
    from purlin_resume.core.project import locate

    agent_query, project = found
    now = clock.now()
    try:
        where = locate(Path(project) if project is not None else None)
        agent = registry.resolve(registry.load(where), agent_query)
        worktree = registry.work_folder(where, agent).resolve()
    except (PurlinError, OSError, ValueError):
        return  # the command says what is wrong
    _started["stall check"] = (now, GitWork.start(worktree, now))


def taken() -> tuple[Any, Any]:
    """(now, git work) that ``begin`` started for ``stall check``, else (None, None); once."""
    return _started.pop("stall check", (None, None))
