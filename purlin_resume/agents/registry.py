"""The agent registry ``.purlin/agents.json``: which Claude Code sessions run or ran here.

Format (version 1), one object per session id; unknown keys are kept as they are::

    {
      "version": 1,
      "agents": {
        "SESSION_ID": {
          "pid": 4242,                  # the Claude Code process, or null
          "pid_start_ticks": 918273,    # when that process started (/proc/PID/stat field 22)
          "cwd": "/path/to/project",
          "started_at": "2026-01-15T14:22:10Z",
          "ended_at": null,             # set when the session ends
          "transcript_path": null,      # its JSONL transcript, when known
          "tmux_pane": null,            # e.g. "%3"
          "tmux_socket": null,          # the socket of that pane's server (from $TMUX)
          "role": null,                 # builder, qa, architect, ...
          "previous_agent_id": null,    # the session this one succeeds
          "restored_from": null,        # the checkpoint it took over (archived path)
          "cli": "codex",               # the agent CLI it runs in; absent: Claude Code
          "start_source": "clear"       # how it started (startup, resume, clear); absent: unknown
        }
      }
    }

A process counts as the agent's while it runs and (where its start was recorded) started when
the registered one did: a process id reused by another process is not the agent's.

The registry describes processes on this machine, so it and its lock file are ignored in this
clone only (``.git/info/exclude``). This module is its only reader and writer.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from purlin_resume.core import clock, gitrepo, ids, processes, store
from purlin_resume.core.errors import Ambiguous, CorruptFile, NotFound, UsageError
from purlin_resume.core.project import Project

VERSION = 1
FILE_NAME = "agents.json"
RUNNING, OVER, UNKNOWN = "running", "over", "unknown"


class RegisteredAgent(NamedTuple):
    """One session as the registry knows it."""

    session_id: str
    pid: int | None = None
    pid_start_ticks: int | None = None  # None: not recorded (older registries, no /proc)
    cwd: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    transcript_path: str | None = None
    tmux_pane: str | None = None
    tmux_socket: str | None = None
    role: str | None = None
    previous_agent_id: str | None = None
    restored_from: str | None = None
    cli: str | None = None  # None: Claude Code
    start_source: str | None = None  # startup, resume or clear; None: not known

    @property
    def agent_cli(self) -> str:
        """The agent CLI the session runs in (``claude`` when none is recorded)."""
        return self.cli or "claude"

    @classmethod
    def from_record(cls, session_id: str, record: dict[str, Any]) -> RegisteredAgent:
        """The entry as the file has it; a role that is not a plain word (a file of the
        repository may hold anything: escapes, a path) counts as none."""
        pid, start = record.get("pid"), record.get("pid_start_ticks")
        role = record.get("role")
        record = {
            **record,
            "role": role if isinstance(role, str) and _ROLE.fullmatch(role) else None,
        }
        return cls(
            session_id=session_id,
            pid=pid if _whole(pid) and 0 < pid < 2**31 else None,
            pid_start_ticks=start if _whole(start) and start >= 0 else None,
            **{
                name: record.get(name) if isinstance(record.get(name), str) else None
                for name in (
                    "cwd",
                    "started_at",
                    "ended_at",
                    "transcript_path",
                    "tmux_pane",
                    "tmux_socket",
                    "role",
                    "previous_agent_id",
                    "restored_from",
                    "cli",
                    "start_source",
                )
            },
        )


# a role as it may be recorded: builder, qa, architect, or a name of the user's
_ROLE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def path(project: Project) -> Path:
    return project.purlin_dir / FILE_NAME


def _checked(file: Path, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise CorruptFile(file, "the top level must be an object")
    version = data.get("version", VERSION)
    if version != VERSION:
        raise CorruptFile(file, f"version {version!r} is not supported (expected {VERSION})")
    agents = data.setdefault("agents", {})
    if not isinstance(agents, dict):
        raise CorruptFile(file, "'agents' must be an object keyed by session id")
    for session_id, record in agents.items():
        if not isinstance(record, dict):
            raise CorruptFile(file, f"agent {session_id!r} must be an object")
        wrong = ids.SESSION.problem(session_id)
        if wrong is None and record.get("previous_agent_id") is not None:
            wrong = ids.SESSION.problem(record["previous_agent_id"])
        if wrong:
            raise CorruptFile(file, wrong)
    return data


def load(project: Project) -> dict[str, RegisteredAgent]:
    """Every registered session by id; empty when the registry does not exist yet."""
    file = path(project)
    return _agents(
        _checked(file, store.read_json(file, default={"version": VERSION, "agents": {}}))
    )


def _agents(data: dict[str, Any]) -> dict[str, RegisteredAgent]:
    return {sid: RegisteredAgent.from_record(sid, rec) for sid, rec in data["agents"].items()}


def _update(
    project: Project, session_id: str, values: dict[str, Any]
) -> dict[str, RegisteredAgent]:
    """``values`` set on the record of ``session_id`` (made when absent), in one locked update:
    every registered session as the update left them. A transcript in ``values`` that does not
    exist gives way to the one registered when that one does."""
    if not session_id:
        raise UsageError("a session id is required")
    for value in (session_id, values.get("previous_agent_id")):
        problem = ids.SESSION.problem(value) if value is not None else None
        if problem:
            raise UsageError(problem)
    file = path(project)
    gitrepo.exclude_state_files(project.purlin_dir, FILE_NAME, FILE_NAME + ".lock")

    def change(data: Any) -> None:
        agents = _checked(file, data)["agents"]
        going_on = _goes_on(agents, session_id, values.get("pid"))
        record = agents.setdefault(session_id, {})
        kept, reported = record.get("transcript_path"), values.get("transcript_path")
        record.update({k: v for k, v in values.items() if not (going_on and k == "started_at")})
        if reported and isinstance(kept, str) and not Path(reported).exists():
            record["transcript_path"] = kept if Path(kept).is_file() else reported

    return _agents(store.update_json(file, change, default={"version": VERSION, "agents": {}}))


def _goes_on(agents: dict[str, Any], session_id: str, pid: Any) -> bool:
    """Whether process ``pid`` already runs ``session_id`` (a compaction starts it again there):
    its start stays the one registered."""
    record = agents.get(session_id)
    if not isinstance(record, dict) or not isinstance(record.get("started_at"), str):
        return False
    if pid is None or record.get("pid") != pid:
        return False
    return session_id in running_sessions(_agents({"agents": agents}))


def record_start(
    project: Project,
    session_id: str,
    *,
    pid: int | None,
    cwd: str | None = None,
    started_at: datetime | None = None,
    transcript_path: str | None = None,
    tmux_pane: str | None = None,
    tmux_socket: str | None = None,
    role: str | None = None,
    previous_agent_id: str | None = None,
    cli: str | None = None,
    source: str | None = None,
) -> dict[str, RegisteredAgent]:
    """Register a session as started (again): it runs until ``record_end`` or its process dies.
    Every registered session as this one locked update left them (a hook reads the registry
    no further).

    A session started again in the process that already runs it (compacted) keeps its start.
    A session started again (resumed, compacted) keeps the role, predecessor and CLI it had
    when none is given now, and its transcript when the one given does not exist but the
    registered one does (Gemini CLI, resuming, names a new chat file but goes on writing the
    old one)."""
    values: dict[str, Any] = {
        "pid": pid,
        "pid_start_ticks": process_start(pid) if pid is not None else None,
        "cwd": cwd if cwd is not None else str(project.root),
        "started_at": clock.iso(started_at or clock.now()),
        "ended_at": None,
        "transcript_path": transcript_path,
        "tmux_pane": tmux_pane,
        "tmux_socket": tmux_socket if tmux_pane else None,
    }
    source = None if source == "compact" else source  # a compaction goes on in the session
    kept = {
        "role": role,
        "previous_agent_id": previous_agent_id,
        "cli": cli,
        "start_source": source,
    }
    values.update({name: value for name, value in kept.items() if value is not None})
    return _update(project, session_id, values)


def forget(project: Project, session_id: str) -> None:
    """Undo a registration ahead of a start that failed (a revival, its window closed): the
    session is removed, also when its own SessionStart hook saw it start, so the agent it was
    to succeed has no successor and can be revived again."""
    file = path(project)

    def change(data: Any) -> None:
        _checked(file, data)["agents"].pop(session_id, None)

    store.update_json(file, change, default={"version": VERSION, "agents": {}})


def record_takeover(project: Project, session_id: str, role: str, restored_from: str) -> None:
    """``session_id`` restored the checkpoint now at ``restored_from``: its role and plan are
    this session's from now on."""
    _update(project, session_id, {"role": role, "restored_from": restored_from})


