"""`transcript` and `export`: a conversation of Claude Code (or of another agent CLI) written
out, as Markdown or as one JSON document, redacted."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from purlin_resume.claude import rendering
from purlin_resume.claude import transcript_output as output_of
from purlin_resume.claude.catalog import Opened
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.claude.transcript_output import Format
from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    Output,
    Redaction,
    archived_line,
    checked_output,
    echo,
    echo_error,
    print_text,
)
from purlin_resume.cli.options import ClaudeDirOption, IdArgument, JsonOption
from purlin_resume.core import trust
from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection import archive

DEFAULT_MAX_CHARS = 25_000

ToolsOption = Annotated[bool, typer.Option("--include-tools", help="Full tool inputs and results.")]
ThinkingOption = Annotated[bool, typer.Option("--include-thinking", help="Thinking blocks too.")]
OutputOption = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(
        "-o", "--output", help="Write to this file instead of stdout.", show_default=False
    ),
]


@app.command("transcript", rich_help_panel="Transcripts")
def transcript_command(
    identifier: IdArgument,
    output: OutputOption = None,
    max_chars: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(
            "--max-chars",
            min=0,
            help="Past this many characters write the whole transcript to a file and print a "
            "digest (default: no limit; 25000 in Claude Code's agent shell unless stdout is a "
            "file; 0 = no limit).",
            show_default=False,
        ),
    ] = None,
    include_tools: ToolsOption = False,
    include_thinking: ThinkingOption = False,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """A session's or agent's conversation as Markdown: a section per command, turns in order."""
    output = checked_output(output)
    redaction = Redaction()
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    try:
        if as_json:
            pieces = output_of.json_pieces(opened, include_tools, include_thinking)
            if output is None:
                _to_stdout(pieces, redaction)
            else:
                written = output_of.to_file(output, pieces, redaction)
                print_text(f"wrote {output} ({written} characters)\n")
            return
        options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
        if output is not None:
            pieces = output_of.markdown_pieces(opened, options)
            written = output_of.to_file(output, pieces, redaction)
            if rendering.has_history(opened.transcript, options):
                print_text(f"wrote {output} ({written} characters)\n")
            else:
                print_text(rendering.no_history(opened.target))
            return
        _print_markdown(opened, options, max_chars, redaction)
    finally:
        redaction.report()


def _print_markdown(
    opened: Opened,
    options: rendering.MarkdownOptions,
    max_chars: int | None,
    redaction: Redaction,
) -> None:
    """The Markdown on standard output; a digest past ``max_chars`` (by default in Claude
    Code's agent shell, see ``--max-chars``), the whole then written to a file."""
    asked = max_chars is not None
    if max_chars is None:
        max_chars = DEFAULT_MAX_CHARS if _read_by_an_agent() else 0
    if max_chars:
        shown, whole = output_of.bounded(opened, options, max_chars, redaction)
        if whole is not None and not asked:
            echo_error(
                f"a digest of the transcript (past {max_chars} characters, as Claude Code "
                f"cuts long output); the whole is in {whole}; --max-chars 0 prints it all"
            )
        print_text(shown)
    else:
        _to_stdout(output_of.markdown_pieces(opened, options), redaction)


@app.command("export", rich_help_panel="Transcripts")
def export_command(
    identifier: IdArgument,
    format: Annotated[
        Format, typer.Option("--format", help="json (the agent's context as one document) or md.")
    ] = Format.json,
    include_tools: ToolsOption = False,
    include_thinking: ThinkingOption = False,
    output: OutputOption = None,
    claude_dir: ClaudeDirOption = None,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Leave secrets in (explicit only).")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="The same as --format json (the default).")
    ] = False,
) -> None:
    """Export a session's or agent's context as one JSON document (ids, project, times, task,
    conversation, final output, files, tool counts), or as Markdown (redacted)."""
    if as_json and format is Format.md:
        raise UsageError("--json and --format md exclude each other; give one of them")
    if no_redact:
        Output.redact = False
    output = checked_output(output)
    redaction = Redaction()
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    try:
        if format is Format.md:
            options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
            pieces = output_of.markdown_pieces(opened, options)
        else:
            pieces = output_of.json_pieces(opened, include_tools, include_thinking)
        if output is not None:
            written = output_of.to_file(output, pieces, redaction)
            print_text(f"wrote {output} ({written} characters)\n")
        else:
            _to_stdout(pieces, redaction)
    finally:
        redaction.report()


def _open(claude_dir: Path | None, identifier: str, tools: bool, thinking: bool) -> Opened:
    """The conversation ``identifier`` names (from a bookmark's archive when its transcript is
    gone), not redacted yet: what is made of it is redacted as it is written. Tool inputs and
    results and thinking stay in the file until written (``Details``)."""
    options = ReadOptions(tools=tools, thinking=thinking, deferred=True)
    opened, archived = archive.open_conversation(claude_dir, identifier, options)
    if archived is not None:
        archived_line(archived)
    return opened


def _to_stdout(pieces, redaction: Redaction) -> None:
    """Print ``pieces`` as they come, as ``print_text`` prints their whole."""
    last = ""
    for text in output_of.redacted_batches(pieces, redaction):
        echo(text, nl=False)
        last = text[-1:] or last
    if last != "\n":
        echo("")


def _read_by_an_agent() -> bool:
    """Claude Code's agent runs the command (its Bash tool cuts the middle out of long output)
    and stdout is not a file: a transcript is bounded by default there, and only there."""
    return bool(os.environ.get(trust.AGENT_SHELL_ENV)) and not _stdout_is_file()


def _stdout_is_file() -> bool:
    try:
        return stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False
