"""`resurrect NAME`, `resurrect find`, `resurrect --session` and `resurrect --recommended`: bring
an earlier agent back as a new agent (the group and `resurrect done` are in
``cli.resurrect_done``)."""

from __future__ import annotations

import functools
import inspect
import sys
import time
from dataclasses import dataclass, fields, replace
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional, get_type_hints

import typer
from typer.core import TyperCommand

from purlin_resume.agentcli import programs
from purlin_resume.agentcli.names import CLAUDE
from purlin_resume.cli.candidates import (
    OpenInstead,
    candidate_line,
    choose,
    resurrect_command,
    say,
    searched,
)
from purlin_resume.cli.common import (
    Output,
    checked_output,
    print_json,
    print_text,
)
from purlin_resume.cli.environment import environment_here
from purlin_resume.cli.opening import carry_out, default_spawn
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    NotesOption,
    ProjectOption,
    TeamOption,
    TmuxSocketOption,
    tmux_server,
)
from purlin_resume.cli.resurrect_done import resurrect
from purlin_resume.core import store
from purlin_resume.core.errors import PurlinError, UsageError
from purlin_resume.resurrection import flow as resurrection
from purlin_resume.resurrection.candidates import Candidate, NoClearWinner, clear_winner
from purlin_resume.resurrection.environment import Environment
from purlin_resume.resurrection.flow import Plan

# Typer reads these annotations at runtime, so Optional/List stay (Python 3.10).
# ruff: noqa: UP045, UP006


class Method(str, Enum):
    full = "full"
    summarized = "summarized"
    hybrid = "hybrid"


class Spawn(str, Enum):
    print = "print"
    process = "process"
    tmux = "tmux"
    none = "none"  # print, as it was called before
    claude = "claude"  # process, as it was called before

    @property
    def way(self) -> str:
        """print, process or tmux (what the older names stand for)."""
        return {"none": "print", "claude": "process"}.get(self.value, self.value)


class Into(str, Enum):
    claude = "claude"
    codex = "codex"
    gemini = "gemini"
    opencode = "opencode"


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
    Spawn,
    typer.Option(
        "--spawn",
        help="print: print the prompt; process: run the new agent here; tmux: in a new tmux "
        "window (none and claude: the older names of print and process).",
    ),
]
IntoOption = Annotated[
    Optional[Into],
    typer.Option(
        "--into",
        help="The agent CLI the new agent runs in (default: the one running this command, "
        "else claude).",
        show_default=False,
    ),
]
OutputOption = Annotated[
    Optional[Path],
    typer.Option("-o", "--output", help="Write the prompt to this file.", show_default=False),
]
SocketOption = TmuxSocketOption
PreviewOption = Annotated[
    bool,
    typer.Option(
        "--preview",
        help="Show the candidates and the context the first one would bring back; "
        "resurrect nothing.",
    ),
]


def _interactive(yes: bool) -> bool:
    if yes:
        return False
    if not sys.stdin.isatty():
        raise UsageError(
            "no terminal to ask on: pass --yes (or --autonomous) to pick the best match "
            "and skip the questions"
        )
    return True


def _preview(plan: Plan, lines: int = 40, doing: str = "Resurrecting") -> str:
    head = [
        f"{doing} {plan.candidate.label()} (session {plan.source_session})"
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
    spawn: SpawnOption = Spawn.print
    into: IntoOption = None
    output: OutputOption = None
    tmux_socket: SocketOption = None
    notes: NotesOption = None
    preview: PreviewOption = False
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
        if not Output.redact:  # the global --no-redact says it for every command
            options = replace(options, no_redact=True)
        form(**values, options=options)

    command.__signature__ = inspect.Signature(own + shared)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in own + shared}
    return command


def _run(
    mode: str, query: str | None, candidates_of, options: Delivery, searched: bool = False
) -> None:
    """Resurrect what ``candidates_of`` finds (the results of a search for ``query`` when
    ``searched``), asking on a terminal unless ``--yes``, and deliver the prompt
    (``deliver``)."""
    started = time.monotonic()
    if options.no_redact:
        Output.redact = False
    if options.preview:
        return _previewed(mode, query, candidates_of, options, searched)
    output = checked_output(options.output)
    server = tmux_server(options.tmux_socket)
    interactive = _interactive(options.yes)
    env = environment_here(options.claude_dir, options.project)
    request = resurrection.Request(
        mode,
        query,
        options.method.value,
        options.task,
        not options.no_redact,
        options.notes,
        target_cli(options),
    )
    review = _asked if interactive else _told
    try:
        plan, entry = resurrection.resurrect(
            env,
            request,
            candidates_of,
            lambda found: choose(found, interactive, query=query if searched else None),
            review,
            started,
        )
    except OpenInstead as picked:
        carry_out(
            env,
            picked.candidate.session_id,
            fork=False,
            spawn=default_spawn(),
            claude_dir_given=options.claude_dir is not None,
            server=server,
        )
        return
    deliver(env, entry, plan.prompt, options, output, server, _summary(plan, entry), plan.to_dict())


def _summary(plan: Plan, entry: dict[str, Any]) -> str:
    """The resurrection in one line: its id, the agent, the method and the prompt's size (and
    the CLIs, when the new agent's is another)."""
    return (
        f"{entry['resurrection_id']}: {plan.candidate.label()} "
        f"({plan.method}, {plan.tokens} tokens, full {plan.tokens_full}"
        + (
            f"; {programs.label(plan.source_cli)} → {programs.label(plan.target_cli)})"
            if plan.source_cli != plan.target_cli
            else ")"
        )
    )


