"""The stall watch: one pass over the live registered agents, nudging the stalled ones.

Every decision is a ``Decision`` appended to ``.purlin/cache/stall-watch.jsonl`` (this module is
that log's only reader and writer). An agent is nudged when ``should_send_resume`` says so, it
has a live tmux pane, its last nudge is older than ``stall_cooldown_minutes``, and it has had
fewer than ``stall_max_nudges`` nudges since it was last seen active. The cooldown and the cap
are read, the nudge typed in and logged under one lock, so watches running at once nudge once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict

from purlin_resume.agentcli import programs
from purlin_resume.agents import activity, injection, registry
from purlin_resume.agents.lineage import ALIVE, Liveness, liveness, server_for
from purlin_resume.agents.stall import Assessment, resume_prompt, server_of, should_send_resume
from purlin_resume.core import clock, gitrepo, redact, store, tmux
from purlin_resume.core import config as config_mod
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project

LOG_NAME = "stall-watch.jsonl"
NUDGE_LOCK = "stall-nudge"  # held from the cooldown's reading of the log to the nudge's record
NUDGED, ACTIVE, HELD = "nudged", "active", "held"


@dataclass(frozen=True)
class Decision:
    at: str
    agent_id: str
    action: str  # nudged, active (nothing to do), held (stalled but not nudged)
    reason: str
    confidence: float | None = None
    level: str | None = None
    tmux_pane: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Observed(TypedDict):
    """What every decision about an agent also records (``Decision``'s last fields)."""

    confidence: float | None
    level: str | None
    tmux_pane: str | None


def log_path(project: Project):
    return project.cache_dir / LOG_NAME


def history(project: Project, agent_id: str) -> list[dict[str, Any]]:
    """The logged decisions about one agent, oldest first (unreadable lines skipped)."""
    path = log_path(project)
    if not path.is_file():
        return []
    rows = store.jsonl_rows(store.read_text(path))
    return [entry for entry in rows if entry.get("agent_id") == agent_id]


def restraint(
    past: list[dict[str, Any]], now: datetime, settings: config_mod.Settings
) -> str | None:
    """Why a stalled agent must not be nudged now (cooldown, cap), or None."""
    since_active: list[dict[str, Any]] = []
    for entry in past:
        if entry.get("action") == ACTIVE:
            since_active = []
        elif entry.get("action") == NUDGED:
            since_active.append(entry)
    if len(since_active) >= settings.stall_max_nudges:
        return (
            f"nudge cap reached ({len(since_active)} of {settings.stall_max_nudges} "
            "without activity in between)"
        )
    if since_active:
        last = clock.parse(since_active[-1].get("at"))
        cooldown = timedelta(minutes=settings.stall_cooldown_minutes)
        if last is not None and now - last < cooldown:
            return f"cooldown: nudged at {since_active[-1]['at']}, next after {clock.iso(last + cooldown)}"
    return None


def record(project: Project, decision: Decision) -> None:
    # Ignored in this clone only: the watch never edits the project's own files (.gitignore).
    gitrepo.exclude_state_files(project.cache_dir, LOG_NAME, LOG_NAME + ".lock")
    data, _ = redact.redact_data(decision.to_dict())
    store.private_folder(project.cache_dir)
    store.append_jsonl(log_path(project), data)


def watch_once(
    project: Project, settings: config_mod.Settings | None = None, now: datetime | None = None
) -> list[Decision]:
    """One pass: assess every live registered agent, nudge the stalled ones, log each decision."""
    settings = settings or config_mod.load(project)
    server = server_of(settings)
    agents = registry.load(project)
    decisions = []
    for agent in sorted(agents.values(), key=lambda a: a.session_id):
        state = liveness(agent, server)  # asked once a pass: the assessment is told, not asking
        if state.state != ALIVE:
            continue
        decisions.append(_decide(project, agent, server, settings, now or clock.now(), state))
    return decisions


def _decide(
    project: Project,
    agent: registry.RegisteredAgent,
    server: tmux.Server,
    settings: config_mod.Settings,
    moment: datetime,
    state: Liveness,
) -> Decision:
    """What the watch does about one live agent (``state``: its liveness, as asked this pass):
    leaves it be, holds back, or nudges it; the decision logged.

    The cooldown and the cap are read from the log, the nudge typed in and logged, under one
    lock: of two watches at once, the second sees the first one's nudge."""
    send, why, result = should_send_resume(project, agent.session_id, None, moment, settings, state)
    extra: Observed = {
        "confidence": result.confidence if result else None,
        "level": result.level if result else None,
        "tmux_pane": agent.tmux_pane,
    }
    stamp = clock.iso(moment)

    def held(reason: str) -> Decision:
        return Decision(stamp, agent.session_id, HELD, reason, **extra)

    def logged(decision: Decision) -> Decision:
        record(project, decision)
        return decision

    if not send:
        action = ACTIVE if result is not None and result.is_active else HELD
        return logged(Decision(stamp, agent.session_id, action, why, **extra))
    own = server_for(agent, server)
    if not agent.tmux_pane or not tmux.pane_alive(own, agent.tmux_pane):
        return logged(held(f"stalled ({why}); no live tmux pane to nudge"))
    if not _shows_ready(own, agent, settings):
        ready = programs.program(agent.agent_cli).ready_text
        label = programs.label(agent.agent_cli)
        return logged(held(f"stalled ({why}); {label} does not show {ready!r}"))
    with store.locked(project.cache_dir / NUDGE_LOCK):
        restrained = restraint(history(project, agent.session_id), moment, settings)
        if restrained is not None:
            return logged(held(f"stalled; {restrained}"))
        action, reason = _nudge(project, agent, own, agent.tmux_pane, settings, result, moment, why)
        return logged(Decision(stamp, agent.session_id, action, reason, **extra))


def _nudge(
    project: Project,
    agent: registry.RegisteredAgent,
    own: tmux.Server,
    pane: str,
    settings: config_mod.Settings,
    result: Assessment | None,
    moment: datetime,
    why: str,
) -> tuple[str, str]:
    """Type the resume prompt into the agent's pane: ``nudged``, or ``held`` when it failed,
    and the reason."""
    prompt = resume_prompt(project, agent, settings, result, moment)
    try:
        sent = injection.deliver(own, pane, prompt, settle=settings.inject_settle_seconds)
        activity.pane_injected(own, pane, agent.session_id, moment, project.cache_dir)
    except PurlinError as exc:
        return HELD, f"stalled; the nudge failed: {exc.message}"
    return NUDGED, f"stalled ({why})" + ("" if sent.confirmed else f"; {sent.detail}")


READY_WAIT_SECONDS = 3.0


def _shows_ready(server, agent, settings) -> bool:
    """Whether an agent of another CLI shows its ready prompt (a dialog on its screen would
    take the nudge's keys); Claude Code's are nudged as before."""
    if agent.agent_cli == "claude":
        return True
    ready = programs.program(agent.agent_cli).ready_text
    return tmux.wait_quiet(
        server, agent.tmux_pane, ready, READY_WAIT_SECONDS, settings.inject_settle_seconds
    )
