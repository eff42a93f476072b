"""The ``purlin-resume`` command line: thin Typer modules over the library."""

from __future__ import annotations

from purlin_resume.cli import agents as _agents  # noqa: F401  (registers commands)
from purlin_resume.cli import checkpoint as _checkpoint  # noqa: F401  (registers commands)
from purlin_resume.cli import history as _history  # noqa: F401  (registers commands)
from purlin_resume.cli import integration as _integration  # noqa: F401  (registers commands)
from purlin_resume.cli import resurrect as _resurrect  # noqa: F401  (registers commands)
from purlin_resume.cli import transcripts as _transcripts  # noqa: F401  (registers commands)
from purlin_resume.cli.app import app


def main() -> None:
    app()
