"""What each Claude Code hook records: agent spawns, their ends, checkpoints, sessions.

| event | what happens |
|---|---|
| PreToolUse (Agent/Task) | a ``spawned`` entry in the agent history, keyed by the ``tool_use_id`` (the agent has no id yet); task from the tool input's description |
| PostToolUse (Agent/Task) | the entry gets the ``agentId`` Claude Code returned; completed, or kept running when ``status`` is ``async_launched`` |
| SubagentStop | the agent's entry is completed (failed when its transcript ends interrupted or without an answer) with the files it changed |
| PreCompact | an automatic checkpoint of the session from its transcript (see ``autosave``) |
| SessionStart | the session is registered; agents of sessions that are over are marked interrupted; after ``compact``, ``resume`` and ``clear`` (and on ``startup`` when a checkpoint is live) the restore briefing is returned as context |
| SessionEnd | the session is registered as ended |

Phase and plan of a spawned agent come from a GSD ``PHASE-PLAN`` number in its description or
prompt (``Execute plan 02-01``), else ``none``.

Briefings: the role is the session's (``$PURLIN_ROLE``), else that of its own checkpoint, else
that of the newest live one. The checkpoint shown is consumed (moved to the archive, never
deleted) only when it is an automatic one; a checkpoint the agent saved itself stays live for
``/pl-resume``. A checkpoint of another session that is still running is never briefed.

Every handler returns the text to print (SessionStart only) or None; the hook shell turns any
failure into a line in ``.purlin/cache/hook.log`` and exit code 0.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from purlin_resume import history, registry, tracking
from purlin_resume.claude.hooks import HookPayload
from purlin_resume.project import Project
from purlin_resume.roles import ROLES

_PHASE_PLAN = re.compile(r"\b(\d{1,3}(?:\.\d+)?)-(\d{1,3})\b")
TOOL_USE_PREFIX = "toolu_"
NONE = "none"
ASYNC_LAUNCHED = "async_launched"
SPAWN_WAIT_SECONDS = 2.0  # the PreToolUse hook records in the background: allow it to land


def _waiting(find, seconds: float = SPAWN_WAIT_SECONDS):
    """``find()`` until it returns something, for at most ``seconds``."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        found = find()
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(0.05)


@dataclass(frozen=True)
class Outcome:
    """What a hook did: a short note for the log, and the text to print, if any."""

    note: str
    output: str | None = None


def phase_and_plan(*texts: str | None) -> tuple[str, str]:
    for text in texts:
        match = _PHASE_PLAN.search(text or "")
        if match:
            return match.group(1), match.group(2)
    return NONE, NONE


# --- agents ------------------------------------------------------------------------------------


def agent_spawned(project: Project, payload: HookPayload) -> Outcome:
    """PreToolUse on Agent/Task: record the spawn under its tool_use_id."""
    from purlin_resume import redact

    if not payload.spawns_agent or not payload.tool_use_id:
        return Outcome("not an agent spawn")
    tool_input = payload.tool_input
    description = (
        tool_input.get("description") if isinstance(tool_input.get("description"), str) else None
    )
    prompt = tool_input.get("prompt") if isinstance(tool_input.get("prompt"), str) else None
    phase, plan = phase_and_plan(description, prompt)
    task = " ".join((description or prompt or payload.tool_name or "agent").split())
    task = redact.redact(task).text[:300]  # the history is committed: no secret goes into it
    if _recorded(project, payload.tool_use_id):  # a spooled payload recorded twice
        return Outcome(f"{payload.tool_use_id} already recorded")
    request = history.NewAgent(agent_id=payload.tool_use_id, task=task, phase=phase, plan=plan)
    tracking.spawn(project, request, payload.session_id)
    return Outcome(f"spawned {payload.tool_use_id}")


def _recorded(project: Project, tool_use_id: str) -> bool:
    if not history.path(project).exists():
        return False
    return any(
        tool_use_id in (e.agent_id, e.data.get("tool_use_id"))
        for e in history.load(project).entries
    )


