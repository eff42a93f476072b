"""`sessions`, `agents`, `transcript`, `export` and `redact report`: Claude Code's own history,
read natively."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from purlin_resume.claude import exposure, layout, rendering
from purlin_resume.claude import transcript_output as output_of
from purlin_resume.claude.catalog import Catalog, Opened
from purlin_resume.claude.subagents import Subagent
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.claude.transcript_output import Format
from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    Output,
    Redaction,
    checked_output,
    echo,
    echo_error,
    print_json,
    print_text,
    redacted,
    user_cache,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
)
from purlin_resume.core import gitrepo, trust
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.core.project import GONE, working_folder
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.resurrection import archive

DEFAULT_MAX_CHARS = 25_000

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
    if project is not None and all_projects:
        raise UsageError("--project and --all exclude each other")
    clis = crosscli.chosen(cli)
    catalog = _catalog(claude_dir, needed=claude_dir is not None or clis == ("claude",))
    scope: Path | None = None
    if not all_projects:
        if project is not None:
            scope = Path(os.path.abspath(project.expanduser()))
        else:
            here = working_folder()
            if here is None:
                raise PurlinError(GONE.replace("--project", "--project or --all"))
            scope = gitrepo.toplevel(here) or here
    listed = crosscli.list_sessions(catalog, clis, scope, cache=user_cache())
    if as_json:
        print_json(
            {
                "claude_dir": str(catalog.root) if catalog is not None else None,
                "project": str(scope) if scope else None,
                "clis": list(clis),
                "sessions": [
                    {"cli": crosscli.cli_of(session), **session.to_dict()} for session in listed
                ],
            },
            also=_kept_redactions(listed, None),
        )
        return
    if not listed:
        where = f"for {scope}" if scope else "at all"
        hint = " (try --all)" if scope else ""
        print_text(f"No sessions of {', '.join(clis)} {where}{hint}.\n")
        return
    print_text(
        "".join(map(_session_lines, listed)),
        also=_kept_redactions(listed, ("title", "project_path")),
    )


def open_catalog(claude_dir: Path | None) -> Catalog:
    return Catalog(layout.claude_dir(claude_dir))


def _catalog(claude_dir: Path | None, needed: bool) -> Catalog | None:
    """Claude Code's catalog; None when its default folder holds no transcripts and other
    CLIs may (``needed``: it must be there)."""
    try:
        return open_catalog(claude_dir)
    except NotFound:
        if needed:
            raise
        return None


def _size(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


def _session_lines(session) -> str:
    missing = " [file gone]" if not session.exists else ""
    skipped = session.stats.malformed + session.stats.unknown
    if skipped:
        missing += f" [{skipped} line(s) skipped]"
    if session.stats.unknown:
        missing += f" [unknown record types: {session.stats.unknown_named}]"
    if session.stats.binary or session.stats.unreadable:
        missing += " [not readable as JSONL]"
    return (
        f"{crosscli.cli_of(session):<8}  {session.id}  {session.started_at or '-'}  "
        f"{session.ended_at or '-'}  "
        f"turns {session.turns}  agents {session.subagents}  compactions {session.compactions}  "
        f"{_size(session.size)}{missing}\n"
        f"          {session.project_path or '?'} · {session.title or '(no title)'}\n"
    )


def _kept_redactions(listed, fields: tuple[str, ...] | None) -> dict[str, int]:
    """What was redacted in the kept values shown (``fields``; None: all of them)."""
    counts: dict[str, int] = {}
    for session in listed:
        for name, found in session.redactions.items():
            if fields is None or name in fields:
                for kind, number in found.items():
                    counts[kind] = counts.get(kind, 0) + number
    return counts


def _tree_lines(nodes: list[Subagent], depth: int = 0) -> list[str]:
    lines = []
    for node in nodes:
        tokens = f"{node.tokens} tokens" if node.tokens is not None else "tokens ?"
        ident = node.id or "(no transcript)"
        lines.append(
            f"{'  ' * depth}- {ident}  {node.agent_type or '?'}  {node.status}  {tokens}  "
            f"{node.description or ''}".rstrip()
        )
        lines += _tree_lines(node.children, depth + 1)
    return lines


@app.command("agents", rich_help_panel="Transcripts")
def agents_command(
    session: Annotated[
        str, typer.Argument(metavar="SESSION", help="Session id or a unique prefix.")
    ],
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """The subagent tree of a session: type, description, status, tokens."""
    catalog = _catalog(claude_dir, needed=claude_dir is not None)
    try:
        if catalog is None:
            raise NotFound(session)
        target = catalog.resolve(session, kinds=("session",))
    except NotFound as missing:
        try:
            _other_agents(session, as_json)
        except NotFound:
            if catalog is None:
                raise
            raise missing from None  # as 'transcript' says it: where Claude Code's sessions are
        return
    assert target.session is not None
    view = catalog.view(target.session)
    compactions = view.main.compactions if view.main is not None else []
    if as_json:
        print_json(view.to_dict())
        return
    lines = [f"Session {view.session_id}" + (" (session file gone)" if view.main is None else "")]
    lines += _tree_lines(view.subagents) or ["(no subagents)"]
    for compaction in compactions:
        run = f" by {compaction.agent_id}" if compaction.agent_id else ""
        lines.append(f"compaction {compaction.timestamp} {compaction.trigger or ''}{run}".rstrip())
    print_text("\n".join(lines) + "\n")


def _other_agents(identifier: str, as_json: bool) -> None:
    """The child sessions of a Codex CLI, Gemini CLI or opencode session."""
    found = crosscli.open_conversation(identifier)
    session = found.session
    spawns = {
        call.agent_id: call for call in found.conversation.transcript.tool_calls() if call.agent_id
    }
    children = [
        {
            "id": child.id,
            "agent_type": child.agent_type,
            "description": spawns[child.id].summary if child.id in spawns else child.title,
            "status": spawns[child.id].outcome.get("status") if child.id in spawns else None,
            "tokens": child.tokens,
            "turns": child.turns,
            "start": child.started_at,
            "end": child.ended_at,
        }
        for child in found.children
    ]
    document = redacted(
        {
            "cli": session.cli,
            "session_id": session.id,
            "project": session.project_path,
            "subagents": children,
            "compactions": [c.to_dict() for c in found.conversation.transcript.compactions],
        }
    )
    if as_json:
        print_json(document)
        return
    lines = [f"Session {session.id} ({session.cli})"]
    for child in document["subagents"]:
        tokens = f"{child['tokens']} tokens" if child["tokens"] is not None else "tokens ?"
        lines.append(
            f"- {child['id']}  {child['agent_type'] or '?'}  {child['status'] or '?'}  {tokens}  "
            f"{child['description'] or ''}".rstrip()
        )
    if not document["subagents"]:
        lines.append("(no subagents)")
    print_text("\n".join(lines) + "\n")


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
            pieces = output_of.json_pieces(opened, include_tools, include_thinking, redaction)
            if output is None:
                _to_stdout(pieces, redaction)
            else:
                written = output_of.to_file(output, pieces, redaction)
                print_text(f"wrote {output} ({written} characters)\n")
            return
        options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
        if output is not None:
            pieces = output_of.markdown_pieces(opened, options, redaction)
            written = output_of.to_file(output, pieces, redaction)
            if rendering.has_history(opened.transcript, options):
                print_text(f"wrote {output} ({written} characters)\n")
            else:
                print_text(rendering.no_history(opened.target.id))
            return
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
            _to_stdout(output_of.markdown_pieces(opened, options, redaction), redaction)
    finally:
        redaction.report()


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
) -> None:
    """Export a session's or agent's context as one JSON document (ids, project, times, task,
    conversation, final output, files, tool counts), or as Markdown (redacted)."""
    if no_redact:
        Output.redact = False
    output = checked_output(output)
    redaction = Redaction()
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    try:
        if format is Format.md:
            options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
            pieces = output_of.markdown_pieces(opened, options, redaction)
        else:
            pieces = output_of.json_pieces(opened, include_tools, include_thinking, redaction)
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
        echo_error(f"the transcript is gone: read from the archive of session {archived}")
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
