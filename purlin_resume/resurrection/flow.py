"""Resurrection: an old agent's expertise brought back as a new agent (seed 000, FR-1 … FR-8).

Three ways to name the agent: a bookmark (``bookmark``), a search (``fuzzy``), its ids
(``direct``). The chosen conversation is read from the transcripts (or from the bookmark's
archive when Claude Code has deleted them), checked (``preflight``), compressed (``compress``),
rendered into ``templates/prompts/resurrection.md.j2`` and redacted. The original agent is never
modified: every resurrection is a new agent with a new id, logged in the resurrection log.

Extracted contexts are kept for ``context_cache_seconds`` (5 minutes) in the cache's
``contexts`` table (``core/cache_home``), keyed by the transcript files' signatures, the agent
and the method; only redacted contexts are kept.
"""

from __future__ import annotations

import functools
import getpass
import os
import shlex
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgspec

from purlin_resume.agentcli import programs
from purlin_resume.agentcli.names import CLAUDE
from purlin_resume.agents import injection
from purlin_resume.claude import export
from purlin_resume.claude import layout as claude_layout
from purlin_resume.claude.catalog import Catalog
from purlin_resume.claude.transcript import Details, ReadOptions
from purlin_resume.core import (
    cache_home,
    clock,
    config,
    current_session,
    path_safety,
    redact,
    store,
    templating,
    tmux,
)
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.core.errors import PurlinError as Ambiguous
from purlin_resume.core.project import GONE, working_folder
from purlin_resume.core.templating import counted as n
from purlin_resume.core.tmux import Server
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.resurrection import (
    archive,
    bookmarks,
    compress,
    continuity,
    preflight,
    recommendation,
)
from purlin_resume.resurrection import log as log_mod
from purlin_resume.resurrection.bookmarks import Bookmark
from purlin_resume.resurrection.candidates import Candidate, close_matches, direct

# what the resurrection commands name through this module (``resurrection.by_search`` ...)
from purlin_resume.resurrection.candidates import by_agent as by_agent
from purlin_resume.resurrection.candidates import by_bookmark as by_bookmark
from purlin_resume.resurrection.candidates import by_search as by_search
from purlin_resume.resurrection.environment import Environment
from purlin_resume.resurrection.environment import environment as environment
from purlin_resume.resurrection.preflight import FAIL, Check, PreflightFailed

DEFAULT_METHOD = compress.DEFAULT_METHOD

TEMPLATE = "prompts/resurrection.md.j2"
MODES = log_mod.MODES


# ---------------------------------------------------------------------------------------------
# opening the conversation


@dataclass
class Source:
    candidate: Candidate
    session_id: str
    agent_id: str | None
    transcript: Any
    subagent: Any
    files: list[Path]
    archived: bool
    cli: str = CLAUDE  # the agent CLI that wrote the conversation


def _open_in(catalog, candidate: Candidate, options):
    """(source, None) or (None, failure) for one Claude data folder."""
    try:
        target = catalog.resolve(candidate.session_id, kinds=("session",))
    except NotFound:
        ids = [s.id for s in catalog.session_files()]
        close = close_matches(candidate.session_id, ids)
        hint = f"close ids: {', '.join(close)}; " if close else ""
        return None, preflight.failure(
            "exists",
            f"session {candidate.session_id} not found in {catalog.root}",
            f"{hint}verify the id with 'purlin-resume sessions --all' or search with "
            "'purlin-resume resurrect find \"…\"'",
        )
    except Ambiguous as exc:
        return None, preflight.failure("exists", exc.message)
    session = target.session
    view = catalog.view(session, options)
    if candidate.agent_id is None:
        if view.main is None:
            return None, preflight.failure(
                "exists",
                f"the file of session {session.id} is gone",
                "resurrect one of its agents with --agent, or bookmark agents to archive them",
            )
        files = [session.path]
        return Source(candidate, session.id, None, view.main, None, files, False), None
    wanted = candidate.agent_id
    matches = [agent_id for agent_id in view.agents if agent_id.startswith(wanted)]
    if len(matches) != 1:
        known = list(view.agents)
        if len(matches) > 1:
            return None, preflight.failure(
                "exists",
                f"agent {wanted} is ambiguous in session {session.id}: {', '.join(matches)}",
                "give more characters",
            )
        listed = ", ".join(known[:10]) if known else None
        return None, preflight.failure(
            "exists",
            f"agent {wanted} not found in session {session.id}",
            f"its agents: {listed}"
            if listed
            else f"the session has no subagents: resurrect the session itself with --session {session.id}",
        )
    transcript = view.agents[matches[0]]
    node = view.find(matches[0])
    files = [p for p in (transcript.path, session.path if session.exists else None) if p]
    return Source(candidate, session.id, matches[0], transcript, node, files, False), None