def running_session(
    reported: str | None, previous: str | None, successor: str | None
) -> str | None:
    """The session that really runs when a hook reports ``reported``. A fork (``claude
    --resume X --fork-session --session-id N``, as ``revive --native`` starts one) reports the
    original X at SessionStart; its successor id N (``$PURLIN_AGENT_ID``, with X as
    ``$PURLIN_PREVIOUS_AGENT_ID``) is the session that runs, and only SessionEnd names it."""
    return successor if successor and previous and reported == previous else reported


def record_end(
    project: Project, session_id: str, ended_at: datetime | None = None
) -> RegisteredAgent:
    """Mark a session as over (a session never seen before is registered as ended)."""
    moment = clock.iso(ended_at or clock.now())
    return _update(project, session_id, {"ended_at": moment})[session_id]


def process_start(pid: int, fields: list[str] | None = None) -> int | None:
    """When process ``pid`` started, in clock ticks after boot (field 22 of ``/proc/PID/stat``,
    from ``fields`` when already read); None where /proc does not tell."""
    fields = processes.stat_fields(pid) if fields is None else fields
    try:
        return int(fields[19]) if fields is not None else None
    except (IndexError, ValueError):
        return None


def pid_alive(pid: int, start_ticks: int | None = None) -> bool:
    """True while process ``pid`` exists, is not a zombie, and (``start_ticks`` given, as
    ``process_start`` read it) started then: the id reused by a later process is not alive."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    fields = processes.stat_fields(pid)
    if not fields:
        return True
    if fields[0] in ("Z", "X"):
        return False
    return start_ticks is None or process_start(pid, fields) in (start_ticks, None)


def reused(agent: RegisteredAgent) -> bool:
    """The agent's process id now names another process (its own one is gone)."""
    return (
        agent.pid is not None
        and agent.pid_start_ticks is not None
        and pid_alive(agent.pid)
        and not pid_alive(agent.pid, agent.pid_start_ticks)
    )


