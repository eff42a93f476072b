"""Revival: start a successor for a dead agent in a new tmux window and brief it.

``plan`` checks the predecessor (registered, dead, not already succeeded by a live agent) and
composes everything: the successor's session id, the command, its folder and environment, and
the injections. A persona agent (one whose registry ``role`` is set) first gets its persona: the
file ``<persona_dir>/<role>.md`` when the project has one, else a short one naming the role;
then the revival instruction. An anonymous agent gets only the revival instruction. ``perform``
carries a plan out: the check again, window and registration of the successor
(``previous_agent_id``, and the pane with its server's socket) as one step under a lock, then
waiting until the agent shows it is ready, then each injection (``injection.when_ready``). An
injection that cannot be confirmed leaves the window open and is logged ``partial``; one that
fails closes the window.

An agent of Codex CLI, Gemini CLI or opencode (its registry ``cli``) is revived natively: its own
CLI resumes the same session by its id (``codex resume ID``, ``gemini --resume ID``, ``opencode
--session ID``) in the folder it worked in, and is registered running again in the new pane once
the CLI shows its screen; refused while another process has that session open.

Where the successor opens: ``--tmux-socket`` when given, else the predecessor's own tmux server
(recorded with its pane) while it is reachable, else the ``tmux_socket`` setting. The successor
reads the same Claude Code data folder as this command (``CLAUDE_CONFIG_DIR`` in its environment
and ``--claude-dir`` in the command its instruction gives it).
"""

from __future__ import annotations

import shlex
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.agentcli import programs
from purlin_resume.agentcli.names import CLAUDE
from purlin_resume.agents import handover, injection, registry
from purlin_resume.agents.lineage import (
    ALIVE,
    DEAD,
    Liveness,
    liveness,
    server_for,
    successors,
)
from purlin_resume.agents.registry import RegisteredAgent, work_folder
from purlin_resume.agents.stall import server_of
from purlin_resume.checkpoints.roles import ROLE_ENV, display_name
from purlin_resume.claude import layout
from purlin_resume.core import clock, gitrepo, processes, redact, store, templating, tmux
from purlin_resume.core import config as config_mod
from purlin_resume.core.errors import Conflict, NotStarted, PurlinError
from purlin_resume.core.project import Project

LOG_NAME = "revivals.jsonl"
START_LOCK = "revival-start"  # held from the last check until the successor is registered
SUCCESS, PARTIAL, FAILED = "success", "partial", "failed"


@dataclass(frozen=True)
class Injection:
    kind: str  # "persona" or "revival"
    text: str


@dataclass
class Plan:
    predecessor: RegisteredAgent
    successor_id: str
    command: str
    cwd: Path
    env: dict[str, str]
    session: str
    injections: list[Injection]
    transcript_file: str
    server: tmux.Server = field(default_factory=tmux.Server)
    native: bool = False  # the successor resumes the predecessor's own conversation

    def to_dict(self) -> dict[str, Any]:
        return {
            "native": self.native,
            "predecessor": self.predecessor.session_id,
            "successor": self.successor_id,
            "role": self.predecessor.role,
            "command": self.command,
            "cwd": str(self.cwd),
            "env": self.env,
            "tmux_session": self.session,
            "tmux_server": self.server.label,
            "injections": [{"kind": i.kind, "text": i.text} for i in self.injections],
            "transcript_file": self.transcript_file,
        }


@dataclass
class Revival:
    plan: Plan
    pane: str
    deliveries: list[injection.Delivery] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """``success`` when every injection was confirmed, else ``partial`` (window left open)."""
        confirmed = [d for d in self.deliveries if d.confirmed]
        return SUCCESS if len(confirmed) == len(self.plan.injections) else PARTIAL

    @property
    def problem(self) -> str:
        return next((d.detail for d in self.deliveries if not d.confirmed), "")

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.plan.to_dict(),
            "tmux_pane": self.pane,
            "outcome": self.outcome,
            "deliveries": [d.to_dict() for d in self.deliveries],
            "problem": self.problem or None,
        }


