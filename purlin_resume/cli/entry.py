"""The ``purlin-resume`` console script: hook calls go straight to the hook runner, without Typer
(a hook runs on every matching tool call); everything else goes to the Typer app."""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-"):  # never Typer's exit 2
        from purlin_resume.integration import hook_call

        hook_call.handle(args[1], args[2:])
    from purlin_resume.cli import main as cli_main

    cli_main()
