"""The Markdown of a long transcript's thoughts, tool inputs and tool results, rendered ahead on
the other core while this process reads the conversation.

A ``core.helper`` child reads the transcript file from start to end and renders each thinking,
tool_use and tool_result block it finds as ``rendering.turn_pieces`` would, its values redacted
by the same ``clean`` (the child is forked once redaction is set up, so it applies the same
rules). Reading the conversation is most of this process's work on a big session; rendering
and redacting what the tools read and wrote is most of the rest, and it needs only the file.

``Ahead.turn`` gives a turn's pieces when every one of them came from the child and names the
tool call the reading found at that place; otherwise the renderer does that turn itself, as it
would without the child. So the child saves time and never changes the Markdown.
"""

from __future__ import annotations

import marshal
import os
import re
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
THINKING, INPUT, RESULT = "t", "i", "r"
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


def render_file(path: Path, clean: Clean, kinds: set[str], sink: helpers.Sink) -> None:
    """Put the key and Markdown of every block of ``kinds`` in ``path`` into ``sink``, in file
    order, marking the offset read up to. The key: line offset, block index, kind, the tool call
    it names, whether it shows anything (a tool input that is not an object does not) and the
    counts of what was redacted in it.

    Only lines that name a block whose type starts with ``t`` (text, thinking, tool_use,
    tool_result) or a server_tool_use, as a JSON writer spells them, are parsed: a line that
    spells it otherwise (with escapes) gets no piece here, and the renderer does its turn."""
    if records.is_binary(path):
        return
    decode = msgspec.json.Decoder(_Record).decode
    loads = records.line_decoder()
    named = _NAMED.search
    put, mark = sink.put, sink.mark
    with open(path, "rb", buffering=1 << 20) as handle:
        offset = 0
        for line in handle:
            at = offset
            offset += len(line)
            if named(line) is not None:
                content = _content(line, decode, loads)
                if isinstance(content, list):
                    for index, block in enumerate(content):
                        if isinstance(block, dict):
                            _put(at, index, block, clean, kinds, put)
            mark(offset)


def _put(at: int, index: int, block: dict, clean: Clean, kinds: set[str], put) -> None:
    piece = _piece(block, clean, kinds)
    if piece is not None:
        kind, ident, text, counts = piece
        shown = text is not None
        key = marshal.dumps((at, index, kind, ident, shown, counts or None))
        put(key, text.encode("utf-8", "surrogatepass") if shown else b"")


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
    block: dict[str, Any], clean: Clean, kinds: set[str]
) -> tuple[str, str, str | None, dict[str, int]] | None:
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

    def __init__(self, helper: helpers.Helper):
        self.helper = helper
        self.counts: Counter[str] = Counter()
        # (line offset, block index, kind) -> (call id, shown, blob position, length, counts)
        self._known: dict[tuple[int, int, str], tuple] = {}

    def turn(self, turn: Turn) -> TurnPieces | None:
        """The turn's pieces, when the child rendered every one that is read from the file;
        None: the renderer does this turn itself."""
        wanted: list[tuple[tuple[int, int, str], str]] = []
        wanted += [((at[0], at[1], THINKING), "") for at in turn.thinking_at]
        for call in turn.tool_calls:
            if call.input_at is not None:
                wanted.append(((*call.input_at, INPUT), call.id))
            if call.result_at is not None:
                wanted.append(((*call.result_at, RESULT), call.id))
        texts: dict[tuple[int, int, str], str | None] = {}
        for key, ident in wanted:
            entry = self._find(key)
            if entry is None or entry[0] != ident:
                return None
            text = None
            if entry[1]:
                data = self.helper.blob(entry[2], entry[3])
                if data is None:
                    return None
                text = data.decode("utf-8", "surrogatepass")
            texts[key] = text
        for key, _ in wanted:
            counts = self._known.pop(key)[4]
            if counts:
                self.counts.update(counts)
        return _assembled(turn, texts)

    def _find(self, key: tuple[int, int, str]) -> tuple | None:
        """The child's entry for ``key``, waiting while it may still come."""
        if key not in self._known:
            self._take(self.helper.more())
        while key not in self._known and self.helper.reached <= key[0] and self.helper.job_running:
            self._take(self.helper.more(wait=True))
        return self._known.get(key)

    def _take(self, found: list[tuple[bytes, int, int]]) -> None:
        for raw, position, length in found:
            try:
                offset, index, kind, ident, shown, counts = marshal.loads(raw)
            except (EOFError, ValueError, TypeError):
                continue
            self._known[(offset, index, kind)] = (ident, shown, position, length, counts)

    def close(self) -> None:
        self.helper.close()
        self._known.clear()


def _assembled(turn: Turn, texts: dict[tuple[int, int, str], str | None]) -> TurnPieces:
    """The turn's pieces from the child's (``texts``) and from what the turn holds itself."""
    if turn.thinking_at:
        thoughts = [
            text for at in turn.thinking_at if (text := texts[(at[0], at[1], THINKING)]) is not None
        ]
    else:
        thoughts = [thought_piece(thought) for thought in turn.thinking]
    inputs: list[str | None] = []
    results: list[str | None] = []
    for call in turn.tool_calls:
        if call.input_at is not None:
            inputs.append(texts[(*call.input_at, INPUT)])
        else:
            inputs.append(input_piece(call.input) if call.input is not None else None)
        if call.result_at is not None:
            results.append(texts[(*call.result_at, RESULT)])
        else:
            results.append(result_piece(call.result) if call.result is not None else None)
    return thoughts, inputs, results
