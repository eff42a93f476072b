"""The MCP tools, over the library: search, read, resurrect, resume, checkpoint, agents.

Every result is a JSON object whose text values are redacted one by one before it leaves
(``redact.redact_data``); a transcript is redacted before it is cut into pages, so a page never
holds half a secret. Expected failures (unknown id, corrupt file, bad argument) come back as
MCP tool errors with the same one line the CLI prints; nothing is written on a failure.

Paths: the only path argument is ``project``; it gets the CLI's ``--project`` checks (an existing
folder) and refuses control characters. Without it the project is ``$CLAUDE_PROJECT_DIR`` (what
Claude Code sets for the servers it starts), else the git top-level of the working directory.
The Claude data folder is the server's (``--claude-dir``, else ``$CLAUDE_CONFIG_DIR``, else
``~/.claude``), never an argument.

Each tool is a function whose signature is its input schema (``protocol.Tool``); it imports
what it needs when it is called, so the server answers ``initialize`` as soon as it starts.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from purlin_resume.mcp.protocol import Tool, ToolError

T = TypeVar("T")
MAX_TEXT = 2000  # a query, an id or a field the model passes
PAGE_CHARS = 20_000
MAX_PAGE_CHARS = 50_000
MIN_PAGE_CHARS = 1_000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
TOOLS: dict[str, Tool] = {}
_SERVED: dict[str, Path | None] = {"claude_dir": None}  # what ``serve`` was given

INSTRUCTIONS = (
    "purlin-resume gives continuity to Claude Code agents. search_sessions finds earlier "
    "sessions by what happened in them; get_transcript reads one page by page; "
    "resurrection_context gives the briefing that brings an earlier agent's knowledge back; "
    "list_interrupted_subagents and resume_task_briefing resume subagents cut off mid-task; "
    "save_checkpoint saves where this session stands before its context runs out; "
    "agents_status shows the registered agents. Results are redacted."
)


def tool(function: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    TOOLS[function.__name__] = Tool(function)
    return function


def _claude_dir() -> Path | None:
    return _SERVED["claude_dir"]


def _out(data: Any) -> dict[str, Any]:
    """``data`` as plain JSON with every text value redacted."""
    from purlin_resume.core import redact

    plain = json.loads(json.dumps(data, default=str))
    return redact.redact_data(plain)[0]


def _shortened(entry: dict[str, Any]) -> dict[str, Any]:
    """A history entry (redacted) with each text past ``MAX_TEXT`` cut, saying how long it is:
    a committed file may hold a prompt of megabytes, which would fill the model's context."""
    return {
        key: f"{value[:MAX_TEXT]}… ({len(value)} characters)"
        if isinstance(value, str) and len(value) > MAX_TEXT
        else value
        for key, value in entry.items()
    }


def _guard(work: Callable[[], T]) -> T:
    from purlin_resume.core import redact
    from purlin_resume.core.errors import PurlinError

    try:
        _redaction()
        return work()
    except PurlinError as exc:
        raise ToolError(redact.redact(exc.message).text) from None


def _redaction() -> None:
    """Redact with the user's own rules and the session's project's, as the CLI does (set up
    at the first call; a config that cannot be read fails every call, as it fails a command)."""
    from purlin_resume.core import config
    from purlin_resume.core.errors import PurlinError

    if "redaction" in _SERVED:
        return
    try:
        project = _own_project()
    except PurlinError:  # no project: the user's own settings still apply
        project = None
    config.apply_redaction(config.load(project))
    _SERVED["redaction"] = project.root if project else None


def _passed_over(refused: dict[str, list[Path]] | None = None) -> dict[str, list[str]]:
    """``passed_over``: a line for each folder of an agent CLI this user may not list (its
    sessions are neither listed nor searched: ``crosscli.passed_over``; ``refused``: what a
    search's walk has just noted)."""
    from purlin_resume.claude import layout
    from purlin_resume.crosscli import sessions as crosscli

    root = layout.config_dir(_claude_dir())[0]
    return {"passed_over": crosscli.passed_over(root, refused)}