def session_state(agent: RegisteredAgent | None) -> str:
    """``over`` (ended, or its process is gone), ``running``, or ``unknown`` (nothing to tell by)."""
    if agent is None:
        return UNKNOWN
    if agent.ended_at:
        return OVER
    if agent.pid is None:
        return UNKNOWN
    return RUNNING if pid_alive(agent.pid, agent.pid_start_ticks) else OVER


def running_sessions(agents: dict[str, RegisteredAgent]) -> set[str]:
    """The sessions still running: not ended, their process alive, and not replaced in that
    process by a session started after them (``/clear`` starts a new session in the same
    process; one process runs one session at a time)."""
    newest: dict[int, RegisteredAgent] = {}
    for agent in agents.values():
        if session_state(agent) != RUNNING or agent.pid is None:
            continue
        held = newest.get(agent.pid)
        if held is None or (agent.started_at or "") >= (held.started_at or ""):
            newest[agent.pid] = agent
    return {agent.session_id for agent in newest.values()}


def session_of_process(project: Project, pid: int | None) -> str | None:
    """The session process ``pid`` runs now (a Claude Code process changes session at
    ``/clear``); None when the registry knows of none."""
    agents = load(project)
    running = [agents[sid] for sid in running_sessions(agents) if agents[sid].pid == pid]
    return running[0].session_id if pid is not None and running else None


