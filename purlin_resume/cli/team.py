"""`team init|status|sync|log` and the `--team` side of the resurrection commands: a shell over
``purlin_resume.team``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import echo_error, outgoing, print_json, print_text
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, ProjectOption
from purlin_resume.core.errors import UsageError

if TYPE_CHECKING:
    from purlin_resume.resurrection.flow import Environment

# ruff: noqa: UP045

team = typer.Typer(
    cls=PurlinGroup,
    name="team",
    help="Share the resurrection log and bookmarks with a team, through git or a SQL server.",
    no_args_is_help=True,
)
app.add_typer(team, name="team", rich_help_panel="Resurrection")


def warn(text: str) -> None:
    from purlin_resume.core.terminal_text import one_line

    echo_error(outgoing(f"warning: team: {one_line(text)}"))


def _environment(claude_dir: Path | None, project: Path | None = None) -> Environment:
    from purlin_resume.cli.find_run import environment

    return environment(claude_dir, project)


def _password(dsn: str, password_file: Path | None) -> str:
    """The DSN with its password, which never comes from the command line."""
    from purlin_resume.team import server

    if server.has_password(dsn):
        raise UsageError(
            "--dsn: leave the password out of the URL (any user could read it in ps); give it "
            f"with --password-file, ${server.PASSWORD_ENV} or at the prompt"
        )
    if password_file is not None:
        try:
            password = password_file.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as exc:
            raise UsageError(f"--password-file {password_file}: {exc.strerror or exc}") from None
    elif os.environ.get(server.PASSWORD_ENV) is not None:
        password = os.environ[server.PASSWORD_ENV]
    elif os.isatty(0):
        password = typer.prompt("Password for the team server", hide_input=True, default="")
    else:
        password = ""
    return server.with_password(dsn, password) if password else dsn


@team.command("init")
def team_init(
    remote: Annotated[
        Optional[str],
        typer.Option(
            "--remote",
            help="A git URL the team can push to, a path (a bare repository, made if missing) "
            "or 'origin' (the project's own origin).",
            show_default=False,
        ),
    ] = None,
    ref: Annotated[
        Optional[str], typer.Option("--ref", help="The team's ref on the remote.")
    ] = None,
    group: Annotated[
        Optional[str],
        typer.Option("--group", help="The group a repository made on disk belongs to."),
    ] = None,
    dsn: Annotated[
        Optional[str],
        typer.Option(
            "--dsn",
            help="mysql://user@host:3306/db: a Dolt, MySQL or MariaDB server (no password here).",
            show_default=False,
        ),
    ] = None,
    password_file: Annotated[
        Optional[Path],
        typer.Option("--password-file", help="A file holding the server's password."),
    ] = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Join a team (or found it) and send it your log and bookmarks."""
    from purlin_resume.team import sync

    if dsn:
        dsn = _password(dsn, password_file)
    env = _environment(claude_dir, project)
    result = sync.init(
        env.history, env.shelves.paths(), remote, dsn, env.project_root, ref, group, warn
    )
    if as_json:
        print_json(result)
        return
    verb = "created" if result.get("created") else "joined"
    print_text(f"{verb} the team at {result['remote']} as {result['member']}: {_summary(result)}")


def _summary(result: dict[str, Any]) -> str:
    sent = result["sent"]
    return (
        f"sent {sent['resurrections']} resurrection row(s), {sent['bookmarks']} bookmark "
        f"row(s), {sent['contexts']} shared context(s); the team has "
        f"{result['resurrections']} resurrection(s), {result['bookmarks']} bookmark(s) of "
        f"{result['members']} teammate(s)\n"
    )


@team.command("status")
def team_status(
    claude_dir: ClaudeDirOption = None, project: ProjectOption = None, as_json: JsonOption = False
) -> None:
    """Who you are in the team, where it is, and how many of your rows it still lacks."""
    from purlin_resume.team import sync

    env = _environment(claude_dir, project)
    result = sync.status(env.history, env.shelves.paths())
    if as_json:
        print_json(result)
        return
    lines = [
        f"member     {result['member']}",
        f"transport  {result['transport']}  {result['remote']}",
        f"unsent     {result['unsent']} row(s)"
        + ("" if not result["unsent"] else ": run 'purlin-resume team sync'"),
    ]
    if result.get("last_failure"):
        lines.append(f"last failure  {result['last_failure']}")
    print_text("\n".join(lines) + "\n")


