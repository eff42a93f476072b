"""A session continued in its own agent CLI (``open``, and ``oN`` at a resurrection's question):
planned by ``resurrection.native_resume``, then started the way asked (exec, tmux, or printed)."""

from __future__ import annotations

import sys
from enum import Enum

import typer

from purlin_resume.cli.common import print_json, print_text
from purlin_resume.core import tmux
from purlin_resume.resurrection import native_resume
from purlin_resume.resurrection.environment import Environment


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
    server: tmux.Server | None = None,
    as_json: bool = False,
    pick=None,
) -> None:
    """Plan the resume of ``query`` and run it the ``spawn`` way (shared with the picker)."""
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
        server = server or tmux.Server.parse(env.settings.tmux_socket)
        where = native_resume.launch(opened, server, env.settings.tmux_session)
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
