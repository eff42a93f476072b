"""`sessions`, `agents`, `transcript` and `export`: Claude Code's own history, read natively."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from purlin_resume.cli import sessions_run, transcript_run
from purlin_resume.cli.app import app, runs
from purlin_resume.cli.common import (
    print_json,
    print_text,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
)
from purlin_resume.cli.transcript_run import Format, open_catalog

IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help="Session id, agent id, or a unique prefix.")
]
ToolsOption = Annotated[bool, typer.Option("--include-tools", help="Full tool inputs and results.")]
ThinkingOption = Annotated[bool, typer.Option("--include-thinking", help="Thinking blocks too.")]
OutputOption = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "-o", "--output", help="Write to this file instead of stdout.", show_default=False
    ),
]


@app.command("sessions", rich_help_panel="Transcripts")
@runs(sessions_run.sessions)
def sessions_command(
    project: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--project", help="Sessions started in this folder or below it.", show_default=False
        ),
    ] = None,
    all_projects: Annotated[bool, typer.Option("--all", help="Sessions of every project.")] = False,
    cli: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--cli",
            help="Only these agent CLIs: claude, codex, gemini, opencode (comma-separated).",
            show_default=False,
        ),
    ] = None,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the sessions of every agent CLI (Claude Code, Codex CLI, Gemini CLI, opencode):
    CLI, id, project, start, end, turns, title, subagents, compactions."""


@app.command("agents", rich_help_panel="Transcripts")
@runs(sessions_run.agents)
def agents_command(
    session: Annotated[
        str, typer.Argument(metavar="SESSION", help="Session id or a unique prefix.")
    ],
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """The subagent tree of a session: type, description, status, tokens."""


@app.command("transcript", rich_help_panel="Transcripts")
@runs(transcript_run.transcript)
def transcript_command(
    identifier: IdArgument,
    output: OutputOption = None,
    max_chars: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--max-chars",
            min=0,
            help="Past this many characters write the whole transcript to a file and print a "
            "digest (default 25000 unless stdout is a file; 0 = no limit).",
            show_default=False,
        ),
    ] = None,
    include_tools: ToolsOption = False,
    include_thinking: ThinkingOption = False,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """A session's or agent's conversation as Markdown: a section per command, turns in order."""


@app.command("export", rich_help_panel="Transcripts")
@runs(transcript_run.export)
def export_command(
    identifier: IdArgument,
    format: Annotated[Format, typer.Option("--format", help="json (TR-3) or md.")] = Format.json,
    include_tools: ToolsOption = False,
    include_thinking: ThinkingOption = False,
    output: OutputOption = None,
    claude_dir: ClaudeDirOption = None,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Leave secrets in (explicit only).")
    ] = False,
) -> None:
    """Export a session's or agent's context: the TR-3 JSON document, or Markdown (redacted)."""


redact_app = typer.Typer(
    help="What redaction takes out of a conversation before it leaves the tool.",
    no_args_is_help=True,
)
app.add_typer(redact_app, name="redact", rich_help_panel="Transcripts")


@redact_app.command("report")
def redact_report_command(
    identifier: IdArgument,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Secrets redaction would hide in a session or agent: by kind and place, file and line,
    with only the first and last two characters shown. Review it before resurrecting."""
    from purlin_resume.claude import exposure

    found = exposure.report(open_catalog(claude_dir), identifier)
    if as_json:
        print_json(found.to_dict())
        return
    if not found.exposures:
        print_text(f"No secrets found in {found.target} ({len(found.files)} file(s)).\n")
        return
    lines = [f"{len(found.exposures)} secret(s) in {found.target}, redacted on every output:"]
    lines.append("by kind:  " + ", ".join(f"{k} {n}" for k, n in found.by_kind.items()))
    lines.append("by place: " + ", ".join(f"{k} {n}" for k, n in found.by_place.items()))
    lines += [
        f"  {e.file}:{e.line}  {e.place:<14}  {e.kind:<22}  {e.hint}" for e in found.exposures
    ]
    print_text("\n".join(lines) + "\n")
