"""`resurrect`, `find`, `bookmark …` and `resurrections`: bring an earlier agent back."""

from __future__ import annotations

import functools
import inspect
import json
import sys
import time
from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, get_type_hints

import typer

from purlin_resume.cli import find_run, outcome_run
from purlin_resume.cli.app import PurlinGroup, app, runs
from purlin_resume.cli.common import (
    Printout,
    checked_output,
    print_json,
    print_text,
    tmux_server,
)
from purlin_resume.cli.find_run import candidate_line, environment
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    ProjectOption,
    TmuxSocketOption,
)
from purlin_resume.cli.outcome_run import Outcome
from purlin_resume.core.errors import PurlinError, UsageError

if TYPE_CHECKING:
    from purlin_resume.resurrection.flow import Candidate, Environment, Plan

# Typer reads these annotations at runtime, so Optional/List stay (Python 3.10).
# ruff: noqa: UP045, UP006


class Method(str, Enum):
    full = "full"
    summarized = "summarized"
    hybrid = "hybrid"


class Spawn(str, Enum):
    none = "none"
    claude = "claude"
    tmux = "tmux"


class Mode(str, Enum):
    bookmark = "bookmark"
    fuzzy = "fuzzy"
    direct = "direct"


MethodOption = Annotated[
    Method, typer.Option("--method", help="Context: full, summarized or hybrid.")
]
TaskOption = Annotated[
    Optional[str],
    typer.Option("--task", help="The new task for the resurrected agent.", show_default=False),
]
YesOption = Annotated[
    bool,
    typer.Option(
        "--yes", "--autonomous", "-y", help="Pick the best match and skip every question."
    ),
]
NoRedactOption = Annotated[
    bool, typer.Option("--no-redact", help="Pass secrets through unredacted (explicit only).")
]
SpawnOption = Annotated[
    Spawn, typer.Option("--spawn", help="none: print the prompt; claude or tmux: start the agent.")
]
OutputOption = Annotated[
    Optional[Path],
    typer.Option("-o", "--output", help="Write the prompt to this file.", show_default=False),
]
SocketOption = TmuxSocketOption
NotesOption = Annotated[
    Optional[str], typer.Option("--notes", help="A note for the log.", show_default=False)
]
TeamOption = Annotated[
    bool, typer.Option("--team", help="The team database (see 'purlin-resume team').")
]


def _say(text: str) -> None:
    typer.echo(text, err=True)


def _interactive(yes: bool) -> bool:
    if yes:
        return False
    if not sys.stdin.isatty():
        raise UsageError(
            "no terminal to ask on: pass --yes (or --autonomous) to pick the best match "
            "and skip the questions"
        )
    return True


class OpenInstead(Exception):
    """The user picked a candidate to continue in Claude Code itself rather than resurrect."""

    def __init__(self, candidate: Candidate):
        super().__init__(candidate.session_id)
        self.candidate = candidate


def _choose(candidates: list[Candidate], interactive: bool, offer_open: bool = True) -> Candidate:
    """The candidate the user picks (the best one when not interactive). With ``offer_open``,
    ``oN`` continues candidate N's session in Claude Code instead (``OpenInstead``)."""
    if not interactive or len(candidates) == 1:
        return candidates[0]
    _say("Candidates:")
    for number, candidate in enumerate(candidates, 1):
        _say(candidate_line(number, candidate))
    count = len(candidates)
    offer = f", o1-o{count} to continue it in Claude Code (open)" if offer_open else ""
    while True:
        answer = typer.prompt(
            f"Which one? [1-{count}{offer}, q to cancel]", default="1", err=True
        ).strip()
        if answer.lower() in ("q", "quit", "cancel"):
            raise PurlinError("cancelled: nothing was resurrected")
        if answer.isdigit() and 1 <= int(answer) <= count:
            return candidates[int(answer) - 1]
        number = answer[1:].strip()
        if (
            offer_open
            and answer[:1].lower() == "o"
            and number.isdigit()
            and 1 <= int(number) <= count
        ):
            raise OpenInstead(candidates[int(number) - 1])
        _say(f"Give a number from 1 to {count}.")


