"""What each Claude Code hook records: agent spawns, their ends, checkpoints, sessions.

| event | what happens |
|---|---|
| PreToolUse (Agent/Task) | a ``spawned`` entry in the agent history, keyed by the ``tool_use_id`` (the agent has no id yet); task from the tool input's description, the whole ``prompt`` kept (redacted); spawns of one assistant message share a ``parallel_group`` |
| PostToolUse (Agent/Task) | the entry gets the ``agentId`` Claude Code returned; completed (interrupted when the response says the user stopped it, failed when it reports an API error), or kept running when ``status`` is ``async_launched`` |
| SubagentStart | Claude Code: the spawn entry gets the agent's id (its ``.meta.json`` names the call), so an agent cut off before its call returns is known by it; Codex CLI (no PreToolUse for its subagents): a ``spawned`` entry under the subagent's own id |
| UserPromptSubmit | running agents of the session that ended unnoticed: a background agent's ``<task-notification>``, a call the user stopped (its error result, which may reach the transcript just after the prompt), a ``.meta.json`` with ``stoppedByUser``, an agent spawned inside a stopped agent (its call unanswered in that agent's transcript, or its own transcript ending with the interruption); interrupted, failed or completed |
| SubagentStop | the agent's entry is completed, ``interrupted`` when its transcript or ``last_assistant_message`` ends with ``[Request interrupted by user…]``, failed when it ended without an answer (in its transcript or in ``last_assistant_message``, which Claude Code may send before the answer's record is written); with the project files it changed |
| PreCompact | an automatic checkpoint of the session from its transcript (see ``autosave``; Codex CLI's rollout; Gemini CLI's chat file at its PreCompress of ``/compress`` only: it sends the automatic one before every request, before it checks whether the context is full), unless the agent saved one itself |
| SessionStart | the session is registered; agents of sessions that are over are marked interrupted; the briefing of ``session_briefing`` is returned as context |
| SessionEnd | the session is registered as ended |

Phase and plan of a spawned agent come from a GSD ``PHASE-PLAN`` number in its description or
prompt (``Execute plan 02-01``), else ``none``.

Roles: a session's role is the one it started with (``$PURLIN_ROLE``, kept in the registry), else
that of its own newest checkpoint; an automatic checkpoint never replaces one the agent saved.

Every handler returns the text to print (SessionStart only) or None; the hook shell turns any
failure into a line in ``.purlin/cache/hook.log`` and exit code 0.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from purlin_resume.claude import records, subagents
from purlin_resume.claude.hooks import AGENT_CLI_ENV, HookPayload
from purlin_resume.claude.records import TOOL_USE_PREFIX
from purlin_resume.core import clock, gitrepo, ids
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from purlin_resume.history import tracking

# The session events (SessionStart, SessionEnd, PreCompact) import inside their handlers what only
# they use (the registry, roles, checkpoints): the agent events run on every tool call.
_PHASE_PLAN = re.compile(r"\b(\d{1,3}(?:\.\d+)?)-(\d{1,3})\b")
NONE = "none"
ASYNC_LAUNCHED = "async_launched"
# how the client reports an API error as a call's answer or an agent's last message: with its
# status, or in words of its own for some (``Prompt is too long · the request is ~300000 tokens``)
_API_ERROR = re.compile(
    r"API Error: [45]\d\d\b|Prompt is too long\b|Credit balance is too low\b|Invalid API key\b"
)
# how a task notification's status reads in the history
NOTIFIED = {
    "completed": history.COMPLETED,
    "failed": history.FAILED,
    "killed": history.INTERRUPTED,
    "stopped": history.INTERRUPTED,
    "cancelled": history.INTERRUPTED,
}


class Outcome(NamedTuple):
    """What a hook did: a short note for the log, and the text to print, if any."""

    note: str
    output: str | None = None


def redacted(text: str) -> str:
    """``text`` as a hook writes or prints it. The scanner loads only in the hooks that write
    free text: building its expression is the largest part of a hook call."""
    from purlin_resume.core import redact

    return redact.redact(text).text


def phase_and_plan(*texts: str | None) -> tuple[str, str]:
    for text in texts:
        match = _PHASE_PLAN.search(text or "")
        if match:
            return match.group(1), match.group(2)
    return NONE, NONE


# --- agents ------------------------------------------------------------------------------------


def agent_spawned(project: Project, payload: HookPayload) -> Outcome:
    """PreToolUse on Agent/Task: record the spawn under its tool_use_id, with the whole prompt
    (redacted) and, when the same assistant message spawns others, their parallel group."""
    if not payload.spawns_agent or not payload.tool_use_id:
        return Outcome("not an agent spawn")
    description, prompt = _texts(payload)
    phase, plan = phase_and_plan(description, prompt)
    task = " ".join((description or prompt or payload.tool_name or "agent").split())
    task = redacted(task)[:300]  # the history is committed: no secret goes into it
    batch = _spawn_batch(payload)
    request = history.NewAgent(
        agent_id=payload.tool_use_id,
        task=task,
        phase=phase,
        plan=plan,
        prompt=prompt,
        tool_use_id=payload.tool_use_id,
    )
    siblings = batch.tool_use_ids if batch else ()
    group = _new_group(batch, phase, plan) if batch else None
    recorded = tracking.spawn_call(project, request, payload.session_id, siblings, group)
    if recorded is None:
        return Outcome(f"{payload.tool_use_id} already recorded")
    group = recorded.entry.get("parallel_group")
    return Outcome(
        f"spawned {payload.tool_use_id}" + (f" in parallel group {group}" if group else "")
    )


def _text_input(tool_input: dict, name: str) -> str | None:
    value = tool_input.get(name)
    return value if isinstance(value, str) and value.strip() else None


def _spawn_batch(payload: HookPayload):
    """The spawns of the assistant message this call belongs to, when it holds several."""
    if not payload.transcript_path or not payload.tool_use_id:
        return None

    batch = records.spawn_batch(Path(payload.transcript_path), payload.tool_use_id)
    return batch if batch is not None and len(batch.tool_use_ids) > 1 else None


def _new_group(batch, phase: str, plan: str) -> str:
    """A parallel group for ``batch`` in the GSD format (``phase-PHASE-batch-UNIX``, then the
    end of the message id, so two batches started in the same second by different sessions
    stay apart); used when no sibling has one yet."""
    moment = clock.parse(batch.timestamp) or clock.now()
    tail = "".join(c for c in batch.message_id if c.isalnum())[-6:]
    return f"{history.group_id('plan', phase, plan, moment)}-{tail}"


def _agent_transcript(payload: HookPayload, agent_id: str) -> Path | None:
    """Where Claude Code keeps the subagent's transcript, beside the session's."""
    explicit = payload.text("agent_transcript_path")
    if explicit:
        return Path(explicit)
    if not payload.transcript_path:
        return None
    return subagents.agent_path(Path(payload.transcript_path), agent_id)


def _finished_status(
    agent, said_interrupted: bool = False, said_answer: bool = False, api_error: bool = False
) -> str:
    """completed; interrupted when the user stopped the agent (its transcript ends with the
    interruption, or the hook payload says so); failed when it ended without an answer or
    with an API error. ``said_answer``: the hook payload carries the agent's last answer, which
    counts even when its record has not reached the transcript yet (Claude Code may run the
    hook first)."""
    from purlin_resume.claude.transcript import INTERRUPTION

    if said_interrupted:
        return history.INTERRUPTED
    if api_error:
        return history.FAILED
    if agent is None:
        return history.COMPLETED
    last = next((t for t in reversed(agent.turns) if t.counts or t.kind == INTERRUPTION), None)
    if last is not None and last.kind == INTERRUPTION:
        return history.INTERRUPTED
    if (last is None or not agent.final_output) and not said_answer:
        return history.FAILED
    return history.COMPLETED


def interrupted_text(value) -> bool:
    """Whether a hook payload value (text, blocks, a tool response) carries Claude Code's
    ``[Request interrupted by user…]`` marker or an interrupted status."""
    if isinstance(value, str):
        return records.INTERRUPTED_MARK in value
    if isinstance(value, dict):
        if value.get("status") in ("interrupted", "cancelled", "canceled", "killed"):
            return True
        return any(interrupted_text(value.get(key)) for key in ("content", "text", "error"))
    if isinstance(value, list):
        return any(interrupted_text(item) for item in value[:50])
    return False


def said_api_error(text) -> bool:
    """Whether a text the client sent (a tool response's, an agent's last message) is its
    report of an API error."""
    return isinstance(text, str) and bool(_API_ERROR.match(text.strip()))


def agent_returned(project: Project, payload: HookPayload) -> Outcome:
    """PostToolUse on Agent/Task: the spawn entry gets its agent id; completed unless async."""
    if not payload.spawns_agent or not payload.tool_use_id:
        return Outcome("not an agent spawn")
    response = payload.tool_response
    agent_id = response.get("agentId") if isinstance(response.get("agentId"), str) else None
    if not agent_id:
        return Outcome(f"{payload.tool_use_id}: no agentId in the tool response")
    batch = _spawn_batch(payload)  # the message is in the transcript by now
    siblings = batch.tool_use_ids if batch else ()
    group = _new_group(batch, *phase_and_plan(*_texts(payload))) if batch else None
    spawn = tracking.of_call(payload.tool_use_id)
    if response.get("status") == ASYNC_LAUNCHED:
        note = tracking.conclude(project, agent_id, None, spawn, siblings, group)
        return Outcome(f"{note}, launched in the background, still running")

    def how() -> tuple[str, list[str]]:  # only while it runs: SubagentStop may have said already
        path = _agent_transcript(payload, agent_id)
        agent = tracking.read_agent(path)
        said = records.text_of(response.get("content"))
        failed = said_api_error(said) or subagents.api_error(path) is not None
        status = _finished_status(agent, interrupted_text(response), True, failed)
        return status, tracking.changed_files(project.root, agent)

    return Outcome(tracking.conclude(project, agent_id, how, spawn, siblings, group))


def _texts(payload: HookPayload) -> tuple[str | None, str | None]:
    """The description and the prompt of an Agent/Task call."""
    return _text_input(payload.tool_input, "description"), _text_input(payload.tool_input, "prompt")


def _unnamed_spawn(doc, payload: HookPayload, agent):
    """The entry of the still unnamed spawn that ``agent`` is (SubagentStop comes first)."""
    waiting = [
        e
        for e in doc.latest_with(*history.RUNNING_STATUSES)
        if e.agent_id.startswith(TOOL_USE_PREFIX)
        and (payload.session_id is None or e.session_id in (None, payload.session_id))
    ]
    if len(waiting) <= 1 or agent is None:
        return waiting[0] if len(waiting) == 1 else None
    parent = Path(payload.transcript_path) if payload.transcript_path else None
    if parent is None or not parent.is_file():
        return None
    from purlin_resume.claude import transcript

    reading = transcript.read(parent, parent.stem)
    ids = {e.agent_id: e for e in waiting}
    for tool_use_id, linked in reading.progress_links.items():
        if linked == agent.agent_id and tool_use_id in ids:
            return ids[tool_use_id]
    prompt = (agent.first_prompt or "").strip()
    for call in reading.main.tool_calls():
        if (
            call.id in ids
            and isinstance(call.input, dict)
            and str(call.input.get("prompt") or "").strip() == prompt
        ):
            return ids[call.id]
    return None


def agent_stopped(project: Project, payload: HookPayload) -> Outcome:
    """SubagentStop: completed or failed, with the files the agent changed. A compaction run
    (Claude Code sends SubagentStop for it too) is no agent of the history."""
    agent_id = payload.text("agent_id")
    if not agent_id:
        return Outcome("no agent_id in the payload")
    if payload.compaction_run:
        return Outcome(f"{agent_id}: a compaction run")
    path = _agent_transcript(payload, agent_id)
    agent = tracking.read_agent(path)
    if agent is not None:
        agent.agent_id = agent_id
    message = payload.data.get("last_assistant_message")
    said = interrupted_text(message)
    answered = isinstance(message, str) and bool(message.strip())
    failed = said_api_error(message) or subagents.api_error(path) is not None
    ending = _finished_status(agent, said, answered, failed)
    files = tracking.changed_files(project.root, agent)
    return Outcome(
        tracking.conclude(
            project,
            agent_id,
            lambda: (ending, files),
            lambda doc: _unnamed_spawn(doc, payload, agent),
        )
    )


def agent_started(
    project: Project, payload: HookPayload, env: Mapping[str, str] = os.environ
) -> Outcome:
    """SubagentStart. Claude Code: the spawn of this agent's tool call (as its ``.meta.json``
    names it, else the session's one spawn still unnamed) gets the agent's id, so an agent cut
    off before its call returns is known by its own id. Another agent CLI (``hook --cli``):
    see ``subagent_started``."""
    if env.get(AGENT_CLI_ENV):
        return subagent_started(project, payload)
    agent_id = payload.text("agent_id")
    if not agent_id:
        return Outcome("no agent_id in the payload")
    if payload.compaction_run:
        return Outcome(f"{agent_id}: a compaction run")
    session = Path(payload.transcript_path) if payload.transcript_path else None
    call = subagents.call_of(subagents.meta_of(session, agent_id)) if session else None
    spawn = tracking.of_call(call) if call else (lambda doc: _unnamed_spawn(doc, payload, None))
    return Outcome(tracking.conclude(project, agent_id, None, spawn))


def prompt_submitted(project: Project, payload: HookPayload) -> Outcome:
    """UserPromptSubmit: the running agents of this session that ended without a hook saying
    so are recorded: a background agent's end the prompt notifies, a foreground agent the user
    stopped (its call's error result), a background agent the user stopped (its
    ``.meta.json``), an agent inside a stopped agent (its own transcript)."""
    running = tracking.running(project, payload.session_id)
    if not running or not payload.transcript_path:
        return Outcome("no running agent of this session")
    session = Path(payload.transcript_path)
    size = _size(session)
    notified = subagents.notifications(payload.text("prompt"))
    endings = [_ending(project, session, entry, notified) for entry in running]
    if _QUEUED in endings:
        _wait_for_write(session, size)
        endings = [_ending(project, session, entry, notified) for entry in running]
    endings = _stopped_with_spawner(project, session, running, endings)
    notes = tracking.end(project, [e for e in endings if isinstance(e, tracking.Ending)])
    return Outcome("; ".join(notes) or "no agent ended")


# A running agent whose call the session's transcript holds without a result. A prompt comes
# between turns (a background call's result came at launch), so the call has ended and its
# result still waits in Claude Code's write queue; a message typed while an agent works is
# written too, which ends the wait. (A call made inside another agent is in its transcript.)
_QUEUED = "queued"


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _wait_for_write(session: Path, size: int | None, seconds: float = 0.5) -> None:
    """Wait until the transcript is longer than ``size``, at most ``seconds``: Claude Code
    appends what it queued (the stopped call's result, the prompt itself) every 100 ms."""
    deadline = time.monotonic() + seconds
    while size is not None and _size(session) == size and time.monotonic() < deadline:
        time.sleep(0.02)


def _stopped_with_spawner(project: Project, session: Path, running: list, endings: list) -> list:
    """``endings`` with the agents still running whose spawning call sits unanswered (or
    answered with an error) in the transcript of an agent found stopped: Esc stopped them with
    it, though their own transcript may not say so yet (the client writes it a moment later)."""
    endings = list(endings)
    found = True
    while found:
        found = False
        stopped = [
            subagents.agent_path(session, e.agent_id)
            for e in endings
            if isinstance(e, tracking.Ending) and e.status == history.INTERRUPTED and e.agent_id
        ]
        for n, entry in enumerate(running):
            if endings[n] is None and _cut_off_in(session, entry, stopped):
                path = subagents.agent_path(session, entry.agent_id)
                files = tuple(tracking.changed_files(project.root, tracking.read_agent(path)))
                endings[n] = tracking.Ending(
                    entry.agent_id, history.INTERRUPTED, entry.agent_id, files
                )
                found = True
    return endings


def _cut_off_in(session: Path, entry, transcripts: list[Path | None]) -> bool:
    """Whether ``entry``'s spawning call is in one of ``transcripts`` with no answer or an error."""
    if entry.agent_id.startswith(TOOL_USE_PREFIX):
        return False
    call = entry.data.get("tool_use_id") or subagents.call_of(
        subagents.meta_of(session, entry.agent_id)
    )
    if not isinstance(call, str) or not call:
        return False
    for path in filter(None, transcripts):
        made, result = subagents.call_state(path, call)
        if made and (result is None or result.get("is_error") is True):
            return True
    return False


def _ending(project: Project, session: Path, entry, notified) -> tracking.Ending | str | None:
    """How the running ``entry`` ended, from what its session shows; None: still running;
    ``_QUEUED``: its call's result is not written yet."""
    call = entry.data.get("tool_use_id") or None
    agent_id = entry.agent_id
    if agent_id.startswith(TOOL_USE_PREFIX):
        call, agent_id = agent_id, subagents.spawned_by(session, agent_id)
    meta = subagents.meta_of(session, agent_id) if agent_id else {}
    path = subagents.agent_path(session, agent_id) if agent_id else None
    notice = next((n for n in notified if {n.tool_use_id, n.task_id} & {call, agent_id}), None)
    made, result = subagents.call_state(session, call) if call and notice is None else (False, None)
    if notice is not None and notice.status in NOTIFIED:
        status = NOTIFIED[notice.status]
    elif result is not None and result.get("is_error") is True:
        status = history.INTERRUPTED  # the user stopped the call ("User rejected tool use")
    elif meta.get(subagents.STOPPED_BY_USER) is True or subagents.stopped(path):
        status = history.INTERRUPTED
    else:
        return _QUEUED if made and result is None else None
    if status == history.COMPLETED and subagents.api_error(path) is not None:
        status = history.FAILED
    files = tracking.changed_files(project.root, tracking.read_agent(path))
    return tracking.Ending(entry.agent_id, status, agent_id, tuple(files))


# --- checkpoints ---------------------------------------------------------------------------------


def pre_compact(
    project: Project, payload: HookPayload, env: Mapping[str, str] = os.environ
) -> Outcome:
    """Write the automatic checkpoint of this session from its transcript (Codex CLI's
    rollout, Gemini CLI's chat file when ``hook --cli`` names them)."""
    from purlin_resume.agentcli.names import GEMINI
    from purlin_resume.agents import handover, registry
    from purlin_resume.checkpoints import autosave
    from purlin_resume.checkpoints import lifecycle as checkpoints

    cli = env.get(AGENT_CLI_ENV)
    if cli == GEMINI and payload.text("trigger") != "manual":
        return Outcome("Gemini CLI asks before every request, full context or not: no checkpoint")
    path = Path(payload.transcript_path) if payload.transcript_path else None
    if path is None or not path.is_file():
        return Outcome("no transcript to checkpoint")
    session = checkpoints.session_id(payload.session_id, env={})
    saved_by_agent = _saved_by_agent(project, session)
    if saved_by_agent is not None:
        return Outcome(f"kept the checkpoint the agent saved: {saved_by_agent}")
    agents = registry.load(project)
    agent = agents.get(payload.session_id or "")
    git = checkpoints.in_git(project)
    cp = autosave.build(
        _session_transcript(project, payload, path, cli),
        role=session_role(project, session, agent.role if agent else None),
        timestamp=clock.iso(),
        branch=gitrepo.branch(project.root) if git else "",
        uncommitted=checkpoints.uncommitted(project, git),
        session=session,
        trigger=payload.text("trigger"),
        root=project.root,
        carried=handover.carried(project, session, agents),
    )
    saved = checkpoints.save(project, cp, git)
    aside = f" (the unreadable one kept at {saved.kept_aside})" if saved.kept_aside else ""
    return Outcome(f"checkpoint written: {saved.path}{aside}")


def _session_transcript(project: Project, payload: HookPayload, path: Path, cli: str | None):
    """The session's conversation, read by the reader of the CLI that called (none: Claude
    Code)."""
    from purlin_resume.agentcli.names import CODEX, GEMINI
    from purlin_resume.checkpoints.autosave import READ_OPTIONS

    if cli in (CODEX, GEMINI):
        from purlin_resume.crosscli import sources
        from purlin_resume.gemini import chats

        files = chats.parts(path) if cli == GEMINI else []
        reference = payload.session_id if cli == CODEX else (files, None, str(project.root))
        return sources.read_source(str(path), cli, reference, READ_OPTIONS).transcript
    from purlin_resume.claude import transcript

    return transcript.read(path, path.stem, READ_OPTIONS).main


def _saved_by_agent(project: Project, session: str | None) -> Path | None:
    """This session's live checkpoint that the agent saved itself (an unreadable one counts:
    it is the agent's to fix), else None. The single-agent file is the session's when it names
    the session, or when there is no session."""
    from purlin_resume.checkpoints import autosave
    from purlin_resume.checkpoints import lifecycle as checkpoints

    for found in checkpoints.live(project):
        if found.session != session and not (
            found.session is None and found.checkpoint and found.checkpoint.session == session
        ):
            continue
        if found.checkpoint is None or not autosave.is_automatic(found.checkpoint):
            return found.path
    return None


def session_role(project: Project, session: str | None, registered: str | None) -> str:
    """The role of a session: the one it was started with, else the role of its own newest
    checkpoint (saved or automatic, live or consumed), else the default."""
    from purlin_resume.checkpoints import autosave
    from purlin_resume.checkpoints import lifecycle as checkpoints
    from purlin_resume.checkpoints.roles import ROLES

    if registered in ROLES:
        return registered
    if session:
        own = checkpoints.of_session(project, session)
        if own and own[0].role in ROLES:
            return own[0].role
    return autosave.DEFAULT_ROLE


# --- sessions -----------------------------------------------------------------------------------


def session_started(
    project: Project, payload: HookPayload, env: Mapping[str, str] = os.environ
) -> Outcome:
    """Register the session, mark orphaned agents interrupted, return the briefing if one is due."""
    from purlin_resume.agents import handover, registry
    from purlin_resume.checkpoints import lifecycle as checkpoints
    from purlin_resume.checkpoints.roles import ROLE_ENV, ROLES
    from purlin_resume.core import config, processes
    from purlin_resume.integration import session_briefing

    notes = []
    role = env.get(ROLE_ENV, "").strip().lower() or None
    previous = env.get("PURLIN_PREVIOUS_AGENT_ID") or None
    running = registry.running_session(payload.session_id, previous, env.get("PURLIN_AGENT_ID"))
    if payload.session_id and running:  # running is set exactly when the payload names one
        agents = registry.record_start(
            project,
            running,
            pid=processes.agent_pid(),
            cwd=payload.cwd,
            transcript_path=_transcript_of(payload, running),
            tmux_pane=env.get("TMUX_PANE") or None,
            tmux_socket=_tmux_socket(env),
            role=role if role in ROLES else None,
            previous_agent_id=previous if previous != running else None,
            cli=env.get(AGENT_CLI_ENV) or None,
            source=payload.source,
        )
        notes.append(f"registered {running}")
        notes += _resurrection_started(payload.session_id, env)
    else:
        agents = registry.load(project)
    settings, settings_note = config.load_or_defaults(project)
    if history.path(project).exists():
        try:
            marked = tracking.scan(project, settings, agents=agents)
            notes += [f"interrupted {d.entry['agent_id']}" for d in marked]
        except PurlinError as exc:  # the briefing says so in its subagents part
            notes.append(f"agent history not scanned: {exc.message}")
    session = checkpoints.session_id(running, env={}) if running else None
    standing = handover.standing(project, session, agents)
    request = session_briefing.Request(
        source=payload.source or "startup",
        session=session,
        role=role if role in ROLES else standing.role,
        standing=standing,
        settings=settings,
        settings_note=settings_note,
    )
    text = session_briefing.compose(project, request)
    line = recommendation_line(project, settings, payload, notes)
    if line:
        text = f"{text}\n\n{line}" if text else line
    return Outcome("; ".join(notes) or "nothing to do", text)


def _transcript_of(payload: HookPayload, session: str) -> str | None:
    """The transcript of ``session``: the reported one, renamed for a fork's new id (the
    registry keeps the one it has when this one does not exist and that one does)."""
    reported = payload.transcript_path
    if reported and session != payload.session_id:  # a fork: its own new file
        return str(Path(reported).with_name(f"{session}.jsonl"))
    return reported


def recommendation_line(
    project: Project, settings, payload: HookPayload, notes: list[str]
) -> str | None:
    """One line naming who worked on this before, when a candidate clears the threshold
    (``recommend_in_briefing``). It reads the search index as it is (never builds it: a hook
    stays fast), and a failure here costs only this line (named in the hook's notes)."""
    if not settings.recommend_in_briefing:
        return None
    from purlin_resume.claude import layout
    from purlin_resume.core import cache_home

    try:
        claude_root, _ = layout.config_dir(None)
        if not cache_home.index_path(claude_root, Path(cache_home.folder())).exists():
            return None  # no search index yet: nothing to recommend from, nothing to load
        from purlin_resume.resurrection import environment, recommendation

        env = environment.environment(None, project.root, settings)
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

    what = f"{best.label()}" + (f" ({best.title})" if best.title else "")
    line = (
        f"Worked on this before: {what}: {best.why}. "
        "Bring its expertise back with `purlin-resume resurrect --recommended 1`."
    )
    return redacted(line)


def _tmux_socket(env: Mapping[str, str]) -> str | None:
    """The socket of the tmux server the session runs in (``$TMUX``): a pane id means nothing
    without it."""
    from purlin_resume.core.tmux import Server

    server = Server.of_client(env)
    return str(server.socket) if server is not None else None


def _resurrection_started(session_id: str, env: Mapping[str, str]) -> list[str]:
    """A resurrected agent's first session start names it in the resurrection log entry that
    made it (``$PURLIN_RESURRECTION_ID``, set by ``resurrect --spawn``)."""
    wanted = env.get("PURLIN_RESURRECTION_ID", "").strip()
    if not wanted:
        return []

    if not ids.RESURRECTION.valid(wanted):
        raise ValueError(f"$PURLIN_RESURRECTION_ID: {ids.RESURRECTION.problem(wanted)}")

    from purlin_resume.claude import layout
    from purlin_resume.resurrection import log as resurrection_log

    explicit = env.get("CLAUDE_CONFIG_DIR")
    folder, _ = layout.config_dir(Path(explicit) if explicit else None)
    log = folder / "history" / resurrection_log.FILE_NAME
    resurrection_log.complete(log, wanted, {"resurrected_as_agent_id": session_id})
    return [f"resurrection {wanted} started as {session_id}"]


def session_ended(project: Project, payload: HookPayload) -> Outcome:
    from purlin_resume.agents import registry  # a session event: see the module's imports

    if not payload.session_id:
        return Outcome("no session id")
    registry.record_end(project, payload.session_id)
    return Outcome(f"ended {payload.session_id}")


def subagent_started(project: Project, payload: HookPayload) -> Outcome:
    """SubagentStart (Codex CLI): a ``spawned`` entry in the agent history under the subagent's
    own id, its task from the payload's prompt or role; SubagentStop completes it."""
    agent_id = payload.text("agent_id")
    if not agent_id:
        return Outcome("no agent id")
    described = payload.text("prompt") or payload.text("task") or payload.text("agent_type")
    task = redacted(" ".join((described or "subagent").split()))[:300]
    phase, plan = phase_and_plan(described)
    request = history.NewAgent(
        agent_id=agent_id,
        task=task,
        phase=phase,
        plan=plan,
        prompt=payload.text("prompt"),
    )
    if tracking.spawn_call(project, request, payload.session_id) is None:
        return Outcome(f"{agent_id} already recorded")
    return Outcome(f"spawned {agent_id}")


HANDLERS: dict[str, Callable[..., Outcome]] = {  # those of TAKES_ENV take the environment too
    "PreToolUse": agent_spawned,
    "PostToolUse": agent_returned,
    "SubagentStart": agent_started,
    "SubagentStop": agent_stopped,
    "UserPromptSubmit": prompt_submitted,
    "PreCompact": pre_compact,
    "SessionStart": session_started,
    "SessionEnd": session_ended,
}
TAKES_ENV = frozenset({"SessionStart", "SubagentStart", "PreCompact"})
