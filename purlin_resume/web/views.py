"""What each page and API answer shows, gathered from the domain modules.

Every function returns plain data (dicts, lists, strings) already redacted, for a template or
for JSON alike. A page is made of panels: a panel whose state file is corrupt (or missing a part
it needs) becomes ``{"error": "<one line>"}`` and the others still show. Errors about the request
itself (an unknown or ambiguous id) are raised for the route to answer 404 or 400.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from purlin_resume.agents import lineage, registry, revival, stall
from purlin_resume.agents.stall import server_of
from purlin_resume.claude import catalog, layout, rendering, transcript_output
from purlin_resume.core import cache_home, config, redact
from purlin_resume.core.errors import NotFound, PurlinError, UsageError, system_refusal
from purlin_resume.core.project import Project
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.history import agent_history as history
from purlin_resume.history import conflicts
from purlin_resume.resurrection import archive
from purlin_resume.resurrection import flow as resurrection
from purlin_resume.resurrection import log as resurrection_log

MAX_ID_LENGTH = 200
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]*")
RESURRECTIONS_SHOWN = 100
AGENTS_SHOWN = 100
SEARCH_LIMIT = 20


@dataclass
class Scope:
    """What one dashboard run looks at."""

    project: Project
    claude_dir: Path | None = None


def checked_id(value: str, what: str = "agent id") -> str:
    """An id from a URL as session, agent and subagent ids are: letters, digits and a few
    marks, no separators or control characters, not absurdly long."""
    if not value.strip():
        raise UsageError(f"an {what} is required")
    if len(value) > MAX_ID_LENGTH or not _ID.fullmatch(value):
        shown = redact.one_line(value, 40)
        raise UsageError(f"{what} {shown!r} is not valid: letters, digits, . _ : @ + - only")
    return value


def clean(data: Any) -> Any:
    """``data`` with every text value redacted (before it is rendered or serialised)."""
    return redact.redact_data(data)[0]


def panel(gather: Callable[[], Any]) -> dict[str, Any]:
    """``{"data": ...}`` or, when a state file cannot be read (broken, or another user's),
    ``{"error": one line}``."""
    try:
        return {"data": gather()}
    except PurlinError as exc:
        return {"error": redact.redact(exc.message).text}
    except OSError as exc:
        return {"error": redact.redact(system_refusal(exc)).text}


# ---------------------------------------------------------------------------------------------
# agents


def _server(scope: Scope):
    """The tmux server the project's agents run on (its ``tmux_socket`` setting)."""

    return server_of(config.load(scope.project))


def card(status, alive: set[str]) -> dict[str, Any]:
    """One registered agent as its card shows it. It can be revived when it is dead (ended, or
    its process died without a SessionEnd) and none of its successors is alive (``alive``)."""

    data = status.to_dict()
    data["revivable"] = status.liveness.state == lineage.DEAD and not (
        set(status.successors) & alive
    )
    data["project"] = data.pop("cwd")
    return data


def agents(scope: Scope, limit: int | None = None) -> dict[str, Any]:
    """The registered agents, newest start first: with a ``limit``, every one not known dead
    and the newest dead ones up to it; ``total`` counts them all."""

    server = _server(scope)
    statuses = lineage.statuses(registry.load(scope.project), server)[::-1]
    chosen = statuses
    if limit is not None and len(statuses) > limit:
        room = limit - sum(1 for s in statuses if s.liveness.state != lineage.DEAD)
        chosen = []
        for status in statuses:
            if status.liveness.state != lineage.DEAD or room > 0:
                room -= status.liveness.state == lineage.DEAD
                chosen.append(status)
    alive = {s.agent.session_id for s in statuses if s.liveness.state == lineage.ALIVE}
    return {"agents": clean([card(s, alive) for s in chosen]), "total": len(statuses)}


def agent_card(scope: Scope, agent_id: str) -> dict[str, Any]:
    server = _server(scope)
    found = registry.load(scope.project)
    agent = registry.resolve(found, checked_id(agent_id))
    after = lineage.successors(found, agent.session_id)
    status = lineage.AgentStatus(agent, lineage.liveness(agent, server), after)
    alive = {sid for sid in after if lineage.liveness(found[sid], server).state == lineage.ALIVE}
    return clean(card(status, alive))


def activity(scope: Scope, agent_id: str) -> dict[str, Any]:
    """Verdict (active, stalled, held, dead), last activity and stall confidence (``stall check``)."""

    result = stall.detect(scope.project, checked_id(agent_id)).to_dict()
    return clean(
        {
            "agent_id": result["agent_id"],
            "verdict": result["verdict"],
            "is_active": result["is_active"],
            "confidence": result["confidence"],
            "level": result["level"],
            "last_activity": result["last_activity"],
        }
    )


def lineage_of(scope: Scope, agent_id: str) -> dict[str, Any]:
    found = registry.load(scope.project)
    agent = registry.resolve(found, checked_id(agent_id))
    return clean(
        {
            "predecessors": [
                {"agent_id": sid, "registered": sid in found}
                for sid in lineage.predecessors(found, agent.session_id)
            ],
            "successors": [n.to_dict() for n in lineage.descendants(found, agent.session_id)],
        }
    )


def conversation(scope: Scope, identifier: str) -> dict[str, Any]:
    """A session's or agent's conversation of any agent CLI as ``transcript`` renders it
    (Markdown, redacted), its tool calls counted and the files it touched."""

    opened, _ = archive.open_conversation(scope.claude_dir, checked_id(identifier, "id"))
    transcript = opened.transcript
    options = rendering.MarkdownOptions()
    markdown = transcript_output.markdown(opened, options)
    if transcript is None or not rendering.has_history(transcript, options):
        tools, files, turns = {}, [], 0
    else:
        tools = dict(transcript.tool_counts().most_common())
        files = transcript.files_touched()
        turns = transcript.turn_count
    return {
        "id": opened.target.id,
        "kind": opened.target.kind,
        "cli": transcript.cli if transcript is not None else "claude",
        "session_id": opened.target.session.id if opened.target.session else None,
        "markdown": redact.redact(markdown).text,
        "tool_calls": clean(tools),
        "files_touched": clean(files),
        "turns": turns,
    }


def agent_detail(scope: Scope, agent_id: str) -> dict[str, Any]:
    """The agent's card (404/400 when the id is unknown or ambiguous), then its panels."""
    agent = agent_card(scope, agent_id)
    return {
        "agent": agent,
        "lineage": panel(lambda: lineage_of(scope, agent["agent_id"])),
        "conversation": panel(lambda: conversation(scope, agent["agent_id"])),
    }


def revive(scope: Scope, agent_id: str) -> dict[str, Any]:
    """What ``purlin-resume revive`` does: plan, then perform; the successor's card."""

    settings = config.load(scope.project)
    planned = revival.plan(scope.project, checked_id(agent_id), settings)
    done = revival.perform(scope.project, planned, settings)
    return {
        "predecessor": planned.predecessor.session_id,
        "successor": planned.successor_id,
        "tmux_pane": done.pane,
        "injections": [i.kind for i in planned.injections],
        "card": agent_card(scope, planned.successor_id),
    }


# ---------------------------------------------------------------------------------------------
# subagents (agent-history.json)


def subagents(scope: Scope) -> dict[str, Any]:
    """The latest entry of each agent by parallel group, then status; interrupted ones with the
    command that resumes them and the result of their conflict check."""

    if not history.path(scope.project).exists():
        return {"path": str(history.path(scope.project)), "groups": {}}
    doc = history.load(scope.project)
    latest = doc.latest()
    waiting = [entry for entry in latest if entry.status == history.INTERRUPTED]

    def check(entry) -> dict[str, Any]:
        return panel(
            lambda: _conflict_summary(
                conflicts.check(
                    scope.project, entry, ignore=history.state_files(), claude_dir=scope.claude_dir
                )
            )
        )

    with ThreadPoolExecutor(max_workers=4) as pool:  # each check waits on git
        checks = dict(zip([e.agent_id for e in waiting], pool.map(check, waiting), strict=True))
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for entry in latest:
        item: dict[str, Any] = {
            "agent_id": entry.agent_id,
            "status": entry.status,
            "task": entry.task or None,
            "timestamp": entry.timestamp,
            "files_modified": entry.files_modified,
        }
        if entry.agent_id in checks:
            item["resume_command"] = f"/gsd:resume-task {entry.agent_id}"
            item["conflicts"] = checks[entry.agent_id]
        group = entry.parallel_group or "(no parallel group)"
        groups.setdefault(group, {}).setdefault(entry.status, []).append(item)
    return clean({"path": str(doc.path), "groups": groups})


def _conflict_summary(report) -> dict[str, Any]:
    return {
        "blocking": [{"path": o.path, "kind": o.kind} for o in report.blocking],
        "overlaps": len(report.overlaps),
        "note": report.note,
        "verdict": "blocked" if report.stops else "clear",
    }


# ---------------------------------------------------------------------------------------------
# resurrections


@dataclass
class ResurrectionFilter:
    mode: str | None = None
    outcome: str | None = None
    agent: str | None = None
    since: str | None = None

    @classmethod
    def of(cls, params) -> ResurrectionFilter:
        chosen = cls(*(params.get(name) or None for name in ("mode", "outcome", "agent", "since")))
        if chosen.mode and chosen.mode not in resurrection_log.MODES:
            raise UsageError(f"mode must be one of {', '.join(resurrection_log.MODES)}")
        if chosen.outcome and chosen.outcome not in resurrection_log.OUTCOMES:
            raise UsageError(f"outcome must be one of {', '.join(resurrection_log.OUTCOMES)}")
        if chosen.agent:
            chosen.agent = checked_id(chosen.agent)
        if chosen.since:
            try:
                chosen.since = resurrection_log.parse_since(chosen.since)
            except PurlinError as exc:
                raise UsageError(exc.message.replace("--since", "since")) from None
        return chosen


def resurrections(scope: Scope, chosen: ResurrectionFilter) -> dict[str, Any]:
    """The log, filtered, newest first (the first hundred), and the seed's metrics."""

    log = layout.history_dir(scope.claude_dir) / resurrection_log.FILE_NAME
    try:
        info = log.stat()
        version = (info.st_size, info.st_mtime_ns)
    except OSError:
        version = None
    return _summary(log, version, chosen.since, chosen.agent, chosen.outcome, chosen.mode)


@lru_cache(maxsize=16)
def _summary(
    log: Path,
    version: tuple[int, int] | None,  # the log is read again when its size or time changes
    since: str | None,
    agent: str | None,
    outcome: str | None,
    mode: str | None,
) -> dict[str, Any]:
    history = resurrection_log.History(log, since)
    shown: list[dict[str, Any]] = []
    days: dict[str, list[int]] = {}

    def selected():  # newest first; only the shown ones are kept
        for entry in resurrection_log.matching(history, since, agent, outcome, mode):
            if len(shown) < RESURRECTIONS_SHOWN:
                shown.append(entry)
            resurrection_log.count_day(days, entry)
            yield entry

    figures = resurrection_log.stats(selected(), newest_first=True)
    return {
        "log": str(log),
        "skipped_lines": history.skipped,
        "total": figures["total"],
        "filters": {"mode": mode, "outcome": outcome, "agent": agent, "since": since},
        "resurrections": clean(shown),
        "stats": clean(figures),
        "frequency": resurrection_log.frequency((), days),
    }


# ---------------------------------------------------------------------------------------------
# sessions and search


def _environment(scope: Scope):
    return resurrection.environment(
        scope.claude_dir, scope.project.root, config.load(scope.project)
    )


def search(
    scope: Scope, query: str, refused: dict[str, list[Path]] | None = None
) -> list[dict[str, Any]]:
    """``find``: ranked conversations of every project, with why each matched; the folders of
    a CLI's tree this user may not list go to ``refused`` (``resurrection.by_search``)."""

    text = " ".join(query.split())[:500]
    if not text:
        return []
    found = resurrection.by_search(_environment(scope), text, SEARCH_LIMIT, refused=refused)
    return clean([candidate.to_dict() for candidate in found])


def passed_over(scope: Scope, refused: dict[str, list[Path]] | None = None) -> list[str]:
    """``crosscli.passed_over``, redacted (``refused``: what ``sessions`` or ``search`` has
    just passed over; a tree they did not walk is walked here)."""
    root = layout.config_dir(scope.claude_dir)[0]
    return [redact.redact(line).text for line in crosscli.passed_over(root, refused)]


def sessions(scope: Scope, refused: dict[str, list[Path]] | None = None) -> list[dict[str, Any]]:
    """The sessions of every agent CLI started in this project (newest first), from the kept
    listing where their files did not change; the folders of a CLI's tree this user may not
    list go to ``refused`` (``crosscli.list_sessions``)."""

    try:
        found = catalog.Catalog(layout.claude_dir(scope.claude_dir))
    except NotFound:
        if scope.claude_dir is not None:
            raise
        found = None  # no Claude Code folder: the other CLIs' sessions still show
    listed = crosscli.list_sessions(
        found, crosscli.CLIS, scope.project.root, cache=Path(cache_home.folder()), refused=refused
    )
    return clean([{"cli": crosscli.cli_of(s), **s.to_dict()} for s in reversed(listed)])