def _agent_transcript(payload: HookPayload, agent_id: str) -> Path | None:
    """Where Claude Code 2.1 keeps the subagent's transcript, beside the session's."""
    explicit = payload.text("agent_transcript_path")
    if explicit:
        return Path(explicit)
    if not payload.transcript_path or not payload.session_id:
        return None
    session = Path(payload.transcript_path)
    for candidate in (
        session.parent / payload.session_id / "subagents" / f"agent-{agent_id}.jsonl",
        session.parent / f"agent-{agent_id}.jsonl",
    ):
        if candidate.is_file():
            return candidate
    return None


def _read_agent(path: Path | None):
    if path is None or not path.is_file():
        return None
    from purlin_resume.claude import transcript

    return transcript.read(path, path.stem, split_sidechains=False).main


def _finished_status(agent) -> str:
    """completed, or failed when the agent's transcript ends interrupted or without an answer."""
    from purlin_resume.claude.transcript import INTERRUPTION

    if agent is None:
        return history.COMPLETED
    last = next((t for t in reversed(agent.turns) if t.counts or t.kind == INTERRUPTION), None)
    if last is None or last.kind == INTERRUPTION or not agent.final_output:
        return history.FAILED
    return history.COMPLETED


def _finish(project: Project, agent_id: str, status: str, agent) -> str:
    files = []
    if agent is not None:
        from purlin_resume.project import relative_paths

        files = relative_paths([project.root, agent.project_path], agent.files_modified())
    current = {e.agent_id: e for e in history.load(project).latest()}.get(agent_id)
    if current is None or current.status not in history.RUNNING_STATUSES:
        return f"{agent_id} already {current.status if current else 'unknown'}"
    tracking.change_status(project, agent_id, status, files=files)
    return f"{agent_id} {status}"


def agent_returned(project: Project, payload: HookPayload) -> Outcome:
    """PostToolUse on Agent/Task: the spawn entry gets its agent id; completed unless async."""
    if not payload.spawns_agent or not payload.tool_use_id:
        return Outcome("not an agent spawn")
    response = payload.tool_response
    agent_id = response.get("agentId") if isinstance(response.get("agentId"), str) else None
    if not agent_id:
        return Outcome(f"{payload.tool_use_id}: no agentId in the tool response")
    if _waiting(lambda: _identified(project, payload.tool_use_id, agent_id)) is None:
        return Outcome(f"{payload.tool_use_id}: no spawn recorded for this tool call")
    if response.get("status") == ASYNC_LAUNCHED:
        return Outcome(f"{agent_id} launched in the background, still running")
    agent = _read_agent(_agent_transcript(payload, agent_id))
    return Outcome(_finish(project, agent_id, history.COMPLETED, agent))


def _identified(project: Project, tool_use_id: str, agent_id: str):
    if not history.path(project).exists():
        return None
    return tracking.identify(project, tool_use_id, agent_id)


def _unnamed_spawn(project: Project, payload: HookPayload, agent) -> str | None:
    """The tool_use_id of the still unnamed spawn that ``agent`` is (SubagentStop comes first)."""
    doc = history.load(project)
    waiting = [
        e
        for e in doc.latest_with(*history.RUNNING_STATUSES)
        if e.agent_id.startswith(TOOL_USE_PREFIX)
        and (payload.session_id is None or e.session_id in (None, payload.session_id))
    ]
    if len(waiting) <= 1 or agent is None:
        return waiting[0].agent_id if len(waiting) == 1 else None
    parent = Path(payload.transcript_path) if payload.transcript_path else None
    if parent is None or not parent.is_file():
        return None
    from purlin_resume.claude import transcript

    reading = transcript.read(parent, parent.stem)
    ids = {e.agent_id for e in waiting}
    for tool_use_id, linked in reading.progress_links.items():
        if linked == agent.agent_id and tool_use_id in ids:
            return tool_use_id
    prompt = (agent.first_prompt or "").strip()
    for call in reading.main.tool_calls():
        if (
            call.id in ids
            and isinstance(call.input, dict)
            and str(call.input.get("prompt") or "").strip() == prompt
        ):
            return call.id
    return None


