"""What each agent CLI's reader gives the rest of the product, and the file reading they share.

A reader lists its CLI's sessions as ``NativeSession`` (the fields of a ``sessions`` line) and
reads one conversation into the ``Transcript`` Claude Code's reader fills (turns, tool calls,
compactions), so rendering and export need no second path. Files are read as a stream of JSON
lines (plain, or zstd-compressed as Codex keeps cold rollouts), never a whole file at once; lines
that do not parse are counted in ``ReadStats``, as for Claude Code. Files are opened as every
reader opens a CLI's files (``store.open_regular``: links followed, only a regular file read); a
FIFO, a device, a folder or a loop of links is reported as unreadable, never waited on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

import zstandard

from purlin_resume.claude.catalog import listing_fields
from purlin_resume.claude.records import ReadStats, decoded, line_decoder, string, utc
from purlin_resume.claude.transcript import RESPONSE, ToolCall, Transcript, Turn
from purlin_resume.core import redact, store

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_READ_BUFFER = 1 << 20
MARK_BYTES = 200
SUMMARY_KEYS = ("command", "cmd", "file_path", "filePath", "path", "pattern", "url", "query")


@dataclass
class NativeSession:
    """One session of an agent CLI, as ``sessions`` lists it (the attribute names of Claude
    Code's ``Session``, plus the CLI, the parent of a child session and the tokens used)."""

    cli: str
    id: str
    path: Path
    exists: bool = True
    project_path: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    turns: int = 0
    title: str | None = None
    subagents: int = 0
    compactions: int = 0
    size: int = 0
    version: str | None = None
    git_branch: str | None = None
    parent_id: str | None = None
    agent_type: str | None = None  # a child's role or nickname, where recorded
    tokens: int | None = None
    stats: ReadStats = field(default_factory=ReadStats)
    redactions: dict[str, dict[str, int]] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            **listing_fields(self),
            "parent_id": self.parent_id,
            "tokens": self.tokens,
        }

    def seen(self, timestamp: str | None) -> None:
        """Widen the session's time span to ``timestamp`` (ISO 8601 UTC)."""
        if timestamp:
            if self.started_at is None or timestamp < self.started_at:
                self.started_at = timestamp
            if self.ended_at is None or timestamp > self.ended_at:
                self.ended_at = timestamp


def family(found: list[NativeSession]) -> list[NativeSession]:
    """``found``, oldest first, each parent counting its children in ``subagents``."""
    by_id = {session.id: session for session in found}
    for session in found:
        parent = by_id.get(session.parent_id or "")
        if parent is not None:
            parent.subagents += 1
    found.sort(key=lambda s: (s.started_at or "", s.id))
    return found


@dataclass
class Conversation:
    """One session read in full: its listing line, its turns, and its children (listed)."""

    session: NativeSession
    transcript: Transcript
    children: list[NativeSession] = field(default_factory=list)


def _opened(path: Path) -> IO[bytes]:
    """``path`` opened for reading (``store.open_regular``), decompressed when it is zstd."""
    handle = store.open_regular(path, _READ_BUFFER)
    start = handle.peek(4)[:4]  # type: ignore[attr-defined]
    if start != _ZSTD_MAGIC:
        return handle
    stream = zstandard.ZstdDecompressor().stream_reader(handle, closefd=True)
    return _LineReader(stream)  # type: ignore[return-value]


class _LineReader:
    """Lines of a decompressing stream (which reads in chunks and has no ``readline``)."""

    def __init__(self, stream: Any):
        self.stream = stream

    def __iter__(self) -> Iterator[bytes]:
        rest: list[bytes] = []  # the start of a line longer than a chunk, joined once whole
        while chunk := self.stream.read(_READ_BUFFER):
            lines = chunk.split(b"\n")
            if len(lines) == 1:
                rest.append(chunk)
                continue
            if rest:
                lines[0] = b"".join([*rest, lines[0]])
            last = lines.pop()
            rest = [last] if last else []
            for line in lines:
                yield line + b"\n"
        if rest:
            yield b"".join(rest)

    def read(self) -> bytes:
        return b"".join(self)

    def __enter__(self) -> _LineReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stream.close()