def stopped(agent: RegisteredAgent, state: Liveness) -> str:
    """How the revival instruction says the predecessor stopped."""
    return f"which ended at {agent.ended_at}" if agent.ended_at else f"which stopped: {state.why}"


def successor_server(
    agent: RegisteredAgent, settings: config_mod.Settings, explicit: tmux.Server | None
) -> tmux.Server:
    """``--tmux-socket``, else the predecessor's own server while it runs, else the setting."""
    if explicit is not None:
        return explicit
    configured = server_of(settings)
    own = server_for(agent, configured)
    return own if own != configured and tmux.reachable(own) else configured


def _window_place(
    agent: RegisteredAgent, settings: config_mod.Settings, explicit: tmux.Server | None
) -> tuple[tmux.Server, str]:
    """The tmux server and session the successor's window opens in: the session this command
    runs in when that is on the same server, else the ``tmux_session`` setting."""
    target = successor_server(agent, settings, explicit)
    session = settings.tmux_session
    if target == tmux.Server() and tmux.inside_tmux():
        session = tmux.current_session(target) or session
    return target, session


def _persona_file(project: Project, settings: config_mod.Settings, role: str) -> Path:
    """Where the project's persona of ``role`` is (PurlinError: refused, it leads outside)."""
    return config_mod.project_path(
        project, settings, "persona_dir", f"{settings.persona_dir}/{role}.md"
    )


def persona_text(project: Project, settings: config_mod.Settings, role: str) -> str:
    """The persona injection of ``role``: the project's persona file, else (none there, or
    refused: it leads outside the project) a short default."""
    try:
        file = _persona_file(project, settings, role)
    except PurlinError:
        file = None
    persona = store.read_text(file).strip() if file is not None and file.is_file() else None
    return templating.render(
        "revival/persona.md.j2", role=role, role_name=display_name(role), persona=persona
    )


def plan(
    project: Project,
    agent_query: str,
    settings: config_mod.Settings | None = None,
    successor_id: str | None = None,
    *,
    claude_dir: Path | None = None,
    tmux_server: tmux.Server | None = None,
) -> Plan:
    """Everything a revival of ``agent_query`` would do, checked; nothing is started or written.

    ``claude_dir`` is ``--claude-dir`` (None: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``);
    ``tmux_server`` is ``--tmux-socket`` (None: see ``successor_server``)."""
    settings = settings or config_mod.load(project)
    agent, state = _dead_agent(project, agent_query, server_of(settings))
    if agent.agent_cli != CLAUDE:
        return _resumed_in_own_cli(project, agent, settings, tmux_server)
    successor = successor_id or str(uuid.uuid4())
    cwd = work_folder(project, agent, inside=True)
    command = settings.agent_command
    if settings.agent_session_flag:
        command += f" {shlex.quote(settings.agent_session_flag)} {shlex.quote(successor)}"
    env = {
        "PURLIN_PREVIOUS_AGENT_ID": agent.session_id,
        "PURLIN_AGENT_ID": successor,
        **layout.child_environment(claude_dir),
    }
    if agent.role:
        env[ROLE_ENV] = agent.role
    transcript_file = _transcript_file(project, agent)
    injections = _injections(project, settings, agent, state, successor, cwd, claude_dir)
    target, session = _window_place(agent, settings, tmux_server)
    return Plan(agent, successor, command, cwd, env, session, injections, transcript_file, target)


def unstartable(revival_plan: Plan, settings: config_mod.Settings) -> str | None:
    """Why the successor cannot start: its agent program is not on PATH (its window would
    close at once); None when it can."""
    cli = revival_plan.predecessor.agent_cli
    program = programs.program(cli)
    missing = program.not_on_path(settings.agent_command)
    if missing is None:
        return None
    fix = f", or {config_mod.how_to_set(settings, 'agent_command')}" if cli == CLAUDE else ""
    return f"{missing!r} is not on PATH: install {program.label}{fix}"


