"""`team init|status|sync|log` and the `--team` side of the resurrection commands: a shell over
``purlin_resume.team``. Every team command first checks that the ``team`` extra is installed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import (
    print_json,
    print_text,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    ProjectOption,
)
from purlin_resume.core.errors import UsageError

if TYPE_CHECKING:
    from purlin_resume.resurrection.flow import Environment

# ruff: noqa: UP045

team = typer.Typer(
    cls=PurlinGroup,
    name="team",
    help=(
        "Share the resurrection log and bookmarks with a team through Dolt "
        "(needs the team extra of purlin-resume)."
    ),
    no_args_is_help=True,
)
app.add_typer(team, name="team", rich_help_panel="Resurrection")


def installed() -> None:
    """Stop with one line when the team extra is missing."""
    import importlib.util

    from purlin_resume.team import TeamUnavailable

    for name in ("doltlite", "pymysql"):
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise TeamUnavailable()


def history_of(claude_dir: Path | None) -> Path:
    from purlin_resume.claude import layout

    return layout.history_dir(claude_dir)


@team.command("init")
def team_init(
    remote: Annotated[
        Optional[str],
        typer.Option(
            "--remote",
            help="file:///shared/purlin-team.db or http://host:port/db.",
            show_default=False,
        ),
    ] = None,
    dsn: Annotated[
        Optional[str],
        typer.Option(
            "--dsn",
            help="mysql://user[:password]@host:3306/db (a Dolt SQL server).",
            show_default=False,
        ),
    ] = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Join a team (or found it): set up the team database and share your log and bookmarks."""
    installed()
    from purlin_resume.cli.find_run import environment
    from purlin_resume.team import sync

    env = environment(claude_dir, project)
    result = sync.init(env.history, remote, dsn, env.shelves.paths())
    if as_json:
        print_json(result)
        return
    verb = "created" if result.get("created") else "joined"
    print_text(
        f"{verb} the team database at {result['remote']} as {result['member']}: "
        f"{result['resurrections']} resurrection(s), {result['bookmarks']} bookmark(s)\n"
    )


@team.command("status")
def team_status(claude_dir: ClaudeDirOption = None, as_json: JsonOption = False) -> None:
    """Who you are in the team, where it lives, what is queued, pushed, shared."""
    installed()
    from purlin_resume.team import sync

    result = sync.status(history_of(claude_dir))
    if as_json:
        print_json(result)
        return
    lines = [
        f"member    {result['member']}",
        f"backend   {result['backend']}  {result['remote']}",
        f"rows      {result['resurrections']} resurrection(s), {result['bookmarks']} "
        f"bookmark(s), {result['shared_contexts']} shared context(s)",
        f"queued    {result['queued']} change(s)",
    ]
    if "pushed" in result:
        state = "pushed" if result["pushed"] else "not pushed yet: run 'purlin-resume team sync'"
        lines.append(f"head      {(result['head'] or '-')[:12]}  {state}")
    if result.get("last_failure"):
        lines.append(f"last failure  {result['last_failure']}")
    print_text("\n".join(lines) + "\n")


@team.command("sync")
def team_sync(claude_dir: ClaudeDirOption = None, as_json: JsonOption = False) -> None:
    """Commit queued changes, pull and merge the team's, push yours."""
    installed()
    from purlin_resume.team import sync

    result = sync.sync(history_of(claude_dir))
    if as_json:
        print_json(result)
        return
    print_text(
        f"synced with {result['remote']}: {result['committed']} new commit(s); the team has "
        f"{result['resurrections']} resurrection(s), {result['bookmarks']} bookmark(s)\n"
    )


