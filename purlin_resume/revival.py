"""Revival: start a successor for a dead agent in a new tmux window and brief it.

``plan`` checks the predecessor (registered, dead, not already succeeded by a live agent) and
composes everything: the successor's session id, the command, its folder and environment, and
the injections. A persona agent (one whose registry ``role`` is set) first gets its persona: the
file ``<persona_dir>/<role>.md`` when the project has one, else a short one naming the role;
then the revival instruction. An anonymous agent gets only the revival instruction. ``perform``
carries a plan out: window, registration of the successor (``previous_agent_id``), waiting until
the agent shows it is ready, then each injection (``injection.when_ready``).
"""

from __future__ import annotations

import shlex
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume import clock, injection, redact, registry, store, templating, tmux
from purlin_resume import config as config_mod
from purlin_resume.errors import PurlinError
from purlin_resume.lineage import ALIVE, DEAD, liveness, successors, work_folder
from purlin_resume.project import Project
from purlin_resume.registry import RegisteredAgent
from purlin_resume.roles import display_name
from purlin_resume.stall import server_of

LOG_NAME = "revivals.jsonl"


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "predecessor": self.predecessor.session_id,
            "successor": self.successor_id,
            "role": self.predecessor.role,
            "command": self.command,
            "cwd": str(self.cwd),
            "env": self.env,
            "tmux_session": self.session,
            "injections": [{"kind": i.kind, "text": i.text} for i in self.injections],
            "transcript_file": self.transcript_file,
        }


@dataclass
class Revival:
    plan: Plan
    pane: str
    attempts: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**self.plan.to_dict(), "tmux_pane": self.pane, "attempts": self.attempts}


def persona_text(project: Project, settings: config_mod.Settings, role: str) -> str:
    """The persona injection of ``role``: the project's persona file, else a short default."""
    file = project.root / settings.persona_dir / f"{role}.md"
    persona = store.read_text(file).strip() if file.is_file() else None
    return templating.render(
        "revival/persona.md.j2", role=role, role_name=display_name(role), persona=persona
    )


def plan(
    project: Project,
    agent_query: str,
    settings: config_mod.Settings | None = None,
    successor_id: str | None = None,
) -> Plan:
    """Everything a revival of ``agent_query`` would do, checked; nothing is started or written."""
    settings = settings or config_mod.load(project)
    server = server_of(settings)
    agents = registry.load(project)
    agent = registry.resolve(agents, agent_query)
    state = liveness(agent, server)
    if state.state == ALIVE:
        raise PurlinError(
            f"agent {agent.session_id} is alive ({state.why}); only a dead agent can be revived"
        )
    if state.state != DEAD:
        raise PurlinError(
            f"cannot tell whether agent {agent.session_id} is dead ({state.why}); "
            "end it first (its SessionEnd hook records ended_at)"
        )
    for child in successors(agents, agent.session_id):
        if liveness(agents[child], server).state == ALIVE:
            raise PurlinError(
                f"agent {agent.session_id} already has a live successor {child}; "
                "revive that one when it dies"
            )
    successor = successor_id or str(uuid.uuid4())
    cwd = work_folder(project, agent)
    command = settings.agent_command
    if settings.agent_session_flag:
        command += f" {shlex.quote(settings.agent_session_flag)} {shlex.quote(successor)}"
    env = {"PURLIN_PREVIOUS_AGENT_ID": agent.session_id, "PURLIN_AGENT_ID": successor}
    if agent.role:
        env["PURLIN_AGENT_ROLE"] = agent.role
    # Absolute: the successor may work in a subfolder of the project.
    transcript_file = str(project.cache_dir / f"revival-{agent.session_id}.md")
    ended = f"ended at {agent.ended_at}" if agent.ended_at else state.why.replace("is gone", "died")
    injections = []
    if agent.role:
        injections.append(Injection("persona", persona_text(project, settings, agent.role)))
    instruction = templating.render(
        "revival/instruction.md.j2",
        predecessor_id=agent.session_id,
        successor_id=successor,
        role=agent.role,
        ended=ended,
        cwd=str(cwd),
        transcript_file=transcript_file,
    )
    injections.append(Injection("revival", instruction))
    injections = [Injection(i.kind, redact.redact(i.text).text.strip()) for i in injections]
    session = settings.tmux_session
    if not settings.tmux_socket and tmux.inside_tmux():
        session = tmux.current_session(server) or session
    return Plan(agent, successor, command, cwd, env, session, injections, transcript_file)


def perform(project: Project, revival_plan: Plan, settings: config_mod.Settings) -> Revival:
    """Start the successor, register it, wait until it is ready, inject, log the revival."""
    from purlin_resume import gitrepo

    server = server_of(settings)
    gitrepo.ensure_ignored(project.root, ".purlin/cache/")
    store.private_folder(project.cache_dir)  # the successor writes its transcript there
    name = f"revived-{revival_plan.successor_id[:8]}"
    pane = tmux.new_window(
        server,
        revival_plan.session,
        revival_plan.cwd,
        revival_plan.command,
        env=revival_plan.env,
        name=name,
    )
    info = tmux.pane_info(server, pane) or {}
    pid = info.get("pane_pid")
    registry.register_successor(
        project,
        revival_plan.successor_id,
        revival_plan.predecessor,
        pid=int(pid) if pid and pid.isdigit() else None,
        cwd=str(revival_plan.cwd),
        tmux_pane=pane,
    )
    result = Revival(revival_plan, pane)
    try:
        result.attempts += injection.when_ready(
            server,
            pane,
            [i.text for i in revival_plan.injections],
            settings,
            revival_plan.command,
            who="the successor",
        )
    except PurlinError as exc:
        # No window left open for nothing, no successor that looks alive.
        tmux.kill_pane(server, pane)
        registry.record_end(project, revival_plan.successor_id)
        raise PurlinError(f"{exc.message} (revival undone: window closed)") from None
    store.append_jsonl(
        project.cache_dir / LOG_NAME,
        {
            "at": clock.iso(),
            "predecessor": revival_plan.predecessor.session_id,
            "successor": revival_plan.successor_id,
            "role": revival_plan.predecessor.role,
            "tmux_pane": pane,
            "injections": [i.kind for i in revival_plan.injections],
        },
    )
    return result