def open_source(env: Environment, candidate: Candidate) -> Source:
    """Read the candidate's conversation: the live transcripts, else its session's archive."""

    options = ReadOptions(tools=True, deferred=True)
    failure = None
    catalog = env.live_catalog()
    if catalog is not None:
        source, failure = _open_in(catalog, candidate, options)
        if source is not None:
            return source

    for path in archive.archives(env, candidate.session_id):
        root = archive.unpack(path, env.cache / "archive")
        source, _ = _open_in(Catalog(root), candidate, options)
        if source is not None:
            source.archived = True
            return source
    other = _other_source(candidate, options)
    if other is not None:
        return other
    if failure is None:
        failure = preflight.failure(
            "exists",
            f"no Claude Code transcripts in {env.claude_root} and no archive of session {candidate.session_id}",
            "pass --claude-dir or set CLAUDE_CONFIG_DIR",
        )
    raise failure


def _other_source(candidate: Candidate, options) -> Source | None:
    """The candidate's conversation in Codex CLI, Gemini CLI or opencode (its session id, or
    a child session's), if one of them has it."""

    if candidate.agent_id is not None:
        return None
    try:
        found = crosscli.open_conversation(candidate.session_id, options)
    except NotFound:
        return None
    session = found.session
    transcript = found.conversation.transcript
    return Source(candidate, session.id, None, transcript, None, [session.path], False, session.cli)


# ---------------------------------------------------------------------------------------------
# the plan: checks, context, prompt


@dataclass
class Plan:
    mode: str
    query: str | None
    candidate: Candidate
    source_session: str
    source_agent: str | None
    method: str
    context: compress.Context
    facts: dict[str, Any]
    checks: list[Check]
    prompt: str
    tokens: int
    tokens_full: int
    redactions: dict[str, int]
    redacted: bool
    archived: bool
    started: float
    source_cli: str = CLAUDE
    target_cli: str = CLAUDE
    progress: dict[str, Any] | None = None  # what git said (continuity.Progress)

    @property
    def asks(self) -> list[Check]:
        return [c for c in self.checks if c.level == preflight.ASK]

    @property
    def warnings(self) -> list[Check]:
        return [c for c in self.checks if c.level == preflight.WARN]

    @property
    def outcome(self) -> tuple[str, str | None]:
        """The outcome it is logged with, and why (``preflight.outcome``, the one rule)."""
        return preflight.outcome(self.checks)

    def passed(self) -> list[str]:
        """What the new agent is given, in words (the SEC-3 preview)."""

        c = self.context
        items = ["metadata (agent, session, project, branch, time, tool counts)"]
        if c.original_prompt:
            items.append("the original task")
        if c.transcript:
            items.append(f"the whole conversation ({n(c.turns, 'turn')}, tool inputs and results)")
        if c.head and c.digest:
            items.append(f"the first {len(c.head)} and last {n(len(c.tail), 'message')} whole")
        elif c.head:
            items.append(f"all {n(len(c.head), 'message')} whole")
        if c.digest:
            d = c.digest
            items.append(
                f"a digest of {n(d.messages, 'message')}: {n(sum(d.tools.values()), 'tool call')}, "
                f"{n(len(d.files_read), 'file')} read, {len(d.files_changed)} changed, "
                f"{n(len(d.errors), 'error')}, {n(len(d.findings), 'finding')}"
            )
        if c.files_analyzed:
            items.append(n(len(c.files_analyzed), "file path"))
        items.append("the final output" if c.final_output else "no final output (none left)")
        return items

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "query": self.query,
            "candidate": self.candidate.to_dict(),
            "session_id": self.source_session,
            "agent_id": self.source_agent,
            "method": self.method,
            "tokens": self.tokens,
            "tokens_full": self.tokens_full,
            "redacted": self.redacted,
            "redactions": self.redactions,
            "archived": self.archived,
            "source_cli": self.source_cli,
            "target_cli": self.target_cli,
            "progress": self.progress,
            "checks": [c.to_dict() for c in self.checks],
            "passed": self.passed(),
        }


def _cache_key(source: Source, method: str) -> str:
    parts = [f"{path}:{cache_home.signature(path)}" for path in source.files]
    return "|".join([*parts, source.agent_id or "-", method])


@dataclass
class Extracted:
    """What a plan takes from a conversation: the facts the checks need, the context (redacted
    when asked), the full method's token count and what redaction found. Kept in the cache."""

    facts: dict[str, Any]
    context: compress.Context
    full_tokens: int
    redactions: dict[str, int]
    created: float