@team.command("sync")
def team_sync(
    claude_dir: ClaudeDirOption = None, project: ProjectOption = None, as_json: JsonOption = False
) -> None:
    """Send the team whatever of your log and bookmarks it lacks, and bring in everyone's."""
    from purlin_resume.team import sync

    env = _environment(claude_dir, project)
    result = sync.sync(env.history, env.shelves.paths(), warn)
    if as_json:
        print_json(result)
        return
    print_text(f"synced with {result['remote']}: {_summary(result)}")


@team.command("log")
def team_log(
    limit: Annotated[int, typer.Option("--limit", min=1, help="Commits shown.")] = 20,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """The team's commits, newest first (git, or a Dolt server), as of the last sync."""
    from purlin_resume.team import sync

    commits = sync.commits(_history(claude_dir), limit)
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


def _history(claude_dir: Path | None) -> Path:
    from purlin_resume.claude import layout

    return layout.history_dir(claude_dir)


# ---------------------------------------------------------------------------------------------
# --team on the resurrection commands


def team_entries(claude_dir: Path | None, for_stats: bool = False) -> tuple[str, list[dict]]:
    from purlin_resume.team import reads, sync

    env = _environment(claude_dir)
    found = reads.resurrections(env.history, env.shelves.paths(), warn)
    return sync.where(sync.require(env.history)), found


def stats(claude_dir: Path | None) -> tuple[str, dict[str, Any]]:
    """The team's resurrection metrics, computed in SQL."""
    from purlin_resume.team import reads, sync

    env = _environment(claude_dir)
    figures = reads.figures(env.history, env.shelves.paths(), warn)
    return sync.where(sync.require(env.history)), figures


def bookmarks(claude_dir: Path | None, tag: str | None, as_json: bool) -> None:
    from purlin_resume.team import reads

    env = _environment(claude_dir)
    marks = [
        m
        for m in reads.bookmarks(env.history, env.shelves.paths(), warn)
        if tag is None or tag in m["tags"]
    ]
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
        f" by the team  uuid {mark['uuid']}\n"
    )


def find(claude_dir: Path | None, text: str, limit: int, as_json: bool) -> None:
    from purlin_resume.team import reads

    env = _environment(claude_dir)
    found = reads.find(env.history, env.shelves.paths(), text, limit, warn)
    if as_json:
        print_json({"query": text, "results": found})
        return
    print_text("".join(_mark_line(m) for m in found) or f"No team bookmark matches {text!r}.\n")


def share(key: str, no_redact: bool, env: Environment, as_json: bool) -> None:
    """Keep a bookmark's redacted context pack for the team; the next sync publishes it."""
    if no_redact:
        raise UsageError("bookmark share always redacts: --no-redact is refused here")
    from purlin_resume.resurrection import flow as resurrection
    from purlin_resume.team import reads

    candidate = resurrection.by_bookmark(env, key)
    mark = candidate.bookmark
    plan = resurrection.plan(env, candidate, "bookmark", key, "hybrid", None, True)
    shared = reads.share(
        env.history, mark.to_dict(), plan.context.to_dict(), plan.tokens, plan.method
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
    from purlin_resume.cli.common import checked_output, tmux_server
    from purlin_resume.cli.resurrect import deliver
    from purlin_resume.team import revive

    if options.no_redact:
        raise UsageError("a shared context is always redacted: --no-redact does not apply")
    output = checked_output(options.output)
    server = tmux_server(options.tmux_socket)
    env = _environment(options.claude_dir, options.project)
    done = revive.revive(env, name, options.task, options.notes)
    entry = done.entry
    summary = (
        f"{entry['resurrection_id']}: {done.bookmark['name']} of {done.bookmark['member']} → "
        f"{entry['resurrected_as_agent_id']} ({done.tokens} tokens, shared context)"
    )
    deliver(env, entry, done.prompt, options, output, server, summary, {"bookmark": done.bookmark})
