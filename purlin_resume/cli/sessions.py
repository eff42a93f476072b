"""`sessions` and `agents`: the sessions of every agent CLI, and the subagents of one."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from purlin_resume.agentcli.names import CLAUDE
from purlin_resume.claude import layout
from purlin_resume.claude.agent_tree import Subagent
from purlin_resume.claude.catalog import Catalog
from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    archived_line,
    note_line,
    print_json,
    print_text,
    redacted,
    user_cache,
    warning_line,
)
from purlin_resume.cli.options import ClaudeDirOption, JsonOption
from purlin_resume.core import gitrepo
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.core.project import GONE, working_folder
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.resurrection import archive


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
    asked = crosscli.chosen(cli)
    clis, skipped = crosscli.readable(asked, layout.config_dir(claude_dir)[0])
    for line in skipped:
        warning_line(line)
    needed = claude_dir is not None or asked == (CLAUDE,)
    catalog = _catalog(claude_dir, needed) if CLAUDE in clis else None
    scope = None if all_projects else _scope(project)
    refused: dict[str, list[Path]] = {}
    listed = crosscli.list_sessions(catalog, clis, scope, cache=user_cache(), refused=refused)
    for line in crosscli.refused_lines(refused):
        warning_line(line)
    _warn_unread(catalog)
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


def _scope(project: Path | None) -> Path:
    """The folder whose sessions are listed: ``--project``, else the repository (or the
    folder) of the working folder."""
    if project is not None:
        return Path(os.path.abspath(project.expanduser()))
    here = working_folder()
    if here is None:
        raise PurlinError(GONE.replace("--project", "--project or --all"))
    return gitrepo.toplevel(here) or here


def _warn_unread(catalog: Catalog | None) -> None:
    """One warning line for the folders of Claude Code's the catalog passed over."""
    if catalog is not None and catalog.refused:
        warning_line(layout.refused_line(catalog.refused))


def _catalog(claude_dir: Path | None, needed: bool) -> Catalog | None:
    """Claude Code's catalog; None when its default folder holds no transcripts and other
    CLIs may (``needed``: it must be there)."""
    try:
        return Catalog(layout.claude_dir(claude_dir))
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
    if session.stats.unreadable:
        missing += f" [not readable: {session.stats.unreadable}]"
    elif session.stats.binary:
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


def _session_of(catalog: Catalog, identifier: str):
    """The session ``identifier`` names, or the session of the agent it names (said in a
    line)."""
    try:
        return catalog.resolve(identifier, kinds=("session",))
    except NotFound as missing:
        try:
            found = catalog.resolve(identifier)
        except NotFound:
            raise missing from None
        if found.session is None:
            raise
        note_line(f"{identifier} is an agent of session {found.session.id}: that session's agents")
        return catalog.resolve(found.session.id, kinds=("session",))


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
        target = _session_of(catalog, session)
    except NotFound as missing:
        archived = archive.archived_session(claude_dir, session)
        if archived is None:
            try:
                _other_agents(session, as_json)
            except NotFound:
                if catalog is None:
                    raise
                raise missing from None  # as 'transcript' says it: where Claude Code's are
            return
        catalog, target = archived
        archived_line(target.id)
    assert target.session is not None
    view = catalog.view(target.session)
    _warn_unread(catalog)
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
