"""Options and output shared by the command modules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from purlin_resume import project as project_mod

ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="Project folder (default: the git top-level of the working directory).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def project_for(explicit: Path | None) -> project_mod.Project:
    return project_mod.locate(explicit)


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def print_text(text: str) -> None:
    """Print text as is: briefings contain brackets that rich markup would eat."""
    typer.echo(text, nl=not text.endswith("\n"))
