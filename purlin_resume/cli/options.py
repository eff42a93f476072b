"""The options several commands share, declared for Typer."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from purlin_resume.core import current_session, tmux
from purlin_resume.core.errors import PurlinError, UsageError

ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="Project folder (default: the git top-level of the working directory).",
        show_default=False,
    ),
]
NotesOption = Annotated[
    str | None, typer.Option("--notes", help="A note for the log.", show_default=False)
]
IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help="Session id, agent id, or a unique prefix.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
ClaudeDirOption = Annotated[
    Path | None,
    typer.Option(
        "--claude-dir",
        help="Claude data folder (default: $CLAUDE_CONFIG_DIR, else ~/.claude).",
        show_default=False,
    ),
]
SessionOption = Annotated[
    str | None,
    typer.Option(
        "--session",
        help="This session's id (default: "
        + ", else ".join(f"${name}" for name in current_session.SESSION_ENV)
        + ").",
        show_default=False,
    ),
]
TmuxSocketOption = Annotated[
    str | None,
    typer.Option(
        "--tmux-socket",
        help="tmux server: a socket name (as tmux -L) or a path (as tmux -S); "
        "default: the tmux_socket setting, else the current server.",
        show_default=False,
    ),
]
TeamOption = Annotated[
    bool, typer.Option("--team", help="The team database (see 'purlin-resume team').")
]


class Outcome(str, Enum):
    """How a resurrected agent's work ended (``resurrect done``, ``resurrections --outcome``)."""

    success = "success"
    failure = "failure"
    partial = "partial"


def tmux_server(spec: str | None) -> tmux.Server | None:
    """``--tmux-socket`` as a ``Server``; None when not given. A path must be the socket of
    a running server: tmux would start a new one there, which nobody sees."""
    if spec is None:
        return None
    try:
        server = tmux.Server.parse(spec)
    except PurlinError as exc:
        raise UsageError(f"--tmux-socket: {exc.message}") from None
    if server.socket is not None and not tmux.is_socket(server.socket):
        raise UsageError(
            f"--tmux-socket {server.socket}: no tmux server listens there; give the socket of "
            "a running server (tmux display -p '#{socket_path}' prints it), or a name (as tmux -L)"
        )
    return server
