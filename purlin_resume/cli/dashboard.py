"""`dashboard`: the local web app (needs the ``web`` extra)."""

from __future__ import annotations

import importlib.util
from contextlib import suppress
from typing import Annotated

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.common import project_for
from purlin_resume.cli.options import (
    ClaudeDirOption,
    ProjectOption,
)
from purlin_resume.core.errors import PurlinError

INSTALL_HINT = "the dashboard needs the web extra: pip install 'purlin-resume[web]'"


@app.command("dashboard", rich_help_panel="Dashboard")
def dashboard_command(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free one).")
    ] = 8765,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to bind; another than 127.0.0.1 is reachable "
            "from other machines (a warning is printed, the token still applies).",
        ),
    ] = "127.0.0.1",
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in the browser.")] = False,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
) -> None:
    """Agents, subagents, resurrections and sessions in the browser; revive dead agents."""
    if any(importlib.util.find_spec(name) is None for name in ("starlette", "uvicorn")):
        raise PurlinError(INSTALL_HINT)
    from purlin_resume.web import server, views  # the web extra

    scope = views.Scope(project_for(project), claude_dir)  # pages redact by its rules
    with suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down cleanly
        server.serve(scope, host, port, typer.echo, open_browser)