def doubts(
    project: Project,
    revival_plan: Plan,
    settings: config_mod.Settings,
    claude_dir: Path | None = None,
) -> list[str]:
    """What a dry run warns of: a successor that cannot start (``unstartable``), a persona file
    refused (it leads outside the project: the default persona is given), a predecessor whose
    transcript is gone (the successor would be told to read it)."""
    found = []
    problem = unstartable(revival_plan, settings)
    if problem is not None:
        found.append(f"{problem}: the revival would fail")
    agent = revival_plan.predecessor
    if agent.role and not revival_plan.native:
        try:
            _persona_file(project, settings, agent.role)
        except PurlinError as exc:
            found.append(f"{exc.message}: the default persona would be given")
    if not revival_plan.native and own_transcript(agent, claude_dir) is None:
        found.append(
            f"no transcript of {agent.session_id} in {layout.config_dir(claude_dir)[0]}: "
            "the successor would be told to read one"
        )
    return found


def _dead_agent(
    project: Project, agent_query: str, server: tmux.Server
) -> tuple[RegisteredAgent, Liveness]:
    """The registered agent ``agent_query`` names (with the role it worked in: see
    ``handover.role_of``) and its liveness, when it can be revived: dead, without a live
    successor, and (an agent of another CLI) its session open in no process."""
    agents = registry.load(project)
    agent = registry.resolve(agents, agent_query)
    if not agent.role:  # started without a role, it took one by saving a checkpoint of it
        agent = agent._replace(role=handover.role_of(project, agent.session_id, agents))
    state = liveness(agent, server)
    if state.state == ALIVE:
        raise Conflict(
            f"agent {agent.session_id} is alive ({state.why}); only a dead agent can be revived"
        )
    if state.state != DEAD:
        raise Conflict(
            f"cannot tell whether agent {agent.session_id} is dead ({state.why}); "
            "end it first (its SessionEnd hook records ended_at)"
        )
    for child in successors(agents, agent.session_id):
        if liveness(agents[child], server).state == ALIVE:
            raise Conflict(
                f"agent {agent.session_id} already has a live successor {child}; "
                "revive that one when it dies"
            )
    holders = processes.naming(agent.session_id) if agent.agent_cli != CLAUDE else []
    if holders:
        raise Conflict(
            f"session {agent.session_id} is open in another process (pid "
            f"{', '.join(map(str, holders))}); close it there, or continue it there"
        )
    return agent, state


def _transcript_file(project: Project, agent: RegisteredAgent) -> str:
    """Where the successor writes its predecessor's transcript (absolute: the successor may
    work in a subfolder of the project)."""
    return str(project.cache_dir / f"revival-{agent.session_id}.md")


def _injections(
    project: Project,
    settings: config_mod.Settings,
    agent: RegisteredAgent,
    state: Liveness,
    successor: str,
    cwd: Path,
    claude_dir: Path | None,
) -> list[Injection]:
    """The persona (for an agent with a role), then the revival instruction; redacted."""
    injections = []
    if agent.role:
        injections.append(Injection("persona", persona_text(project, settings, agent.role)))
    transcript_file = _transcript_file(project, agent)
    data_folder = layout.config_dir(claude_dir)[0].absolute()
    reading = ["purlin-resume", "transcript", agent.session_id, "--claude-dir", str(data_folder)]
    instruction = templating.render(
        "revival/instruction.md.j2",
        predecessor_id=agent.session_id,
        successor_id=successor,
        role=agent.role,
        stopped=stopped(agent, state),
        cwd=str(cwd),
        transcript_command=shlex.join([*reading, "-o", transcript_file]),
        transcript_file=transcript_file,
    )
    injections.append(Injection("revival", instruction))
    return [Injection(i.kind, redact.redact(i.text).text.strip()) for i in injections]


