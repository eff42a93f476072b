"""A conversation (a session or an agent) on its way out of the tool, piece by piece: its
Markdown or its TR-3 JSON document, redacted in batches as it comes, written to a file, or cut to
a digest past a number of characters (the whole then goes to a private file)."""

from __future__ import annotations

import os
import re
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

from purlin_resume.claude import export, rendering
from purlin_resume.claude.catalog import Opened
from purlin_resume.claude.rendering import MarkdownOptions, Section
from purlin_resume.claude.transcript import Details
from purlin_resume.core import store
from purlin_resume.core.path_safety import private_folder

BATCH_CHARS = 1 << 16  # the text redacted at once: long enough for any secret a rule finds


class Format(str, Enum):
    json = "json"
    md = "md"


class Redaction(Protocol):
    """What redacts the output: each value before it is serialised, each batch of text."""

    def data(self, data: Any) -> Any: ...

    def outgoing(self, text: str) -> str: ...


def kind(opened: Opened) -> str:
    return {"inline": "agent"}.get(opened.target.kind, opened.target.kind)


def document(opened: Opened, tools: bool, thinking: bool, redaction: Redaction) -> dict:
    """The TR-3 document, redacted, its conversation an iterator (``export.json_chunks``)."""
    if opened.transcript is None:
        session = opened.target.session.id if opened.target.session else None
        found = export.no_conversation(
            opened.target.id,
            kind(opened),
            session,
            opened.subagent,
            rendering.no_history(opened.target.id).strip(),
        )
    else:
        found = export.document(
            opened.transcript,
            opened.subagent,
            tools=tools,
            thinking=thinking,
            kind=kind(opened),
            details=Details(opened.transcript, redaction.data),
            streamed=True,
        )
    return redaction.data(found)


def json_pieces(opened: Opened, tools: bool, thinking: bool, redaction: Redaction) -> Iterator[str]:
    """The TR-3 document piece by piece. Like ``markdown_pieces``, it takes a conversation
    whose transcript is redacted already; what is read back from its file is redacted as it
    comes (``Details``)."""
    return export.json_chunks(document(opened, tools, thinking, redaction))


def markdown_pieces(
    opened: Opened,
    options: MarkdownOptions,
    redaction: Redaction,
    sections: list[Section] | None = None,
) -> Iterator[str]:
    """The Markdown of the conversation piece by piece (its header first), or the line saying
    it has none."""
    if not rendering.has_history(opened.transcript, options):
        return iter([rendering.no_history(opened.target.id)])
    assert opened.transcript is not None
    details = Details(opened.transcript, redaction.data)
    return rendering.chunks(
        opened.transcript, options, opened.subagent, kind(opened), details, sections
    )


def markdown(opened: Opened, options: MarkdownOptions) -> str:
    """The Markdown of the conversation whole (its header first), or the line saying it has
    none (not redacted yet)."""
    if not rendering.has_history(opened.transcript, options):
        return rendering.no_history(opened.target.id)
    assert opened.transcript is not None
    return rendering.render(opened.transcript, options, opened.subagent, kind(opened))[0]


def batches(pieces: Iterable[str]) -> Iterator[str]:
    """Pieces joined into batches of about ``BATCH_CHARS`` (a piece is never split)."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= BATCH_CHARS:
            yield "".join(batch)
            batch, size = [], 0
    if batch:
        yield "".join(batch)


def redacted_batches(pieces: Iterable[str], redaction: Redaction) -> Iterator[str]:
    """The batches of ``pieces``, each redacted as a whole, in order."""
    for batch in batches(pieces):
        yield redaction.outgoing(batch)


def to_file(path: Path, pieces: Iterable[str], redaction: Redaction) -> int:
    """Write ``pieces`` to ``path`` as they come, replacing it only once all are written; the
    characters written (before redaction)."""
    written = 0

    def counted() -> Iterator[str]:
        nonlocal written
        for piece in pieces:
            written += len(piece)
            yield piece

    with store.output_file(path) as write:
        for text in redacted_batches(counted(), redaction):
            write(store.encoded(text))
    return written


def private_temp() -> Path:
    """This user's own folder in the temporary folder (0700, refused when it is not private)."""
    owner = f"-{os.getuid()}" if hasattr(os, "getuid") else ""
    return private_folder(Path(tempfile.gettempdir()) / f"purlin-resume{owner}")


def overflow_path(identifier: str) -> Path:
    return private_temp() / f"transcript-{re.sub(r'[^A-Za-z0-9_.-]', '_', identifier)}.md"


def bounded(
    opened: Opened, options: MarkdownOptions, limit: int, redaction: Redaction
) -> tuple[str, Path | None]:
    """The Markdown when it fits in ``limit`` characters; past that, a digest of it, the whole
    written to a private file as it comes (only its last ``limit`` characters are kept); with
    that file, or None when the Markdown fitted."""
    if not rendering.has_history(opened.transcript, options):
        return rendering.no_history(opened.target.id), None
    sections: list[Section] = []
    pieces = markdown_pieces(opened, options, redaction, sections)
    start: list[str] = []
    length = 0
    for piece in pieces:
        start.append(piece)
        length += len(piece)
        if length > limit:
            break
    else:
        return "".join(start), None
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

    path = overflow_path(opened.target.id)
    to_file(path, everything(), redaction)
    shown = rendering.digest(
        length,
        "".join(end),
        sections,
        opened.transcript,
        path,
        limit,
        opened.subagent,
        kind(opened),
    )
    return shown, path
