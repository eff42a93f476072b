"""Which checkpoints a session may take over, and the role and plan it works with.

A checkpoint belongs to its session while that session runs (``registry.running_sessions``):
no other session is briefed with it or restores it. A session's role is the one it was given
(``$PURLIN_ROLE``, or the role of the checkpoint it restored, both kept in the registry), else
the role of a checkpoint it saved itself, else the role of the session its process ran before
it (``/clear`` starts a new session; the agent stays who it was). What a session restored is its
own from then on: its automatic checkpoints carry that checkpoint's plan. A session's own work
is also what the sessions its process ran before it saved or took over (``chain``); its newer
save supersedes their live checkpoints.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from purlin_resume.agents import registry
from purlin_resume.agents.registry import RegisteredAgent
from purlin_resume.checkpoints import autosave
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.checkpoints.format import Checkpoint
from purlin_resume.checkpoints.roles import ROLES
from purlin_resume.core.errors import CorruptFile, NotFound
from purlin_resume.core.project import Project

MAX_GENERATIONS = 20  # /clear after /clear in one process: how far back a role is looked for


@dataclass(frozen=True)
class Standing:
    """What the registry says about one session, for a restore or a briefing."""

    busy: frozenset[str]  # other sessions still running: their checkpoints are theirs
    chain: tuple[str, ...]  # the sessions its process ran before it (/clear), the latest first
    role: str | None  # the role it works in, None when it never had one
    claimed: Path | None = None  # the checkpoint it (else its process before it) took over

    @property
    def predecessor(self) -> str | None:
        """The session its process ran just before it."""
        return self.chain[0] if self.chain else None


def _saved_role(project: Project, session: str) -> str | None:
    saved = [c for c in checkpoints.of_session(project, session) if not autosave.is_automatic(c)]
    return saved[0].role if saved and saved[0].role in ROLES else None


def role_of(
    project: Project, session: str | None, agents: dict[str, RegisteredAgent] | None = None
) -> str | None:
    """The role ``session`` works in (see the module text); None when it never had one."""
    agents = registry.load(project) if agents is None else agents
    seen: set[str] = set()
    while session and session not in seen and len(seen) < MAX_GENERATIONS:
        seen.add(session)
        agent = agents.get(session)
        if agent is not None and agent.role in ROLES:
            return agent.role
        role = _saved_role(project, session)
        if role:
            return role
        before = registry.predecessor_in_process(agents, session)
        session = before.session_id if before else None
    return None


def standing(
    project: Project, session: str | None, agents: dict[str, RegisteredAgent] | None = None
) -> Standing:
    agents = registry.load(project) if agents is None else agents
    chain = registry.chain_in_process(agents, session, MAX_GENERATIONS)
    agent = agents.get(session or "")
    taken = [a.restored_from for a in [agent, *chain] if a is not None and a.restored_from]
    return Standing(
        busy=frozenset(registry.running_sessions(agents) - {session}),
        chain=tuple(before.session_id for before in chain),
        role=role_of(project, session, agents),
        claimed=project.root / taken[0] if taken else None,
    )


def earlier(project: Project, session: str | None) -> frozenset[str]:
    """The sessions ``session``'s process ran before it (``/clear``), from the registry: read
    before a save writes anything, so a registry that cannot be read stops the save whole."""
    return frozenset(standing(project, session).chain) if session else frozenset()


def superseded(project: Project, earlier: frozenset[str]) -> list[Path]:
    """After a session saved a checkpoint: the live checkpoints of the sessions its process ran
    before it (``earlier``) are out of date, so they are archived (where they went); nobody is
    handed the agent's older work."""
    moved = []
    for found in checkpoints.live(project) if earlier else ():
        if found.session is not None and found.session in earlier:
            with suppress(NotFound):  # restored by someone a moment ago: gone already
                moved.append(checkpoints.supersede(project, found))
    return moved


def taken_over(project: Project, session: str | None, role: str, archived: Path | None) -> None:
    """Record that ``session`` restored the checkpoint now at ``archived``, in ``role``."""
    if session and archived is not None:
        registry.record_takeover(project, session, role, project.relative(archived))


def carried(
    project: Project, session: str | None, agents: dict[str, RegisteredAgent] | None = None
) -> Checkpoint | None:
    """The newest checkpoint that is ``session``'s: one it saved or had saved for it, or the
    one it restored. Its plan goes on in the session's automatic checkpoints."""
    if not session:
        return None
    found = list(checkpoints.of_session(project, session))
    agent = (registry.load(project) if agents is None else agents).get(session)
    if agent is not None and agent.restored_from:
        with suppress(CorruptFile, NotFound, OSError):  # gone or damaged: nothing to carry
            found.append(checkpoints.read(project.root / agent.restored_from))
    return max(found, key=checkpoints.written_at, default=None)