def _resumed_in_own_cli(
    project: Project,
    agent: RegisteredAgent,
    settings: config_mod.Settings,
    tmux_server: tmux.Server | None,
) -> Plan:
    """The revival of an agent of Codex CLI, Gemini CLI or opencode: its own CLI resumes the
    same session by its id, in its folder (nothing to inject); refused while another process
    holds that session (``_dead_agent``)."""
    cli = programs.program(agent.agent_cli)
    folder = _own_folder(
        project,
        agent,
        cli.label,
        f"bring its expertise back with 'purlin-resume resurrect --session {agent.session_id}'",
    )
    env = {"PURLIN_AGENT_ID": agent.session_id, **cli.data_env()}
    if agent.role:
        env[ROLE_ENV] = agent.role
    target, session = _window_place(agent, settings, tmux_server)
    command = shlex.join(cli.resume(agent.session_id))
    transcript_file = agent.transcript_path or ""
    return Plan(
        agent,
        agent.session_id,
        command,
        folder,
        env,
        session,
        [],
        transcript_file,
        server=target,
        native=True,
    )


def perform(project: Project, revival_plan: Plan, settings: config_mod.Settings) -> Revival:
    """Start the successor, register it, wait until it is ready, inject, log the revival.

    The predecessor is checked again, its successor's window opened and the successor
    registered as one step under the project's revival lock, so of two revivals at once (two
    commands, two clicks on the dashboard, a sweep) the second finds the first one's live
    successor and is refused; the lock is let go before the wait for the agent.

    Raises PurlinError when nothing reached the successor (its window is closed again); an
    injection that cannot be confirmed is a ``partial`` revival with its window left open."""
    problem = unstartable(revival_plan, settings)
    if problem is not None:
        raise PurlinError(problem)
    server = revival_plan.server
    gitrepo.ensure_ignored(project.root, ".purlin/cache/")
    store.private_folder(project.cache_dir)  # the successor writes its transcript there
    with store.locked(project.cache_dir / START_LOCK):
        _dead_agent(project, revival_plan.predecessor.session_id, server_of(settings))
        pane, pid, socket = _open_window(revival_plan)
        if revival_plan.successor_id != revival_plan.predecessor.session_id:
            registry.register_successor(
                project,
                revival_plan.successor_id,
                revival_plan.predecessor,
                pid=pid,
                cwd=str(revival_plan.cwd),
                tmux_pane=pane,
                tmux_socket=str(socket) if socket else None,
            )
    if revival_plan.successor_id == revival_plan.predecessor.session_id:
        return _resumed(project, revival_plan, settings, pane, socket, pid)
    result = Revival(revival_plan, pane)
    try:
        result.deliveries += injection.when_ready(
            server,
            pane,
            [i.text for i in revival_plan.injections],
            settings,
            revival_plan.command,
            who="the successor",
        )
    except PurlinError as exc:
        # No window left open for nothing, no successor that looks like an agent that ran.
        tmux.kill_pane(server, pane)
        registry.forget(project, revival_plan.successor_id)
        _log(project, revival_plan, pane, socket, FAILED, exc.message)
        raise NotStarted(f"{exc.message} (revival undone: window closed)") from None
    _log(project, revival_plan, pane, socket, result.outcome, result.problem or None)
    return result


def _open_window(revival_plan: Plan) -> tuple[str, int | None, Path | None]:
    """The successor's window opened: its pane, the pane's process and its server's socket."""
    server = revival_plan.server
    pane = tmux.new_window(
        server,
        revival_plan.session,
        revival_plan.cwd,
        revival_plan.command,
        env=revival_plan.env,
        name=f"revived-{revival_plan.successor_id[:8]}",
    )
    pid = (tmux.pane_info(server, pane) or {}).get("pane_pid")
    return pane, int(pid) if pid and pid.isdigit() else None, tmux.socket_path(server)