def _kept_context(env: Environment, key: str) -> Extracted | None:
    """The context kept under ``key`` when it is younger than ``context_cache_seconds``."""
    rows = cache_home.read(
        "SELECT entry FROM contexts WHERE key = ? AND created > ?",
        (key, time.time() - env.settings.context_cache_seconds),
        env.cache,
    )
    try:
        kept = msgspec.json.decode(rows[0][0], type=Extracted) if rows else None
    except (ValueError, RecursionError):  # msgspec's errors are ValueErrors
        return None  # kept by another version, or damaged: made again
    return kept if kept is not None and "turns" in kept.facts else None


def _keep_context(env: Environment, key: str, kept: Extracted) -> None:
    """Keep ``kept`` (redacted) under ``key``, and drop the contexts gone stale."""
    stale = time.time() - env.settings.context_cache_seconds
    cache_home.write(
        [
            ("DELETE FROM contexts WHERE created <= ?", [(stale,)]),
            (
                "INSERT OR REPLACE INTO contexts VALUES (?, ?, ?)",
                [(key, kept.created, msgspec.json.encode(kept).decode())],
            ),
        ],
        env.cache,
    )


def _extract(source: Source, method: str, redacting: bool, env: Environment) -> Extracted:
    """The facts, the context (redacted when asked) and the full method's token count; a
    context kept from an earlier run is taken when it reads back whole."""

    key = _cache_key(source, method)
    cached = _kept_context(env, key) if redacting else None
    if cached is not None:
        return cached
    kind = "agent" if source.agent_id else "session"
    transcript, subagent = source.transcript, source.subagent
    counts: Counter[str] = Counter()
    if redacting:  # before anything is cut short: a token cut in half is no longer recognised
        (transcript, subagent), found = redact.redact_data((transcript, subagent))
        counts.update(found)
    document = export.document(transcript, subagent, tools=False, kind=kind)
    known = preflight.facts(transcript, subagent, document)
    # tool inputs and results are read back from the file one turn at a time (the reading
    # deferred them), redacted as they come; the pass over every one counts what it redacted
    read_back = Details(transcript, _cleaner(Counter() if redacting else None))
    context = compress.compress(transcript, document, method, read_back)
    every = Details(transcript, _cleaner(counts if redacting else None))
    full_tokens = compress.full_tokens(context, transcript, every, lambda c: render_prompt(c, None))
    if redacting:
        context = redact.redact_data(context)[0]
    extracted = Extracted(known, context, full_tokens, dict(counts), time.time())
    if redacting:  # an unredacted context is never kept on disk
        _keep_context(env, key, extracted)
    return extracted


def _cleaner(counts: Counter[str] | None):
    """What ``Details`` passes read-back values through: redaction (counted into ``counts``),
    or nothing when ``counts`` is None and the transcript is not redacted."""

    def clean(data):
        done, found = redact.redact_data(data)
        counts.update(found)
        return done

    return clean if counts is not None else None


def _date(moment: str | None) -> str:
    return (moment or "an unknown date")[:10]


def render_prompt(
    context: compress.Context,
    task: str | None,
    note: str | None = None,
    continuity: str | None = None,
    here: str | None = None,
) -> str:
    """The resurrection prompt; ``here``: the project the new agent works in (named when it is
    not the original agent's)."""
    label = (
        f"agent {context.agent_id}"
        if context.agent_id
        else f"the main agent of session {context.session_id}"
    )
    return templating.render(
        TEMPLATE,
        c=context,
        label=label,
        date=_date(context.completed_at or context.started_at),
        task=task,
        note=note,
        continuity=continuity,
        here=here,
    )