def _preview(plan: Plan, lines: int = 40) -> str:
    head = [
        f"Resurrecting {plan.candidate.label()} (session {plan.source_session})"
        + (" from the archive" if plan.archived else ""),
        f"Context: {plan.method}, {plan.tokens} tokens (full: {plan.tokens_full})",
    ]
    if plan.redacted:
        found = ", ".join(f"{kind} {count}" for kind, count in sorted(plan.redactions.items()))
        head.append(f"Redacted: {found or 'no secrets found'}")
    else:
        head.append("Redaction: OFF (--no-redact): secrets pass through as they are")
    head.append("Passed to the new agent: " + "; ".join(plan.passed()))
    for check in plan.checks:
        if check.level != "ok":
            head.append(check.line())
    body = plan.prompt.splitlines()
    shown = body[:lines]
    if len(body) > lines:
        shown.append(f"… {len(body) - lines} more lines")
    return "\n".join(head) + "\n--- preview ---\n" + "\n".join(shown) + "\n--- end of preview ---"


@dataclass(frozen=True)
class Delivery:
    """The options every form of ``resurrect`` shares (``delivered`` adds them to each form)."""

    method: MethodOption = Method.hybrid
    task: TaskOption = None
    yes: YesOption = False
    no_redact: NoRedactOption = False
    spawn: SpawnOption = Spawn.none
    output: OutputOption = None
    tmux_socket: SocketOption = None
    notes: NotesOption = None
    claude_dir: ClaudeDirOption = None
    project: ProjectOption = None
    as_json: JsonOption = False


def delivered(form):
    """A ``resurrect`` form: its own parameters, then Delivery's options, which reach it as one
    ``options`` argument. Typer reads the command's parameters from its signature."""
    hints = get_type_hints(Delivery, include_extras=True)
    shared = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name]
        )
        for f in fields(Delivery)
    ]
    own = [
        p for p in inspect.signature(form, eval_str=True).parameters.values() if p.name != "options"
    ]

    @functools.wraps(form)
    def command(**values: Any) -> None:
        options = Delivery(**{f.name: values.pop(f.name) for f in fields(Delivery)})
        form(**values, options=options)

    command.__signature__ = inspect.Signature(own + shared)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in own + shared}
    return command


def _run(mode: str, query: str | None, candidates_of, options: Delivery) -> None:
    from purlin_resume.resurrection import flow as resurrection
    from purlin_resume.resurrection.preflight import PreflightFailed

    method, task, yes, no_redact = options.method, options.task, options.yes, options.no_redact
    output, notes = options.output, options.notes
    tmux_socket, claude_dir, project = options.tmux_socket, options.claude_dir, options.project
    if no_redact:
        from purlin_resume.cli.common import Output

        Output.redact = False
    started = time.monotonic()
    output = checked_output(output)
    server = tmux_server(tmux_socket)
    interactive = _interactive(yes)
    env = environment(claude_dir, project)
    chosen = None
    try:
        candidates = candidates_of(env)
        if not candidates:
            outside = getattr(candidates, "outside_note", lambda: None)()
            raise PreflightFailed(
                resurrection.Check(
                    "exists",
                    "fail",
                    f"nothing matches {query!r}" + (f" ({outside})" if outside else ""),
                    "try other words, a date (2026-02-09) or 'yesterday'; "
                    "'purlin-resume sessions --all' lists everything",
                )
            )
        try:
            chosen = _choose(candidates, interactive)
        except OpenInstead as picked:
            from purlin_resume.cli.native import carry_out, default_spawn

            carry_out(
                env,
                picked.candidate.session_id,
                fork=False,
                spawn=default_spawn(),
                claude_dir_given=claude_dir is not None,
                tmux_socket=tmux_socket,
            )
            return
        plan = resurrection.plan(
            env, chosen, mode, query, method.value, task, not no_redact, started
        )
    except PreflightFailed as failed:
        resurrection.record_failure(
            env, mode, query, chosen, failed.check.message, method.value, started
        )
        raise
    decisions = []
    if interactive:
        _say(_preview(plan))
        if plan.asks and plan.method != "summarized":
            answer = (
                typer.prompt(
                    f"{plan.asks[0].message}. [s]ummarized, [k]eep {plan.method}, [c]ancel",
                    default="s",
                    err=True,
                )
                .strip()
                .lower()
            )
            if answer.startswith("c"):
                raise PurlinError("cancelled: nothing was resurrected")
            if answer.startswith("s"):
                plan = resurrection.plan(
                    env, chosen, mode, query, "summarized", task, not no_redact, started
                )
                _say(_preview(plan, lines=0))
        if not typer.confirm("Resurrect with this context?", default=True, err=True):
            raise PurlinError("cancelled: nothing was resurrected")
    else:
        for check in plan.checks:
            if check.level != "ok":
                _say(check.line())
        pool = len(candidates)
        picked = f"picked {chosen.label()}"
        if chosen.score is not None:
            picked += f" (score {chosen.score}) of {pool} candidate(s)"
        decisions.append(f"autonomous: {picked}")
        if plan.asks:
            decisions.append(f"went on past: {plan.asks[0].message}")
    note = "; ".join([*([notes] if notes else []), *decisions]) or None
    entry = resurrection.record(env, plan, note)
    summary = (
        f"{entry['resurrection_id']}: {plan.candidate.label()} → {entry['resurrected_as_agent_id']} "
        f"({plan.method}, {plan.tokens} tokens, full {plan.tokens_full})"
    )
    deliver(env, entry, plan.prompt, options, output, server, summary, plan.to_dict())


