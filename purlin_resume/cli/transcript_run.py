"""What ``transcript`` and ``export`` do: open a conversation (a session or an agent), render
it, redact it and print it or write it. Importing this module does not import Typer:
``cli/fast_path`` calls these functions directly when their command line is plain, and the
Typer commands in ``cli/transcripts`` call them otherwise (``app.runs``)."""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from purlin_resume.cli.common import (
    Output,
    Redaction,
    checked_output,
    echo,
    echo_error,
    print_text,
    redacted,
)

if TYPE_CHECKING:
    from purlin_resume.claude.catalog import Catalog, Opened

# The reader, renderer and writer are imported inside the functions: only these commands
# need them.

DEFAULT_MAX_CHARS = 25_000


class Format(str, Enum):
    json = "json"
    md = "md"


def open_catalog(claude_dir: Path | None) -> Catalog:
    from purlin_resume.claude import layout
    from purlin_resume.claude.catalog import Catalog

    return Catalog(layout.claude_dir(claude_dir))


def _kind(opened: Opened) -> str:
    return {"inline": "agent"}.get(opened.target.kind, opened.target.kind)


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
        opened = open_target(open_catalog(claude_dir), identifier, options)
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
        echo_error(f"the transcript is gone: read from the archive of session {session}")
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
        echo("")


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


def transcript(
    identifier: str,
    output: Path | None,
    max_chars: int | None,
    include_tools: bool,
    include_thinking: bool,
    claude_dir: Path | None,
    as_json: bool,
) -> None:
    """A conversation as Markdown (or its TR-3 JSON): printed, bounded by a digest, or written."""
    from purlin_resume.claude import rendering

    output = checked_output(output)
    opened = _open(claude_dir, identifier, include_tools, include_thinking)
    redaction = Redaction()
    try:
        if as_json:
            pieces = _json(opened, include_tools, include_thinking, redaction)
            if output is None:
                _to_stdout(pieces, redaction)
            else:
                written = _to_file(output, pieces, redaction)
                print_text(f"wrote {output} ({written} characters)\n")
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


def export(
    identifier: str,
    format: Format,
    include_tools: bool,
    include_thinking: bool,
    output: Path | None,
    claude_dir: Path | None,
    no_redact: bool,
) -> None:
    """A conversation's TR-3 JSON document, or its Markdown: printed or written."""
    from purlin_resume.claude import rendering

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
