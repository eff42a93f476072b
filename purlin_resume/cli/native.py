"""`open`: continue a session in Claude Code itself (``claude --resume``) from any folder."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    print_json,
    print_text,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    ProjectOption,
)

if TYPE_CHECKING:
    from purlin_resume.resurrection.flow import Environment

# ruff: noqa: UP045 - Typer reads the annotations at runtime on Python 3.10


class OpenSpawn(str, Enum):
    tmux = "tmux"
    exec = "exec"
    print = "print"


def default_spawn() -> OpenSpawn:
    """exec on a terminal, else print the command (an agent or a script asked)."""
    return OpenSpawn.exec if sys.stdin.isatty() and sys.stdout.isatty() else OpenSpawn.print


def carry_out(
    env: Environment,
    query: str,
    *,
    fork: bool,
    spawn: OpenSpawn,
    claude_dir_given: bool,
    tmux_socket: Path | None = None,
    as_json: bool = False,
    pick=None,
) -> None:
    """Plan the resume of ``query`` and run it the ``spawn`` way (shared with the picker)."""
    from purlin_resume.resurrection import native_resume

    opened = native_resume.plan(env, query, fork, pick=pick, claude_dir_given=claude_dir_given)
    for note in opened.notes:
        typer.echo(f"note: {note}", err=True)
    if spawn is OpenSpawn.print:
        if as_json:
            print_json({"spawned": "none", **opened.to_dict()})
        else:
            print_text(opened.shell_line() + "\n")
        return
    if spawn is OpenSpawn.tmux:
        socket = tmux_socket or (
            Path(env.settings.tmux_socket) if env.settings.tmux_socket else None
        )
        where = native_resume.launch(opened, socket, env.settings.tmux_session)
        if as_json:
            print_json({"spawned": "tmux", **where, **opened.to_dict()})
        else:
            print_text(
                f"Resumed session {opened.session_id}"
                + (f" as fork {opened.new_session_id}" if opened.fork else "")
                + f" in tmux session {where['session']}, pane {where['pane']} ({opened.cwd}).\n"
            )
        return
    typer.echo(f"cd {opened.cwd} && {' '.join(opened.argv)}", err=True)
    sys.stdout.flush()
    native_resume.exec_now(opened)


@app.command("open", rich_help_panel="Resurrection")
def open_command(
    target: Annotated[
        list[str],
        typer.Argument(
            metavar="ID",
            help="A session or agent id (or unique prefix), a bookmark, or words to search for.",
        ),
    ],
    fork: Annotated[
        bool,
        typer.Option(
            "--fork", help="Resume into a new session (--fork-session); the old one stays."
        ),
    ] = False,
    spawn: Annotated[
        Optional[OpenSpawn],
        typer.Option(
            "--spawn",
            help="tmux: a new window; exec: here, in place of this command; print: the command "
            "(default: exec on a terminal, else print).",
            show_default=False,
        ),
    ] = None,
    tmux_socket: Annotated[
        Optional[Path],
        typer.Option(
            "--tmux-socket",
            help="tmux server socket (default: resume.tmux_socket).",
            show_default=False,
        ),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="For a search: take the best match, ask nothing.")
    ] = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Continue a session in Claude Code (claude --resume) from the folder it worked in."""
    from purlin_resume.cli.find_run import environment
    from purlin_resume.cli.resurrect import _choose

    query = " ".join(target).strip()
    env = environment(claude_dir, project)
    interactive = not yes and sys.stdin.isatty()
    carry_out(
        env,
        query,
        fork=fork,
        spawn=spawn or default_spawn(),
        claude_dir_given=claude_dir is not None,
        tmux_socket=tmux_socket,
        as_json=as_json,
        pick=lambda found: _choose(found, interactive, offer_open=False),
    )
