"""Is an agent stalled? ``Assessment`` from its activity signals, ``should_send_resume``, and the
resume prompt.

Confidence (``assess``):

1. each signal's own confidence (see ``activity``) is reduced by its age: older than 1 h × 0.7,
   older than 30 min × 0.85;
2. the assessment takes the strongest of them, raised to 0.9 when two or more distinct tier-1
   sources saw activity within the lookback, and to 0.7 when two or more tier-2 sources did;
3. cross-validation: every signal lies within the last 24 h and not in the future (temporal
   consistency), the newest one lies within the lookback (recency), and at least one tier-1 or
   tier-2 signal lies within the lookback (reliability).

The agent is active when the confidence reaches the threshold (0.5) and validation passed; one
that started less than the lookback ago is not judged stalled yet, whatever its signals say.
Levels: very_high ≥ 0.9, high ≥ 0.7, medium ≥ 0.5, low ≥ 0.3, very_low below. An agent the
registry knows to be dead (``lineage.liveness``) is not assessed: its verdict is dead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from purlin_resume.agents import activity, registry
from purlin_resume.agents.activity import ActivitySignal
from purlin_resume.agents.lineage import ALIVE, DEAD, Liveness, liveness, server_for
from purlin_resume.agents.registry import RegisteredAgent, work_folder
from purlin_resume.core import clock, ids, redact, store, templating, tmux
from purlin_resume.core import config as config_mod
from purlin_resume.core.errors import NotFound, PurlinError
from purlin_resume.core.project import Project

THRESHOLD = 0.5
HELD = "held"
FUTURE_SKEW = timedelta(minutes=5)
LEVELS = ((0.9, "very_high"), (0.7, "high"), (0.5, "medium"), (0.3, "low"), (0.0, "very_low"))
_OPEN_TASK = re.compile(r"^\s*[-*]\s+\[ \]\s+(.+?)\s*$", re.M)


@dataclass
class Assessment:
    agent_id: str
    is_active: bool
    confidence: float
    level: str
    last_activity: datetime | None
    signals: list[ActivitySignal]
    reasons: list[str]
    validation_passed: bool
    lookback_minutes: float
    notes: list[str] = field(default_factory=list)
    started_at: datetime | None = None  # when the agent started (the registry), when known
    liveness: Liveness | None = None  # alive, dead or unknown, as the registry tells
    young: bool = False  # not active by its signals, but started less than the lookback ago
    dialog: str | None = None  # a dialog on its screen waits for the user (its line)

    @property
    def verdict(self) -> str:
        """``dead`` (the registry knows it), else ``active``, ``held`` (quiet, but a dialog on
        its screen waits for the user: a nudge would answer it) or ``stalled``."""
        if self.liveness is not None and self.liveness.state == DEAD:
            return DEAD
        if self.is_active:
            return "active"
        return HELD if self.dialog else "stalled"

    def quiet_since(self, now: datetime) -> datetime | None:
        """Since when nothing was seen of the agent: its last activity, else its start when
        the sources looked that far back (``activity.HORIZON``), else None."""
        if self.last_activity is not None:
            return self.last_activity
        if self.started_at is not None and now - self.started_at <= activity.HORIZON:
            return self.started_at
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "verdict": self.verdict,
            "is_active": self.is_active,
            "confidence": self.confidence,
            "level": self.level,
            "last_activity": clock.iso(self.last_activity) if self.last_activity else None,
            "signals": [signal.to_dict() for signal in self.signals],
            "reasons": self.reasons,
            "validation_passed": self.validation_passed,
            "lookback_minutes": self.lookback_minutes,
            "notes": self.notes,
            "started_at": clock.iso(self.started_at) if self.started_at else None,
            "dialog": self.dialog,
            "liveness": {"state": self.liveness.state, "why": self.liveness.why}
            if self.liveness
            else None,
        }


def level_of(confidence: float) -> str:
    return next(name for floor, name in LEVELS if confidence >= floor)


def penalised(signal: ActivitySignal, now: datetime) -> float:
    age = now - signal.timestamp
    if age > timedelta(hours=1):
        return signal.confidence * 0.7
    if age > timedelta(minutes=30):
        return signal.confidence * 0.85
    return signal.confidence


def assess(
    agent_id: str,
    signals: list[ActivitySignal],
    now: datetime,
    lookback_minutes: float = 60.0,
    threshold: float = THRESHOLD,
    started: datetime | None = None,
) -> Assessment:
    """The decision the signals support (pure: the same signals, start and moment, the same
    answer); ``started``: when the agent started, if known (a younger agent than the lookback
    is not judged stalled: its quiet time counts from its start)."""
    result = _assessed(agent_id, activity.merge(signals), now, lookback_minutes, threshold)
    window = timedelta(minutes=lookback_minutes)
    if not result.is_active and started is not None and now - started < window:
        result.is_active = result.young = True
        result.reasons.append(
            f"started at {clock.iso(started)}, less than {lookback_minutes:g} min ago: "
            "too soon to call it stalled"
        )
    result.started_at = started
    return result


def _assessed(
    agent_id: str,
    signals: list[ActivitySignal],
    now: datetime,
    lookback_minutes: float,
    threshold: float,
) -> Assessment:
    """``assess`` by the signals alone."""
    window = timedelta(minutes=lookback_minutes)
    if not signals:
        return Assessment(
            agent_id,
            False,
            0.0,
            level_of(0.0),
            None,
            [],
            ["no activity seen"],
            False,
            lookback_minutes,
        )
    recent = [s for s in signals if now - s.timestamp <= window]
    confidence, reasons = _confidence(signals, recent, now)
    last = max(s.timestamp for s in signals)
    failed = _failed_validation(signals, recent, now, now - last <= window, lookback_minutes)
    reasons += failed
    passed = not failed
    active = passed and confidence >= threshold
    reasons.append(
        f"confidence {confidence:.2f} {'≥' if confidence >= threshold else '<'} {threshold:g}"
    )
    return Assessment(
        agent_id,
        active,
        confidence,
        level_of(confidence),
        last,
        signals,
        reasons,
        passed,
        lookback_minutes,
    )


def _confidence(
    signals: list[ActivitySignal], recent: list[ActivitySignal], now: datetime
) -> tuple[float, list[str]]:
    """How sure the signals make activity (the strongest, aged; raised when sources of a tier
    agree within the window: the ``recent`` signals), and why."""
    confidence = max(penalised(s, now) for s in signals)
    strongest = max(signals, key=lambda s: penalised(s, now))
    reasons = [f"strongest: {strongest.source.value} ({strongest.detail})"]
    tier1 = {s.source for s in recent if s.tier == 1}
    tier2 = {s.source for s in recent if s.tier == 2}
    if len(tier1) >= 2 and confidence < 0.9:
        confidence = 0.9
        reasons.append(f"{len(tier1)} tier-1 sources agree")
    elif len(tier2) >= 2 and confidence < 0.7:
        confidence = 0.7
        reasons.append(f"{len(tier2)} tier-2 sources agree")
    return round(confidence, 3), reasons


def _failed_validation(
    signals: list[ActivitySignal],
    recent: list[ActivitySignal],
    now: datetime,
    fresh: bool,
    lookback_minutes: float,
) -> list[str]:
    """Why the signals cannot be trusted, if they cannot: one outside the last 24 h or in the
    future, none within the window (``fresh``), no tier-1 or tier-2 one among those (``recent``)."""
    consistent = all(now - activity.HORIZON <= s.timestamp <= now + FUTURE_SKEW for s in signals)
    failed = []
    if not consistent:
        failed.append("validation: a signal lies outside the last 24 h or in the future")
    if not fresh:
        failed.append(f"validation: nothing within the last {lookback_minutes:g} min")
    elif not any(s.tier <= 2 for s in recent):
        failed.append(f"validation: no tier-1 or tier-2 signal within {lookback_minutes:g} min")
    return failed


# -- the shell over the registry, the sources and the settings ----------------------------


def server_of(settings: config_mod.Settings) -> tmux.Server:
    """The configured tmux server (``tmux_socket``: a name or a path; empty: the default)."""
    return tmux.Server.parse(settings.tmux_socket)


def workspace_of(project: Project, settings: config_mod.Settings, agent_id: str) -> Path:
    """The agent's workspace (``agent_workspace``, its ``{agent}`` the id); refused
    (PurlinError) when it leads outside the project, or the id is no id (a path in it)."""
    problem = ids.SESSION.problem(agent_id)
    if problem:
        raise PurlinError(problem)
    written = settings.agent_workspace.replace("{agent}", agent_id)
    return config_mod.project_path(project, settings, "agent_workspace", written)


def subject_of(
    project: Project,
    agent: RegisteredAgent,
    agents: dict[str, RegisteredAgent],
    settings: config_mod.Settings,
    server: tmux.Server,
    started: datetime | None = None,
) -> activity.Subject:
    """The agent as the sources see it; ``started``: when it started, if that is known."""
    worktree = work_folder(project, agent).resolve()
    others = [
        other
        for other in agents.values()
        if other.session_id != agent.session_id
        and not other.ended_at
        and work_folder(project, other).resolve() == worktree
    ]
    shared = False
    if others:
        panes = tmux.live_panes(server) if any(other.tmux_pane for other in others) else None
        shared = any(liveness(other, server, panes).state == ALIVE for other in others)
    try:
        workspace, refused = workspace_of(project, settings, agent.session_id), None
    except PurlinError as exc:  # it leads outside the project: its sources are not read
        workspace, refused = None, exc.message
    return activity.Subject(
        agent_id=agent.session_id,
        project_root=project.root,
        worktree=worktree,
        workspace=workspace,
        refused=refused,
        transcript=Path(agent.transcript_path) if agent.transcript_path else None,
        pane=agent.tmux_pane,
        shared_worktree=shared,
        cli=agent.agent_cli,
        started=started,
    )


def detect(
    project: Project,
    agent_query: str,
    lookback_minutes: float | None = None,
    now: datetime | None = None,
    settings: config_mod.Settings | None = None,
    known: Liveness | None = None,
) -> Assessment:
    """Assess one registered agent (by id or unique prefix); a dead one is not assessed.
    ``known``: its liveness when the caller asked already (the watch, once per pass)."""
    settings = settings or config_mod.load(project)
    lookback = lookback_minutes if lookback_minutes is not None else settings.stall_lookback_minutes
    if lookback <= 0:
        raise PurlinError("--lookback must be a positive number of minutes")
    now = now or clock.now()
    agents = registry.load(project)
    agent = registry.resolve(agents, agent_query)
    server = server_of(settings)
    state = known if known is not None else liveness(agent, server)
    started = clock.parse(agent.started_at)
    if started is not None and started > now + FUTURE_SKEW:
        started = None  # a start yet to come is no start: the registry says nothing of it
    if state.state == DEAD:
        return Assessment(
            agent.session_id,
            False,
            0.0,
            level_of(0.0),
            None,
            [],
            [f"dead: {state.why}"],
            False,
            lookback,
            started_at=started,
            liveness=state,
        )
    subject = subject_of(project, agent, agents, settings, server, started)
    if agent.tmux_pane:  # the server of its pane (only a pane is sampled on it)
        server = server_for(agent, server)
    observation = activity.observe(subject, now, server, project.cache_dir)
    threshold = settings.stall_threshold
    result = assess(agent.session_id, observation.signals, now, lookback, threshold, started)
    result.notes, result.liveness = observation.notes + _plan_notes(project, settings), state
    if observation.dialog and (result.young or not result.is_active):
        result.dialog = observation.dialog  # held, however young: it waits for the user
        result.is_active = False
        result.reasons.append(f"a dialog waits for the user on its screen ({observation.dialog})")
    return result


def plan_path(project: Project, settings: config_mod.Settings) -> Path | None:
    """The configured plan file (None: none is set); refused (PurlinError) when it leads
    outside the project."""
    if not settings.plan_file:
        return None
    return config_mod.project_path(project, settings, "plan_file")


def _plan_notes(project: Project, settings: config_mod.Settings) -> list[str]:
    """A note when the plan file is refused: a nudge goes without its next task."""
    try:
        plan_path(project, settings)
    except PurlinError as exc:
        return [f"plan: not read ({exc.message})"]
    return []


def should_send_resume(
    project: Project,
    agent_query: str,
    lookback_minutes: float | None = None,
    now: datetime | None = None,
    settings: config_mod.Settings | None = None,
    known: Liveness | None = None,
) -> tuple[bool, str, Assessment | None]:
    """(send?, why, assessment): send when the agent is not active; when detection itself fails,
    send if ``stall_fail_open`` (the default), hold back otherwise. ``known``: as for ``detect``."""
    try:
        settings = settings or config_mod.load(project)
    except PurlinError as exc:
        return True, f"detection failed ({exc.message}); failing open", None
    try:
        result = detect(project, agent_query, lookback_minutes, now, settings, known)
    except NotFound:
        raise
    except (PurlinError, OSError) as exc:
        message = exc.message if isinstance(exc, PurlinError) else str(exc)
        if settings.stall_fail_open:
            return True, f"detection failed ({message}); failing open", None
        return False, f"detection failed ({message}); holding back (stall_fail_open is false)", None
    if result.verdict == DEAD:
        return False, "; ".join(result.reasons), result
    if result.young or result.verdict == HELD:
        return False, result.reasons[-1], result
    if result.is_active:
        return False, f"active ({result.level}, confidence {result.confidence:.2f})", result
    return True, "; ".join(result.reasons), result


# -- the resume prompt --------------------------------------------------------------------


def next_task(project: Project, settings: config_mod.Settings) -> str | None:
    """The first open ``- [ ]`` item of the configured plan file (read only); None when there
    is none, the file is missing or refused (``detect`` notes a refusal)."""
    try:
        path = plan_path(project, settings)
        text = store.read_text(path) if path is not None else ""
    except PurlinError:
        return None
    found = _OPEN_TASK.search(text)
    return found.group(1) if found else None


def resume_prompt(
    project: Project,
    agent: RegisteredAgent,
    settings: config_mod.Settings,
    assessment: Assessment | None,
    now: datetime | None = None,
) -> str:
    """The nudge for a stalled agent. Composing it reads only: nothing is claimed or changed."""
    now = now or clock.now()
    try:
        status = activity.read_status(workspace_of(project, settings, agent.session_id)) or {}
    except PurlinError:  # a workspace refused (it leads outside the project): a nudge without it
        status = {}
    quiet = assessment.quiet_since(now) if assessment else None
    text = templating.render(
        "stall/resume_prompt.md.j2",
        agent_id=agent.session_id,
        role=agent.role,
        stalled_minutes=max(0, int((now - quiet).total_seconds() // 60)) if quiet else None,
        since_start=assessment is not None and assessment.last_activity is None,
        fsm_state=status.get("fsm_state") if isinstance(status.get("fsm_state"), str) else None,
        last_mission=status.get("last_mission")
        if isinstance(status.get("last_mission"), str)
        else None,
        next_task=next_task(project, settings),
        plan_file=settings.plan_file,
    )
    return redact.redact(text).text.strip()