def agent_stopped(project: Project, payload: HookPayload) -> Outcome:
    """SubagentStop: completed or failed, with the files the agent changed."""
    agent_id = payload.text("agent_id")
    if not agent_id:
        return Outcome("no agent_id in the payload")
    agent = _read_agent(_agent_transcript(payload, agent_id))
    if agent is not None:
        agent.agent_id = agent_id

    def spawn_of_agent() -> str | None:
        if not history.path(project).exists():
            return None
        if agent_id in {e.agent_id for e in history.load(project).latest()}:
            return agent_id
        return _unnamed_spawn(project, payload, agent)

    found = _waiting(spawn_of_agent)
    if found is None:
        return Outcome(f"{agent_id}: no recorded spawn to match")
    if found != agent_id:
        tracking.identify(project, found, agent_id)
    return Outcome(_finish(project, agent_id, _finished_status(agent), agent))


# --- checkpoints ---------------------------------------------------------------------------------


def pre_compact(project: Project, payload: HookPayload) -> Outcome:
    """Write the automatic checkpoint of this session from its transcript."""
    from purlin_resume import autosave, checkpoints, clock, gitrepo
    from purlin_resume.claude import transcript

    path = Path(payload.transcript_path) if payload.transcript_path else None
    if path is None or not path.is_file():
        return Outcome("no transcript to checkpoint")
    session = checkpoints.session_id(payload.session_id, env={})
    existing = checkpoints.path_for(project, session)
    if existing.exists():
        try:
            own = checkpoints.read(existing)
        except Exception:  # an unreadable checkpoint is the agent's: leave it
            own = None
        if not autosave.is_automatic(own):
            return Outcome(f"kept the checkpoint the agent saved: {existing}")
    agent = registry.load(project).get(payload.session_id or "")
    reading = transcript.read(path, path.stem, autosave.READ_OPTIONS)
    in_git = gitrepo.toplevel(project.root) is not None
    cp = autosave.build(
        reading.main,
        role=autosave.role_for(agent.role if agent else None),
        timestamp=clock.iso(),
        branch=gitrepo.branch(project.root) if in_git else "",
        uncommitted=uncommitted(project.root) if in_git else [],
        session=session,
        trigger=payload.text("trigger"),
        root=project.root,
    )
    saved = checkpoints.save(project, cp)
    return Outcome(f"checkpoint written: {saved}")


def uncommitted(root: Path) -> list[str]:
    """``XY path`` lines of the work tree's changes, as a checkpoint lists them."""
    from purlin_resume import gitrepo

    return [f"{line[:2].strip()} {line[3:]}" for line in gitrepo.status_lines(root)]


# --- sessions -----------------------------------------------------------------------------------


def session_started(
    project: Project, payload: HookPayload, env: Mapping[str, str] = os.environ
) -> Outcome:
    """Register the session, mark orphaned agents interrupted, return the briefing if one is due."""
    from purlin_resume import config, processes

    notes = []
    role = env.get("PURLIN_ROLE", "").strip().lower() or None
    if payload.session_id:
        registry.record_start(
            project,
            payload.session_id,
            pid=processes.agent_pid(),
            cwd=payload.cwd,
            transcript_path=payload.transcript_path,
            tmux_pane=env.get("TMUX_PANE") or None,
            role=role if role in ROLES else None,
            previous_agent_id=env.get("PURLIN_PREVIOUS_AGENT_ID") or None,
        )
        notes.append(f"registered {payload.session_id}")
        notes += _resurrection_started(payload.session_id, env)
    settings = config.load(project)
    if history.path(project).exists():
        marked = tracking.scan(project, settings)
        notes += [f"interrupted {d.entry['agent_id']}" for d in marked]
    text = briefing(project, settings, payload, role if role in ROLES else None)
    line = recommendation_line(project, settings, payload, notes)
    if line:
        text = f"{text}\n\n{line}" if text else line
    return Outcome("; ".join(notes) or "nothing to do", text)


