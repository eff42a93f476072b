"""Agent tracking: recording spawns, queued agents, status changes and interrupted sessions.

Each function is one locked read-modify-write of the agent history (see ``history``), so
parallel agents and hooks recording at the same moment never lose each other's entries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from purlin_resume.core import clock, gitrepo
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project, project_files
from purlin_resume.history import agent_history as history
from purlin_resume.history.agent_history import (
    AgentHistory,
    HistoryEntry,
    NewAgent,
    PruneResult,
)

if TYPE_CHECKING:
    from purlin_resume.agents.registry import RegisteredAgent
    from purlin_resume.core.config import Settings


class Recorded(NamedTuple):
    """The entry as written, and what pruning did afterwards."""

    entry: dict[str, Any]
    pruned: PruneResult | None = None


class Detection(NamedTuple):
    """A running agent found interrupted, and why."""

    entry: dict[str, Any]
    reason: str


def _head(project: Project) -> str | None:
    """HEAD of the project, None outside git or before the first commit."""
    try:
        return gitrepo.head_commit(project.root)
    except PurlinError:  # not a git repository
        return None


def _spawned(
    doc: AgentHistory, request: NewAgent, session_id: str | None, head: str | None, moment
) -> Recorded:
    """``request`` recorded in ``doc`` as spawned: a new entry, or its queued entry moved on."""
    existing = {e.agent_id: e for e in doc.latest()}.get(request.agent_id)
    if existing is None:
        entry = request.entry(history.SPAWNED, moment)
        doc.data["entries"].append(entry)
    else:
        history.transition(existing, history.SPAWNED)
        entry = existing.data
        request.apply(entry, moment)
        entry["timestamp"] = clock.iso(moment)
    entry["spawn_commit"] = head
    entry["session_id"] = session_id
    return Recorded(dict(entry), history.prune(doc.data))


def spawn(
    project: Project, request: NewAgent, session_id: str | None, now: datetime | None = None
) -> Recorded:
    """Record a spawned agent: a new entry, or the queued entry of that id moved on.

    Adds ``spawn_commit`` (HEAD) and ``session_id``, writes ``current-agent-id.txt`` and prunes.
    """
    moment = now or clock.now()
    head = _head(project)
    recorded = history.update(
        project, lambda doc: _spawned(doc, request, session_id, head, moment), create=True
    )
    history.write_current_id(project, request.agent_id)
    return recorded


def spawn_call(
    project: Project,
    request: NewAgent,
    session_id: str | None,
    siblings: Iterable[str] = (),
    new_group: str | None = None,
) -> Recorded | None:
    """Record the spawn of an Agent/Task tool call (``request.tool_use_id``), in one locked
    update: None when that call is recorded already. When the assistant message spawned
    ``siblings`` too, they all share a parallel group: the one a sibling has, else
    ``new_group``."""
    moment = clock.now()
    head = _head(project)
    wanted = set(siblings)

    def change(doc: AgentHistory) -> Recorded | None:
        if _of_call(doc, request.tool_use_id or request.agent_id) is not None:
            return None
        made = request
        if wanted:
            made = request._replace(mode="parallel", group=_group(doc, wanted, new_group))
        recorded = _spawned(doc, made, session_id, head, moment)
        if made.group:
            _join(doc, wanted, made.group)
        return recorded

    recorded = history.update(project, change, create=True)
    if recorded is not None:
        history.write_current_id(project, request.agent_id)
    return recorded


def _group(doc: AgentHistory, wanted: set[str], new_group: str | None) -> str | None:
    """The parallel group a spawn of ``wanted`` has already, else ``new_group``."""
    known = [e.parallel_group for e in doc.entries if _ids(e) & wanted]
    return next((g for g in known if g), new_group)


def _join(doc: AgentHistory, wanted: set[str], group: str) -> None:
    """The running spawns of ``wanted`` without a group put into ``group``."""
    for entry in doc.latest_with(*history.RUNNING_STATUSES):
        if _ids(entry) & wanted and not entry.parallel_group:
            entry.data.update(parallel_group=group, execution_mode="parallel")


def _ids(entry: HistoryEntry) -> set[str | None]:
    return {entry.agent_id, entry.data.get("tool_use_id")}


def _of_call(doc: AgentHistory, tool_use_id: str) -> HistoryEntry | None:
    """The last entry recorded for the tool call ``tool_use_id`` (its id until the agent is
    named, then kept beside the agent's id)."""
    return next((e for e in reversed(doc.entries) if tool_use_id in _ids(e)), None)


def conclude(
    project: Project,
    agent_id: str,
    how: Callable[[], tuple[str, Iterable[str]]] | None = None,
    spawn: Callable[[AgentHistory], HistoryEntry | None] | None = None,
    siblings: Iterable[str] = (),
    new_group: str | None = None,
) -> str:
    """In one locked update: the entry of agent ``agent_id`` (else the spawn ``spawn`` picks, a
    tool call's entry that gets its agent's id; then ``current-agent-id.txt`` names it) moved
    to the status ``how`` gives, with the files it gives, when it is still running; ``how`` is
    asked only then (it may read the agent's transcript). None: only named. ``siblings``: the
    tool calls of the assistant message that spawned it, when it holds several (the transcript
    may not have held them yet when the spawn was recorded): they share a parallel group (one
    of theirs, else ``new_group``). What happened.
    """
    wanted = set(siblings)

    def change(doc: AgentHistory) -> tuple[str, bool]:
        entry = {e.agent_id: e for e in doc.latest()}.get(agent_id)
        entry = entry or (spawn(doc) if spawn else None)
        if entry is None:
            return f"{agent_id}: no recorded spawn to match", False
        named = entry.agent_id != agent_id
        if named:
            entry.data["tool_use_id"] = entry.data.get("tool_use_id") or entry.agent_id
            entry.data["agent_id"] = agent_id
        group = _group(doc, wanted, new_group) if wanted else None
        if group:
            _join(doc, wanted | {agent_id}, group)
        if how is None:
            return f"{agent_id} named", named
        if entry.status not in history.RUNNING_STATUSES:
            return f"{agent_id} already {entry.status}", named
        status, files = how()
        history.transition(entry, status)
        if status == history.COMPLETED:
            entry.data["completion_timestamp"] = clock.iso()
        history.merge_files(entry, files)
        return f"{agent_id} {status}", named

    if not history.path(project).exists():
        return f"{agent_id}: no agent history"
    note, named = history.update(project, change)
    if named:
        history.write_current_id(project, agent_id)
    return note


def of_call(tool_use_id: str) -> Callable[[AgentHistory], HistoryEntry | None]:
    """``conclude``'s ``spawn`` for the entry of tool call ``tool_use_id``."""
    return lambda doc: _of_call(doc, tool_use_id)


def queue(
    project: Project, request: NewAgent, session_id: str | None, now: datetime | None = None
) -> Recorded:
    """Record an agent that waits for its dependencies (status ``queued``), then prune."""
    moment = now or clock.now()

    def change(doc: AgentHistory) -> Recorded:
        existing = {e.agent_id: e for e in doc.latest()}.get(request.agent_id)
        if existing is not None:
            raise history.refuse(existing, history.QUEUED)
        entry = request.entry(history.QUEUED, moment)
        entry.update(spawn_commit=None, session_id=session_id)
        doc.data["entries"].append(entry)
        return Recorded(dict(entry), history.prune(doc.data))

    return history.update(project, change, create=True)


def change_status(
    project: Project,
    agent: str,
    target: str,
    files: Iterable[str] = (),
    task_results: dict[str, Any] | None = None,
    checkpoints_skipped: int | None = None,
    now: datetime | None = None,
) -> Recorded:
    """Move an agent (id or unique prefix) to ``target`` if the lifecycle allows it; ``files``
    are the project's files it changed (UsageError for one outside the project)."""
    history.check_status(target)
    files = [history.recorded_file(project, name) for name in files]
    moment = now or clock.now()

    def change(doc: AgentHistory) -> Recorded:
        entry = doc.find(agent)
        history.transition(entry, target)
        if target == history.COMPLETED:
            entry.data["completion_timestamp"] = clock.iso(moment)
        history.merge_files(entry, files)
        if task_results is not None:
            entry.data["task_results"] = task_results
        if checkpoints_skipped is not None:
            entry.data["checkpoints_skipped"] = checkpoints_skipped
        return Recorded(dict(entry.data))

    return history.update(project, change)


def scan(
    project: Project,
    settings: Settings,
    now: datetime | None = None,
    agents: dict[str, RegisteredAgent] | None = None,
) -> list[Detection]:
    """Mark as interrupted every running agent whose spawning session is over.

    A session is over when the registry (``agents``, else read now) says it ended or its
    process is gone; when the registry cannot tell, an agent older than
    ``interrupt_after_minutes`` counts as interrupted.
    """
    from purlin_resume.agents import registry  # here: the hooks of tool calls never scan

    moment = now or clock.now()
    agents = registry.load(project) if agents is None else agents

    def state(session_id: str | None) -> str:
        return registry.session_state(agents.get(session_id)) if session_id else registry.UNKNOWN

    max_age = timedelta(minutes=settings.interrupt_after_minutes)
    found = history.interrupted_by_session_end(history.load(project), state, moment, max_age)
    if not found:
        return []
    wanted = {(entry.position, entry.agent_id): reason for entry, reason in found}

    def change(doc: AgentHistory) -> list[Detection]:
        marked = []
        for entry in doc.latest_with(*history.RUNNING_STATUSES):
            reason = wanted.get((entry.position, entry.agent_id))
            if reason is not None:
                history.transition(entry, _cut_off(project, entry, agents))
                marked.append(Detection(dict(entry.data), reason))
        return marked

    return history.update(project, change)


def _cut_off(project: Project, entry: HistoryEntry, agents: dict[str, RegisteredAgent]) -> str:
    """How a running agent of a session that is over ended: failed when its run ended with an
    API error, else interrupted. A spawn still keyed by its tool call gets the id of the agent
    it started (a foreground subagent cut off with its session never returned to say it), and
    the entry the files the agent changed."""
    from purlin_resume.claude import subagents

    record = agents.get(entry.session_id) if entry.session_id else None
    if record is None or not record.transcript_path:
        return history.INTERRUPTED  # no transcript to look in
    session = Path(record.transcript_path)
    tool_use_id = entry.data.get("tool_use_id")
    if tool_use_id and tool_use_id == entry.agent_id:
        entry.data["agent_id"] = subagents.spawned_by(session, tool_use_id) or entry.agent_id
    if entry.agent_id == tool_use_id:
        return history.INTERRUPTED
    path = subagents.agent_path(session, entry.agent_id)
    history.merge_files(entry, changed_files(project.root, read_agent(path)))
    return history.FAILED if subagents.api_error(path) is not None else history.INTERRUPTED


def read_agent(path: Path | None):
    """The reading of a subagent's transcript (its main thread), None when there is none. A
    hook reads one agent's lines: the standard ``json.loads`` (``records.parsed``) parses them
    for less than loading the faster decoder costs."""
    if path is None or not path.is_file():
        return None
    from purlin_resume.claude import records, transcript

    unsummed = transcript.ReadOptions(summaries=False)  # what it did, not how it is shown
    return transcript.read(
        path, path.stem, unsummed, split_sidechains=False, loads=records.parsed
    ).main


def changed_files(root: Path, agent) -> list[str]:
    """The files inside ``root`` that ``agent`` (a ``read_agent`` reading, or None) changed."""
    if agent is None:
        return []
    return project_files([root, agent.project_path], agent.files_modified())


class Ending(NamedTuple):
    """How a running agent ended, as a later hook of its session found out: the entry (by the
    id it has now), its new status, its agent id when only its tool call was known, and the
    files it changed."""

    recorded_as: str
    status: str
    agent_id: str | None = None
    files: tuple[str, ...] = ()


def running(project: Project, session_id: str | None) -> list[HistoryEntry]:
    """The agents of session ``session_id`` that the history holds as running (read without
    the lock: a later ``end`` checks each again under it)."""
    if not session_id or not history.path(project).exists():
        return []
    doc = history.load(project)
    return [e for e in doc.latest_with(*history.RUNNING_STATUSES) if e.session_id == session_id]


def end(project: Project, endings: Iterable[Ending]) -> list[str]:
    """In one locked update, each ending applied to its entry when that is still running:
    named, moved to its status, with its files. What happened, one note per ending."""
    wanted = {e.recorded_as: e for e in endings}
    if not wanted:
        return []

    def change(doc: AgentHistory) -> list[str]:
        notes = []
        for entry in doc.latest_with(*history.RUNNING_STATUSES):
            ending = wanted.get(entry.agent_id)
            if ending is None:
                continue
            if ending.agent_id and ending.agent_id != entry.agent_id:
                entry.data["tool_use_id"] = entry.data.get("tool_use_id") or entry.agent_id
                entry.data["agent_id"] = ending.agent_id
            history.transition(entry, ending.status)
            if ending.status == history.COMPLETED:
                entry.data["completion_timestamp"] = clock.iso()
            history.merge_files(entry, ending.files)
            notes.append(f"{entry.agent_id} {ending.status}")
        return notes

    return history.update(project, change)


def abandon(project: Project, wanted: str, now: datetime | None = None) -> list[dict[str, Any]]:
    """ "Start fresh": close the interrupted agent ``wanted`` (an id or unique prefix), or every
    interrupted agent of the parallel group ``wanted``, as ``failed`` with ``abandoned_at``, so
    it no longer waits for a resume and pruning may remove it. The entries as written."""
    moment = clock.iso(now or clock.now())

    def change(doc: AgentHistory) -> list[dict[str, Any]]:
        waiting = doc.latest_with(history.INTERRUPTED)
        chosen = [e for e in waiting if e.parallel_group == wanted]
        if not chosen:
            entry = doc.find(wanted)
            if entry.status != history.INTERRUPTED:
                raise PurlinError(
                    f"agent {entry.agent_id} is {entry.status}: only an interrupted agent "
                    "(or a parallel group of them) can be abandoned"
                )
            chosen = [entry]
        for entry in chosen:
            history.transition(entry, history.FAILED)
            entry.data.update(completion_timestamp=moment, abandoned_at=moment)
        return [dict(e.data) for e in chosen]

    return history.update(project, change)
