"""The ``purlin-resume`` command line: thin Typer modules over the library.

``main`` (the console script's way in) answers a lone ``--version`` before Typer is imported;
otherwise it imports the module that owns the command named (every module for ``--help``, shell
completion or an unknown name) and runs Typer. A subcommand may have an owner of its own, lighter
than its group's (``SUBCOMMAND_OWNERS``).
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

from purlin_resume import __version__

# The module of each top-level command (a test keeps it in step with what the modules register).
OWNERS = {
    "checkpoints": "checkpoint",
    "restore": "checkpoint",
    "save": "checkpoint",
    "history": "history",
    "resume-task": "history",
    "agents": "sessions",
    "export": "transcripts",
    "redact": "redaction",
    "sessions": "sessions",
    "transcript": "transcripts",
    "bookmark": "bookmarks",
    "find": "search",
    "recommend": "recommend",
    "resurrect": "resurrect",
    "resurrections": "resurrections",
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

# Subcommands registered by a module their group's owner imports (the word after the group's).
SUBCOMMAND_OWNERS = {("resurrect", "done"): "resurrect_done"}


def version_line() -> str:
    return f"purlin-resume {__version__}"


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        print(version_line())
        return
    from purlin_resume.cli.app import app

    at = next((n for n, arg in enumerate(args) if not arg.startswith("-")), len(args))
    word, after = (args[at : at + 2] + ["", ""])[:2]  # the top options are flags
    owner = SUBCOMMAND_OWNERS.get((word, after)) or OWNERS.get(word)
    completing = any(name.endswith("_COMPLETE") for name in os.environ)
    if owner is None or completing:
        import_module("purlin_resume.cli.commands")
    else:
        import_module(f"purlin_resume.cli.{owner}")
    app()
