"""`team init|status|sync|log|purge`: a shell over ``purlin_resume.team``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from purlin_resume.claude import layout
from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import print_json, print_text
from purlin_resume.cli.environment import environment_here
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, ProjectOption
from purlin_resume.cli.team_side import warn
from purlin_resume.core.errors import UsageError
from purlin_resume.team import purge, server, sync

# ruff: noqa: UP045

team = typer.Typer(
    cls=PurlinGroup,
    name="team",
    help="Share the resurrection log and bookmarks with a team, through git or a SQL server.",
    no_args_is_help=True,
)
app.add_typer(team, name="team", rich_help_panel="Resurrection")


def _password_in(path: Path) -> str:
    """The password a file holds (its first ``MAX_PASSWORD`` bytes are read: ``/dev/zero`` or a
    wrong file ends in one line, not in all the memory); a pipe is read as it is written."""
    try:
        with path.open("rb") as handle:
            data = handle.read(server.MAX_PASSWORD + 1)
        if len(data) > server.MAX_PASSWORD:
            raise UsageError(
                f"--password-file {path}: longer than {server.MAX_PASSWORD} bytes; "
                "give a file that holds only the password"
            )
        return data.decode("utf-8").rstrip("\r\n")
    except OSError as exc:
        raise UsageError(f"--password-file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"--password-file {path}: not UTF-8 text") from None


def _password(dsn: str, password_file: Path | None) -> str:
    """The DSN with its password, which never comes from the command line."""
    if server.has_password(dsn):
        raise UsageError(
            "--dsn: leave the password out of the URL (any user could read it in ps); give it "
            f"with --password-file, ${server.PASSWORD_ENV} or at the prompt"
        )
    if password_file is not None:
        password = _password_in(password_file)
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
    if dsn:
        dsn = _password(dsn, password_file)
    env = environment_here(claude_dir, project)
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
        f"{result['resurrections']} resurrection(s), {result['bookmarks']} bookmark(s) from "
        f"{result['members']} teammate(s)\n"
    )


@team.command("status")
def team_status(
    claude_dir: ClaudeDirOption = None, project: ProjectOption = None, as_json: JsonOption = False
) -> None:
    """Who you are in the team, where it is, and how many of your rows it still lacks."""
    env = environment_here(claude_dir, project)
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
    print_text("\n".join(lines) + "\n")


@team.command("sync")
def team_sync(
    claude_dir: ClaudeDirOption = None, project: ProjectOption = None, as_json: JsonOption = False
) -> None:
    """Send the team whatever of your log and bookmarks it lacks, and bring in everyone's."""
    env = environment_here(claude_dir, project)
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
    commits = sync.commits(layout.history_dir(claude_dir), limit)
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


@team.command("purge")
def team_purge(
    keys: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="KEY...",
            help="Your rows to purge: a uuid, a bookmark's name or id, a resurrection id.",
            show_default=False,
        ),
    ] = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Purge every row of yours and leave the team.")
    ] = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Take rows of yours out of the team: its files and (on git) its history; your local log
    and bookmarks stay."""
    if bool(keys) == everything:
        raise UsageError("name the rows to purge (a uuid, bookmark or resurrection id), or --all")
    env = environment_here(claude_dir, project)
    result = purge.purge(env.history, env.shelves.paths(), keys or [], warn)
    if as_json:
        print_json(result)
        return
    what = ", ".join(
        f"{row['id'] or row['uuid']} ({'bookmark' if row['table'] == 'bookmarks' else 'resurrection'})"
        for row in result.get("rows", [])
    )
    what = what or f"{result['purged']} row(s)"
    if result["rewritten"]:
        kept = (
            "the team's history no longer holds them (copies fetched before stay in teammates' "
            "local copies and the remote's object store until git gc prunes them)"
            if result.get("commits")
            else "the team keeps no history of them"
        )
    else:
        kept = f"its history still holds them: {result.get('reason')}"
    left = "; you have left the team" if result["left"] else ""
    print_text(f"purged {what} from the team at {result['remote']}; {kept}{left}\n")
