"""Registered agents alive or dead, and who succeeds whom (``previous_agent_id``).

An agent is dead when its session ended (``ended_at``), its process is gone, or its tmux pane is
gone; alive when its process runs (and its pane, if it has one, is there); unknown when the
registry gives nothing to tell by (no process id, no pane, not ended).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume import registry, tmux
from purlin_resume.project import Project
from purlin_resume.registry import RegisteredAgent

ALIVE, DEAD, UNKNOWN = "alive", "dead", "unknown"


@dataclass(frozen=True)
class Liveness:
    state: str
    why: str


@dataclass
class AgentStatus:
    agent: RegisteredAgent
    liveness: Liveness
    successors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        agent = self.agent
        return {
            "agent_id": agent.session_id,
            "state": self.liveness.state,
            "why": self.liveness.why,
            "role": agent.role,
            "pid": agent.pid,
            "tmux_pane": agent.tmux_pane,
            "cwd": agent.cwd,
            "started_at": agent.started_at,
            "ended_at": agent.ended_at,
            "previous_agent_id": agent.previous_agent_id,
            "successors": self.successors,
        }


def work_folder(project: Project, agent: RegisteredAgent) -> Path:
    """The folder the agent works in: its registered cwd while that exists, else the project."""
    folder = Path(agent.cwd) if agent.cwd else project.root
    return folder if folder.is_dir() else project.root


def _pane_gone(server: tmux.Server, pane: str, panes: set[str] | None) -> bool:
    if panes is not None:
        return pane not in panes
    return tmux.available() and not tmux.pane_alive(server, pane)


def liveness(
    agent: RegisteredAgent, server: tmux.Server, panes: set[str] | None = None
) -> Liveness:
    """``panes``: the live panes of ``server`` when already listed (``tmux.live_panes``)."""
    if agent.ended_at:
        return Liveness(DEAD, f"ended at {agent.ended_at}")
    if agent.pid is not None and not registry.pid_alive(agent.pid):
        return Liveness(DEAD, f"process {agent.pid} is gone")
    if agent.tmux_pane and _pane_gone(server, agent.tmux_pane, panes):
        return Liveness(DEAD, f"tmux pane {agent.tmux_pane} is gone")
    if agent.pid is not None:
        return Liveness(ALIVE, f"process {agent.pid} runs")
    if agent.tmux_pane and tmux.available():
        return Liveness(ALIVE, f"tmux pane {agent.tmux_pane} is open")
    return Liveness(UNKNOWN, "no process id or tmux pane recorded")


def successors(agents: dict[str, RegisteredAgent], agent_id: str) -> list[str]:
    return sorted(
        (a.session_id for a in agents.values() if a.previous_agent_id == agent_id),
        key=lambda sid: (agents[sid].started_at or "", sid),
    )


def statuses(agents: dict[str, RegisteredAgent], server: tmux.Server) -> list[AgentStatus]:
    """Every registered agent, oldest start first (tmux is asked once, not once per pane)."""
    ordered = sorted(agents.values(), key=lambda a: (a.started_at or "", a.session_id))
    children: dict[str, list[str]] = {}
    for agent in ordered:
        if agent.previous_agent_id:
            children.setdefault(agent.previous_agent_id, []).append(agent.session_id)
    asks = any(agent.tmux_pane and not agent.ended_at for agent in ordered)
    panes = tmux.live_panes(server) if asks else None
    return [
        AgentStatus(agent, liveness(agent, server, panes), children.get(agent.session_id, []))
        for agent in ordered
    ]


def predecessors(agents: dict[str, RegisteredAgent], agent_id: str) -> list[str]:
    """The chain of predecessors, nearest first (a cycle or unknown id ends it)."""
    chain: list[str] = []
    seen = {agent_id}
    current = agents.get(agent_id)
    while current is not None and current.previous_agent_id:
        previous = current.previous_agent_id
        if previous in seen:
            break
        chain.append(previous)
        seen.add(previous)
        current = agents.get(previous)
    return chain


@dataclass
class LineageNode:
    agent_id: str
    registered: bool
    children: list[LineageNode] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "registered": self.registered,
            "successors": [child.to_dict() for child in self.children],
        }


def descendants(
    agents: dict[str, RegisteredAgent], agent_id: str, seen: set[str] | None = None
) -> list[LineageNode]:
    """The successors of ``agent_id``, each with its own successors (a tree)."""
    seen = {agent_id} if seen is None else seen
    nodes = []
    for child in successors(agents, agent_id):
        if child in seen:
            continue
        seen.add(child)
        nodes.append(LineageNode(child, True, descendants(agents, child, seen)))
    return nodes
