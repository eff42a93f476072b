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
from purlin_resume.core.store import encoded

if TYPE_CHECKING:
    from purlin_resume.claude.catalog import Catalog, Opened
    from purlin_resume.claude.prerendering import Ahead

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


def _open(
    claude_dir: Path | None, identifier: str, tools: bool, thinking: bool, ahead: bool = False
) -> tuple[Opened, Ahead | None]:
    """The conversation ``identifier`` names, its text values redacted before any rendering;
    when its transcript is gone (or Claude Code's folder is), the archive a bookmark of it keeps.
    Tool inputs and results and thinking stay in the file until written (``Details``).

    ``ahead``: the Markdown of its thoughts, tool inputs and results is to be written; when the
    transcript is big, a child on the other core renders those while this process reads the
    rest (``prerendering``), and is handed back with it (close it)."""
    from purlin_resume.claude.catalog import open_resolved
    from purlin_resume.claude.transcript import ReadOptions
    from purlin_resume.core.errors import NotFound

    options = ReadOptions(tools=tools, thinking=thinking, deferred=True)
    try:
        catalog = open_catalog(claude_dir)
        target = catalog.resolve(identifier)
    except NotFound:
        opened = _archived(claude_dir, identifier, options) or _other_cli(identifier, options)
        if opened is None:
            raise
        return _redacted(opened), None
    helper = _start_ahead(target.file, tools, thinking) if ahead and (tools or thinking) else None
    try:
        opened = open_resolved(catalog, target, options)
        if opened.transcript is None:
            opened = _archived(claude_dir, identifier, options) or opened
        opened = _redacted(opened)
    except BaseException:
        if helper is not None:
            helper.close()
        raise
    if helper is not None and (opened.transcript is None or opened.transcript.path != target.file):
        helper.close()  # read from an archive after all: not the file the child reads
        helper = None
    return opened, helper


def _other_cli(identifier: str, options) -> Opened | None:
    """The conversation of Codex CLI, Gemini CLI or opencode ``identifier`` names, if any."""
    import dataclasses

    from purlin_resume.claude.catalog import Opened, Target
    from purlin_resume.core.errors import NotFound
    from purlin_resume.crosscli import sessions as crosscli

    try:
        found = crosscli.open_conversation(identifier, dataclasses.replace(options, deferred=False))
    except NotFound:
        return None
    target = Target(found.kind, found.session.id, None)
    return Opened(target, None, found.conversation.transcript)  # type: ignore[arg-type]


def _redacted(opened: Opened) -> Opened:
    import dataclasses

    return dataclasses.replace(
        opened, transcript=redacted(opened.transcript), subagent=redacted(opened.subagent)
    )


def _start_ahead(path: Path | None, tools: bool, thinking: bool) -> Ahead | None:
    """The child rendering ``path``'s pieces ahead (then redacting outgoing batches), when the
    transcript is big enough to pay for it; None otherwise (this process does it all)."""
    from purlin_resume.claude import prerendering
    from purlin_resume.core.errors import PurlinError

    if not prerendering.worth_it(path):
        return None
    try:
        folder = _private_temp()
    except PurlinError:  # no private folder for its spool files: work alone
        return None
    clean = Redaction.cleaner()  # the project's redaction rules, loaded before the child forks
    return prerendering.start(path, clean, _checked_payload, folder, thinking, tools)


def _checked_payload(payload: bytes) -> tuple[bytes, bytes]:
    """What the child answers a batch with: the batch redacted (as ``encoded`` writes it;
    nothing when nothing was redacted: the batch stays as it is), and what was redacted."""
    import marshal

    text, counts = Redaction.checked(payload.decode("utf-8", "surrogatepass"))
    return (encoded(text) if counts else b""), marshal.dumps(counts)


def _archived(claude_dir: Path | None, identifier: str, options) -> Opened | None:
    from purlin_resume.cli.find_run import project_root
    from purlin_resume.resurrection import flow as resurrection

    env = resurrection.environment(claude_dir, project_root(None))
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
    ahead: Ahead | None = None,
) -> Iterator[str]:
    """The Markdown of the conversation piece by piece (its header first), or the line saying
    it has none; ``ahead``: the child rendering its pieces."""
    from purlin_resume.claude import rendering
    from purlin_resume.claude.transcript import Details

    if not rendering.has_history(opened.transcript, options):
        return iter([rendering.no_history(opened.target.id)])
    assert opened.transcript is not None
    details = Details(opened.transcript, redaction.data)
    kind = _kind(opened)
    return rendering.chunks(
        opened.transcript, options, opened.subagent, kind, details, sections, ahead
    )


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


