"""`sessions`, `agents`, `transcript` and `export`: Claude Code's own history, read natively."""

from __future__ import annotations

import os
import stat
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    ClaudeDirOption,
    JsonOption,
    checked_output,
    print_json,
    print_text,
    redacted,
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
    listed = catalog.sessions(scope, cache=_listing_cache())
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


def _listing_cache() -> Path | None:
    """Where ``sessions`` keeps what it read (redacted), unless output is not redacted."""
    from purlin_resume.cli.common import Output, _redaction

    if not Output.redact:
        return None
    _redaction()  # the project's rules, before anything is redacted for the cache
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "purlin-resume"


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
    when its transcript is gone (or Claude Code's folder is), the archive a bookmark of it keeps."""
    import dataclasses

    from purlin_resume.claude.catalog import open_target
    from purlin_resume.claude.transcript import ReadOptions
    from purlin_resume.cli.common import redacted
    from purlin_resume.core.errors import NotFound

    options = ReadOptions(tools=tools, thinking=thinking)
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


def _document(opened: Opened, tools: bool, thinking: bool) -> dict:
    from purlin_resume.claude import export as export_mod
    from purlin_resume.claude import rendering

    if opened.transcript is None:
        session = opened.target.session.id if opened.target.session else None
        return export_mod.no_conversation(
            opened.target.id,
            _kind(opened),
            session,
            opened.subagent,
            rendering.no_history(opened.target.id).strip(),
        )
    return export_mod.document(
        opened.transcript, opened.subagent, tools=tools, thinking=thinking, kind=_kind(opened)
    )


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


def _write(path: Path, text: str) -> None:
    from purlin_resume.cli.common import outgoing
    from purlin_resume.core import store

    store.write_output(path, outgoing(text))


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
    if as_json:
        print_json(_document(opened, include_tools, include_thinking))
        return
    options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
    if not rendering.has_history(opened.transcript, options):
        text = rendering.no_history(opened.target.id)
        if output is not None:
            _write(output, text)
        print_text(text)
        return
    assert opened.transcript is not None
    kind = _kind(opened)
    markdown, sections = rendering.render(opened.transcript, options, opened.subagent, kind)
    if output is not None:
        _write(output, markdown)
        print_text(f"wrote {output} ({len(markdown)} characters)\n")
        return
    limit = max_chars if max_chars is not None else (0 if _stdout_is_file() else DEFAULT_MAX_CHARS)
    if limit and len(markdown) > limit:
        path = _overflow_path(opened.target.id)
        _write(path, markdown)
        print_text(
            rendering.digest(
                markdown, sections, opened.transcript, path, limit, opened.subagent, kind
            )
        )
        return
    print_text(markdown)


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
    from purlin_resume.core import store

    if no_redact:
        Output.redact = False
    output = checked_output(output)
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    if format is Format.md:
        options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
        if rendering.has_history(opened.transcript, options):
            assert opened.transcript is not None
            text = rendering.render(opened.transcript, options, opened.subagent, _kind(opened))[0]
        else:
            text = rendering.no_history(opened.target.id)
    else:
        text = store.dump_json(redacted(_document(opened, include_tools, include_thinking)))
    if output is not None:
        _write(output, text)
        print_text(f"wrote {output} ({len(text)} characters)\n")
        return
    print_text(text)


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
