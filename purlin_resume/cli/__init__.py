"""The ``purlin-resume`` command line: thin Typer modules over the library.

``main`` (the console script's way in) answers a lone ``--version`` before Typer is imported;
otherwise it imports the module that owns the command named (every module for ``--help``, shell
completion or an unknown name) and runs Typer.
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
    "agents": "transcripts",
    "export": "transcripts",
    "redact": "transcripts",
    "sessions": "transcripts",
    "transcript": "transcripts",
    "bookmark": "bookmarks",
    "find": "search",
    "recommend": "search",
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


def version_line() -> str:
    return f"purlin-resume {__version__}"


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        print(version_line())
        return
    from purlin_resume.cli.app import app

    word = next((arg for arg in args if not arg.startswith("-")), None)  # top options are flags
    owner = OWNERS.get(word or "")
    completing = any(name.endswith("_COMPLETE") for name in os.environ)
    if owner is None or completing:
        import_module("purlin_resume.cli.commands")
    else:
        import_module(f"purlin_resume.cli.{owner}")
    app()
