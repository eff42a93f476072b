"""The subagent tree of a session: each agent's transcript linked to the tool call that
spawned it (by the agent id its call names, an ``agent_progress`` record, its ``.meta.json``,
else its first prompt), with its status, tokens and duration (see ``subagents`` for the
layouts and how an agent's end shows)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from purlin_resume.claude import records
from purlin_resume.claude.subagents import META_LINKS, STOPPED_BY_USER

if TYPE_CHECKING:
    from purlin_resume.claude.transcript import Compaction, ToolCall, Transcript

    _Call = tuple[str | None, ToolCall]  # a call spawning an agent, with its owner (None: main)
    _Claim = tuple[str | None, ToolCall, str]  # the owner and the call an agent ran for, and how

INLINE = "inline"
COMPLETED, FAILED, UNFINISHED, UNKNOWN = "completed", "failed", "unfinished", "unknown"
INTERRUPTED = "interrupted"
ASYNC_LAUNCHED = "async_launched"  # a background agent's call result; its end comes later


@dataclass
class Subagent:
    id: str | None  # None: a spawn call whose agent left no transcript
    session_id: str | None
    layout: str  # inline, subagents-folder, beside-sessions, or none
    path: Path | None = None
    tool: str | None = None  # "Task" or "Agent"
    tool_use_id: str | None = None
    agent_type: str | None = None
    description: str | None = None
    prompt: str | None = None
    status: str = UNKNOWN
    tokens: int | None = None
    duration_ms: int | None = None
    tool_uses: int | None = None
    turns: int = 0
    started_at: str | None = None
    ended_at: str | None = None
    linked_by: str | None = None
    parent_missing: bool = False
    children: list[Subagent] = field(default_factory=list)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "session_id": self.session_id,
            "type": self.agent_type,
            "description": self.description,
            "status": self.status,
            "tokens": self.tokens,
            "duration_ms": self.duration_ms,
            "tool_uses": self.tool_uses,
            "turns": self.turns,
            "tool": self.tool,
            "tool_use_id": self.tool_use_id,
            "linked_by": self.linked_by,
            "layout": self.layout,
            "path": str(self.path) if self.path else None,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "parent_missing": self.parent_missing,
            "children": [child.to_dict() for child in self.children],
        }


def _background_end(meta: dict[str, Any]) -> str:
    """How a background agent ended, as its ``.meta.json`` says."""
    if meta.get("finished") is True:
        return COMPLETED
    return INTERRUPTED if meta.get(STOPPED_BY_USER) is True else UNFINISHED


def _same_prompt(left: str | None, right: Any) -> bool:
    if not left:
        return False
    return isinstance(right, str) and left.strip() == right.strip()


def _status(call: ToolCall) -> str:
    if not call.answered:
        return UNFINISHED
    return str(call.outcome.get("status") or (FAILED if call.is_error else COMPLETED))


@dataclass
class AgentRun:
    """A subagent transcript as read, with where it came from."""

    transcript: Transcript
    layout: str
    meta: dict[str, Any] = field(default_factory=dict)


def link(
    session_id: str | None,
    main: Transcript | None,
    runs: Iterable[AgentRun],
    progress_links: dict[str, str] | None = None,
) -> list[Subagent]:
    """The subagent tree of one session: top level = spawned by the main thread (or unlinked).

    ``main`` is None when the session file is gone: every agent is then listed, unlinked.
    """
    runs = list(runs)
    calls = _spawning_calls(main, runs)
    claimed, unmatched = _claimed_by_id(calls, runs, dict(progress_links or {}))
    still = _claim_by_prompt(unmatched, runs, claimed)
    nodes: dict[str, Subagent] = {}
    for run in runs:
        node = _node(run, session_id, main is None)
        if run.transcript.id in claimed:
            _, call, how = claimed[run.transcript.id]
            _apply_call(node, call)
            node.linked_by = how
            if node.status == ASYNC_LAUNCHED:  # a background agent whose end was not notified
                node.status = _background_end(run.meta)
            call.agent_id = call.agent_id or run.transcript.id  # the call now names its agent
        nodes[run.transcript.id] = node
    top: list[Subagent] = []
    for run in runs:
        node = nodes[run.transcript.id]
        owner = claimed.get(run.transcript.id, (None,))[0]
        (nodes[owner].children if owner in nodes else top).append(node)
    for owner, call in still:  # a call whose agent left no transcript here
        node = Subagent(id=None, session_id=session_id, layout="none", status=_status(call))
        _apply_call(node, call)
        (nodes[owner].children if owner in nodes else top).append(node)
    return top


def _spawning_calls(main: Transcript | None, runs: list[AgentRun]) -> list[_Call]:
    """Every call that spawns an agent: the main thread's, then each agent's."""
    calls: list[_Call] = []
    if main is not None:
        calls += [(None, call) for call in main.tool_calls() if call.spawns_agent]
    for run in runs:
        calls += [
            (run.transcript.id, call) for call in run.transcript.tool_calls() if call.spawns_agent
        ]
    return calls


def _claimed_by_id(
    calls: list[_Call], runs: list[AgentRun], progress_links: dict[str, str]
) -> tuple[dict[str, _Claim], list[_Call]]:
    """The agents whose call names them (its result, an ``agent_progress`` record or the
    agent's meta.json), by agent id; and the calls left unmatched."""
    by_id = {run.transcript.id: run for run in runs}
    meta_links = {}
    for run in runs:
        for key in META_LINKS:
            value = run.meta.get(key)
            if isinstance(value, str):
                meta_links[value] = run.transcript.id
    claimed: dict[str, _Claim] = {}
    unmatched: list[_Call] = []
    for owner, call in calls:
        agent_id, how = call.agent_id, call.linked_by
        if not agent_id and call.id in progress_links:
            agent_id, how = progress_links[call.id], "agent_progress"
        if not agent_id and call.id in meta_links:
            agent_id, how = meta_links[call.id], "meta.json"
        if agent_id and agent_id in by_id and agent_id not in claimed:
            claimed[agent_id] = (owner, call, how or "")
        else:
            unmatched.append((owner, call))
    return claimed, unmatched


def _claim_by_prompt(
    unmatched: list[_Call], runs: list[AgentRun], claimed: dict[str, _Claim]
) -> list[_Call]:
    """Claim for each unmatched call the unclaimed agent given the same prompt (inline
    sidechains, and the last resort); the calls still unmatched."""
    still: list[_Call] = []
    for owner, call in unmatched:
        prompt = (call.input or {}).get("prompt")
        match = next(
            (
                run
                for run in runs
                if run.transcript.id not in claimed
                and run.transcript.id != owner
                and _same_prompt(run.transcript.first_prompt, prompt)
            ),
            None,
        )
        if match is None:
            still.append((owner, call))
        else:
            claimed[match.transcript.id] = (owner, call, "prompt")
    return still


def _node(run: AgentRun, session_id: str | None, parent_missing: bool) -> Subagent:
    """The subagent an agent's transcript shows, before it is linked to its call."""
    transcript = run.transcript
    agent_type, description = run.meta.get("agentType"), run.meta.get("description")
    return Subagent(
        id=transcript.id,
        session_id=transcript.session_id or session_id,
        layout=run.layout,
        path=transcript.path,
        prompt=transcript.first_prompt,
        turns=transcript.turn_count,
        started_at=transcript.started_at,
        ended_at=transcript.ended_at,
        tokens=transcript.last_usage_tokens,
        tool_uses=sum(1 for _ in transcript.tool_calls()),
        agent_type=agent_type if isinstance(agent_type, str) else None,
        description=description if isinstance(description, str) else None,
        parent_missing=parent_missing,
    )


def _apply_call(node: Subagent, call: ToolCall) -> None:
    data = call.input or {}
    node.tool = call.name
    node.tool_use_id = call.id or None
    node.agent_type = records.string(data.get("subagent_type")) or node.agent_type
    node.agent_type = node.agent_type or "general-purpose"
    node.description = records.string(data.get("description")) or node.description
    node.prompt = node.prompt or records.string(data.get("prompt"))
    node.status = _status(call)
    outcome = call.outcome
    if isinstance(outcome.get("totalTokens"), int):
        node.tokens = outcome["totalTokens"]
    if isinstance(outcome.get("totalDurationMs"), int):
        node.duration_ms = outcome["totalDurationMs"]
    if isinstance(outcome.get("totalToolUseCount"), int):
        node.tool_uses = outcome["totalToolUseCount"]


def attach_compaction_runs(compactions: list[Compaction], runs: Iterable[Transcript]) -> None:
    """Name, for each compaction, the ``acompact-*`` run that wrote its summary.

    A run ends just before the boundary it produced: each run goes to the first unclaimed
    compaction at or after the run's last record.
    """
    for run in sorted(runs, key=lambda t: t.ended_at or ""):
        for compaction in compactions:
            if compaction.agent_id is None and (compaction.timestamp or "") >= (run.ended_at or ""):
                compaction.agent_id = run.id
                break
