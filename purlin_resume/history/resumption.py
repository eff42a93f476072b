"""Resuming interrupted agents: choose them, check conflicts, record the resume, brief a successor.

Claude Code's Agent tool no longer resumes an agent by id, so a resume hands a fresh agent a
briefing: the task, where it stood, what changed since, and how to finish and record it. The
resume is recorded as the GSD spec says: the old entry stays ``interrupted`` and a new entry of
the same agent id is added with status ``resumed``. Its task and prompt, as the briefing shows
them, are redacted and cut at ``PROMPT_CHARS``: a committed file may hold megabytes, and each
resume copies the entry.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from purlin_resume.agents import registry
from purlin_resume.claude import subagents
from purlin_resume.claude.records import TOOL_USE_PREFIX
from purlin_resume.core import clock, gitrepo, templating
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from purlin_resume.history import conflicts, tracking
from purlin_resume.history.agent_history import AgentHistory, HistoryEntry
from purlin_resume.history.conflicts import ConflictReport

if TYPE_CHECKING:
    from purlin_resume.core.config import Settings

BRIEFING_TEMPLATE = "history/resume_briefing.md.j2"
BOUNDED_FIELDS = ("task_description", "prompt")  # free text a committed file may hold much of


@dataclass(frozen=True)
class ResumedAgent:
    interrupted: dict[str, Any]
    resumed: dict[str, Any]
    report: ConflictReport
    reachable: bool
    stopped_by_user: bool

    @property
    def agent_id(self) -> str:
        return self.interrupted["agent_id"]


@dataclass(frozen=True)
class Resumption:
    agents: tuple[ResumedAgent, ...]
    group: str | None
    detected: tuple[tracking.Detection, ...]
    briefing: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "detected": [
                {"agent_id": d.entry["agent_id"], "reason": d.reason} for d in self.detected
            ],
            "agents": [
                {
                    "agent_id": a.agent_id,
                    "interrupted": a.interrupted,
                    "resumed": a.resumed,
                    "conflicts": a.report.to_dict(),
                    "reachable": a.reachable,
                }
                for a in self.agents
            ],
            "briefing": self.briefing,
        }


def _not_resumable(entry: HistoryEntry) -> PurlinError:
    if entry.status in history.RUNNING_STATUSES:
        return PurlinError(
            f"agent {entry.agent_id} is {entry.status} and its session may still be running; "
            f"if it stopped, run 'purlin-resume history interrupt {shlex.quote(entry.agent_id)}' "
            "first"
        )
    return PurlinError(
        f"agent {entry.agent_id} is {entry.status}: only an interrupted agent can be resumed"
    )


def choose(
    doc: AgentHistory, wanted: str | None, batch: bool
) -> tuple[list[HistoryEntry], str | None]:
    """The agents to resume and their parallel group (for ``--batch``)."""
    waiting = doc.latest_with(history.INTERRUPTED)
    if not batch:
        if wanted:
            entry = doc.find(wanted)
            if entry.status != history.INTERRUPTED:
                raise _not_resumable(entry)
            return [entry], entry.parallel_group
        if not waiting:
            running = [e.agent_id for e in doc.latest_with(*history.RUNNING_STATUSES)]
            hint = (
                f"; still marked running: {', '.join(running)} "
                "(mark a stopped one with 'purlin-resume history interrupt ID')"
                if running
                else ""
            )
            raise NotFound(f"no interrupted agent in {doc.path}{hint}")
        return [waiting[-1]], waiting[-1].parallel_group
    group: str | None
    if wanted and any(e.parallel_group == wanted for e in doc.entries):
        group = wanted
    elif wanted:
        entry = doc.find(wanted)
        group = entry.parallel_group
        if group is None:
            raise PurlinError(
                f"agent {entry.agent_id} ran in no parallel group; resume it without --batch"
            )
    else:
        grouped = [e for e in waiting if e.parallel_group]
        if not grouped:
            raise NotFound(f"no interrupted agent of a parallel group in {doc.path}")
        group = grouped[-1].parallel_group
    chosen = [e for e in waiting if e.parallel_group == group]
    if not chosen:
        raise NotFound(f"parallel group {group} has no interrupted agents")
    return chosen, group


def resume(
    project: Project,
    settings: Settings,
    wanted: str | None = None,
    batch: bool = False,
    force: bool = False,
    session_id: str | None = None,
    ref: str | None = None,
    now: datetime | None = None,
) -> Resumption:
    """Detect interrupted agents, choose, check conflicts, record the resume and brief.

    Nothing is recorded when the choice fails or conflicts stop the resume.
    """
    if ref is not None and batch:
        raise UsageError("--ref names one agent's work; it cannot be used with --batch")
    moment = now or clock.now()
    detected = tracking.scan(project, settings, moment)
    chosen, group = choose(history.load(project), wanted, batch)
    reports = {
        e.agent_id: conflicts.check(project, e, ref, ignore=history.state_files()) for e in chosen
    }
    blocked = [r for r in reports.values() if r.stops]
    if blocked and not force:
        raise PurlinError(conflicts.describe(blocked))
    stopped = _stopped_by_user(
        project, [e for e in chosen if session_id and e.session_id == session_id]
    )
    head = gitrepo.head_commit(project.root) if gitrepo.toplevel(project.root) else None
    seen = {e.agent_id: e.data for e in chosen}
    changes: dict[str, Any] = {
        "timestamp": clock.iso(moment),
        "completion_timestamp": None,
        "spawn_commit": head,
        "session_id": session_id,
    }
    if ref is not None:
        changes["work_ref"] = ref
    pairs = history.update(project, lambda doc: _record_resumed(doc, seen, changes))
    history.write_current_id(project, pairs[-1][1]["agent_id"])
    agents = _resumed_agents(pairs, reports, session_id, stopped)
    briefing = templating.render(
        BRIEFING_TEMPLATE, agents=agents, group=group if batch else None, forced=bool(blocked)
    )
    return Resumption(agents, group, tuple(detected), briefing)


def _resumed_agents(
    pairs: list[tuple[dict, dict]],
    reports: dict[str, ConflictReport],
    session_id: str | None,
    stopped: set[str],
) -> tuple[ResumedAgent, ...]:
    """Each agent resumed, with its conflict report and whether this session can reach it:
    SendMessage takes an agent's own id, never the id of the call that spawned it, and resumes
    no agent of ``stopped``."""
    return tuple(
        ResumedAgent(
            interrupted=_bounded(old),
            resumed=new,
            report=reports[old["agent_id"]],
            reachable=bool(session_id)
            and session_id == old.get("session_id")
            and not old["agent_id"].startswith(TOOL_USE_PREFIX)
            and old["agent_id"] not in stopped,
            stopped_by_user=old["agent_id"] in stopped,
        )
        for old, new in pairs
    )


def _stopped_by_user(project: Project, entries: list[HistoryEntry]) -> set[str]:
    """Of ``entries`` (those this session spawned: only they are offered SendMessage), the
    agents whose ``.meta.json`` says ``stoppedByUser``: Claude Code 2.1.330 marks so a
    background agent stopped with Esc, and its SendMessage then answers that the agent "was
    stopped and was not resumed". An agent such an agent spawned is not marked, and SendMessage
    resumes it."""
    if not entries:
        return set()
    sessions = registry.load(project)
    marked = set()
    for entry in entries:
        record = sessions.get(entry.session_id or "")
        if record is None or not record.transcript_path:
            continue
        meta = subagents.meta_of(Path(record.transcript_path), entry.agent_id)
        if meta.get(subagents.STOPPED_BY_USER) is True:
            marked.add(entry.agent_id)
    return marked


def _record_resumed(
    doc: AgentHistory, seen: dict[str, dict[str, Any]], changes: dict[str, Any]
) -> list[tuple[dict, dict]]:
    """Add to ``doc`` a ``resumed`` entry (the interrupted one with ``changes``) for each agent
    of ``seen``, refused when its entry changed since it was read; (interrupted, resumed) pairs."""
    current = {e.agent_id: e for e in doc.latest()}
    pairs = []
    for agent_id, data in seen.items():
        entry = current.get(agent_id)
        if entry is None or entry.data != data:
            raise PurlinError(f"agent {agent_id} changed meanwhile; run the command again")
        successor = HistoryEntry(-1, _bounded(entry.data))
        history.transition(successor, history.RESUMED)
        successor.data.update(changes)
        doc.data["entries"].append(successor.data)
        pairs.append((dict(entry.data), dict(successor.data)))
    return pairs


def _bounded(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of the entry ``data`` whose task and prompt are at most ``PROMPT_CHARS`` (a
    longer one redacted, then cut, saying how long it was)."""
    texts = {name: data[name] for name in BOUNDED_FIELDS if isinstance(data.get(name), str)}
    return data | {name: history.bounded(text) for name, text in texts.items()}
