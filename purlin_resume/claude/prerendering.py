"""The Markdown of a long transcript's thoughts, tool inputs and tool results, rendered ahead on
the other core while this process reads the conversation.

Reading the conversation is most of this process's work on a big session; rendering and
redacting what the tools read and wrote is most of the rest, and that needs only the file. So a
``core.helper`` child renders each thinking, tool_use and tool_result block of the file as
``rendering.turn_pieces`` would, its values redacted by the same ``clean`` (the child is forked
once redaction is set up, so it applies the same rules). It works from the end of the file
backwards, a chunk of lines at a time, marking where its chunks begin; this process, once it has
read the conversation, writes it from the start, rendering the pieces of the turns the child has
not covered itself and telling the child how far it got. Where they meet, the child stops (and
goes on to redact outgoing batches): neither waits for the other, and no piece is made twice but
in the chunk where they meet.

``Ahead.turn`` gives a turn's pieces when the child covered every one of them and they name the
tool calls the reading found at those places; otherwise the renderer does that turn itself, as
it would without the child. So the child saves time and never changes the Markdown.
"""

from __future__ import annotations

import marshal
import os
import re
import struct
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from purlin_resume.claude import records
from purlin_resume.claude.rendering import TurnPieces, input_piece, result_piece, thought_piece
from purlin_resume.claude.transcript import Turn, blocks_text
from purlin_resume.core import helper as helpers

AHEAD_BYTES = 8 << 20  # a smaller transcript renders sooner than a child starts and catches up
CHUNK_BYTES = 4 << 20  # of lines the child renders between two looks at where this process is
THINKING, INPUT, RESULT = 1, 2, 3
_MAX_BLOCKS = 1 << 20  # blocks of one record given a piece (the rest: rendered by this process)
_LINE = _MAX_BLOCKS * 4
_KEY = struct.Struct("<QBH")  # place, flags (1: shows something, 2: counts follow), id length
_NAMED = re.compile(rb'"type": ?"(?:t|server_tool_use")')  # a line that may hold a piece
Clean = Callable[[Any], tuple[Any, dict[str, int]]]  # a value redacted, and what was redacted


class _Message(msgspec.Struct):
    content: Any = None


class _Record(msgspec.Struct):
    message: _Message | None = None


def worth_it(path: Path | None) -> bool:
    """Whether rendering ``path``'s pieces ahead pays: it is big, there is another core, and
    this process can fork (no other thread runs in it)."""
    if path is None or not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    try:
        if os.stat(path).st_size < AHEAD_BYTES:
            return False
    except OSError:
        return False
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) > 1
    return (os.cpu_count() or 1) > 1


def start(
    path: Path,
    clean: Clean,
    serve: helpers.Serve,
    folder: Path,
    thinking: bool,
    tools: bool,
) -> Ahead | None:
    """A child rendering the pieces of ``path`` (the kinds asked for), then answering ``serve``
    requests; None when it cannot be started."""
    kinds = ({THINKING} if thinking else set()) | ({INPUT, RESULT} if tools else set())

    def job(sink: helpers.Sink) -> None:
        render_file(Path(path), clean, kinds, sink)

    helper = helpers.start(job, serve, folder)
    return Ahead(helper) if helper is not None else None


def render_file(path: Path, clean: Clean, kinds: set[int], sink: helpers.Sink) -> None:
    """Put the key and Markdown of every block of ``kinds`` in ``path`` into ``sink``, a chunk
    of lines at a time from the end of the file back, marking the offset each chunk starts at
    (all pieces from there to the end are put), until this process has reached the chunk next
    in turn (``sink.heard()``). The key: where the block is (``_place``), whether it shows
    anything (a tool input that is not an object does not), the tool call it names and the
    counts of what was redacted in it.

    Only lines that name a block whose type starts with ``t`` (text, thinking, tool_use,
    tool_result) or a server_tool_use, as a JSON writer spells them, are parsed: a line that
    spells it otherwise (with escapes) gets no piece here, and the renderer does its turn."""
    if records.is_binary(path):
        return
    decode = msgspec.json.Decoder(_Record).decode
    loads = records.line_decoder()
    named = _NAMED.search
    put = sink.put
    with open(path, "rb") as handle:
        end = os.fstat(handle.fileno()).st_size
        sink.mark(end)
        while end > 0:
            start = _chunk_start(handle, end)
            reached = sink.heard()
            if reached is not None and reached >= start:
                return  # this process is in this chunk already: it renders the rest itself
            handle.seek(start)
            text = handle.read(end - start)
            at = 0
            while at < len(text):
                stop = text.find(b"\n", at) + 1 or len(text)
                line = text[at:stop]
                if named(line) is not None:
                    content = _content(line, decode, loads)
                    if isinstance(content, list):
                        for index, block in enumerate(content):
                            if isinstance(block, dict):
                                _put(start + at, index, block, clean, kinds, put)
                at = stop
            sink.mark(start)
            end = start


def _chunk_start(handle, end: int) -> int:
    """Where the chunk of lines ending at ``end`` starts: the start of the line at about
    ``CHUNK_BYTES`` before it (further back for a line longer than that; 0 at the top)."""
    target = end
    while target > 0:
        low = max(0, target - CHUNK_BYTES)
        if low == 0:
            return 0
        handle.seek(low)
        newline = handle.read(target - low).find(b"\n")  # the first one in this stretch
        if newline >= 0 and low + newline + 1 < end:
            return low + newline + 1
        target = low
    return 0