def json_lines(
    path: Path, stats: ReadStats, passed_over: tuple[bytes, ...] = ()
) -> Iterator[dict[str, Any]]:
    """Each JSON object of a JSONL file, in order, one line at a time; blank, malformed and
    truncated lines counted in ``stats``, never fatal. A file that is no regular file, cannot be
    opened, or is binary yields nothing and says so. ``passed_over``: byte patterns that mark,
    in a line's first ``MARK_BYTES``, a record the reader has no use for: counted, not parsed
    (where the escaping of JSON strings keeps them from matching inside a text)."""
    try:
        handle = _opened(path)
    except OSError as exc:
        stats.unreadable = exc.strerror or type(exc).__name__
        return
    except zstandard.ZstdError as exc:  # a damaged zstd frame
        stats.unreadable = f"not readable: {type(exc).__name__}"
        return
    loads: Callable[[bytes], Any] = line_decoder()
    with handle:
        try:
            yield from _records(handle, loads, stats, passed_over)
        except (OSError, zstandard.ZstdError) as exc:  # damaged further in, a read error
            stats.unreadable = f"not readable to the end: {type(exc).__name__}"


def _records(handle: Any, loads: Callable[[bytes], Any], stats: ReadStats, passed_over=()):
    first = True
    for line in handle:
        if first and b"\x00" in line[:8192] and not line.lstrip().startswith(b"{"):
            stats.binary = True
            return
        first = False
        stats.lines += 1
        if passed_over:
            start = line[:MARK_BYTES]
            if any(mark in start for mark in passed_over) and line.endswith(b"}\n"):
                stats.records += 1
                continue
        record = decoded(line, loads, stats)
        if record is not None:
            stats.records += 1
            yield record


def json_file(path: Path, stats: ReadStats) -> Any:
    """The one JSON document of a file (a legacy whole-file session), or None (counted)."""
    try:
        with _opened(path) as handle:
            data = json.loads(handle.read())
    except OSError as exc:
        stats.unreadable = exc.strerror or type(exc).__name__
        return None
    except zstandard.ZstdError as exc:  # compressed, and damaged
        stats.unreadable = f"not readable: {type(exc).__name__}"
        return None
    except (ValueError, RecursionError):
        stats.malformed += 1
        return None
    stats.lines += 1
    stats.records += 1
    return data


def millis(value: Any) -> str | None:
    """A time in milliseconds since the epoch (or seconds, when small) as ISO 8601 UTC."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return utc(value) if isinstance(value, str) else None

    seconds = value / 1000 if value > 10**11 else value
    try:
        moment = datetime.fromtimestamp(seconds, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


SUMMARY_LENGTH = 120


def summary_of(data: Any) -> str:
    """A tool call's input in one line: its command, path or query, else its first string; cut
    where no secret is cut in two (the summary is redacted later: a token cut short would no
    longer be recognised)."""
    if isinstance(data, str):
        return redact.one_line(data, SUMMARY_LENGTH)
    if not isinstance(data, dict):
        return ""
    for key in SUMMARY_KEYS:
        value = data.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = " ".join(value)
        if isinstance(value, str) and value:
            return redact.one_line(value, SUMMARY_LENGTH)
    for value in data.values():
        if isinstance(value, str) and value:
            return redact.one_line(value, SUMMARY_LENGTH)
    return ""


def tool_call(call_id: Any, name: Any, data: Any, keep: bool, spawns: bool = False) -> ToolCall:
    """A tool call as the transcript holds it: its input kept when ``keep`` (or when it starts
    a child, whose prompt the tree shows)."""
    call = ToolCall(id=str(call_id or ""), name=str(name or "?"), summary=summary_of(data))
    if isinstance(data, dict):
        path = data.get("file_path") or data.get("filePath") or data.get("path")
        call.file_path = string(path)
        if keep or spawns:
            call.input = data
    return call


def agent_turn(turns: list[Turn], timestamp: str | None) -> Turn:
    """The agent turn the next piece of an answer joins: the last of ``turns`` when it is the
    agent's, else a new one."""
    if turns and turns[-1].role == "agent":
        return turns[-1]
    turn = Turn("agent", RESPONSE, timestamp)
    turns.append(turn)
    return turn


def answer_turn(turns: list[Turn], timestamp: str | None) -> Turn:
    """The agent turn an answer's text joins: the last agent turn until it made a tool call;
    text written after a call (and its result) starts a turn of its own, so it reads after it."""
    turn = agent_turn(turns, timestamp)
    if not turn.tool_calls:
        return turn
    turn = Turn("agent", RESPONSE, timestamp)
    turns.append(turn)
    return turn


def add_text(turn: Turn, text: str) -> None:
    if text.strip():
        turn.text = f"{turn.text}\n\n{text}" if turn.text.strip() else text


def result_text(value: Any) -> str:
    """A tool's result as text: a string as it is, anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def inside(path: str | None, folder: str) -> bool:
    if not path:
        return False
    return path == folder or path.startswith(folder.rstrip("/") + "/")