@redact.remembering()  # a secret the conversation shows is hidden wherever the prompt repeats it
def plan(
    env: Environment,
    candidate: Candidate,
    mode: str,
    query: str | None = None,
    method: str = DEFAULT_METHOD,
    task: str | None = None,
    redacting: bool = True,
    started: float | None = None,
    into: str = CLAUDE,
) -> Plan:
    """Open, check and compress the candidate, for a new agent of the CLI ``into``; raises
    PreflightFailed on a failing check."""

    started = time.monotonic() if started is None else started
    source = open_source(env, candidate)
    # the ids found, never the prefixes typed: what is shown is what other commands take
    candidate = replace(
        candidate,
        session_id=source.session_id,
        agent_id=source.agent_id,
        cli=source.cli,
        bookmark=candidate.bookmark or bookmark_of(env, source.session_id, source.agent_id),
    )
    checks = _source_checks(env, candidate, source)
    extracted = _extract(source, method, redacting, env)
    read = source.transcript  # what a candidate named by its ids alone does not say
    candidate = replace(
        candidate,
        project=candidate.project or read.project_path,
        ended_at=candidate.ended_at or read.ended_at,
    )
    known = extracted.facts
    checks += _content_checks(source, known)
    complete = preflight.completeness(known)
    checks += [complete, _project_check(env, known)]
    context = extracted.context
    rendered, state = _rendered(env, source, context, task, complete, into)
    prompt, counts = _redacted_prompt(rendered, extracted, redacting)
    tokens = compress.estimate_tokens(prompt)
    # the full method's size, as rendered without the new task (its own tokens are the same
    # in both)
    tokens_full = tokens if method == "full" else max(extracted.full_tokens, tokens)
    checks += _size_checks(env, tokens, method, known)
    progress = state.to_dict()
    return Plan(
        mode,
        query,
        candidate,
        source.session_id,
        source.agent_id,
        method,
        context,
        known,
        checks,
        prompt,
        tokens,
        tokens_full,
        counts,
        redacting,
        source.archived,
        started,
        source.cli,
        into,
        redact.redact_data(progress)[0] if redacting else progress,
    )


def _source_checks(env: Environment, candidate: Candidate, source: Source) -> list[Check]:
    """That the conversation exists, on which host it was bookmarked, and whether it is read
    from the archive."""
    found = candidate.label() + (f" in session {source.session_id}" if source.agent_id else "")
    checks = [Check("exists", preflight.OK, found)]
    mark = candidate.bookmark
    checks.append(preflight.hostname(mark.hostname if mark else None, env.host))
    if source.archived:
        checks.append(
            Check(
                "accessible",
                preflight.WARN,
                "the original transcript is gone",
                f"reading the archive of session {source.session_id}",
            )
        )
    return checks


def _content_checks(source: Source, known: dict[str, Any]) -> list[Check]:
    """That the transcript could be read and holds a conversation; raises PreflightFailed when
    not."""

    where = str(source.files[0]) if source.files else source.session_id
    checks = []
    for check in (preflight.extractable(known, where), preflight.meaningful(known)):
        if check.level == FAIL:
            raise PreflightFailed(check)
        checks.append(check)
    return checks


def _project_check(env: Environment, known: dict[str, Any]) -> Check:
    """The source project, refused outside the allowed folders (its own, when settings allow)."""
    recorded = known.get("project_path")
    own = [recorded] if env.settings.allow_own_projects else []
    allowed = [*env.allowed, *path_safety.folders([env.project_root, *own])]
    return preflight.project(recorded, allowed, known.get("git_commit"))


def _rendered(
    env: Environment,
    source: Source,
    context: compress.Context,
    task: str | None,
    complete: Check,
    into: str,
) -> tuple[str, continuity.Progress]:
    """The prompt as rendered (said to be partial when the agent did not end normally), and
    what git says of the project since the agent's time."""
    note = "partial: the agent did not end normally" if complete.level != preflight.OK else None
    state = continuity.progress(env.project_root, context.completed_at or context.started_at)
    carried = continuity.section(source.cli, into, state)
    return render_prompt(context, task, note, carried, _in_project(env) or None), state


def _redacted_prompt(
    rendered: str, extracted: Extracted, redacting: bool
) -> tuple[str, dict[str, int]]:
    """The prompt as given (redacted when asked), and every redaction made, context and prompt."""
    done = redact.redact(rendered) if redacting else None
    prompt = done.text if done else rendered
    counts = dict(extracted.redactions)
    for kind, count in (done.counts if done else {}).items():
        counts[kind] = counts.get(kind, 0) + count
    return prompt, counts


def _size_checks(env: Environment, tokens: int, method: str, known: dict[str, Any]) -> list[Check]:
    settings = env.settings
    return preflight.size(
        tokens,
        method,
        known.get("turns") or 0,
        settings.context_warn_tokens,
        settings.context_confirm_tokens,
        settings.full_context_turns,
    )


# ---------------------------------------------------------------------------------------------
# the record


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return os.environ.get("USER") or "unknown"


def destination(env: Environment) -> Path:
    """The folder a new agent works in: the project, else the working folder; a failure when
    that folder was deleted."""
    here = env.project_root or working_folder()
    if here is None:
        raise PurlinError(GONE)
    return here


def _in_project(env: Environment) -> str:
    """Where the resurrection happens: the project, else the working folder (if it still is)."""
    return str(env.project_root or working_folder() or "")