def _put(at: int, index: int, block: dict, clean: Clean, kinds: set[int], put) -> None:
    piece = _piece(block, clean, kinds)
    if piece is not None and index < _MAX_BLOCKS:
        kind, ident, text, counts = piece
        flags = (text is not None) | (bool(counts) << 1)
        name = ident.encode("utf-8", "surrogatepass")
        key = _KEY.pack(_place(at, index, kind), flags, len(name)) + name
        if counts:
            key += marshal.dumps(counts)
        put(key, text.encode("utf-8", "surrogatepass") if text is not None else b"")


def _place(offset: int, index: int, kind: int) -> int:
    """One number for a block of a kind: the line's offset, the block's index, the kind (the
    line's offset is ``place // _LINE``)."""
    return offset * _LINE + index * 4 + kind


def _content(line: bytes, decode, loads) -> Any:
    """The ``message.content`` of a record line (None when it has none or does not parse)."""
    try:
        record = decode(line)
    except (msgspec.DecodeError, RecursionError):  # refused: read it as the reading does
        try:
            whole = loads(line)
        except (ValueError, RecursionError):
            return None
        message = whole.get("message") if isinstance(whole, dict) else None
        return message.get("content") if isinstance(message, dict) else None
    return record.message.content if record.message is not None else None


def _piece(
    block: dict[str, Any], clean: Clean, kinds: set[int]
) -> tuple[int, str, str | None, dict[str, int]] | None:
    """(kind, tool call id, Markdown or None, redaction counts) of one block; None: no piece."""
    kind = block.get("type")
    if kind == "thinking" and THINKING in kinds:
        thought, counts = clean(block.get("thinking"))
        return THINKING, "", thought_piece(thought) if isinstance(thought, str) else None, counts
    if kind in records.TOOL_USE_TYPES and INPUT in kinds:
        data, counts = clean(block.get("input"))
        text = input_piece(data) if isinstance(data, dict) else None
        return INPUT, str(block.get("id") or ""), text, counts
    if kind == "tool_result" and RESULT in kinds:
        result, counts = clean(blocks_text(block.get("content")))
        return RESULT, str(block.get("tool_use_id") or ""), result_piece(result), counts
    return None


class Ahead:
    """This process's side: the pieces the child rendered, a turn at a time (``rendering.Ready``).

    ``counts``: what was redacted in the pieces handed out (the renderer's redaction reports it
    with its own). ``helper``: the child, which answers requests once its pieces are done."""

    TELL_EVERY = 1 << 18  # bytes this process moves on before it tells the child again

    def __init__(self, helper: helpers.Helper):
        self.helper = helper
        self.counts: Counter[str] = Counter()
        # place -> (shows something, call id, blob position, blob length, redaction counts)
        self._known: dict[int, tuple] = {}
        self._told = -1

    def turn(self, turn: Turn) -> TurnPieces | None:
        """The turn's pieces, when the child covered every one that is read from the file;
        None: the renderer does this turn itself (and the child hears how far it got)."""
        wanted = [(_place(*at, THINKING), "") for at in turn.thinking_at]
        for call in turn.tool_calls:
            if call.input_at is not None:
                wanted.append((_place(*call.input_at, INPUT), call.id))
            if call.result_at is not None:
                wanted.append((_place(*call.result_at, RESULT), call.id))
        if not wanted:
            return _assembled(turn, {})
        lowest = min(place for place, _ in wanted) // _LINE
        if not self._covered(lowest):
            if lowest - self._told >= self.TELL_EVERY:
                self._told = lowest
                self.helper.tell(lowest)
            return None
        texts: dict[int, str | None] = {}
        for place, ident in wanted:
            entry = self._known.get(place)
            if entry is None or entry[1] != ident:
                return None  # no piece there (a block spelled otherwise), or another call's
            text = None
            if entry[0]:
                data = self.helper.blob(entry[2], entry[3])
                if data is None:
                    return None
                text = data.decode("utf-8", "surrogatepass")
            texts[place] = text
        for place, _ in wanted:
            counts = self._known.pop(place)[4]
            if counts:
                self.counts.update(counts)
        return _assembled(turn, texts)

    def _covered(self, offset: int) -> bool:
        """Whether the child has put every piece of the lines from ``offset`` on."""
        reached = self.helper.reached
        if reached is None or reached > offset:
            self._take(self.helper.more())
            reached = self.helper.reached
        return reached is not None and reached <= offset

    def _take(self, found: list[tuple[bytes, int, int]]) -> None:
        known, unpack, size = self._known, _KEY.unpack_from, _KEY.size
        for key, position, length in found:
            try:
                place, flags, ident_length = unpack(key)
                ident = key[size : size + ident_length].decode("utf-8", "surrogatepass")
                counts = marshal.loads(key[size + ident_length :]) if flags & 2 else None
            except (struct.error, EOFError, ValueError, TypeError):
                continue
            known[place] = (flags & 1, ident, position, length, counts)

    def close(self) -> None:
        self.helper.close()
        self._known.clear()


def _assembled(turn: Turn, texts: dict[int, str | None]) -> TurnPieces:
    """The turn's pieces from the child's (``texts``) and from what the turn holds itself."""
    if turn.thinking_at:
        thoughts = [
            text for at in turn.thinking_at if (text := texts[_place(*at, THINKING)]) is not None
        ]
    else:
        thoughts = [thought_piece(thought) for thought in turn.thinking]
    inputs: list[str | None] = []
    results: list[str | None] = []
    for call in turn.tool_calls:
        if call.input_at is not None:
            inputs.append(texts[_place(*call.input_at, INPUT)])
        else:
            inputs.append(input_piece(call.input) if call.input is not None else None)
        if call.result_at is not None:
            results.append(texts[_place(*call.result_at, RESULT)])
        else:
            results.append(result_piece(call.result) if call.result is not None else None)
    return thoughts, inputs, results