def deliver(env, entry, prompt, options: Delivery, output, server, summary, document) -> None:
    """What every form of ``resurrect`` (``--team`` too) does with its prompt: write it (``-o``),
    start the agent (``--spawn``), then report: one JSON document, or the summary line and the
    prompt."""
    from purlin_resume.core import store
    from purlin_resume.resurrection import flow as resurrection

    launched: dict[str, Any] = {"spawned": "none"}
    if output is not None:
        store.write_output(output, prompt)
    if options.spawn is Spawn.claude:
        launched = resurrection.launch_process(env, entry, prompt)
    elif options.spawn is Spawn.tmux:
        launched = resurrection.launch_tmux(env, entry, prompt, server)
    if options.as_json:
        print_json(
            {
                **document,
                "resurrection": entry,
                "launch": launched,
                "prompt": prompt,
                "output": str(output) if output else None,
            }
        )
        return
    _say(summary)
    if output is not None:
        _say(f"wrote {output}")
    elif options.spawn is Spawn.none:
        print_text(prompt)
    if options.spawn is Spawn.tmux:
        _say(f"started in tmux session {launched['session']}, pane {launched['pane']}")


class ResurrectGroup(PurlinGroup):
    """``resurrect NAME`` and ``resurrect --session …`` beside ``resurrect find`` and ``done``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            if args[0].split("=")[0] == "--recommended":
                form = "recommended"
            else:
                form = "direct" if args[0].startswith("-") else "name"
            args = [form, *args]
        return super().parse_args(ctx, args)


resurrect = typer.Typer(
    cls=ResurrectGroup,
    name="resurrect",
    help=(
        "Bring an earlier agent's expertise back as a new agent. "
        "'resurrect NAME' (a bookmark), 'resurrect find \"QUERY\"' (search), "
        "'resurrect --session S [--agent A] [--from PATH]' (ids), "
        "'resurrect --recommended N' (the Nth of 'purlin-resume recommend'), 'resurrect done RES_ID' "
        "(record the outcome). The options of each form: 'resurrect NAME --help', "
        "'resurrect --session S --help'."
    ),
    no_args_is_help=True,
)
app.add_typer(resurrect, name="resurrect", rich_help_panel="Resurrection")


@resurrect.command("name", hidden=True)
@delivered
def by_name(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Bookmark name or id.")],
    team: TeamOption = False,
    *,
    options: Delivery,
) -> None:
    """Resurrect a bookmarked agent (local bookmarks first, then global; --team: a teammate's
    shared bookmark)."""
    from purlin_resume.resurrection import flow as resurrection

    if team:
        from purlin_resume.cli import team as team_cli

        return team_cli.resurrect(name, options)
    _run("bookmark", name, lambda env: [resurrection.by_bookmark(env, name)], options)


@resurrect.command("find")
@delivered
def by_search(
    query: Annotated[list[str], typer.Argument(metavar="QUERY", help="What the agent did.")],
    limit: Annotated[int, typer.Option("--limit", min=1, help="Candidates shown.")] = 5,
    *,
    options: Delivery,
) -> None:
    """Resurrect the agent a search finds (interactive: pick from the ranked matches)."""
    from purlin_resume.resurrection import flow as resurrection

    text = " ".join(query).strip()
    if not text:
        raise UsageError('give words to search for, e.g. resurrect find "tmux tests yesterday"')
    _run("fuzzy", text, lambda env: resurrection.by_search(env, text, limit), options)


@resurrect.command("direct", hidden=True)
@delivered
def by_ids(
    session: Annotated[
        Optional[str],
        typer.Option(
            "--session",
            help="Session id (or a unique prefix); optional with --agent.",
            show_default=False,
        ),
    ] = None,
    agent: Annotated[
        Optional[str],
        typer.Option(
            "--agent", help="Subagent id (default: the session's main agent).", show_default=False
        ),
    ] = None,
    from_path: Annotated[
        Optional[Path],
        typer.Option("--from", help="The project the agent worked in.", show_default=False),
    ] = None,
    *,
    options: Delivery,
) -> None:
    """Resurrect an agent by its session and agent ids."""
    from purlin_resume.core import path_safety
    from purlin_resume.resurrection import flow as resurrection

    if session is None and agent is None:
        raise UsageError("give --session, --agent or both")

    def candidates(env: Environment) -> list[Candidate]:
        if session is None:
            candidate = resurrection.by_agent(env, agent or "")
        else:
            candidate = resurrection.direct(session, agent)
        if from_path is not None:
            source = resurrection.open_source(env, candidate)
            recorded = source.transcript.project_path
            own = path_safety.folders([recorded, env.project_root])
            wanted = path_safety.checked(from_path, [*env.allowed, *own], "--from")
            if not recorded or not (
                recorded == str(wanted) or recorded.startswith(str(wanted).rstrip("/") + "/")
            ):
                raise resurrection.PreflightFailed(
                    resurrection.Check(
                        "exists",
                        "fail",
                        f"session {source.session_id} belongs to {recorded or 'no project'}, "
                        f"not to --from {from_path}",
                        "drop --from or give the project the session was run in",
                    )
                )
        return [candidate]

    query = " ".join(filter(None, [session, agent]))
    _run("direct", query, candidates, options)


@resurrect.command("recommended", hidden=True)
@delivered
def by_recommendation(
    number: Annotated[
        int,
        typer.Option(
            "--recommended",
            min=1,
            help="The Nth of the last 'purlin-resume recommend' list (made now if there is none).",
        ),
    ],
    *,
    options: Delivery,
) -> None:
    """Resurrect an agent that 'purlin-resume recommend' named."""
    from purlin_resume.resurrection import flow as resurrection
    from purlin_resume.resurrection import recommendation

    def candidates(env: Environment) -> list[Candidate]:
        here = str(env.project_root) if env.project_root is not None else None
        listed = recommendation.remembered(env.cache, here)
        if listed is None:
            _, found = _recommendations(env, None, [], None, max(number, 5), None)
            listed = [r.to_dict() for r in found]
        if number > len(listed):
            raise UsageError(
                f"--recommended {number}: the last recommendations hold {len(listed)}; "
                "run 'purlin-resume recommend' to see them"
            )
        chosen = listed[number - 1]
        agent = chosen.get("agent_id")
        mark = next(
            (
                m
                for m in env.shelves.all()
                if (m.session_id, m.agent_id) == (chosen["session_id"], agent)
            ),
            None,
        )
        return [
            resurrection.Candidate(
                chosen["session_id"],
                agent,
                title=chosen.get("title"),
                project=chosen.get("project"),
                score=chosen.get("score"),
                reasons=[chosen.get("why") or "recommended"],
                bookmark=mark,
                agent_type=chosen.get("agent_type"),
                ended_at=chosen.get("ended_at"),
            )
        ]

    _run("fuzzy", f"recommended #{number}", candidates, options)


@resurrect.command("done")
@runs(outcome_run.done)
def done(
    resurrection_id: Annotated[str, typer.Argument(metavar="RES_ID", help="res-YYYY-MM-DD-NNN")],
    outcome: Annotated[Outcome, typer.Option("--outcome", help="success, failure or partial.")],
    agent_id: Annotated[
        Optional[str], typer.Option("--agent-id", help="The new agent's id.", show_default=False)
    ] = None,
    duration_ms: Annotated[
        Optional[int], typer.Option("--duration-ms", min=0, show_default=False)
    ] = None,
    tool_calls: Annotated[
        Optional[int], typer.Option("--tool-calls", min=0, show_default=False)
    ] = None,
    reason: Annotated[
        Optional[str],
        typer.Option("--reason", help="Why, when not a success.", show_default=False),
    ] = None,
    notes: NotesOption = None,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record what a resurrected agent did (hooks call this when it ends)."""