def _resumed(project, revival_plan: Plan, settings, pane: str, socket, pid) -> Revival:
    """The agent's own session started again in its CLI: registered as running in the new pane
    once the CLI shows its screen; window closed and the agent left dead when it does not."""
    agent = revival_plan.predecessor
    server = revival_plan.server
    ready = programs.program(agent.agent_cli).ready_text
    if not tmux.wait_quiet(
        server, pane, ready, settings.agent_ready_timeout, settings.inject_settle_seconds
    ):
        tmux.kill_pane(server, pane)
        reason = (
            f"{programs.label(agent.agent_cli)} did not show {ready!r} within "
            f"{settings.agent_ready_timeout:g} s in tmux pane {pane} ({revival_plan.command!r})"
        )
        _log(project, revival_plan, pane, socket, FAILED, reason)
        raise NotStarted(f"{reason} (revival undone: window closed)")
    registry.record_start(
        project,
        agent.session_id,
        pid=pid,
        cwd=str(revival_plan.cwd),
        transcript_path=agent.transcript_path,
        tmux_pane=pane,
        tmux_socket=str(socket) if socket else None,
        cli=agent.agent_cli,
    )
    _log(project, revival_plan, pane, socket, SUCCESS, None)
    return Revival(revival_plan, pane)


def _log(
    project: Project, done: Plan, pane: str, socket: Path | None, outcome: str, reason: str | None
) -> None:
    """One line of ``.purlin/cache/revivals.jsonl``: a revival and how it went (redacted: a
    reason may quote the agent command or the pane's last line)."""
    record = redact.redact_data(
        {
            "at": clock.iso(),
            "predecessor": done.predecessor.session_id,
            "successor": done.successor_id,
            "role": done.predecessor.role,
            "tmux_pane": pane,
            "tmux_socket": str(socket) if socket else None,
            "injections": [i.kind for i in done.injections],
            "outcome": outcome,
            "reason": reason,
        }
    )[0]
    store.append_jsonl(project.cache_dir / LOG_NAME, record)


# ---------------------------------------------------------------------------------------------
# native revival and reviving every dead agent at once


def own_transcript(agent: RegisteredAgent, claude_dir: Path | None = None) -> Path | None:
    """The agent's own session transcript, when Claude Code still has it."""
    if agent.transcript_path and Path(agent.transcript_path).is_file():
        return Path(agent.transcript_path)
    root = layout.config_dir(claude_dir)[0] / "projects"
    if not root.is_dir():
        return None
    return next((p for p in root.glob(f"*/{agent.session_id}.jsonl") if p.is_file()), None)


def plan_native(
    project: Project,
    agent_query: str,
    settings: config_mod.Settings | None = None,
    successor_id: str | None = None,
    *,
    claude_dir: Path | None = None,
    tmux_server: tmux.Server | None = None,
) -> Plan:
    """A revival that resumes the dead agent's own conversation (``claude --resume OLD
    --fork-session --session-id NEW``): full context, a new session id, the same lineage and
    registry entry as a briefed successor, nothing to inject."""

    settings = settings or config_mod.load(project)
    base = plan(
        project,
        agent_query,
        settings,
        successor_id,
        claude_dir=claude_dir,
        tmux_server=tmux_server,
    )
    agent = base.predecessor
    if base.native:  # another CLI's agent: resumed natively already
        return base
    if own_transcript(agent, claude_dir) is None:
        raise PurlinError(
            f"the transcript of agent {agent.session_id} is gone, so Claude Code cannot resume "
            f"it; revive it without --native (a successor briefed from what is left)"
        )
    folder = _own_folder(project, agent, "Claude Code", "revive it without --native")
    flags = [
        layout.RESUME_FLAG,
        agent.session_id,
        layout.FORK_FLAG,
        layout.SESSION_FLAG,
        base.successor_id,
    ]
    env = {**base.env, **layout.child_environment(claude_dir)}
    return Plan(
        agent,
        base.successor_id,
        " ".join([settings.agent_command, *(shlex.quote(f) for f in flags)]),
        folder,
        env,
        base.session,
        [],
        base.transcript_file,
        server=base.server,
        native=True,
    )


