"""The whole command line: every command module registered on ``app``, in the order of the help
panels (``--help``, shell completion, tests and other Python code use this)."""

from __future__ import annotations

from importlib import import_module

from purlin_resume.cli.app import app

# Each module registers its commands on ``app`` when imported; this order is the order of the
# commands in ``purlin-resume --help``.
COMMAND_MODULES = (
    "checkpoint",
    "history",
    "sessions",
    "transcripts",
    "redaction",
    "resurrect",
    "search",
    "recommend",
    "bookmarks",
    "resurrections",
    "native",
    "team",
    "agents",
    "dashboard",
    "integration",
)
for _name in COMMAND_MODULES:
    import_module(f"purlin_resume.cli.{_name}")


def main() -> None:
    app()