def resurrector(env: Environment) -> dict[str, str | None]:
    """Who resurrects, and where: the log entry's ``resurrected_in_session``,
    ``resurrected_in_project`` and ``resurrected_by``."""
    return {
        "resurrected_in_session": current_session.from_environment(),
        "resurrected_in_project": _in_project(env),
        "resurrected_by": _user(),
    }


def record(env: Environment, plan: Plan, notes: str | None = None) -> dict[str, Any]:
    """Log the resurrection (TR-1) and count it on its bookmark; returns the log entry. The new
    agent's id is not known yet: its SessionStart fills it in (``--spawn``), or ``resurrect
    done --agent-id``; warnings that are no outcome go to the notes."""
    mark = plan.candidate.bookmark
    in_project = _in_project(env)
    notes = "; ".join([*([notes] if notes else []), *preflight.notes(plan.checks)]) or None
    entry = {
        "bookmark_id": mark.bookmark_id if mark else None,
        "bookmark_uuid": mark.uuid if mark else None,
        "resurrected_from_agent_id": plan.source_agent,
        "resurrected_from_session_id": plan.source_session,
        "resurrected_from_hostname": (mark.hostname if mark and mark.hostname else env.host),
        "resurrected_from_project": plan.context.project_path,
        "resurrected_as_agent_id": None,
        **resurrector(env),
        "resurrection_mode": plan.mode,
        "query": plan.query,
        "context_extraction_method": plan.method,
        "context_size_tokens": plan.tokens,
        "outcome": plan.outcome[0],
        "outcome_reason": plan.outcome[1],
        "notes": notes,
        "new_agent_duration_ms": None,
        "new_agent_tool_calls": None,
        "resurrected_from_agent_type": plan.context.agent_type,
        "cross_repo": plan.context.project_path != in_project,
        "context_tokens_before": plan.tokens_full,
        "redactions": plan.redactions,
        "latency_ms": round((time.monotonic() - plan.started) * 1000),
        "source_cli": plan.source_cli,
        "target_cli": plan.target_cli,
    }
    written = log_mod.append(env.log, entry)
    if mark is not None:
        bookmarks.record_resurrection(env.shelves.path_of(mark), mark.bookmark_id, clock.iso())
    return written


def record_failure(
    env: Environment,
    mode: str,
    query: str | None,
    candidate: Candidate | None,
    reason: str,
    method: str,
    started: float,
) -> dict[str, Any]:
    """Log a resurrection that failed before an agent was started (the stats' failure reasons)."""
    mark = candidate.bookmark if candidate else None
    entry = {
        "bookmark_id": mark.bookmark_id if mark else None,
        "bookmark_uuid": mark.uuid if mark else None,
        "resurrected_from_agent_id": candidate.agent_id if candidate else None,
        "resurrected_from_session_id": candidate.session_id if candidate else None,
        "resurrected_from_hostname": mark.hostname if mark and mark.hostname else env.host,
        "resurrected_from_project": candidate.project if candidate else None,
        "resurrected_as_agent_id": None,
        **resurrector(env),
        "resurrection_mode": mode,
        "query": query,
        "context_extraction_method": method,
        "context_size_tokens": None,
        "outcome": "failure",
        "outcome_reason": reason,
        "notes": None,
        "new_agent_duration_ms": None,
        "new_agent_tool_calls": None,
        "latency_ms": round((time.monotonic() - started) * 1000),
    }
    return log_mod.append(env.log, entry)


def by_ids(
    env: Environment, session: str | None, agent: str | None, project: Path | None = None
) -> Candidate:
    """The conversation named by its ids (a session, an agent, or both); with ``project``, only
    when its session was run in that folder or below it (a failed pre-flight otherwise)."""
    candidate = direct(session, agent) if session is not None else by_agent(env, agent or "")
    if project is None:
        return candidate
    source = open_source(env, candidate)
    recorded = source.transcript.project_path
    own = path_safety.folders([recorded, env.project_root])
    wanted = path_safety.checked(project, [*env.allowed, *own], "--from")
    if not recorded or not (
        recorded == str(wanted) or recorded.startswith(str(wanted).rstrip("/") + "/")
    ):
        raise PreflightFailed(
            Check(
                "exists",
                "fail",
                f"session {source.session_id} belongs to {recorded or 'no project'}, "
                f"not to --from {project}",
                "drop --from or give the project the session was run in",
            )
        )
    return candidate


def bookmark_of(env: Environment, session_id: str, agent_id: str | None) -> Bookmark | None:
    """The bookmark kept of this conversation, if one is (however it was named to resurrect:
    its resurrection counts on the bookmark)."""
    return next(
        (m for m in env.shelves.all() if (m.session_id, m.agent_id) == (session_id, agent_id)),
        None,
    )


