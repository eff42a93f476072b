"""`sessions`, `agents`, `transcript` and `export`: Claude Code's own history, read natively."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from purlin_resume.cli import transcript_run
from purlin_resume.cli.app import app, runs
from purlin_resume.cli.common import (
    print_json,
    print_text,
    user_cache,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
)
from purlin_resume.cli.transcript_run import Format, open_catalog
from purlin_resume.core.errors import UsageError

if TYPE_CHECKING:
    from purlin_resume.claude.subagents import Subagent

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


def _size(size: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


@app.command("sessions", rich_help_panel="Transcripts")
def sessions_command(
    project: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--project", help="Sessions started in this folder or below it.", show_default=False
        ),
    ] = None,
    all_projects: Annotated[bool, typer.Option("--all", help="Sessions of every project.")] = False,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """List Claude Code sessions: id, project, start, end, turns, title, subagents, compactions."""
    if project is not None and all_projects:
        raise UsageError("--project and --all exclude each other")
    catalog = open_catalog(claude_dir)
    scope: Path | None = None
    if not all_projects:
        if project is not None:
            scope = Path(os.path.abspath(project.expanduser()))
        else:
            from purlin_resume.core import gitrepo

            here = Path.cwd()
            scope = gitrepo.toplevel(here) or here
    listed = catalog.sessions(scope, cache=user_cache())
    if as_json:
        print_json(
            {
                "claude_dir": str(catalog.root),
                "project": str(scope) if scope else None,
                "sessions": [session.to_dict() for session in listed],
            },
            also=_kept_redactions(listed, None),
        )
        return
    if not listed:
        where = f"for {scope}" if scope else "at all"
        hint = " (try --all)" if scope else ""
        print_text(f"No Claude Code sessions {where} in {catalog.root}{hint}.\n")
        return
    lines = []
    for session in listed:
        missing = " [file gone]" if not session.exists else ""
        skipped = session.stats.malformed + session.stats.unknown
        if skipped:
            missing += f" [{skipped} line(s) skipped]"
        if session.stats.binary or session.stats.unreadable:
            missing += " [not readable as JSONL]"
        lines.append(
            f"{session.id}  {session.started_at or '-'}  {session.ended_at or '-'}  "
            f"turns {session.turns}  agents {session.subagents}  compactions {session.compactions}  "
            f"{_size(session.size)}{missing}\n"
            f"    {session.project_path or '?'} · {session.title or '(no title)'}\n"
        )
    print_text("".join(lines), also=_kept_redactions(listed, ("title", "project_path")))


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
    catalog = open_catalog(claude_dir)
    target = catalog.resolve(session, kinds=("session",))
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