def _text(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    if len(value) > MAX_TEXT:
        raise ToolError(f"{name}: at most {MAX_TEXT} characters")
    if _CONTROL.search(value):
        raise ToolError(f"{name}: control characters are not allowed")
    return value


def _own_project():
    """The project the server serves: ``$CLAUDE_PROJECT_DIR``, else the folder it was started in
    (a tool's ``project`` argument cannot stand in for it: it is checked against it)."""
    from purlin_resume.core.errors import PurlinError
    from purlin_resume.core.project import locate

    given = os.environ.get("CLAUDE_PROJECT_DIR")
    try:
        return locate(cwd=Path(given)) if given and Path(given).is_dir() else locate()
    except PurlinError as exc:
        raise PurlinError(
            f"this MCP server serves no project: {exc.message.split(';')[0]}; start it in the "
            "project's folder (Claude Code starts it there and sets $CLAUDE_PROJECT_DIR)"
        ) from None


def _project(project: str | None):
    """The session's own project; another only when the user's settings list it
    (``mcp_projects``): a model must not write into, or read, any repository it names."""
    from purlin_resume.core import config, store
    from purlin_resume.core.errors import PurlinError
    from purlin_resume.core.project import locate

    own = _own_project()
    if project is None:
        return own
    _text(project, "project")
    asked = locate(Path(project), named="project")
    allowed = {os.path.realpath(own.root)} | {
        os.path.realpath(os.path.expanduser(p)) for p in config.load(own).mcp_projects
    }
    if os.path.realpath(asked.root) not in allowed:
        raise PurlinError(
            f"project {project}: this server works on {own.root} only; list other projects in "
            f"resume.mcp_projects of {store.user_settings()}"
        )
    return asked


def _environment(project: str | None):
    from purlin_resume.core import config
    from purlin_resume.core.errors import PurlinError
    from purlin_resume.resurrection import flow as resurrection

    try:
        found = _project(project)
    except PurlinError:
        if project is not None:
            raise
        found = None  # searching needs no project
    settings = config.load(found) if found else config.Settings()
    return resurrection.environment(_claude_dir(), found.root if found else None, settings)


@tool
def search_sessions(query: str, limit: int = 10, project: str | None = None) -> dict[str, Any]:
    """Find earlier sessions and subagents of Claude Code, Codex CLI, Gemini CLI and opencode,
    of every project, by what happened in them (words, file names, branch, time words such as
    'yesterday'), ranked, with why each matched and the command that continues it in Claude
    Code (none for another CLI's session: get_transcript reads it)."""
    _text(query, "query")
    if not query.strip():
        raise ToolError("query: give words to search for")
    if not 1 <= limit <= 50:
        raise ToolError("limit: between 1 and 50")

    def work():
        from purlin_resume.resurrection import flow as resurrection
        from purlin_resume.resurrection.candidates import open_command

        env = _environment(project)
        refused: dict[str, list[Path]] = {}
        found = resurrection.by_search(env, query, limit, refused=refused)
        results = [{**c.to_dict(), "open": open_command(c)} for c in found]
        return _out({"query": query, "results": results, **_passed_over(refused)})

    return _guard(work)


@tool
def get_transcript(
    id: str, page: int = 1, page_chars: int = PAGE_CHARS, include_tools: bool = False
) -> dict[str, Any]:
    """One page of a session's or subagent's conversation (Claude Code, Codex CLI, Gemini CLI
    or opencode) as Markdown (redacted). Give the session or agent id (or a unique prefix); ask
    for page 2, 3, ... while page < pages."""
    _text(id, "id")
    if page < 1:
        raise ToolError("page: 1 or more")
    if not MIN_PAGE_CHARS <= page_chars <= MAX_PAGE_CHARS:
        raise ToolError(f"page_chars: between {MIN_PAGE_CHARS} and {MAX_PAGE_CHARS}")

    def work():
        from purlin_resume.claude import rendering, transcript_output
        from purlin_resume.claude.transcript import ReadOptions
        from purlin_resume.core import redact
        from purlin_resume.resurrection import archive

        options = ReadOptions(tools=include_tools)
        opened, _ = archive.open_conversation(_claude_dir(), id, options)
        markdown = transcript_output.markdown(
            opened, rendering.MarkdownOptions(tools=include_tools)
        )
        done = redact.redact(markdown)
        pages = max(1, math.ceil(len(done.text) / page_chars))
        if page > pages:
            raise ToolError(f"page: the transcript has {pages} page(s)")
        start = (page - 1) * page_chars
        return _out(
            {
                "id": opened.target.id,
                "kind": transcript_output.kind(opened),
                "cli": opened.transcript.cli if opened.transcript is not None else "claude",
                "page": page,
                "pages": pages,
                "chars": len(done.text),
                "redactions": done.counts,
                "text": done.text[start : start + page_chars],
            }
        )

    return _guard(work)


@tool
def resurrection_context(
    session_id: str,
    agent_id: str | None = None,
    method: Literal["full", "summarized", "hybrid"] = "hybrid",
    task: str | None = None,
    project: str | None = None,
) -> dict[str, Any]:
    """The briefing that brings an earlier agent's knowledge back (its context, compressed
    and redacted), for a new agent to start from; nothing is started or logged."""
    _text(session_id, "session_id")
    _text(agent_id, "agent_id")
    _text(task, "task")

    def work():
        from purlin_resume.resurrection import flow as resurrection

        env = _environment(project)
        candidate = resurrection.direct(session_id, agent_id)
        planned = resurrection.plan(env, candidate, "direct", session_id, method, task, True)
        start = f"purlin-resume resurrect --session {planned.source_session}" + (
            f" --agent {planned.source_agent}" if planned.source_agent else ""
        )
        return _out({**planned.to_dict(), "prompt": planned.prompt, "start_with": start})

    return _guard(work)


@tool
def list_interrupted_subagents(project: str | None = None) -> dict[str, Any]:
    """Subagents cut off mid-task (.planning/agent-history.json, status interrupted)."""

    def work():
        from purlin_resume.history import agent_history as history

        where = _project(project)
        if not history.path(where).exists():  # no subagent recorded yet: none interrupted
            return _out({"path": str(history.path(where)), "interrupted": [], **_passed_over()})
        doc = history.load(where)
        chosen = history.select(doc, "interrupted", None, False)
        interrupted = [e.data for e in chosen]
        answer = _out({"path": str(doc.path), "interrupted": interrupted, **_passed_over()})
        answer["interrupted"] = [_shortened(entry) for entry in answer["interrupted"]]
        return answer

    return _guard(work)


@tool
def resume_task_briefing(
    agent_id: str | None = None,
    project: str | None = None,
    ref: str | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Resume an interrupted subagent (the most recent one when no id is given): records it
    as resumed and returns the briefing for the agent that takes the task over, with the
    files changed since it was spawned. A conflict with what others changed stops it; ``ref``
    names the branch or commit holding the agent's work to check against, ``force`` resumes
    anyway."""
    _text(agent_id, "agent_id")
    _text(ref, "ref")

    def work():
        from purlin_resume.core import config
        from purlin_resume.history import resumption

        where = _project(project)
        done = resumption.resume(
            where, config.load(where), wanted=agent_id, batch=False, force=force, ref=ref
        )
        return _out(done.to_dict())

    return _guard(work)


@tool
def save_checkpoint(
    role: Literal["architect", "builder", "qa"],
    in_progress: str | None = None,
    done: list[str] | None = None,
    next: list[str] | None = None,
    feature: str | None = None,
    notes: str | None = None,
    fields: dict[str, str | list[str]] | None = None,
    session_id: str | None = None,
    project: str | None = None,
) -> dict[str, Any]:
    """Save where this session stands (what is in progress, done, next) before its context
    runs out; the next session's start or /pl-resume restores it. ``fields`` holds the
    role's own fields: builder step (0-4), step_note, delivery_plan, work_queue, pending_decisions;
    qa scenario_progress, current_scenario, discoveries, verification_queue; architect
    spec_reviews, discovery_processing. The checkpoint is keyed by ``session_id``, else by the
    session the Claude Code that started this server runs now (it changes at ``/clear``), else
    by the session of the server's environment."""
    from purlin_resume.checkpoints import format as checkpoint

    extra = dict(fields or {})
    known = sorted({*checkpoint.FIELDS_BY_KEY, "step_note"} - set(_save_arguments()))
    unknown = sorted(set(extra) - set(known))
    if unknown:
        raise ToolError(f"fields: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    given = {"in_progress": in_progress, "feature": feature, "notes": notes, "done": done}
    for name, value in [*given.items(), ("next", next), *extra.items()]:
        items = value if isinstance(value, list) else [value]
        if len(items) > 100:
            raise ToolError(f"{name}: at most 100 items")
        for item in items:
            _text(item, name)

    def work():
        from purlin_resume.agents import handover, registry
        from purlin_resume.checkpoints import lifecycle as checkpoints
        from purlin_resume.core import processes

        where = _project(project)
        serving = registry.session_of_process(where, processes.agent_pid())
        session = checkpoints.session_id(session_id or serving)
        values = {**extra, **given, "next": next}
        values = {k: v for k, v in values.items() if v not in (None, [])}
        before_clear = handover.earlier(where, session)
        saved, cp = checkpoints.take(where, role, values, session, spelled=_as_written)
        moved = [where.relative(p) for p in handover.superseded(where, before_clear)]
        aside = str(saved.kept_aside) if saved.kept_aside else None  # whole: any project's
        shown = {"path": str(saved.path), "kept_aside": aside, **checkpoint.as_dict(cp)}
        return _out({**shown, "superseded": moved} if moved else shown)

    return _guard(work)


def _as_written(field) -> str:
    """A checkpoint field as a save_checkpoint caller writes it: an argument of its own
    (``next``), else inside ``fields`` (``fields.step``)."""
    return field.key if field.key in _save_arguments() else f"fields.{field.key}"


def _save_arguments() -> tuple[str, ...]:
    return TOOLS["save_checkpoint"].arguments.__struct_fields__


@tool
def agents_status(project: str | None = None) -> dict[str, Any]:
    """The registered agents of the project: alive or dead and why, role, lineage."""

    def work():
        from purlin_resume.agents import lineage, registry
        from purlin_resume.agents.stall import server_of
        from purlin_resume.core import config

        where = _project(project)
        statuses = lineage.statuses(registry.load(where), server_of(config.load(where)))
        agents = [s.to_dict() for s in statuses]
        return _out({"project": str(where.root), "agents": agents, **_passed_over()})

    return _guard(work)


def serve(claude_dir: Path | None = None) -> None:
    """Answer MCP requests on stdin/stdout until the client closes them."""
    from purlin_resume import __version__
    from purlin_resume.mcp import protocol

    _SERVED["claude_dir"] = claude_dir
    protocol.serve("purlin-resume", __version__, INSTRUCTIONS, TOOLS)
