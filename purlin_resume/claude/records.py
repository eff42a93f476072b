"""Claude Code's JSONL records, read one line at a time.

A transcript file holds one JSON object per line. Lines are read as bytes with no length cap and
never all at once; a line that does not parse (a crash cut it short, the file is binary) is
counted and skipped, as is a record of a type this reader does not know. A line that is JSON
but for bytes that are not UTF-8 is read with each of them as U+FFFD (``parsed``). Records that
repeat a ``uuid`` already seen are dropped (Claude Code rewrites some lines when a session is
resumed).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from purlin_resume.core import store

KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "ai-title",
        "agent-name",
        "attachment",
    }
)
# The client's own book-keeping since 2.1.x (the request it sent, what it cost, which prompt was
# last, which tools ran): known, but nothing of the conversation is in them, and the request
# blobs are the biggest lines of a session. They are counted without being parsed when the line
# starts with its type, as Claude Code writes them.
BOOKKEEPING_TYPES = frozenset(
    {
        "last-prompt",
        "atis-latch",
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "tools-used",
        "cost-state",
        "mode",
    }
)
_TYPE_FIRST = b'{"type":"'
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})  # "Agent" since Claude Code 2.1.63
TOOL_USE_PREFIX = "toolu_"  # the ids of tool calls; an agent id never starts so
INTERRUPTED_MARK = "[Request interrupted by user"  # how Claude Code records a stopped run
TOOL_USE_TYPES = ("tool_use", "server_tool_use")
# The content blocks of a message the reader knows: it shows them, or has nothing to show of
# them (a redacted thought). A block of another type is counted as an unknown type of its
# record's. A tuple: a hostile line's type may be a list, which no set can be asked about.
BLOCK_TYPES = ("text", "image", "thinking", "redacted_thinking", "tool_result", *TOOL_USE_TYPES)

# Progress records carry hook and shell output and make up most lines of a 2.x session; only
# ``agent_progress`` (written ``"data":{"message":...``) matters here. The others are written
# ``..."type":"progress","data":{"type":"hook_progress"...``: such a complete line is counted
# without being parsed. Inside a JSON string every quote is escaped, so this byte pattern cannot
# come from message text.
_PROGRESS_MARK = b'"type":"progress","data":{"type":"'
_PROGRESS_WITHIN = 8192  # the mark follows the record's own fields (a path: at most 4,096 bytes)
_CLOSED = (b"}\n", b"}\r\n", b"}")
_SNIFF_BYTES = 8192
_ASCII_ESCAPE = b"\\u00"  # how JSON escapes a character below U+0100
_READ_BUFFER = 1 << 20


@dataclass
class ReadStats:
    """What reading one file met besides usable records."""

    lines: int = 0
    records: int = 0
    malformed: int = 0
    duplicates: int = 0
    blank: int = 0
    unknown_types: Counter = field(default_factory=Counter)
    truncated: bool = False  # the last line has no newline and does not parse
    binary: bool = False  # the file is not text: nothing was read from it
    unreadable: str | None = None  # why the file could not be opened

    def unknown_type(self, kind: str) -> None:
        """One more record of a type the reader does not know, by its name; a name longer
        than 60 characters by its length (the file names it, at any length: a cut name could
        end inside a token that redaction then no longer recognises)."""
        self.unknown_types[kind if len(kind) <= 60 else f"({len(kind)} characters)"] += 1

    def add(self, other: ReadStats) -> None:
        """Count what reading ``other``'s file met too (one more file of the same session)."""
        for name in ("lines", "records", "malformed", "duplicates", "blank"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unknown_types.update(other.unknown_types)
        self.truncated = self.truncated or other.truncated
        self.binary = self.binary or other.binary
        self.unreadable = self.unreadable or other.unreadable

    @property
    def unknown(self) -> int:
        return sum(self.unknown_types.values())

    @property
    def unknown_named(self) -> str:
        """The unknown record types, named so drift shows: ``permission-mode ×2, x``."""
        return ", ".join(
            f"{kind} ×{count}" if count > 1 else kind
            for kind, count in sorted(self.unknown_types.items())
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "records": self.records,
            "malformed": self.malformed,
            "duplicates": self.duplicates,
            "unknown_types": dict(sorted(self.unknown_types.items())),
            "truncated": self.truncated,
            "binary": self.binary,
            "unreadable": self.unreadable,
        }


def is_binary(path: Path) -> bool:
    """True when the file is not JSONL text: its start holds NUL bytes and no JSON object.

    A transcript whose end a crash filled with zeros still starts with ``{``: it is read, and
    its zeroed lines are counted as malformed.
    """
    with store.open_regular(path) as handle:
        start = handle.read(_SNIFF_BYTES)
    return b"\x00" in start and not start.lstrip().startswith(b"{")


def read(path: Path, stats: ReadStats) -> Iterator[dict[str, Any]]:
    """Yield each new record of ``path`` (a dict with a ``type``), updating ``stats``.

    Skipped and counted: blank lines, lines that are not a JSON object, repeated uuids, unknown
    types (yielded never). A missing, unreadable or binary file yields nothing and says so in
    ``stats``.
    """
    for _, record in read_located(path, stats):
        yield record


def read_located(
    path: Path, stats: ReadStats, loads: Callable[[bytes], Any] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``read``, each record with the byte offset of its line (``record_at`` reads it back).
    ``stats`` counts as the lines go: ``stats.lines`` is the line of the record just given.
    Each line is parsed by ``loads``, by default ``line_decoder``'s."""
    path = Path(path)
    try:
        if is_binary(path):
            stats.binary = True
            return
        # closed below, also when the caller stops early; a big buffer: a tool's output makes
        # lines of hundreds of kilobytes, which a small one reads in many pieces
        handle = store.open_regular(path, _READ_BUFFER)
    except OSError as exc:
        stats.unreadable = exc.strerror or type(exc).__name__
        return
    seen: set[str] = set()
    offset = 0
    with handle:
        loads = loads or line_decoder()
        for line in handle:
            at = offset
            offset += len(line)
            stats.lines += 1
            if passed_over(line):
                stats.records += 1
                continue
            record = decoded(line, loads, stats)
            if record is None:
                continue
            kind = record.get("type")
            if kind is not None and not isinstance(kind, str):
                stats.malformed += 1  # a type is a string: this is no record of Claude Code's
                continue
            if kind not in KNOWN_TYPES:
                if kind in BOOKKEEPING_TYPES:
                    stats.records += 1
                else:
                    stats.unknown_type(str(kind))
                continue
            uuid = record.get("uuid")
            if uuid is not None and not isinstance(uuid, str):
                stats.malformed += 1  # an id is a string: this is no record of Claude Code's
                continue
            if uuid is not None:
                if uuid in seen:
                    stats.duplicates += 1
                    continue
                seen.add(uuid)
            stats.records += 1
            yield at, record


def decoded(line: bytes, loads: Callable[[bytes], Any], stats: ReadStats) -> dict[str, Any] | None:
    """The JSON object on ``line``; None, counted in ``stats``, for a blank line, one that does
    not parse (truncated when it has no newline: the file's end cut off) or one that is no
    object."""
    try:
        record = loads(line)
    except (ValueError, RecursionError):
        if line.strip():
            stats.malformed += 1
            stats.truncated = stats.truncated or not line.endswith(b"\n")
        else:
            stats.blank += 1
        return None
    if not isinstance(record, dict):
        stats.malformed += 1
        return None
    return record


def line_decoder() -> Callable[[str | bytes], Any]:
    """``parsed`` for one line, twice as fast: msgspec's decoder parses what it can (what the
    JSON standard allows, to Python objects equal to ``json.loads``'s: big integers stay
    integers) and ``parsed`` the rest (NaN, lone surrogates, a byte order mark, numbers too big
    for a float, bytes that are not UTF-8), so a line reads exactly as ``parsed`` reads it and
    fails as it fails."""
    from msgspec import json as fast  # here: the hooks read records but never a whole file

    decode = fast.Decoder().decode

    def decoded(line: str | bytes) -> Any:
        try:
            return decode(line)
        except (ValueError, RecursionError):  # msgspec's errors are ValueErrors
            return parsed(line)

    return decoded


def parsed(line: str | bytes) -> Any:
    """``json.loads`` of one transcript line; a line that is JSON but for bytes that are not
    UTF-8 (a tool's output cut inside a character, a damaged disk) is read with each of them as
    U+FFFD, as every output of this tool shows them, so its record is kept. The second try is
    made only when the first fails: a line that decodes costs nothing more. The readers of
    transcript lines here parse them with it (or with ``line_decoder``, which falls back on it)."""
    try:
        return json.loads(line)
    except UnicodeDecodeError:
        if not isinstance(line, bytes):
            raise
        return json.loads(line.decode("utf-8-sig", "replace"))  # a byte order mark read past


class Lines:
    """The ``message.content`` of records read back by the offsets ``read_located`` gave.

    A line that is no longer there or no longer JSON reads as None. The last one read is kept:
    the blocks of one line are often asked for in turn.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._handle: Any = None
        self._last: tuple[int, list[Any] | None] = (-1, None)
        self._decode = _content_decoder()

    def content(self, offset: int) -> list[Any] | None:
        """The ``message.content`` list of the record whose line starts at ``offset`` (the rest
        of the record, such as a ``toolUseResult`` repeating a tool's output, is passed over
        without being made into objects). The caller checks the block it finds."""
        if self._last[0] == offset:
            return self._last[1]
        content = None
        try:
            if self._handle is None:
                self._handle = store.open_regular(self.path)  # closed by close()
            self._handle.seek(offset)
            content = self._decode(self._handle.readline())
        except (OSError, ValueError, RecursionError):
            content = None
        if not isinstance(content, list):
            content = None
        self._last = (offset, content)
        return content

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        self._last = (-1, None)


def _content_decoder() -> Callable[[bytes], Any]:
    """What reads ``message.content`` from a record's line: msgspec, told to keep only that;
    ``parsed`` where msgspec refuses the line (as ``line_decoder``) or its message is no
    object."""
    import msgspec  # here: the hooks read records but never a whole file

    holder = msgspec.defstruct("Message", [("content", Any, None)])
    decode: Callable[[bytes], Any] = msgspec.json.Decoder(
        msgspec.defstruct("Record", [("message", holder | None, None)])
    ).decode

    def content(line: bytes) -> Any:
        try:
            message = decode(line).message
            return message.content if message is not None else None
        except (ValueError, RecursionError):
            record = parsed(line)
            whole = record.get("message") if isinstance(record, dict) else None
            return whole.get("content") if isinstance(whole, dict) else None

    return content


def passed_over(line: bytes) -> bool:
    """A complete line counted as a record without being parsed: hook, shell or task-wait
    progress, or book-keeping; nothing to read in either."""
    return (line.find(_PROGRESS_MARK, 0, _PROGRESS_WITHIN) >= 0 and line.endswith(_CLOSED)) or (
        line.startswith(_TYPE_FIRST) and _bookkeeping(line)
    )


def _bookkeeping(line: bytes) -> bool:
    """A complete line that starts with a book-keeping type (see ``BOOKKEEPING_TYPES``)."""
    if not line.startswith(_TYPE_FIRST) or not line.endswith(_CLOSED):
        return False
    end = line.find(b'"', len(_TYPE_FIRST))
    return end > 0 and line[len(_TYPE_FIRST) : end].decode("ascii", "replace") in BOOKKEEPING_TYPES


def file_path_of(data: Any) -> str | None:
    """The file a tool call's ``input`` names: ``file_path``, or ``notebook_path``."""
    if not isinstance(data, dict):
        return None
    return string(data.get("file_path") or data.get("notebook_path"))


def lines_holding(path: Path, markers: tuple[bytes, ...]) -> Iterator[bytes]:
    """The lines of ``path`` that hold any of ``markers``, in file order (the last one also
    when it has no newline): found by searching blocks of the file for the markers, without
    visiting the lines between. Raises ``OSError`` when it is no regular file
    or cannot be read."""
    with store.open_regular(path) as handle:
        for text, _ in _blocks(handle):
            yield from _holding(text, markers)


def _blocks(handle: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """What is left of ``handle`` in pieces of whole lines, about a read buffer each, paired
    with True; then a last line without its newline, if there is one, with False."""
    pending: list[bytes] = []  # the start of a line longer than a block
    while block := handle.read(_READ_BUFFER):
        end = block.rfind(b"\n") + 1
        if not end:
            pending.append(block)
            continue
        whole = b"".join([*pending, block[:end]]) if pending else block[:end]
        pending = [block[end:]] if end < len(block) else []
        yield whole, True
    if pending:
        yield b"".join(pending), False


def _holding(text: bytes, markers: tuple[bytes, ...]) -> Iterator[bytes]:
    """The lines of ``text`` (whole lines) that hold any of ``markers``, in order."""
    starts = set()
    for marker in markers:
        at = text.find(marker)
        while at >= 0:
            starts.add(text.rfind(b"\n", 0, at) + 1)
            end = text.find(b"\n", at)
            at = text.find(marker, end) if end >= 0 else -1
    for start in sorted(starts):
        end = text.find(b"\n", start)
        yield text[start : end + 1] if end >= 0 else text[start:]


class Scan:
    """How far ``main_tool_uses`` has read a transcript: ``offset``, just past the last whole
    line it read, and the uuids of the records it took before it (``seen``: a later record with
    one of them is a repeat). A last line without its newline, perhaps still being written, is
    read but moves neither; ``whole`` tells whether the call last given came from a whole
    line."""

    __slots__ = ("offset", "seen", "whole")

    def __init__(self, offset: int = 0, seen: Iterable[str] = ()) -> None:
        self.offset = offset
        self.seen = set(seen)
        self.whole = True


def main_tool_uses(
    path: Path, names: Iterable[str] = (), scan: Scan | None = None
) -> Iterator[dict[str, Any]]:
    """The ``tool_use`` blocks of the main thread's assistant records, in file order: the tool
    calls ``transcript.read`` gives the main Transcript, without assembling any turn (records of
    1.0.x's inline subagents, ``isSidechain``, are not the main thread's). With ``names``, the
    calls of those tools among them. A file that cannot be read, or a binary one, has none.
    With ``scan``, the calls past ``scan.offset`` (``scan`` moved on as they are read).

    Only lines that can hold such a call are parsed (``lines_holding``): ones that name a
    tool-use type (and one of ``names``), or hold a ``\\u00`` escape, the only kind that
    could spell them otherwise (their letters are all ASCII). A record whose uuid an earlier
    parsed line had is a repeat, as ``read`` has it."""
    scan = scan or Scan()
    wanted = tuple(json.dumps(name).encode() for name in names)
    try:
        if is_binary(path):
            return
        with store.open_regular(path) as handle:
            handle.seek(scan.offset)
            for text, whole in _blocks(handle):
                seen = scan.seen if whole else set(scan.seen)
                scan.whole = whole
                for line in _holding(text, (_ASCII_ESCAPE, b'tool_use"')):
                    yield from _line_calls(line, names, wanted, seen)
                if whole:
                    scan.offset += len(text)
    except OSError:
        return


def _line_calls(
    line: bytes, names: Iterable[str], wanted: tuple[bytes, ...], seen: set[str]
) -> Iterator[dict[str, Any]]:
    """``main_tool_uses`` of one line holding a marker."""
    if _ASCII_ESCAPE not in line and wanted and not any(name in line for name in wanted):
        return
    if passed_over(line):
        return
    try:
        record = parsed(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(record, dict) or type_of(record) not in KNOWN_TYPES:
        return
    uuid = record.get("uuid")
    if uuid is not None and (not isinstance(uuid, str) or uuid in seen):
        return  # malformed, or a repeat (as ``read_located`` has them)
    if uuid is not None:
        seen.add(uuid)
    yield from _main_calls(record, names)


def _main_calls(record: dict[str, Any], names: Iterable[str]) -> Iterator[dict[str, Any]]:
    if record.get("type") != "assistant" or record.get("isSidechain"):
        return
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return
    for block in content:
        if isinstance(block, dict) and block.get("type") in TOOL_USE_TYPES:
            name = block.get("name")
            if not names or (isinstance(name, str) and name in names):
                yield block


def first_record(path: Path, wanted: tuple[str, ...] = ("cwd",), limit: int = 50) -> dict[str, Any]:
    """The first record (within ``limit`` lines) that has every key in ``wanted``, else {}."""
    try:
        if is_binary(path):
            return {}
        with store.open_regular(path) as handle:
            for number, line in enumerate(handle):
                if number >= limit:
                    break
                try:
                    record = parsed(line)
                except (ValueError, RecursionError):
                    continue
                if isinstance(record, dict) and all(key in record for key in wanted):
                    return record
    except OSError:
        return {}
    return {}


def type_of(record: dict[str, Any]) -> str | None:
    """A record's ``type`` when it is a string (what else a hostile line holds is no type)."""
    return string(record.get("type"))


def string(value: Any) -> str | None:
    """``value`` when it is a string that is not empty, else None (a field of the wrong type
    in a record is taken as absent)."""
    return value if isinstance(value, str) and value else None


def integer(value: Any) -> int | None:
    """``value`` when it is an integer (not a bool: JSON's ``true`` is no number), else None (a
    field of the wrong type in a record is taken as absent)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def text_of(content: Any, image: str | None = None) -> str:
    """The text of a message ``content``: a string, or the text blocks of a block list (each
    image block as ``image``, when given)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "image" and image:
                parts.append(image)
    return "\n".join(part for part in parts if part)


def utc(timestamp: Any) -> str | None:
    """An ISO 8601 timestamp as UTC with milliseconds and ``Z``, as Claude Code writes them (so
    they sort as text); other forms are converted, unparseable ones dropped."""
    if not isinstance(timestamp, str) or not timestamp:
        return None
    if len(timestamp) == 24 and timestamp[19] == "." and timestamp[23] == "Z":
        return timestamp

    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        text = moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    except (ValueError, OverflowError):  # no time, or one that leaves the years 1-9999 in UTC
        return None
    return text.replace("+00:00", "Z")


def tail(path: Path, max_bytes: int = 256 * 1024) -> list[dict[str, Any]]:
    """``last_records`` in file order."""
    return list(reversed(list(last_records(path, max_bytes))))


def last_records(
    path: Path, max_bytes: int = 256 * 1024, types: frozenset[str] = KNOWN_TYPES
) -> Iterator[dict[str, Any]]:
    """The records of the last ``max_bytes`` of ``path`` (complete lines only), newest first,
    each line parsed only when the one after it has been taken.

    For questions about how a transcript ends (its last record and when it was written) without
    reading the whole file, usually answered by the last record or two. Lines that do not parse,
    records whose ``type`` is not one of ``types`` and hook or shell progress are skipped as in
    ``read``. Another CLI's JSONL session file is read the same way, with its own ``types``.
    """
    path = Path(path)
    try:
        if is_binary(path):
            return
        with store.open_regular(path) as handle:
            size = handle.seek(0, 2)
            start = max(0, size - max_bytes)
            handle.seek(start)
            data = handle.read()
    except OSError:
        return
    lines = data.split(b"\n")
    if start:
        lines = lines[1:]  # the first line is cut
    for line in reversed(lines):
        if not line.strip() or _PROGRESS_MARK in line or _bookkeeping(line):
            continue  # blank, hook and shell progress, book-keeping: as ``read`` skips them
        try:
            record = parsed(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and type_of(record) in types:
            yield record


class SpawnBatch(NamedTuple):
    """The subagent spawns of one assistant message: Claude Code runs them in parallel."""

    message_id: str
    timestamp: str | None
    tool_use_ids: tuple[str, ...]


def spawn_batch(path: Path, tool_use_id: str, max_bytes: int = 1024 * 1024) -> SpawnBatch | None:
    """The assistant message of ``path`` holding the Agent/Task call ``tool_use_id``, with every
    Agent/Task call of that message (one API message is split over several lines sharing
    ``message.id``); None when the call is not in the last ``max_bytes``."""
    calls: dict[str, list[str]] = {}
    stamps: dict[str, str | None] = {}
    wanted = None
    for record in tail(path, max_bytes):
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        key = message.get("id") or record.get("uuid")
        content = message.get("content")
        if not isinstance(key, str) or not isinstance(content, list):
            continue
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and block.get("name") in SUBAGENT_TOOLS
                and isinstance(block.get("id"), str)
            ):
                calls.setdefault(key, []).append(block["id"])
                stamps.setdefault(key, utc(record.get("timestamp")))
                if block["id"] == tool_use_id:
                    wanted = key
    if wanted is None:
        return None
    return SpawnBatch(wanted, stamps.get(wanted), tuple(dict.fromkeys(calls[wanted])))
