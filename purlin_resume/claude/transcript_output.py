"""A conversation (a session or an agent) on its way out of the tool, piece by piece: its
Markdown or its TR-3 JSON document, redacted in batches as it comes (each text once, as it is
written), written to a file, or cut to a digest past a number of characters (the whole then goes
to a private file)."""

from __future__ import annotations

import itertools
import os
import re
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import Protocol

from purlin_resume.claude import export, rendering
from purlin_resume.claude.catalog import Opened
from purlin_resume.claude.export import Clean, Unredacted
from purlin_resume.claude.rendering import MarkdownOptions, Section
from purlin_resume.claude.transcript import Details
from purlin_resume.core import redact, store

BATCH_CHARS = 1 << 16  # the text redacted at once: long enough for any secret a rule finds


class Format(str, Enum):
    json = "json"
    md = "md"


class Redaction(Protocol):
    """What redacts the output: ``outgoing`` redacts a text and counts what it took out;
    ``checked`` only redacts it, ``counted`` counts."""

    def outgoing(self, text: str) -> str: ...

    def checked(self, text: str) -> tuple[str, dict[str, int]]: ...

    def counted(self, counts: dict[str, int]) -> None: ...


def kind(opened: Opened) -> str:
    return {"inline": "agent"}.get(opened.target.kind, opened.target.kind)


def document(opened: Opened, tools: bool, thinking: bool) -> dict:
    """The TR-3 document, its conversation an iterator (``export.json_chunks``): the tool
    inputs, results and thoughts in it read back as their turn comes (``Serialised``), to be
    redacted as they are written, with the rest (``redacted_batches``)."""
    if opened.transcript is None:
        session = opened.target.session.id if opened.target.session else None
        return export.no_conversation(
            opened.target.id,
            kind(opened),
            session,
            opened.subagent,
            rendering.no_history(opened.target).strip(),
        )
    return export.document(
        opened.transcript,
        opened.subagent,
        tools=tools,
        thinking=thinking,
        kind=kind(opened),
        streamed=True,
        serialised=True,
    )


def json_pieces(opened: Opened, tools: bool, thinking: bool) -> Iterator[str]:
    """The TR-3 document piece by piece, not redacted yet (``redacted_batches``); what is read
    back from its file (tool inputs and results, thoughts) comes as its turn comes
    (``Details``)."""
    return export.json_chunks(document(opened, tools, thinking))


def markdown_pieces(
    opened: Opened,
    options: MarkdownOptions,
    sections: list[Section] | None = None,
) -> Iterator[str]:
    """The Markdown of the conversation piece by piece (its header first), or the line saying
    it has none, not redacted yet (``redacted_batches``); its thoughts are quoted once redacted
    (``Unredacted``)."""
    if not rendering.has_history(opened.transcript, options):
        return iter([rendering.no_history(opened.target)])
    assert opened.transcript is not None
    details = Details(opened.transcript)
    return rendering.chunks(
        opened.transcript,
        options,
        opened.subagent,
        kind(opened),
        details,
        sections,
        unredacted=True,
    )


def markdown(opened: Opened, options: MarkdownOptions) -> str:
    """The Markdown of the conversation whole (its header first), or the line saying it has
    none (not redacted yet)."""
    if not rendering.has_history(opened.transcript, options):
        return rendering.no_history(opened.target)
    assert opened.transcript is not None
    return rendering.render(opened.transcript, options, opened.subagent, kind(opened))[0]


def redacted_batches(pieces: Iterable[str], redaction: Redaction) -> Iterator[str]:
    """``pieces`` joined into batches of about ``BATCH_CHARS`` (a piece is never split), in
    order, each with its plain pieces and ``Unredacted`` ones redacted together, as one text (a
    secret written in pieces across them is found joined); ``Clean`` ones are passed on as they
    are. A secret found in a batch is hidden in the batches after it too."""
    with redact.remembering():
        yield from _batches(pieces, redaction)


def _batches(pieces: Iterable[str], redaction: Redaction) -> Iterator[str]:
    batch: list[str] = []  # the runs of plain pieces, each joined, and the other pieces
    plain: list[int] = []  # where the runs and the Unredacted pieces are in ``batch``
    run: list[str] = []
    size = 0
    for piece in pieces:
        if isinstance(piece, (Clean, Unredacted)):
            if run:
                plain.append(len(batch))
                batch.append("".join(run))
                run = []
            if isinstance(piece, Unredacted):
                plain.append(len(batch))
            batch.append(piece)
        else:
            run.append(piece)
        size += len(piece)
        if size >= BATCH_CHARS:
            if run:
                plain.append(len(batch))
                batch.append("".join(run))
            yield _redacted_batch(batch, plain, redaction)
            batch, plain, run, size = [], [], [], 0
    if run:
        plain.append(len(batch))
        batch.append("".join(run))
    if batch:
        yield _redacted_batch(batch, plain, redaction)


_APART = "\x00"  # between the runs of a batch, redacted as one text


def _redacted_batch(batch: list[str], plain: list[int], redaction: Redaction) -> str:
    """``batch`` joined, its runs of plain pieces and its ``Unredacted`` pieces redacted as one
    text (kept apart by ``_APART``), the latter then laid out; each on its own when one holds
    ``_APART`` or a secret ran across two."""
    runs = [batch[at] for at in plain]
    done: list[str] | None = None
    if len(runs) > 1 and not any(_APART in text for text in runs):
        text, counts = redaction.checked(_APART.join(runs))
        done = text.split(_APART)
        if len(done) == len(runs):
            redaction.counted(counts)
        else:
            done = None
    if done is None:
        # each as a plain str: one with nothing to redact comes back as it is, and an
        # ``Unredacted`` one would reach its ``lay_out`` as itself
        done = [redaction.outgoing(str(text)) for text in runs]
    for at, text in zip(plain, done, strict=True):
        piece = batch[at]
        batch[at] = piece.lay_out(text) if isinstance(piece, Unredacted) else text
    return "".join(batch)


def to_file(path: Path, pieces: Iterable[str], redaction: Redaction) -> int:
    """Write ``pieces`` redacted to ``path`` as they come, replacing it only once all are
    written; the characters written."""
    written = 0
    with store.output_file(path) as write:
        for text in redacted_batches(pieces, redaction):
            written += len(text)
            write(store.encoded(text))
    return written


def private_temp() -> Path:
    """This user's own folder in the temporary folder (0700, refused when it is not private)."""
    owner = f"-{os.getuid()}" if hasattr(os, "getuid") else ""
    return store.private_folder(Path(tempfile.gettempdir()) / f"purlin-resume{owner}")


def overflow_path(identifier: str) -> Path:
    return private_temp() / f"transcript-{re.sub(r'[^A-Za-z0-9_.-]', '_', identifier)}.md"


def bounded(
    opened: Opened, options: MarkdownOptions, limit: int, redaction: Redaction
) -> tuple[str, Path | None]:
    """The Markdown when it fits in ``limit`` characters; past that, a digest of it, the whole
    written to a private file as it comes (only its last ``limit`` characters are kept); with
    that file, or None when the Markdown fitted."""
    if not rendering.has_history(opened.transcript, options):
        return rendering.no_history(opened.target), None
    sections: list[Section] = []
    rendered = iter(markdown_pieces(opened, options, sections))
    header = redacted_batches([next(rendered)], redaction)
    pieces = (  # the header, then the body redacted in batches as every output is, before the
        # digest cuts into them (then none again)
        Clean(text)
        for text in itertools.chain(header, redacted_batches(rendered, redaction))
    )
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
