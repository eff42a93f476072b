"""`sessions`, `agents`, `transcript` and `export`: Claude Code's own history, read natively."""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    ClaudeDirOption,
    JsonOption,
    Redaction,
    checked_output,
    echo,
    print_json,
    print_text,
    redacted,
    user_cache,
)
from purlin_resume.core.errors import UsageError

if TYPE_CHECKING:
    from purlin_resume.claude.catalog import Catalog, Opened
    from purlin_resume.claude.subagents import Subagent

# The reader, renderer and writer are imported inside the commands: every purlin-resume
# invocation (hooks included) loads this module, and only these commands need them.

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


class Format(str, Enum):
    json = "json"
    md = "md"


def _catalog(claude_dir: Path | None) -> Catalog:
    from purlin_resume.claude import layout
    from purlin_resume.claude.catalog import Catalog

    return Catalog(layout.claude_dir(claude_dir))


def _kind(opened: Opened) -> str:
    return {"inline": "agent"}.get(opened.target.kind, opened.target.kind)


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
    catalog = _catalog(claude_dir)
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
    catalog = _catalog(claude_dir)
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


def _open(claude_dir: Path | None, identifier: str, tools: bool, thinking: bool) -> Opened:
    """The conversation ``identifier`` names, its text values redacted before any rendering;
    when its transcript is gone (or Claude Code's folder is), the archive a bookmark of it keeps.
    Tool inputs and results and thinking stay in the file until written (``Details``)."""
    import dataclasses

    from purlin_resume.claude.catalog import open_target
    from purlin_resume.claude.transcript import ReadOptions
    from purlin_resume.core.errors import NotFound

    options = ReadOptions(tools=tools, thinking=thinking, deferred=True)
    try:
        opened = open_target(_catalog(claude_dir), identifier, options)
    except NotFound:
        opened = _archived(claude_dir, identifier, options)
        if opened is None:
            raise
    else:
        if opened.transcript is None:
            opened = _archived(claude_dir, identifier, options) or opened
    return dataclasses.replace(
        opened, transcript=redacted(opened.transcript), subagent=redacted(opened.subagent)
    )


def _archived(claude_dir: Path | None, identifier: str, options) -> Opened | None:
    from purlin_resume.core import gitrepo
    from purlin_resume.resurrection import flow as resurrection

    env = resurrection.environment(claude_dir, gitrepo.toplevel(Path.cwd()))
    opened = resurrection.open_archived(env, identifier, options)
    if opened is not None:
        session = opened.target.session.id if opened.target.session else identifier
        typer.echo(f"the transcript is gone: read from the archive of session {session}", err=True)
    return opened


def _document(opened: Opened, tools: bool, thinking: bool, redaction: Redaction) -> dict:
    """The TR-3 document, redacted, its conversation an iterator (``export.json_chunks``)."""
    from purlin_resume.claude import export as export_mod
    from purlin_resume.claude import rendering
    from purlin_resume.claude.transcript import Details

    if opened.transcript is None:
        session = opened.target.session.id if opened.target.session else None
        document = export_mod.no_conversation(
            opened.target.id,
            _kind(opened),
            session,
            opened.subagent,
            rendering.no_history(opened.target.id).strip(),
        )
    else:
        document = export_mod.document(
            opened.transcript,
            opened.subagent,
            tools=tools,
            thinking=thinking,
            kind=_kind(opened),
            details=Details(opened.transcript, redaction.data),
            streamed=True,
        )
    return redaction.data(document)


def _json(opened: Opened, tools: bool, thinking: bool, redaction: Redaction) -> Iterator[str]:
    from purlin_resume.claude import export as export_mod

    document = _document(opened, tools, thinking, redaction)
    return export_mod.json_chunks(document, redaction.data)


def _markdown(
    opened: Opened,
    options,
    redaction: Redaction,
    sections: list | None = None,
) -> Iterator[str]:
    """The Markdown of the conversation piece by piece (its header first), or the line saying
    it has none."""
    from purlin_resume.claude import rendering
    from purlin_resume.claude.transcript import Details

    if not rendering.has_history(opened.transcript, options):
        return iter([rendering.no_history(opened.target.id)])
    assert opened.transcript is not None
    details = Details(opened.transcript, redaction.data)
    kind = _kind(opened)
    return rendering.chunks(opened.transcript, options, opened.subagent, kind, details, sections)


_BATCH_CHARS = 1 << 16