def _previewed(mode: str, query: str | None, candidates_of, options: Delivery, searched: bool):
    """``--preview``: the candidates and the plan of the first, for the user to approve (an
    agent shows them and asks); nothing is resurrected, recorded or started."""
    if options.spawn.way != "print" or options.output is not None:
        raise UsageError("--preview resurrects nothing: leave out --spawn and -o")
    env = environment_here(options.claude_dir, options.project)
    request = resurrection.Request(
        mode, query, options.method.value, options.task, not options.no_redact, options.notes
    )
    found, plan, problem = resurrection.preview(env, request, candidates_of)
    try:
        winner = clear_winner(query or "", found) if searched else found[0]
    except NoClearWinner:
        winner = None
    shown = (
        _preview(plan, doing="Would resurrect")
        if plan
        else f"{found[0].label()} cannot be resurrected: {problem}"
    )
    if options.as_json:
        listed = [{**c.to_dict(), "resurrect": resurrect_command(c)} for c in found]
        print_json(
            {
                "candidates": listed,
                "clear_winner": winner is not None,
                "plan": plan.to_dict() if plan else None,
                "problem": problem,
                "preview": shown,
            }
        )
        return
    if len(found) > 1:
        print_text("Candidates:\n")
        print_text("\n".join(candidate_line(n, c) for n, c in enumerate(found, 1)) + "\n")
    print_text(shown + "\n")
    print_text(f"Nothing was resurrected. To go on: {resurrect_command(found[0])}\n")


def _asked(plan: Plan, candidates: int, again) -> tuple[Plan, list[str]]:
    """The plan shown on the terminal; the user may take the summarized context instead when
    it asks, or cancel."""
    say(_preview(plan))
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
            plan = again("summarized")
            say(_preview(plan, lines=0))
    if not typer.confirm("Resurrect with this context?", default=True, err=True):
        raise PurlinError("cancelled: nothing was resurrected")
    return plan, []


def _told(plan: Plan, candidates: int, again) -> tuple[Plan, list[str]]:
    """The plan as it is (``--yes``): its warnings on stderr, its decisions in the log."""
    for check in plan.checks:
        if check.level != "ok":
            say(check.line())
    return plan, resurrection.went_on(plan, candidates)


def target_cli(options: Delivery) -> str:
    """``--into``, else the agent CLI this command runs in, else Claude Code."""
    return options.into.value if options.into else (programs.running_in() or CLAUDE)


def deliver(env, entry, prompt, options: Delivery, output, server, summary, document) -> None:
    """What every form of ``resurrect`` (``--team`` too) does with its prompt: write it (``-o``),
    start the agent (``--spawn``), then report: one JSON document, or the summary line and the
    prompt."""
    launched: dict[str, Any] = {"spawned": "none"}
    into = entry.get("target_cli") or target_cli(options)
    way = options.spawn.way
    if output is not None:
        store.write_output(output, prompt)
    if way == "process":
        launched = resurrection.launch_process(env, entry, prompt, into)
    elif way == "tmux":
        launched = resurrection.launch_tmux(env, entry, prompt, server, into)
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
    say(summary)
    if output is not None:
        say(f"wrote {output}")
    elif way == "print":
        print_text(prompt)
    if way == "tmux":
        say(
            f"started {programs.label(into)} in tmux session {launched['session']}, "
            f"pane {launched['pane']}"
        )


class FormContext(typer.Context):
    """A hidden form's context: its usage and errors name ``resurrect``, as the user typed it,
    never the form's inner name."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path if self.parent is not None else super().command_path


class Form(TyperCommand):
    """A form of ``resurrect`` chosen by its arguments (``ResurrectGroup``), not by a name."""

    context_class = FormContext


@resurrect.command("name", hidden=True, cls=Form)
@delivered
def by_name(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Bookmark name or id.")],
    team: TeamOption = False,
    *,
    options: Delivery,
) -> None:
    """Resurrect a bookmarked agent (local bookmarks first, then global; --team: a teammate's
    shared bookmark)."""
    if team:
        return _team(name, options)
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
    text = " ".join(query).strip()
    if not text:
        raise UsageError('give words to search for, e.g. resurrect find "tmux tests yesterday"')
    _run("fuzzy", text, lambda env: searched(env, text, limit), options, True)


@resurrect.command("direct", hidden=True, cls=Form)
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
    if session is None and agent is None:
        raise UsageError("give --session, --agent or both")

    def candidates(env: Environment) -> list[Candidate]:
        return [resurrection.by_ids(env, session, agent, from_path)]

    query = " ".join(filter(None, [session, agent]))
    _run("direct", query, candidates, options)


@resurrect.command("recommended", hidden=True, cls=Form)
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

    def candidates(env: Environment) -> list[Candidate]:
        return [resurrection.recommended(env, number)]

    _run("fuzzy", f"recommended #{number}", candidates, options)


def _team(name: str, options: Delivery) -> None:
    """``resurrect NAME --team``: a teammate's shared bookmark, brought back here."""
    from purlin_resume.team import revive  # the team wing, loaded for --team only

    if options.no_redact:
        raise UsageError("a shared context is always redacted: --no-redact does not apply")
    output = checked_output(options.output)
    server = tmux_server(options.tmux_socket)
    env = environment_here(options.claude_dir, options.project)
    found = revive.revive(env, name, options.task, options.notes)
    entry = found.entry
    summary = (
        f"{entry['resurrection_id']}: {found.bookmark['name']} of {found.bookmark['member']} "
        f"({found.tokens} tokens, shared context)"
    )
    deliver(
        env, entry, found.prompt, options, output, server, summary, {"bookmark": found.bookmark}
    )