def recommended(env: Environment, number: int) -> Candidate:
    """The ``number``-th of the last recommendations for the project here (made now when there
    are none)."""

    here = str(env.project_root) if env.project_root is not None else None
    listed = recommendation.remembered(env.cache, here)
    if listed is None:
        _, found = recommendation.for_task(env, None, [], None, max(number, 5))
        listed = [r.to_dict() for r in found]
    if number > len(listed):
        raise UsageError(
            f"--recommended {number}: the last recommendations hold {len(listed)}; "
            "run 'purlin-resume recommend' to see them"
        )
    chosen = listed[number - 1]
    agent = chosen.get("agent_id")
    return Candidate(
        chosen["session_id"],
        agent,
        title=chosen.get("title"),
        project=chosen.get("project"),
        score=chosen.get("score"),
        reasons=[chosen.get("why") or "recommended"],
        bookmark=bookmark_of(env, chosen["session_id"], agent),
        agent_type=chosen.get("agent_type"),
        ended_at=chosen.get("ended_at"),
    )


@dataclass(frozen=True)
class Request:
    """What a resurrection asks for: how the agent was named (``mode``, ``query``), the context
    wanted, the new agent's task, and the note for the log."""

    mode: str
    query: str | None
    method: str = DEFAULT_METHOD
    task: str | None = None
    redacting: bool = True
    notes: str | None = None
    into: str = CLAUDE  # the agent CLI the new agent runs in


def resurrect(
    env: Environment,
    request: Request,
    candidates_of: Callable[[Environment], list[Candidate]],
    choose: Callable[[list[Candidate]], Candidate],
    review: Callable[[Plan, int, Callable[[str], Plan]], tuple[Plan, list[str]]],
    started: float | None = None,
) -> tuple[Plan, dict[str, Any]]:
    """Resurrect the candidate ``choose`` picks among those ``candidates_of`` finds: its plan,
    once ``review`` saw it (given the number of candidates and a way to plan again with another
    method, it returns the plan to carry out and what it decided, for the log), and the log
    entry. A pre-flight that fails (nothing found, a failing check) or a path SEC-2 refuses is
    logged and raised. In a deleted working folder outside a project it refuses, logging
    nothing (a new agent would have nowhere to work)."""
    started = time.monotonic() if started is None else started
    destination(env)
    chosen = None
    try:
        found = _found(env, request, candidates_of)
        chosen = choose(found)
        planned = _planned(env, chosen, request, request.method, started)
    except (PreflightFailed, path_safety.Refused) as failed:
        message = failed.check.message if isinstance(failed, PreflightFailed) else failed.message
        record_failure(env, request.mode, request.query, chosen, message, request.method, started)
        raise
    again = functools.partial(_planned, env, chosen, request, started=started)
    planned, decisions = review(planned, len(found), again)
    note = "; ".join([*([request.notes] if request.notes else []), *decisions]) or None
    return planned, record(env, planned, note)


def _found(
    env: Environment, request: Request, candidates_of: Callable[[Environment], list[Candidate]]
) -> list[Candidate]:
    """The candidates ``candidates_of`` finds; a failed pre-flight when there are none."""
    found = candidates_of(env)
    if not found:
        outside = getattr(found, "outside_note", lambda: None)()
        raise PreflightFailed(
            Check(
                "exists",
                "fail",
                f"nothing matches {request.query!r}" + (f" ({outside})" if outside else ""),
                "try other words, a date (2026-02-09) or 'yesterday'; "
                "'purlin-resume sessions --all' lists everything",
            )
        )
    return found


def preview(
    env: Environment, request: Request, candidates_of: Callable[[Environment], list[Candidate]]
) -> tuple[list[Candidate], Plan | None, str | None]:
    """What a resurrection would bring back, for the user to approve first; nothing is
    recorded or started. The candidates ``candidates_of`` finds (a failed pre-flight when there
    are none) and the plan of the first one, or None and why it cannot be resurrected."""
    found = _found(env, request, candidates_of)
    try:
        return found, _planned(env, found[0], request, request.method, time.monotonic()), None
    except PreflightFailed as failed:
        return found, None, failed.message


def _planned(
    env: Environment, chosen: Candidate, request: Request, method: str, started: float
) -> Plan:
    return plan(
        env,
        chosen,
        request.mode,
        request.query,
        method,
        request.task,
        request.redacting,
        started,
        request.into,
    )


