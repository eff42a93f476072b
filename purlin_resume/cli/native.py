"""`open`: continue a session in the agent CLI that wrote it (``claude --resume``, ``codex resume``,
``gemini --resume``, ``opencode --session``) from any folder."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.candidates import choose
from purlin_resume.cli.environment import environment_here
from purlin_resume.cli.opening import OpenSpawn, carry_out, default_spawn
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    ProjectOption,
    TmuxSocketOption,
    tmux_server,
)

# ruff: noqa: UP045 - Typer reads the annotations at runtime on Python 3.10


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
            "--fork",
            help="Resume into a new session (claude --fork-session, codex fork, opencode "
            "--fork; Gemini CLI cannot fork); the old one stays.",
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
    tmux_socket: TmuxSocketOption = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="For a search: take the best match, ask nothing.")
    ] = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Continue a session in its own agent CLI (claude --resume, codex resume, gemini --resume,
    opencode --session) from the folder it worked in."""
    query = " ".join(target).strip()
    env = environment_here(claude_dir, project)
    interactive = not yes and sys.stdin.isatty()
    carry_out(
        env,
        query,
        fork=fork,
        spawn=spawn or default_spawn(),
        claude_dir_given=claude_dir is not None,
        server=tmux_server(tmux_socket),
        as_json=as_json,
        pick=lambda found: choose(found, interactive, offer_open=False, query=query),
    )