@team.command("log")
def team_log(
    limit: Annotated[int, typer.Option("--limit", min=1, help="Commits shown.")] = 20,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """The team database's Dolt commits, newest first."""
    installed()
    from purlin_resume.team import sync

    commits = sync.commits(history_of(claude_dir), limit)
    if as_json:
        print_json({"commits": commits})
        return
    print_text(
        "".join(
            f"{c['commit_hash'][:12]}  {c['date']}  {c['committer']}  {c['message']}\n"
            for c in commits
        )
        or "No commits.\n"
    )


# ---------------------------------------------------------------------------------------------
# --team on the resurrection commands


def team_entries(claude_dir: Path | None, for_stats: bool) -> tuple[str, list[dict[str, Any]]]:
    installed()
    from purlin_resume.team import reads, sync

    history = history_of(claude_dir)
    fields = reads.STATS_FIELDS if for_stats else None
    return sync.where(sync.require(history)), reads.resurrections(history, fields)


def bookmarks(claude_dir: Path | None, tag: str | None, as_json: bool) -> None:
    installed()
    from purlin_resume.team import reads

    marks = [m for m in reads.bookmarks(history_of(claude_dir)) if tag is None or tag in m["tags"]]
    if as_json:
        print_json({"bookmarks": marks})
        return
    print_text("".join(_mark_line(m) for m in marks) or "No team bookmarks.\n")


def _mark_line(mark: dict[str, Any]) -> str:
    what = f"agent {mark['agent_id']}" if mark.get("agent_id") else "main agent"
    tags = f"  [{', '.join(mark['tags'])}]" if mark.get("tags") else ""
    shared = "  shared context" if mark.get("shared") else ""
    return (
        f"{mark['name']}  {mark['bookmark_id']}  {mark['member']}  session {mark['session_id']}"
        f" · {what}{tags}{shared}\n"
        f"    {mark.get('description') or ''}  resurrected {mark.get('team_resurrections', 0)}x"
        " by the team\n"
    )


def find(claude_dir: Path | None, text: str, limit: int, as_json: bool) -> None:
    installed()
    from purlin_resume.team import reads

    found = reads.find(history_of(claude_dir), text, limit)
    if as_json:
        print_json({"query": text, "results": found})
        return
    print_text("".join(_mark_line(m) for m in found) or f"No team bookmark matches {text!r}.\n")


def share(key: str, no_redact: bool, env: Environment, as_json: bool) -> None:
    """Publish a bookmark of yours and its redacted context pack to the team database."""
    installed()
    if no_redact:
        raise UsageError("bookmark share always redacts: --no-redact is refused here")
    from purlin_resume.resurrection import flow as resurrection
    from purlin_resume.team import reads

    candidate = resurrection.by_bookmark(env, key)
    mark = candidate.bookmark
    plan = resurrection.plan(env, candidate, "bookmark", key, "hybrid", None, True)
    shared = reads.share(
        env.history, mark.to_dict(), mark.scope, plan.context.to_dict(), plan.tokens, plan.method
    )
    if as_json:
        print_json(shared)
        return
    print_text(
        f"shared {shared['name']} ({shared['bookmark_id']}): {plan.method} context, "
        f"{plan.tokens} tokens, {shared['bytes']} bytes compressed; "
        "'purlin-resume team sync' publishes it\n"
    )


def resurrect(name: str, options: Any) -> None:
    """``resurrect NAME --team``: a teammate's shared bookmark, brought back here."""
    installed()
    from purlin_resume.cli.common import checked_output, tmux_server
    from purlin_resume.cli.find_run import environment
    from purlin_resume.cli.resurrect import deliver
    from purlin_resume.team import revive

    if options.no_redact:
        raise UsageError("a shared context is always redacted: --no-redact does not apply")
    output = checked_output(options.output)
    server = tmux_server(options.tmux_socket)
    env = environment(options.claude_dir, options.project)
    done = revive.revive(env, name, options.task, options.notes)
    entry = done.entry
    summary = (
        f"{entry['resurrection_id']}: {done.bookmark['name']} of {done.bookmark['member']} → "
        f"{entry['resurrected_as_agent_id']} ({done.tokens} tokens, shared context)"
    )
    deliver(env, entry, done.prompt, options, output, server, summary, {"bookmark": done.bookmark})
