"""Registered agents alive or dead, and who succeeds whom (``previous_agent_id``).

An agent is dead when its session ended (``ended_at``) or its process is gone (its id may name
another process by now: the registered start tells them apart); alive while its process runs,
whatever its pane looks like. Only for an agent without a process id does the pane decide: open
on its server is alive, gone from a running server is dead. A pane id is looked up
on the server the agent recorded with it (``tmux_socket``), else on the configured one; a pane
on a server that is not reachable proves nothing either way. Unknown: nothing to tell by.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.agents import registry
from purlin_resume.agents.registry import RegisteredAgent
from purlin_resume.core import tmux

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
            "tmux_socket": agent.tmux_socket,
            "cwd": agent.cwd,
            "started_at": agent.started_at,
            "ended_at": agent.ended_at,
            "previous_agent_id": agent.previous_agent_id,
            "successors": self.successors,
        }


def server_for(agent: RegisteredAgent, configured: tmux.Server) -> tmux.Server:
    """The tmux server of ``agent``'s pane: the one it recorded, else the configured one."""
    return tmux.Server(socket=Path(agent.tmux_socket)) if agent.tmux_socket else configured


def liveness(
    agent: RegisteredAgent, server: tmux.Server, panes: set[str] | None = None
) -> Liveness:
    """``panes``: the live panes of ``server`` when already listed (``tmux.live_panes``)."""
    if agent.ended_at:
        return Liveness(DEAD, f"ended at {agent.ended_at}")
    if agent.pid is not None:
        if not registry.pid_alive(agent.pid, agent.pid_start_ticks):
            again = " (its id names another process now)" if registry.reused(agent) else ""
            return Liveness(DEAD, f"process {agent.pid} is gone{again}")
        return Liveness(ALIVE, f"process {agent.pid} runs")
    if agent.tmux_pane and tmux.available():
        own = server_for(agent, server)
        listed = panes if panes is not None and own == server else None
        if (
            agent.tmux_pane in listed
            if listed is not None
            else tmux.pane_alive(own, agent.tmux_pane)
        ):
            return Liveness(ALIVE, f"tmux pane {agent.tmux_pane} is open")
        if listed is not None or tmux.reachable(own):
            return Liveness(DEAD, f"tmux pane {agent.tmux_pane} is gone")
        if agent.tmux_socket and not Path(agent.tmux_socket).exists():
            return Liveness(DEAD, f"its tmux server {own.label} is gone")
        return Liveness(
            UNKNOWN, f"tmux server {own.label} of pane {agent.tmux_pane} is not reachable"
        )
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