def _redacted_batches(
    pieces: Iterable[str], redaction: Redaction, ahead: Ahead | None = None, utf8: bool = False
) -> Iterator[str | bytes]:
    """The batches of ``pieces``, each redacted as a whole, in order: here, or by the child
    that rendered the pieces ahead, when it is done with those and free (it is handed a batch
    while this process redacts the next). ``utf8``: a batch may come as its UTF-8 (as
    ``encoded`` writes it) where that is at hand."""
    helper = ahead.helper if ahead is not None and Output.redact else None
    if helper is None:
        for batch in _batches(pieces):
            yield redaction.outgoing(batch)
        return
    import marshal

    waiting: deque[tuple[int | None, str, bytes | None]] = deque()  # ticket, batch, its UTF-8

    def finished(ticket: int | None, batch: str, payload: bytes | None) -> str | bytes:
        if ticket is None:
            return batch  # redacted here
        answer = helper.answer(ticket)
        if answer is None:  # the child failed it, or is gone
            return redaction.outgoing(batch)
        counts = marshal.loads(answer[1])
        if not counts:  # nothing to redact: the batch as it is
            return payload if utf8 and payload is not None else batch
        redaction.text.update(counts)
        return answer[0] if utf8 else answer[0].decode("utf-8")

    for batch in _batches(pieces):
        ticket = payload = None
        if helper.free():
            try:
                payload = batch.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: the child gets it as it is
                ticket = helper.submit(batch.encode("utf-8", "surrogatepass"))
            else:
                ticket = helper.submit(payload)
        if ticket is None:
            waiting.append((None, redaction.outgoing(batch), None))
        else:
            waiting.append((ticket, batch, payload))
        while waiting and (waiting[0][0] is None or helper.answered(waiting[0][0])):
            yield finished(*waiting.popleft())
    while waiting:
        yield finished(*waiting.popleft())


def _to_file(
    path: Path, pieces: Iterable[str], redaction: Redaction, ahead: Ahead | None = None
) -> int:
    """Write ``pieces`` to ``path`` as they come, replacing it only once all are written; the
    characters written (before redaction)."""
    from purlin_resume.core import store

    written = 0

    def counted() -> Iterator[str]:
        nonlocal written
        for piece in pieces:
            written += len(piece)
            yield piece

    with store.output_file(path) as write:
        for text in _redacted_batches(counted(), redaction, ahead, utf8=True):
            write(text if isinstance(text, bytes) else encoded(text))
    return written


def _to_stdout(pieces: Iterable[str], redaction: Redaction, ahead: Ahead | None = None) -> None:
    """Print ``pieces`` as they come, as ``print_text`` prints their whole."""
    last = ""
    for text in _redacted_batches(pieces, redaction, ahead):
        assert isinstance(text, str)
        echo(text, nl=False)
        last = text[-1:] or last
    if last != "\n":
        echo("")


def _stdout_is_file() -> bool:
    try:
        return stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


def _private_temp() -> Path:
    """This user's own folder in the temporary folder (0700, refused when it is not private)."""
    import tempfile

    from purlin_resume.core.path_safety import private_folder

    owner = f"-{os.getuid()}" if hasattr(os, "getuid") else ""
    return private_folder(Path(tempfile.gettempdir()) / f"purlin-resume{owner}")


def _overflow_path(identifier: str) -> Path:
    import re

    return _private_temp() / f"transcript-{re.sub(r'[^A-Za-z0-9_.-]', '_', identifier)}.md"


def _print_bounded(
    opened: Opened, options, limit: int, redaction: Redaction, ahead: Ahead | None = None
) -> None:
    """The Markdown, or past ``limit`` characters a digest of it: the whole is then written to
    a private file as it comes, and only its last ``limit`` characters are kept for the digest."""
    from purlin_resume.claude import rendering

    if not rendering.has_history(opened.transcript, options):
        print_text(rendering.no_history(opened.target.id))
        return
    sections: list = []
    pieces = _markdown(opened, options, redaction, sections, ahead)
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
    _to_file(path, everything(), redaction, ahead)
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
    opened, ahead = _open(claude_dir, identifier, include_tools, include_thinking, not as_json)
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
            pieces = _markdown(opened, options, redaction, None, ahead)
            written = _to_file(output, pieces, redaction, ahead)
            if rendering.has_history(opened.transcript, options):
                print_text(f"wrote {output} ({written} characters)\n")
            else:
                print_text(rendering.no_history(opened.target.id))
            return
        limit = (
            max_chars if max_chars is not None else (0 if _stdout_is_file() else DEFAULT_MAX_CHARS)
        )
        if limit:
            _print_bounded(opened, options, limit, redaction, ahead)
        else:
            _to_stdout(_markdown(opened, options, redaction, None, ahead), redaction, ahead)
    finally:
        _finish(redaction, ahead)


def _finish(redaction: Redaction, ahead: Ahead | None) -> None:
    """Stop the child (if any), and report what was redacted, the child's part included."""
    if ahead is not None:
        redaction.values.update(ahead.counts)
        ahead.close()
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
    markdown = format is Format.md
    opened, ahead = _open(claude_dir, identifier, include_tools, include_thinking, markdown)
    redaction = Redaction()
    try:
        if markdown:
            options = rendering.MarkdownOptions(tools=include_tools, thinking=include_thinking)
            pieces = _markdown(opened, options, redaction, None, ahead)
        else:
            pieces = _json(opened, include_tools, include_thinking, redaction)
        if output is not None:
            written = _to_file(output, pieces, redaction, ahead)
            print_text(f"wrote {output} ({written} characters)\n")
        else:
            _to_stdout(pieces, redaction, ahead)
    finally:
        _finish(redaction, ahead)