def predecessor_in_process(
    agents: dict[str, RegisteredAgent], session_id: str | None
) -> RegisteredAgent | None:
    """The session the same process ran just before ``session_id`` (the one ``/clear`` ended);
    None for a session that started its process (``startup``: an earlier session under its pid
    was another process)."""
    agent = agents.get(session_id or "")
    if agent is None or agent.pid is None or agent.start_source == "startup":
        return None
    order = list(agents)  # registration order: a session is added when it first starts
    before = order[: order.index(agent.session_id)]
    same = [agents[sid] for sid in before if agents[sid].pid == agent.pid]
    return same[-1] if same else None


def chain_in_process(
    agents: dict[str, RegisteredAgent], session_id: str | None, limit: int
) -> list[RegisteredAgent]:
    """The sessions the same process ran before ``session_id``, the latest first, at most
    ``limit`` of them: the agent ``/clear`` after ``/clear`` turned into ``session_id``."""
    chain: list[RegisteredAgent] = []
    before = predecessor_in_process(agents, session_id)
    while before is not None and len(chain) < limit and before not in chain:
        chain.append(before)
        before = predecessor_in_process(agents, before.session_id)
    return chain


def register_successor(
    project: Project,
    session_id: str,
    predecessor: RegisteredAgent,
    *,
    pid: int | None,
    cwd: str,
    tmux_pane: str | None,
    tmux_socket: str | None = None,
) -> RegisteredAgent:
    """Register the successor of ``predecessor`` before its own SessionStart hook fires.

    Same role, ``previous_agent_id`` set. A hook that records the same session later keeps the
    lineage as long as it passes the role and previous agent on (``PURLIN_PREVIOUS_AGENT_ID``).
    """
    return record_start(
        project,
        session_id,
        pid=pid,
        cwd=cwd,
        tmux_pane=tmux_pane,
        tmux_socket=tmux_socket,
        role=predecessor.role,
        previous_agent_id=predecessor.session_id,
    )[session_id]


MIN_PREFIX = 4  # characters of an agent id a prefix must give (one would name any agent)


def resolve(agents: dict[str, RegisteredAgent], query: str) -> RegisteredAgent:
    """The agent whose id is ``query``, or starts with it: a prefix of at least ``MIN_PREFIX``
    characters that only one agent's id starts with. Too short, not found or ambiguous is an
    error."""
    query = query.strip()
    if not query:
        raise UsageError("an agent id is required")
    if query in agents:
        return agents[query]
    found = [agent for sid, agent in agents.items() if sid.startswith(query)]
    if found and len(query) < MIN_PREFIX:
        raise UsageError(
            f"agent id {query!r} is too short: give the whole id or at least {MIN_PREFIX} of its "
            "first characters; 'purlin-resume agents-status' lists them"
        )
    if not found:
        raise NotFound(
            f"no registered agent {query!r}; 'purlin-resume agents-status' lists the known ones"
        )
    if len(found) > 1:
        names = ", ".join(sorted(agent.session_id for agent in found)[:5])
        raise Ambiguous(f"agent id {query!r} is ambiguous ({names}); give more of it")
    return found[0]


def work_folder(project: Project, agent: RegisteredAgent, inside: bool = False) -> Path:
    """The folder the agent works in: its registered cwd while that exists, else the project;
    ``inside``: only a cwd inside the project (links followed), where a program is started (a
    registry the repository wrote may name any folder)."""
    folder = Path(agent.cwd) if agent.cwd else project.root
    if inside and not store.inside(folder, project.root):
        return project.root
    return folder if folder.is_dir() else project.root