# ---------------------------------------------------------------------------------------------
# find


@app.command("find", rich_help_panel="Resurrection")
@runs(find_run.find)
def find_command(
    query: Annotated[list[str], typer.Argument(metavar="QUERY", help="Words, names, time words.")],
    limit: Annotated[int, typer.Option("--limit", min=1, help="Results shown.")] = 10,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Find sessions and subagents of every project: ranked, with why each matched (--team:
    the team's bookmarks)."""


# ---------------------------------------------------------------------------------------------
# recommend


def _recommendations(env, task_text, files, session, limit, threshold):
    from purlin_resume.core import current_session
    from purlin_resume.resurrection import recommendation

    session = current_session.checked(session)
    if task_text is not None:
        here = str(env.project_root) if env.project_root else None
        task = recommendation.Task.told(task_text, files, session, here)
    else:
        task = recommendation.gather(
            env.project_root, env.claude_root, session, env.settings.main_branches
        )
        task.files += [f for f in files if f not in task.files]
    if not env.has_transcripts() and not env.shelves.all():
        raise PurlinError(
            f"no Claude Code transcripts in {env.claude_root} and no bookmarks: nothing to "
            "recommend; pass --claude-dir or set CLAUDE_CONFIG_DIR"
        )
    found = recommendation.recommend(env, task, limit=limit, threshold=threshold)
    recommendation.remember(env.cache, task, found)
    return task, found


@app.command("recommend", rich_help_panel="Resurrection")
def recommend_command(
    task: Annotated[
        Optional[str],
        typer.Option(
            "--task",
            help="What you are working on (default: this session's first prompt, the branch, "
            "the changed files and a live checkpoint's feature).",
            show_default=False,
        ),
    ] = None,
    file: Annotated[
        Optional[list[str]],
        typer.Option(
            "--file", help="A file in play, relative to the project (repeat).", show_default=False
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Recommendations shown.")] = 5,
    threshold: Annotated[
        Optional[float],
        typer.Option(
            "--threshold",
            min=0,
            max=100,
            help="Lowest score recommended (default: the recommend_threshold setting, 35).",
            show_default=False,
        ),
    ] = None,
    session: Annotated[
        Optional[str],
        typer.Option(
            "--session",
            help="The current session (default: $PURLIN_SESSION_ID, $CLAUDE_CODE_SESSION_ID).",
            show_default=False,
        ),
    ] = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Who worked on this before: earlier agents ranked by the current task, with why."""
    if task is not None and not task.strip():
        raise UsageError("--task is empty: say what you are working on, or leave --task out")
    env = environment(claude_dir, project)
    current, found = _recommendations(env, task, file or [], session, limit, threshold)
    if as_json:
        print_json(
            {
                "task": {
                    "summary": current.summary(),
                    "words": current.words,
                    "files": current.files,
                },
                "threshold": env.settings.recommend_threshold if threshold is None else threshold,
                "recommendations": [r.to_dict() for r in found],
            }
        )
        return
    lines = [f"Task: {current.summary()}"]
    if not current.words and not current.files:
        lines.append(
            "Nothing to go on: no session prompt, branch, changed files or checkpoint; "
            "say it with --task"
        )
    elif not found:
        lines.append(
            "No earlier agent clears the threshold; lower it with --threshold, or search with 'purlin-resume find'."
        )
    for number, item in enumerate(found, 1):
        kind = f" ({item.agent_type})" if item.agent_type and item.agent_type != "main" else ""
        title = item.title if not item.title or len(item.title) <= 70 else item.title[:69] + "…"
        lines.append(f"{number:2}. {item.score:5.1f}  {item.label()}{kind}  {title or ''}".rstrip())
        where = item.project or "?"
        lines.append(f"      {where}" + ("  [other repository]" if item.cross_repo else ""))
        lines.append(f"      why: {item.why}")
        lines.append(f"      purlin-resume resurrect --recommended {number}")
    print_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------------
# bookmarks

bookmark = typer.Typer(
    name="bookmark", help="Name agents worth resurrecting.", no_args_is_help=True
)
app.add_typer(bookmark, name="bookmark", rich_help_panel="Resurrection")
GlobalOption = Annotated[
    bool, typer.Option("--global", help="The global bookmarks (<Claude data folder>/history/).")
]
KeyArgument = Annotated[str, typer.Argument(metavar="NAME", help="Bookmark name or id.")]


def _mark_dict(mark) -> dict[str, Any]:
    return {**mark.to_dict(), "scope": mark.scope}


def _mark_text(mark) -> str:
    what = f"agent {mark.agent_id}" if mark.agent_id else "main agent"
    tags = f"  [{', '.join(mark.tags)}]" if mark.tags else ""
    return (
        f"{mark.name}  {mark.bookmark_id}  {mark.scope}  session {mark.session_id} · {what}{tags}\n"
        f"    {mark.description or ''}  resurrected {mark.resurrection_count}x"
        f"{'  last ' + mark.last_resurrected if mark.last_resurrected else ''}\n"
    )


def _shelf(env: Environment, global_: bool) -> Path:
    if global_:
        return env.shelves.global_
    if env.shelves.local is None:
        raise UsageError("not in a git project: use --global, or --project FOLDER")
    return env.shelves.local


def _in_shelf(env: Environment, global_: bool, key: str, action):
    """``action`` on the bookmark file ``--global`` chooses; a bookmark that is only in the
    other file is an error naming the option that reaches it."""
    from purlin_resume.core.errors import NotFound

    try:
        return action(_shelf(env, global_))
    except NotFound:
        raise env.shelves.not_in(key, "global" if global_ else "local") from None


@bookmark.command("add")
def bookmark_add(
    name: Annotated[str, typer.Argument(metavar="NAME")],
    session: Annotated[str, typer.Option("--session", help="Session id or unique prefix.")],
    agent: Annotated[Optional[str], typer.Option("--agent", help="Subagent id.")] = None,
    description: Annotated[Optional[str], typer.Option("--description")] = None,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help="Repeat for several.")] = None,
    global_: GlobalOption = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Bookmark a session or subagent and archive its transcripts (compressed)."""
    from purlin_resume.resurrection import flow as resurrection

    env = environment(claude_dir, project)
    if not global_:
        _shelf(env, global_)
    mark = resurrection.bookmark_agent(env, name, session, agent, description, tag or [], global_)
    if as_json:
        print_json(_mark_dict(mark))
        return
    print_text(
        f"bookmarked {mark.name} ({mark.bookmark_id}, {mark.scope}); archive {mark.archive}\n"
    )


@bookmark.command("list")
def bookmark_list(
    tag: Annotated[
        Optional[str], typer.Option("--tag", help="Only bookmarks with this tag.")
    ] = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Every bookmark: the project's, then the global ones (--team: every teammate's)."""
    if team:
        from purlin_resume.cli import team as team_cli

        return team_cli.bookmarks(claude_dir, tag, as_json)
    env = environment(claude_dir, project)
    marks = [m for m in env.shelves.all() if tag is None or tag in m.tags]
    if as_json:
        print_json({"bookmarks": [_mark_dict(m) for m in marks]})
        return
    print_text("".join(_mark_text(m) for m in marks) or "No bookmarks.\n")


@bookmark.command("show")
def bookmark_show(
    key: KeyArgument,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """One bookmark."""
    from purlin_resume.resurrection import flow as resurrection

    env = environment(claude_dir, project)
    mark = resurrection.by_bookmark(env, key).bookmark
    if as_json:
        print_json(_mark_dict(mark))
        return
    print_text(_mark_text(mark))


@bookmark.command("share")
def bookmark_share(
    key: KeyArgument,
    no_redact: Annotated[bool, typer.Option("--no-redact", hidden=True)] = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Publish a bookmark and its redacted, compressed context to the team database."""
    from purlin_resume.cli import team as team_cli

    team_cli.share(key, no_redact, environment(claude_dir, project), as_json)


@bookmark.command("update")
def bookmark_update(
    key: KeyArgument,
    new_name: Annotated[Optional[str], typer.Option("--name", help="Rename it.")] = None,
    description: Annotated[Optional[str], typer.Option("--description")] = None,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help="Replace the tags.")] = None,
    global_: GlobalOption = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Change a bookmark's name, description or tags."""
    from purlin_resume.core import redact
    from purlin_resume.resurrection import bookmarks

    changes: dict[str, Any] = {}
    if new_name is not None:
        changes["name"] = new_name
    if description is not None:
        changes["description"] = redact.redact(description).text
    if tag is not None:
        changes["tags"] = list(dict.fromkeys(tag))
    if not changes:
        raise UsageError("nothing to change: give --name, --description or --tag")
    env = environment(claude_dir, project)
    mark = _in_shelf(env, global_, key, lambda path: bookmarks.update(path, key, changes))
    if as_json:
        print_json(mark.to_dict())
        return
    print_text(f"updated {mark.name} ({mark.bookmark_id})\n")


@bookmark.command("rm")
def bookmark_rm(
    key: KeyArgument,
    global_: GlobalOption = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Remove a bookmark (its archive stays: other bookmarks may share it)."""
    from purlin_resume.resurrection import bookmarks

    env = environment(claude_dir, project)
    mark = _in_shelf(env, global_, key, lambda path: bookmarks.remove(path, key))
    if as_json:
        print_json(mark.to_dict())
        return
    print_text(f"removed {mark.name} ({mark.bookmark_id})\n")


# ---------------------------------------------------------------------------------------------
# resurrections

resurrections = typer.Typer(
    name="resurrections",
    help="The resurrection log: history and statistics.",
    invoke_without_command=True,
)
app.add_typer(resurrections, name="resurrections", rich_help_panel="Resurrection")
SinceOption = Annotated[
    Optional[str],
    typer.Option(
        "--since",
        help="2026-02-09, 7d / 12h / 30m, or yesterday / last week / 3 days ago.",
        show_default=False,
    ),
]


def _entries(claude_dir, since, agent, outcome, mode, team=False, for_stats=False):
    """The log's path, its chosen entries newest first (an iterator over the local log) and
    what tells the skipped lines once they are read (``.skipped``)."""
    from purlin_resume.claude import layout
    from purlin_resume.resurrection import log as resurrection_log

    since = resurrection_log.parse_since(since) if since else None
    if team:
        from purlin_resume.cli import team as team_cli

        log, entries = team_cli.team_entries(claude_dir, for_stats)
        entries.reverse()
        history: Any = _NothingSkipped
    else:
        log = layout.history_dir(claude_dir) / resurrection_log.FILE_NAME
        entries = history = resurrection_log.History(log, since)
    chosen = resurrection_log.matching(
        entries, since, agent, outcome.value if outcome else None, mode.value if mode else None
    )
    return log, chosen, history


class _NothingSkipped:
    skipped = 0


def _batches(entries, size: int = 1000):
    batch = []
    for entry in entries:
        batch.append(entry)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _warn_skipped(log, skipped: int) -> None:
    if skipped:
        typer.echo(f"warning: {skipped} line(s) of {log} did not parse and were skipped", err=True)


@resurrections.callback()
def resurrections_list(
    ctx: typer.Context,
    since: SinceOption = None,
    agent: Annotated[
        Optional[str], typer.Option("--agent", help="Agent or session id (prefix).")
    ] = None,
    outcome: Annotated[Optional[Outcome], typer.Option("--outcome")] = None,
    mode: Annotated[Optional[Mode], typer.Option("--mode")] = None,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Recent resurrections, newest first (filters: --since --agent --outcome --mode; --team:
    every teammate's)."""
    ctx.obj = (since, agent, outcome, mode, claude_dir, as_json, team)
    if ctx.invoked_subcommand is not None:
        return
    from purlin_resume.resurrection import log as resurrection_log

    log, chosen, history = _entries(claude_dir, since, agent, outcome, mode, team)
    with Printout() as out:
        shown = 0
        for batch in _batches(chosen):
            if as_json:
                pieces = [json.dumps(e, indent=2, ensure_ascii=False) for e in out.data(batch)]
                out.add(("," if shown else "") + "\n" + ",\n".join(map(_nested, pieces)))
            else:
                out.add("\n".join(map(resurrection_log.summary_line, batch)) + "\n")
            shown += len(batch)
        if as_json:
            head = {"log": str(log), "skipped_lines": history.skipped, "resurrections": []}
            start, _, end = json.dumps(out.data(head), indent=2, ensure_ascii=False).rpartition(
                "[]"
            )
            out.send(start + "[", ("\n  ]" if shown else "]") + end + "\n")
            return
        _warn_skipped(log, history.skipped)
        if not shown:
            print_text(f"No resurrections in {log}.\n")
            return
        out.send()


def _nested(document: str) -> str:
    """A JSON document as an item of the top-level document's list (indented by two levels)."""
    return "\n".join("    " + line for line in document.split("\n"))


@resurrections.command("stats")
def resurrections_stats(
    ctx: typer.Context,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Top agents, success by mode, context size by agent type, cross-repo, latency, failures."""
    from purlin_resume.resurrection import log as resurrection_log

    since, agent, outcome, mode, parent_dir, parent_json, parent_team = ctx.obj or (None,) * 7
    claude_dir, team = claude_dir or parent_dir, team or parent_team
    if team and not (since or agent or outcome or mode):
        from purlin_resume.cli import team as team_cli

        (log, figures), history = team_cli.stats(claude_dir), _NothingSkipped
    else:
        log, chosen, history = _entries(claude_dir, since, agent, outcome, mode, team, True)
        figures = resurrection_log.stats(chosen, newest_first=True)
    if as_json or parent_json:
        print_json({"log": str(log), "skipped_lines": history.skipped, **figures})
        return
    _warn_skipped(log, history.skipped)
    lines = [f"{figures['total']} resurrection(s) in {log}", "", "Most resurrected:"]
    lines += [f"  {t['resurrections']:4}  {t['agent']}" for t in figures["top_agents"]] or ["  -"]
    lines.append("Success rate by mode:")
    lines += [
        f"  {m:9} {v['success']}/{v['total']} ({v['rate'] * 100:.0f}%)"
        for m, v in figures["success_rate_by_mode"].items()
    ] or ["  -"]
    lines.append("Average context tokens by agent type:")
    lines += [
        f"  {k:16} {v}" for k, v in figures["average_context_tokens_by_agent_type"].items()
    ] or ["  -"]
    cross = figures["cross_repo"]
    lines.append(
        f"Cross-repo: {cross['cross']} of {figures['total']}"
        + (f" ({cross['ratio'] * 100:.0f}%)" if cross["ratio"] is not None else "")
    )
    latency = figures["latency_ms"]
    lines.append(f"Latency ms: p50 {latency['p50']}  p95 {latency['p95']}  p99 {latency['p99']}")
    lines.append("Top failure reasons:")
    lines += [f"  {f['count']:4}  {f['reason']}" for f in figures["top_failure_reasons"]] or ["  -"]
    print_text("\n".join(lines) + "\n")