def went_on(plan: Plan, candidates: int) -> list[str]:
    """What a resurrection that asks nothing decided, for the log: the candidate it took, and
    the question it went on past."""
    picked = f"picked {plan.candidate.label()}"
    if plan.candidate.score is not None:
        picked += f" (score {plan.candidate.score}) of {candidates} candidate(s)"
    decisions = [f"autonomous: {picked}"]
    if plan.asks:
        decisions.append(f"went on past: {plan.asks[0].message}")
    return decisions


def bookmark_agent(
    env: Environment,
    name: str,
    session: str,
    agent: str | None,
    description: str | None,
    tags: list[str],
    global_: bool,
) -> Bookmark:
    """Bookmark a session or agent and archive its session's transcripts (a session of
    another agent CLI is bookmarked without an archive: that CLI keeps it). A bookmark that
    would be refused (its name taken, its file corrupt) is refused before the archive is made."""

    bookmarks.check_free(_shelf(env, global_), name)
    candidate = direct(session, agent)
    try:
        catalog = Catalog(claude_layout.claude_dir(env.claude_root))
        source, failure = _open_in(catalog, candidate, ReadOptions())
    except NotFound as exc:
        source, failure = None, exc
    if source is None:
        other = _other_cli_bookmark(candidate)
        if other is None:
            raise failure
        other.name, other.hostname = name, env.host
        other.description = description
        other.tags = list(dict.fromkeys(tags))
        return bookmarks.add(_bookmark_shelf(env, global_, other), other)
    target = catalog.resolve(source.session_id, kinds=("session",))
    assert target.session is not None

    try:
        saved = archive.create(env.history, catalog, target.session)
    except PurlinError as exc:  # a transcript of the session it cannot read
        raise PurlinError(f"{exc.message}; nothing was bookmarked") from None
    except OSError as exc:
        raise PurlinError(
            f"cannot write the archive under {env.history}: {exc.strerror or exc}; "
            "check that the folder is writable"
        ) from None
    mark = Bookmark(
        bookmark_id="",
        name=name,
        session_id=source.session_id,
        agent_id=source.agent_id,
        description=description,
        project_path=source.transcript.project_path,
        hostname=env.host,
        tags=list(dict.fromkeys(tags)),
        archive=saved.relative_to(env.history).as_posix(),
    )
    return bookmarks.add(_bookmark_shelf(env, global_, mark), mark)


def _bookmark_shelf(env: Environment, global_: bool, mark: Bookmark) -> Path:
    """The file a new bookmark goes into (``_shelf``), its scope set on ``mark``."""
    path = _shelf(env, global_)
    mark.scope = "global" if path == env.shelves.global_ else "local"
    return path


def _shelf(env: Environment, global_: bool) -> Path:
    """The bookmarks file a new bookmark goes into: the project's, unless ``global_`` or
    outside a project."""
    return env.shelves.global_ if global_ or env.shelves.local is None else env.shelves.local


def _other_cli_bookmark(candidate: Candidate) -> Bookmark | None:
    """The bookmark of a Codex CLI, Gemini CLI or opencode conversation (a child session is
    an agent of its parent session), or None when no such CLI has it. ``--agent`` names the
    child, ``--session`` its parent."""

    try:
        found = crosscli.open_conversation(candidate.agent_id or candidate.session_id)
    except NotFound:
        return None
    session = found.session
    if candidate.agent_id and not (session.parent_id or "").startswith(candidate.session_id):
        raise preflight.failure(
            "exists",
            f"{session.cli} session {session.id} is no child of session {candidate.session_id}",
            f"'purlin-resume agents {candidate.session_id}' lists its children",
        )
    return Bookmark(
        bookmark_id="",
        name="",
        session_id=session.parent_id or session.id,
        agent_id=session.id if session.parent_id else None,
        project_path=session.project_path,
        cli=session.cli,
    )


# ---------------------------------------------------------------------------------------------
# starting the new agent

PROMPTS = "prompts"  # the cache folder a prompt waits in for a new agent of another CLI


def agent_env(entry: dict[str, Any]) -> dict[str, str]:
    """What the new agent's process is told about itself (hooks read it to call ``done``)."""
    return {"PURLIN_RESURRECTION_ID": entry["resurrection_id"]}