def recommendation_line(project: Project, settings, payload: HookPayload, notes: list[str]) -> str | None:
    """One line naming who worked on this before, when a candidate clears the threshold
    (``recommend_in_briefing``). It reads the search index as it is (never builds it: a hook
    stays fast), and a failure here costs only this line (named in the hook's notes)."""
    if not settings.recommend_in_briefing:
        return None
    from purlin_resume import recommendation, resurrection

    try:
        env = resurrection.environment(None, project.root, settings)
        task = recommendation.gather(
            project.root, env.claude_root, payload.session_id, settings.main_branches
        )
        found = recommendation.recommend(env, task, limit=3, update=False)
        if found:
            recommendation.remember(env.cache, task, found)
    except Exception as exc:  # noqa: BLE001 - one part of a briefing never silences the rest
        notes.append(f"no recommendation: {' '.join(str(exc).split())}")
        return None
    if not found:
        return None
    best = found[0]
    from purlin_resume import redact

    what = f"{best.label()}" + (f" ({best.title})" if best.title else "")
    line = (
        f"Worked on this before: {what}: {best.why}. "
        "Bring its expertise back with `purlin-resume resurrect --recommended 1`."
    )
    return redact.redact(line).text


def _resurrection_started(session_id: str, env: Mapping[str, str]) -> list[str]:
    """A resurrected agent's first session start names it in the resurrection log entry that
    made it (``$PURLIN_RESURRECTION_ID``, set by ``resurrect --spawn``)."""
    wanted = env.get("PURLIN_RESURRECTION_ID", "").strip()
    if not wanted:
        return []
    from pathlib import Path

    from purlin_resume import resurrection_log
    from purlin_resume.claude import layout

    explicit = env.get("CLAUDE_CONFIG_DIR")
    folder, _ = layout.config_dir(Path(explicit) if explicit else None)
    log = folder / "history" / resurrection_log.FILE_NAME
    resurrection_log.complete(log, wanted, {"resurrected_as_agent_id": session_id})
    return [f"resurrection {wanted} started as {session_id}"]


def briefing(project: Project, settings, payload: HookPayload, role: str | None) -> str | None:
    """The restore briefing a SessionStart should give, bounded and redacted; None when none is due."""
    from purlin_resume import autosave, checkpoints, gsd_handoff, redact, restore
    from purlin_resume.claude import hooks

    source = payload.source or "startup"
    live = [c for c in checkpoints.live(project) if c.checkpoint is not None]
    if source == "startup" and not live and not gsd_handoff.read(project).present:
        return None
    if source not in hooks.SESSION_SOURCES:
        return None
    session = checkpoints.session_id(payload.session_id, env={}) if payload.session_id else None
    own = next((c for c in live if session and c.session == session), None)
    newest = own or (live[0] if live else None)
    chosen_role = role or (newest.checkpoint.role if newest else autosave.DEFAULT_ROLE)
    r = restore.prepare(
        project, settings, chosen_role, f"SessionStart hook ({source})", session=session
    )
    if r.found is not None and r.found.session not in (None, session):
        owner = registry.load(project).get(r.found.session)
        if registry.session_state(owner) == registry.RUNNING:
            return None  # another agent's checkpoint, and that agent is still at work
    if r.found is not None and autosave.is_automatic(r.checkpoint):
        restore.consume(project, r)
    tail = f"Run `purlin-resume restore {chosen_role} --keep` to read the whole briefing."
    text = redact.redact(restore.briefing(project, r)).text
    return hooks.bounded(text, tail=tail)


def session_ended(project: Project, payload: HookPayload) -> Outcome:
    if not payload.session_id:
        return Outcome("no session id")
    registry.record_end(project, payload.session_id)
    return Outcome(f"ended {payload.session_id}")


HANDLERS = {
    "PreToolUse": agent_spawned,
    "PostToolUse": agent_returned,
    "SubagentStop": agent_stopped,
    "PreCompact": pre_compact,
    "SessionStart": session_started,
    "SessionEnd": session_ended,
}
