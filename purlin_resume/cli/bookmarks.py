"""`bookmark add|list|show|share|update|rm`: name agents worth resurrecting."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import print_json, print_text
from purlin_resume.cli.environment import environment_here
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, ProjectOption, TeamOption
from purlin_resume.core import redact
from purlin_resume.core.errors import NotFound, UsageError
from purlin_resume.resurrection import bookmarks
from purlin_resume.resurrection import flow as resurrection
from purlin_resume.resurrection.environment import Environment

# Typer reads these annotations at runtime, so Optional/List stay (Python 3.10).
# ruff: noqa: UP045, UP006

bookmark = typer.Typer(
    cls=PurlinGroup, name="bookmark", help="Name agents worth resurrecting.", no_args_is_help=True
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
    cli = f"{mark.cli} " if mark.cli else ""
    return (
        f"{mark.name}  {mark.bookmark_id}  {mark.scope}  {cli}session {mark.session_id} · "
        f"{what}{tags}\n"
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
    env = environment_here(claude_dir, project)
    if not global_:
        _shelf(env, global_)
    mark = resurrection.bookmark_agent(env, name, session, agent, description, tag or [], global_)
    if as_json:
        print_json(_mark_dict(mark))
        return
    kept = f"archive {mark.archive}" if mark.archive else f"no archive: {mark.cli} keeps it"
    print_text(f"bookmarked {mark.name} ({mark.bookmark_id}, {mark.scope}); {kept}\n")


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
        from purlin_resume.cli import team_side  # the team wing, loaded for --team only

        return team_side.bookmarks(claude_dir, tag, as_json)
    env = environment_here(claude_dir, project)
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
    env = environment_here(claude_dir, project)
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
    from purlin_resume.cli import team_side  # the team wing, loaded for the team commands only

    team_side.share(key, no_redact, environment_here(claude_dir, project), as_json)


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
    changes: dict[str, Any] = {}
    if new_name is not None:
        changes["name"] = new_name
    if description is not None:
        changes["description"] = redact.redact(description).text
    if tag is not None:
        changes["tags"] = list(dict.fromkeys(tag))
    if not changes:
        raise UsageError("nothing to change: give --name, --description or --tag")
    env = environment_here(claude_dir, project)
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
    env = environment_here(claude_dir, project)
    mark = _in_shelf(env, global_, key, lambda path: bookmarks.remove(path, key))
    if as_json:
        print_json(mark.to_dict())
        return
    print_text(f"removed {mark.name} ({mark.bookmark_id})\n")