@dataclass
class Sweep:
    """What ``revive --all`` found: a plan per agent to revive, and why the others are left."""

    plans: list[Plan]
    skipped: list[tuple[str, str]]  # (agent id, why)
    failed: list[tuple[str, str]] = field(default_factory=list)
    done: list[Revival] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "revive": [p.to_dict() for p in self.plans],
            "revived": [r.to_dict() for r in self.done],
            "skipped": [{"agent_id": a, "why": why} for a, why in self.skipped],
            "failed": [{"agent_id": a, "error": why} for a, why in self.failed],
        }


def plan_all(
    project: Project,
    settings: config_mod.Settings | None = None,
    native: bool = False,
    claude_dir: Path | None = None,
    tmux_server: tmux.Server | None = None,
) -> Sweep:
    """Every registered agent that died without ending (its process and its pane are gone)
    and has no successor yet; each one once, however often this runs."""
    settings = settings or config_mod.load(project)
    server = server_of(settings)
    agents = registry.load(project)
    plans: list[Plan] = []
    skipped: list[tuple[str, str]] = []
    for agent in sorted(agents.values(), key=lambda a: (a.started_at or "", a.session_id)):
        state = liveness(agent, server)
        after = successors(agents, agent.session_id)
        if agent.ended_at:
            # dead, but its session ended as sessions end: --all revives the crashed only
            skipped.append(
                (agent.session_id, f"ended its session at {agent.ended_at}; revive it by its id")
            )
        elif state.state != DEAD:
            skipped.append((agent.session_id, state.why))
        elif after:
            skipped.append((agent.session_id, f"already succeeded by {', '.join(after)}"))
        else:
            try:
                planner = plan_native if native else plan
                plans.append(
                    planner(
                        project,
                        agent.session_id,
                        settings,
                        claude_dir=claude_dir,
                        tmux_server=tmux_server,
                    )
                )
            except PurlinError as exc:
                skipped.append((agent.session_id, exc.message))
    return Sweep(plans, skipped)


def perform_all(project: Project, sweep: Sweep, settings: config_mod.Settings) -> Sweep:
    """Carry out every plan of ``sweep``, each in its own window; one failure stops no other.
    An agent revived meanwhile by someone else (``revive ID``, the dashboard) is left."""
    for each in sweep.plans:
        try:
            sweep.done.append(perform(project, each, settings))
        except Conflict as exc:
            sweep.skipped.append((each.predecessor.session_id, exc.message))
        except PurlinError as exc:
            sweep.failed.append((each.predecessor.session_id, exc.message))
    return sweep


SWEEP_LOCK_SECONDS = 600  # a sweep waits for a running one (each revival waits for its agent)


def sweep(
    project: Project,
    settings: config_mod.Settings,
    native: bool = False,
    claude_dir: Path | None = None,
    dry_run: bool = False,
    tmux_server: tmux.Server | None = None,
) -> Sweep:
    """``revive --all``: plan, then (unless ``dry_run``) carry out, under one lock, so two
    sweeps at once never revive an agent twice: the second one sees the first one's successors."""
    with store.locked(project.cache_dir / "revive-all", timeout=SWEEP_LOCK_SECONDS):
        found = plan_all(project, settings, native, claude_dir, tmux_server)
        return found if dry_run else perform_all(project, found, settings)


def _own_folder(project: Project, agent: RegisteredAgent, cli_label: str, remedy: str) -> Path:
    """The folder the agent worked in, where its CLI resumes it; refused when it is gone, or
    lies outside the project (a registry the repository wrote may name any folder)."""
    if not agent.cwd or not Path(agent.cwd).is_dir():
        raise PurlinError(
            f"the folder agent {agent.session_id} worked in is gone "
            f"({agent.cwd or 'none recorded'}); {cli_label} resumes a session only from its own "
            f"folder: {remedy}"
        )
    if not store.inside(Path(agent.cwd), project.root):
        raise PurlinError(
            f"the folder agent {agent.session_id} worked in ({agent.cwd}) lies outside the "
            f"project; {cli_label} resumes a session only from its own folder: {remedy}"
        )
    return Path(agent.cwd)