def launch_process(
    env: Environment, entry: dict[str, Any], prompt: str, into: str = CLAUDE
) -> dict[str, Any]:
    """Run a new agent of the CLI ``into`` in the foreground with the prompt; its end completes
    the log entry."""
    argv = programs.program(into).start(prompt, env.settings.agent_command)
    cwd = destination(env)
    began = time.monotonic()
    try:
        child_env = {**os.environ, **agent_env(entry), **env.data_env}
        done = subprocess.run(argv, cwd=cwd, env=child_env, check=False)
    except OSError as exc:
        reason = f"agent command {argv[0]!r} could not start: {exc.strerror or exc}"
        log_mod.record_outcome(env.log, entry["resurrection_id"], "failure", reason=reason)
        raise PurlinError(
            f"{reason}; {config.how_to_set(env.settings, 'agent_command')}, or put it on PATH"
        ) from None
    duration = round((time.monotonic() - began) * 1000)
    if done.returncode != 0:
        reason = f"agent command exited with {done.returncode}"
        log_mod.record_outcome(
            env.log, entry["resurrection_id"], "failure", duration_ms=duration, reason=reason
        )
        raise PurlinError(f"{reason} (resurrection {entry['resurrection_id']})")
    log_mod.record_outcome(
        env.log, entry["resurrection_id"], entry["outcome"], duration_ms=duration
    )
    return {"spawned": "process", "cli": into, "exit_code": 0, "duration_ms": duration}


def launch_tmux(
    env: Environment,
    entry: dict[str, Any],
    prompt: str,
    server: Server | None,
    into: str = CLAUDE,
) -> dict[str, Any]:
    """Start a new agent of the CLI ``into`` in a new tmux window with the prompt: Claude Code's
    is typed once it is ready, another CLI's is its first prompt (``_first_prompt``).

    ``server`` is ``--tmux-socket``; None: the ``tmux_socket`` setting, else the current server.
    The new agent reads the same Claude Code data folder (``CLAUDE_CONFIG_DIR``). When the agent
    does not get the prompt (the server is not reachable, its command exits, it never shows
    ``agent_ready_text``), the window is closed and the log entry records the failure. When the
    prompt was pasted but the pane does not show it, the window stays open for a person to look,
    and the entry is ``partial`` (the prompt is never typed twice).
    """

    settings = env.settings
    server = server or tmux.Server.parse(settings.tmux_socket)
    session = settings.tmux_session
    if server == tmux.Server() and tmux.inside_tmux():
        session = tmux.current_session(server) or session
    cwd = destination(env)
    rid = entry["resurrection_id"]
    child_env = {**agent_env(entry), **env.data_env}
    if into != CLAUDE:
        return _first_prompt(env, entry, prompt, server, session, cwd, child_env, into)
    pane = None
    try:
        pane = tmux.new_window(server, session, cwd, settings.agent_command, child_env, name=rid)
        [delivery] = injection.when_ready(
            server, pane, [prompt], settings, settings.agent_command, who="the new agent"
        )
    except PurlinError as exc:
        if pane is not None:
            tmux.kill_pane(server, pane)
        log_mod.record_outcome(env.log, rid, "failure", reason=exc.message)
        closed = "window closed" if pane is not None else "no window was opened"
        raise PurlinError(f"{exc.message} (resurrection {rid}: {closed})") from None
    if not delivery.confirmed:
        log_mod.record_outcome(env.log, rid, "partial", reason=delivery.detail)
    return {
        "spawned": "tmux",
        "cli": CLAUDE,
        "session": session,
        "pane": pane,
        "tmux_server": server.label,
        "delivery": delivery.to_dict(),
        "attempts": [delivery.attempts],
    }


def _first_prompt(env, entry, prompt, server, session, cwd, child_env, into) -> dict[str, Any]:
    """A new agent of Codex CLI, Gemini CLI or opencode in a new tmux window, started with the
    prompt as its first one: the prompt waits in a private file the window's shell reads and
    removes (a tmux command line is too short for it)."""
    rid = entry["resurrection_id"]
    target = programs.program(into)
    argv = [*target.command(env.settings.agent_command), *target.prompt_flag]
    child_env = {**target.data_env(), **child_env}
    folder = store.private_folder(env.cache / PROMPTS)
    waiting = folder / f"{rid}.md"
    store.write_output(waiting, prompt)
    reads = (
        'prompt=$(cat "$0") && rm -f "$0" && exec "$@" "$prompt"'  # sh, whatever the user's shell
    )
    command = shlex.join(["sh", "-c", reads, str(waiting), *argv])
    try:
        pane = tmux.new_window(server, session, cwd, command, child_env, name=rid)
    except PurlinError as exc:
        waiting.unlink(missing_ok=True)
        log_mod.record_outcome(env.log, rid, "failure", reason=exc.message)
        raise PurlinError(f"{exc.message} (resurrection {rid}: no window was opened)") from None
    return {
        "spawned": "tmux",
        "cli": into,
        "session": session,
        "pane": pane,
        "tmux_server": server.label,
        "delivery": {"way": "first prompt", "argv": [*argv, "PROMPT"]},
    }