def _batches(pieces: Iterable[str]) -> Iterator[str]:
    """Pieces joined into batches of about ``_BATCH_CHARS`` (a piece is never split)."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _BATCH_CHARS:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)


def _to_file(path: Path, pieces: Iterable[str], redaction: Redaction) -> int:
    """Write ``pieces`` to ``path`` as they come, replacing it only once all are written; the
    characters written (before redaction)."""
    from purlin_resume.core import store

    written = 0
    with store.output_file(path) as write:
        for batch in _batches(pieces):
            written += len(batch)
            write(redaction.outgoing(batch).encode("utf-8"))
    return written


def _to_stdout(pieces: Iterable[str], redaction: Redaction) -> None:
    """Print ``pieces`` as they come, as ``print_text`` prints their whole."""
    last = ""
    for batch in _batches(pieces):
        text = redaction.outgoing(batch)
        echo(text, nl=False)
        last = text[-1:] or last
    if last != "\n":
        typer.echo("")


def _stdout_is_file() -> bool:
    try:
        return stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


def _overflow_path(identifier: str) -> Path:
    import re
    import tempfile

    from purlin_resume.core.path_safety import private_folder

    owner = f"-{os.getuid()}" if hasattr(os, "getuid") else ""
    folder = private_folder(Path(tempfile.gettempdir()) / f"purlin-resume{owner}")
    return folder / f"transcript-{re.sub(r'[^A-Za-z0-9_.-]', '_', identifier)}.md"


def _print_bounded(opened: Opened, options, limit: int, redaction: Redaction) -> None:
    """The Markdown, or past ``limit`` characters a digest of it: the whole is then written to
    a private file as it comes, and only its last ``limit`` characters are kept for the digest."""
    from purlin_resume.claude import rendering

    if not rendering.has_history(opened.transcript, options):
        print_text(rendering.no_history(opened.target.id))
        return
    sections: list = []
    pieces = _markdown(opened, options, redaction, sections)
    start: list[str] = []
    length = 0
    for piece in pieces:
        start.append(piece)
        length += len(piece)
        if length > limit:
            break
    else:
        print_text("".join(start))
        return
    assert opened.transcript is not None
    end = deque(start[1:])  # the last pieces of the body (all but the header), >= limit chars
    kept = length - len(start[0])

    def everything() -> Iterator[str]:
        nonlocal length, kept
        yield from start
        for piece in pieces:
            yield piece
            length += len(piece)
            kept += len(piece)
            end.append(piece)
            while kept - len(end[0]) >= limit:
                kept -= len(end.popleft())

    path = _overflow_path(opened.target.id)
    _to_file(path, everything(), redaction)
    kind = _kind(opened)
    end_text = "".join(end)
    print_text(
        rendering.digest(
            length, end_text, sections, opened.transcript, path, limit, opened.subagent, kind
        )
    )


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
    from purlin_resume.claude import rendering

    output = checked_output(output)
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    redaction = Redaction()
    try:
        if as_json:
            _to_stdout(_json(opened, include_tools, include_thinking, redaction), redaction)
            return
        options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
        if output is not None:
            written = _to_file(output, _markdown(opened, options, redaction), redaction)
            if rendering.has_history(opened.transcript, options):
                print_text(f"wrote {output} ({written} characters)\n")
            else:
                print_text(rendering.no_history(opened.target.id))
            return
        limit = (
            max_chars if max_chars is not None else (0 if _stdout_is_file() else DEFAULT_MAX_CHARS)
        )
        if limit:
            _print_bounded(opened, options, limit, redaction)
        else:
            _to_stdout(_markdown(opened, options, redaction), redaction)
    finally:
        redaction.report()


@app.command("export", rich_help_panel="Transcripts")
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
    from purlin_resume.claude import rendering
    from purlin_resume.cli.common import Output

    if no_redact:
        Output.redact = False
    output = checked_output(output)
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    redaction = Redaction()
    if format is Format.md:
        options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
        pieces = _markdown(opened, options, redaction)
    else:
        pieces = _json(opened, include_tools, include_thinking, redaction)
    try:
        if output is not None:
            written = _to_file(output, pieces, redaction)
            print_text(f"wrote {output} ({written} characters)\n")
        else:
            _to_stdout(pieces, redaction)
    finally:
        redaction.report()


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

    found = exposure.report(_catalog(claude_dir), identifier)
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
