"""The ``purlin-resume`` command line: thin Typer modules over the library.

Importing this package loads nothing else. ``commands`` registers every command on the Typer
``app``; ``main`` (the console script's way in) imports only the module of the command that
runs and builds only that command, because Typer builds the Click command of everything
registered on each call; it answers a lone ``--version`` without importing Typer at all, a
lone ``--help`` from the page it kept (``rendered_help``), and runs some commands without Typer
when their command line is plain (``fast_path``).
"""

from __future__ import annotations

import gc
import os
import sys

# The module of each top-level command (tests keep it in step with what the modules register).
OWNERS = {
    "checkpoints": "checkpoint",
    "restore": "checkpoint",
    "save": "checkpoint",
    "history": "history",
    "resume-task": "history",
    "agents": "transcripts",
    "export": "transcripts",
    "redact": "transcripts",
    "sessions": "transcripts",
    "transcript": "transcripts",
    "bookmark": "resurrect",
    "find": "resurrect",
    "recommend": "resurrect",
    "resurrect": "resurrect",
    "resurrections": "resurrect",
    "open": "native",
    "team": "team",
    "agents-status": "agents",
    "lineage": "agents",
    "revive": "agents",
    "stall": "agents",
    "watch": "agents",
    "dashboard": "dashboard",
    "doctor": "integration",
    "git-hook": "integration",
    "hook": "integration",
    "install": "integration",
    "mcp": "integration",
    "trust": "integration",
    "uninstall": "integration",
}


def _command_word(args: list[str]) -> str | None:
    """The command named on the command line: the first word that is not an option (the
    top-level options are all flags)."""
    return next((arg for arg in args if not arg.startswith("-")), None)


def version_line() -> str:
    from purlin_resume import __version__

    return f"purlin-resume {__version__}"


def _every_command() -> None:
    from purlin_resume.cli.commands import app

    app()


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:  # answered before Typer is imported: start-up alone
        sys.stdout.write(version_line() + "\n")
        sys.stdout.flush()
        return
    completing = any(name.endswith("_COMPLETE") for name in os.environ)
    if args in (["--help"], ["-h"]) and not completing:
        from purlin_resume.cli import rendered_help

        rendered_help.render(args, _every_command)
        return
    gc.disable()  # until the command runs (``common.collect_from_here``)
    from importlib import import_module  # (not here at the top: the hook path passes through)

    word = _command_word(args) or ""
    if word in ("stall", "find") and not completing:
        from purlin_resume.cli import head_start

        head_start.begin(args)  # git or the walk runs while the command's modules load
    if not completing:
        from purlin_resume.cli import fast_path

        if fast_path.run(args):  # a plain command line of a command declared with app.runs
            return

    from purlin_resume.cli.app import app

    owner = OWNERS.get(word)
    if completing or (owner is None and "--version" not in args):
        import_module("purlin_resume.cli.commands")  # --help, completion, an unknown name
    elif owner is not None:
        import_module(f"purlin_resume.cli.{owner}")
        _keep_only(app, word, args[args.index(word) + 1 :][:1])
    app()  # (--version with other options needs no command)


def _keep_only(app, name: str, after: list[str]) -> None:
    """Leave on ``app`` only the command or group ``name`` (and of a group, only its command
    named right ``after`` it, when one is): Typer builds the Click command of everything
    registered, on every call, and the command's module may register many."""
    from typer.main import get_command_name

    def named(info) -> str:
        return info.name or get_command_name(info.callback.__name__)

    app.registered_commands = [info for info in app.registered_commands if named(info) == name]
    app.registered_groups = [info for info in app.registered_groups if info.name in (name, None)]
    for group in app.registered_groups:
        commands = group.typer_instance.registered_commands
        chosen = [info for info in commands if after and named(info) == after[0]]
        if chosen and not group.typer_instance.registered_groups:
            group.typer_instance.registered_commands = chosen
