"""The ``resurrect`` command group, and ``resurrect done``: record how a resurrected agent's work
ended (a hook calls it when the agent ends). The forms that resurrect (``resurrect NAME``,
``find``, ``--session``, ``--recommended``) are in ``cli.resurrect``, which registers them on this
group; ``resurrect done`` runs without them."""

from __future__ import annotations

import re
from typing import Annotated, Optional

import typer

from purlin_resume.claude import layout
from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import note_line, print_json, print_text
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, NotesOption, Outcome
from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection import log as resurrection_log

# Typer reads these annotations at runtime, so Optional stays (Python 3.10).
# ruff: noqa: UP045


class ResurrectGroup(PurlinGroup):
    """``resurrect NAME`` and ``resurrect --session …`` beside ``resurrect find`` and ``done``."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            if args[0].split("=")[0] == "--recommended":
                form = "recommended"
            else:
                form = "direct" if args[0].startswith("-") else "name"
            args = [form, *args]
        return super().parse_args(ctx, args)


resurrect = typer.Typer(
    cls=ResurrectGroup,
    name="resurrect",
    help=(
        "Bring an earlier agent's expertise back as a new agent. "
        "'resurrect NAME' (a bookmark), 'resurrect find \"QUERY\"' (search), "
        "'resurrect --session S [--agent A] [--from PATH]' (ids), "
        "'resurrect --recommended N' (the Nth of 'purlin-resume recommend'), 'resurrect done RES_ID' "
        "(record the outcome). The options of each form: 'resurrect NAME --help', "
        "'resurrect --session S --help'."
    ),
    no_args_is_help=True,
)
app.add_typer(resurrect, name="resurrect", rich_help_panel="Resurrection")


@resurrect.command("done")
def done(
    resurrection_id: Annotated[str, typer.Argument(metavar="RES_ID", help="res-YYYY-MM-DD-NNN")],
    outcome: Annotated[Outcome, typer.Option("--outcome", help="success, failure or partial.")],
    agent_id: Annotated[
        Optional[str], typer.Option("--agent-id", help="The new agent's id.", show_default=False)
    ] = None,
    duration_ms: Annotated[
        Optional[int], typer.Option("--duration-ms", min=0, show_default=False)
    ] = None,
    tool_calls: Annotated[
        Optional[int], typer.Option("--tool-calls", min=0, show_default=False)
    ] = None,
    reason: Annotated[
        Optional[str],
        typer.Option("--reason", help="Why, when not a success.", show_default=False),
    ] = None,
    notes: NotesOption = None,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record what a resurrected agent did (hooks call this when it ends)."""
    if not re.fullmatch(r"res-\d{4}-\d{2}-\d{2}-\d{3,}", resurrection_id):
        raise UsageError(f"{resurrection_id!r} is not a resurrection id (res-YYYY-MM-DD-NNN)")
    log = layout.history_dir(claude_dir) / resurrection_log.FILE_NAME
    entry, replaced = resurrection_log.record_outcome(
        log, resurrection_id, outcome.value, agent_id, duration_ms, tool_calls, notes, reason
    )
    if replaced is not None:
        note_line(f"{resurrection_id} was recorded as {replaced}; now {entry['outcome']}")
    if as_json:
        print_json(entry)
        return
    print_text(f"{resurrection_id}: {entry['outcome']}\n")
