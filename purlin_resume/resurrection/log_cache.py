"""What the readers of the resurrection log take from it, kept between runs: ``resurrections``
(each entry's line) and ``resurrections stats`` (each entry's ``log.Facts``) read this instead
of parsing the whole log, and parse only the lines appended since.

The file lives in the user cache folder (``resurrections-<digest of the log's path>.cache``,
beside the sessions cache), 0600 in a 0700 folder, replaced at once by a rename (a reader sees
the old file or the new one; of two writers the last wins). It holds, for the log up to an
offset (the end of a whole line; a last line without its newline is read, not kept): a header
line (JSON: the log's device, inode, size and mtime at that offset, checksums of its first and
of its last 4 KiB before the offset, the redaction rules in use, the skipped lines,
where the entries kept as places are, the figures of ``stats`` when every entry is kept, and
the length and CRC-32 of each section), then three sections, newest first: each entry's line
(UTF-8), the facts (per column a table of its values and a code per row) and the ids (JSON).

The log is only ever appended to, so a cache whose offset is still within the file, same
device and inode, same first and last bytes, is extended by the lines past its offset (a
revision updates the entry it belongs to, as ``History`` folds them). Anything else (another
file, a truncated or rewritten log, a log rewritten in place at the same size, other rules)
means the log is read again from the start. A cache that does not parse or fails its checks,
is not a regular file of this user's (a symbolic link, another owner's, a FIFO), or cannot be
written only means the log is read whole this time: never an error.

No secret is kept in clear: an entry whose line or facts hold anything the redaction rules in
use find (or a line break) is kept as where its line is in the log, and read from there, raw,
on every run (so its output is redacted, and counted, exactly as before); so are revisions that
belong to no entry (they stand after the rest).
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from array import array
from collections.abc import Iterator
from hashlib import sha256
from pathlib import Path
from typing import Any

from purlin_resume.core import cache_home, store
from purlin_resume.core.errors import PurlinError
from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.resurrection.log import REVISION, Facts, summary_line

VERSION = 1
SCALARS = (str, int, float, bool, type(None))
SECTIONS = ("lines", "facts", "ids")
DAMAGED = (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError)


class _Stale(Exception):
    """The cache does not describe the log (any more)."""


def cache_path(log: Path, folder: Path) -> Path:
    digest = sha256(os.path.realpath(log).encode()).hexdigest()[:12]
    return Path(folder) / f"resurrections-{digest}.cache"


def _rules() -> str:
    from purlin_resume.claude import listing

    return listing.rules()


def _place(value: Any, offset: int) -> bool:
    """Whether ``value`` is where a whole line before ``offset`` may be."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(type(n) is int and n >= 0 for n in value)
        and value[0] + value[1] < offset
    )


def _decoded(block: bytes) -> Iterator[tuple[str, bool]]:
    """Kept lines, as pieces of about a block of whole lines each."""
    start = 0
    while start < len(block):
        end = block.find(b"\n", start + resurrection_log.BLOCK_BYTES) + 1 or len(block)
        yield block[start:end].decode("utf-8", "replace"), True
        start = end


def _split(block: bytes) -> list[bytes | None]:
    return [line or None for line in block.split(b"\n")[:-1]]


def _secret_free(text: str) -> bool:
    from purlin_resume.core import redact

    return not redact.redact(text).counts


def _facts_bytes(facts: Facts) -> bytes:
    """The facts as kept: per column a table of its values (JSON, one line) and a code per
    row (native unsigned ints, the columns one after the other)."""
    tables, codes = {}, array("I")
    for name, column in facts.columns().items():
        kinds = set(map(type, column)) - {type(None)}
        if len(kinds) <= 1:  # values of one type: equal values are the same value
            numbers = {value: number for number, value in enumerate(dict.fromkeys(column))}
            tables[name] = list(numbers)
            codes.fromlist(list(map(numbers.__getitem__, column)))
        else:  # True == 1 == 1.0: told apart by their type
            keys = [(type(value).__name__, value) for value in column]
            numbers = {key: number for number, key in enumerate(dict.fromkeys(keys))}
            tables[name] = [value for _, value in numbers]
            codes.fromlist(list(map(numbers.__getitem__, keys)))
    head = {"tables": tables, "width": codes.itemsize}
    return json.dumps(head, separators=(",", ":")).encode() + b"\n" + codes.tobytes()


def _facts_of(data: bytes, count: int) -> Facts:
    head, _, packed = data.partition(b"\n")
    shape = json.loads(head)
    tables = shape["tables"]
    codes = array("I")
    codes.frombytes(packed)
    if shape["width"] != codes.itemsize or len(codes) != count * len(Facts.COLUMNS):
        raise ValueError("facts of another size")
    columns = {}
    for number, name in enumerate(Facts.COLUMNS):
        table = tables[name]
        columns[name] = list(map(table.__getitem__, codes[number * count : (number + 1) * count]))
    return Facts(columns)


class Kept:
    """The log's entries as the readers take them, newest first; built or extended (and
    saved) on opening. ``skipped``: lines that did not parse, as ``History`` counts them."""

    def __init__(self, log: Path, folder: Path) -> None:
        self.log = Path(log)
        self.path = cache_path(self.log, folder)
        self.rules = _rules()
        self._clean: dict[Any, bool] = {}
        self._texts: dict[str, str] = {}
        self._kept: dict[str, tuple[int, int, int]] = {}  # sections not read yet: where
        self._cache = None  # the cache file, open while sections of it are still to be read
        self._reset()
        store.confined(self.log)
        self._read(use_cache=True)

    def _read(self, use_cache: bool) -> None:
        try:
            info = os.stat(self.log)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(info.st_mode):
            raise PurlinError(f"{self.log} is a folder, not a file")
        with open(self.log, "rb") as handle:
            if use_cache:
                self._load(handle, os.fstat(handle.fileno()))
            for _ in range(2):
                try:
                    if os.fstat(handle.fileno()).st_size > self.offset:
                        self._extend(handle)
                    self.entries = {k: self._entry_at(handle, v) for k, v in self.places.items()}
                    alone = sorted(self.orphans.values(), key=lambda place: -place[0])
                    self.alone = [self._entry_at(handle, place) for place in alone]
                    return
                except _Stale:  # changed in place under the reading: read it whole, once
                    self._reset()
        raise PurlinError(f"{self.log} changed while it was read; try again")

    def _again(self) -> None:
        """Read the log whole (a section of the cache turned out damaged)."""
        self._reset()
        self._read(use_cache=False)

    def _reset(self) -> None:
        self.skipped = self.offset = self.count = 0
        self._kept = {}
        self._figures: dict[str, Any] | None = None  # ``stats`` of every entry, when kept
        self.close()
        # the ids: ``kept_ids`` those of the first ``base`` entries (a JSON list, newest
        # first), ``ids`` those of the entries after them (oldest first, ``index``: their number)
        self.kept_ids, self.ids, self.index = b"[]", [], {}
        # the lines: ``block`` holds those of the first ``base`` entries (newest first, UTF-8,
        # each ended by a newline, empty: read from the log), ``changed`` replaces some of
        # them, ``lines`` holds those of the entries after them (oldest first)
        self.block, self.base = b"", 0
        self.changed: dict[int, bytes | None] = {}
        self.lines: list[bytes | None] = []
        self.facts = Facts()  # oldest first (a row of None: read from the log)
        self.places: dict[int, list[int]] = {}  # entry -> [offset, length] of its newest line
        self.orphans: dict[str, list[int]] = {}  # id -> [offset, length]: no entry of its own
        self.entries: dict[int, dict[str, Any]] = {}  # those kept as places, read back
        self.alone: list[dict[str, Any]] = []  # the revisions in ``orphans``, newest first

    # -- reading the cache ---------------------------------------------------------------------

    def _load(self, log_handle, info: os.stat_result) -> None:
        """Take the cache's header when it describes the log up to its offset; its sections are
        read when first needed."""
        cache = cache_home.open_kept(self.path)
        if cache is None:
            return
        try:
            header = json.loads(cache.readline())
            offset, count = header["offset"], header["count"]
            if (
                header.get("version") != VERSION
                or header.get("rules") != self.rules
                or [header.get("device"), header.get("inode")] != [info.st_dev, info.st_ino]
                or type(offset) is not int
                or type(count) is not int
                or not 0 < offset <= info.st_size
                or (offset == info.st_size and header.get("mtime") != info.st_mtime_ns)
                or header.get("edges") != cache_home.edges(log_handle, offset)
            ):
                raise ValueError("another log, or this one as it was")
            places = {count - 1 - int(k): v for k, v in header["places"].items()}
            orphans = header["orphans"]
            if not all(_place(v, offset) for v in (*places.values(), *orphans.values())):
                raise ValueError("places beyond the offset")
            if any(k not in range(count) for k in places):
                raise ValueError("places of no entry")
            kept, start = {}, cache.tell()
            for name in SECTIONS:
                length, checksum = header["sections"][name]
                kept[name] = (start, length, checksum)
                start += length
            if start != os.fstat(cache.fileno()).st_size:
                raise ValueError("sections of other lengths")
            figures = header.get("figures")
            if figures is not None and not isinstance(figures, dict):
                raise ValueError("figures that are not figures")
        except (OSError, *DAMAGED):
            cache.close()
            return
        self.places, self.orphans, self._kept, self._cache = places, orphans, kept, cache
        self._figures = figures
        self.skipped, self.offset, self.count = header["skipped"], offset, count

    def _section(self, name: str) -> bytes:
        """One section of the cache, checked against its checksum (ValueError: damaged)."""
        start, length, checksum = self._kept.pop(name)
        self._cache.seek(start)
        data = self._cache.read(length)
        if not self._kept:
            self.close()
        if zlib.crc32(data) != checksum:
            raise ValueError(f"the section {name} is damaged")
        return data

    def close(self) -> None:
        """Let go of the cache file (its sections not read are not needed)."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def _kept_block(self) -> bytes:
        """The kept lines, newest first, each ended by a newline (empty: read from the log)."""
        block = self._section("lines")
        if block.count(b"\n") != self.count or self.count and not block.endswith(b"\n"):
            raise ValueError("not one line per entry")
        return block

    def _kept_facts(self) -> Facts:
        """The kept facts, newest first."""
        return _facts_of(self._section("facts"), self.count)

    def _whole(self) -> None:
        """Read every section (to extend the cache), oldest first."""
        if not self._kept:
            return
        self.block, self.base = self._kept_block(), self.count
        self.facts = self._kept_facts()
        self.kept_ids = self._section("ids")
        if not self.kept_ids.startswith(b"[") or not self.kept_ids.endswith(b"]"):
            raise ValueError("ids that are not a list")
        if (
            self.kept_ids.count(b'","') + 1 if self.count else len(self.kept_ids) - 2
        ) != self.count:
            raise ValueError("not one id per entry")
        for column in self.facts.columns().values():
            column.reverse()

    # -- extending it ----------------------------------------------------------------------------

    def _extend(self, handle) -> None:
        """Read the lines past the offset, a block at a time; save the cache up to the last
        whole line when there were new ones."""
        try:
            self._whole()
        except DAMAGED:
            self._reset()  # a damaged cache: the log is read whole
        handle.seek(self.offset)
        at, rest = self.offset, b""
        while block := handle.read(resurrection_log.BLOCK_BYTES):
            block = rest + block
            end = block.rfind(b"\n") + 1
            for line in block[:end].split(b"\n")[:-1]:
                self._take(line, at)
                at += len(line) + 1
            rest = block[end:]
        if at > self.offset:
            self.offset = at
            self._save(handle)
        if rest.strip():  # a last line without its newline: read, not kept
            self._take(rest, at)

    def _newest(self, key: str) -> int | None:
        """The number of the newest entry whose id is ``key`` (its line allocated it)."""
        number = self.index.get(key)
        if number is not None:
            return number
        raw, needle, at = self.kept_ids, json.dumps(key).encode(), 0
        while (at := raw.find(needle, at)) >= 0:  # newest first: the first found
            end = at + len(needle)
            if raw[at - 1 : at] in (b"[", b",") and raw[end : end + 1] in (b",", b"]"):
                return self.base - 1 - raw.count(b'","', 0, at + 1)  # (texts escape quotes)
            at += 1
        return None

    def _take(self, line: bytes, at: int) -> None:
        entry, skipped = resurrection_log._read_line(line)
        if entry is None:
            self.skipped += skipped
            return
        key = entry["resurrection_id"]
        place = [at, len(line)]
        if resurrection_log._revision(entry) is not None:
            del entry[REVISION]
            number = self._newest(key)
            if number is None:
                self.orphans.pop(key, None)
                self.orphans[key] = place
                return
        else:
            number = self.index[key] = self.count
            self.ids.append(key)
            self.count += 1
            self.lines.append(None)
            self.facts.append((None,) * len(Facts.COLUMNS))
        self._set(number, entry, place)

    def _set(self, number: int, entry: dict[str, Any], place: list[int]) -> None:
        line = summary_line(entry)
        row = tuple(  # one object for each text met again and again (agents, modes, reasons)
            self._texts.setdefault(value, value) if type(value) is str else value
            for value in Facts.row(entry)
        )
        if "\n" not in line and _secret_free(line) and all(map(self._kept_clear, row)):
            try:
                self._put_line(number, line.encode("utf-8"))
            except UnicodeEncodeError:  # a lone surrogate: read from the log, as it was
                self._set_place(number, place)
                return
            for name, value in zip(Facts.COLUMNS, row, strict=True):
                getattr(self.facts, name)[number] = value
            self.places.pop(number, None)
        else:
            self._set_place(number, place)

    def _set_place(self, number: int, place: list[int]) -> None:
        self._put_line(number, None)
        for name in Facts.COLUMNS:
            getattr(self.facts, name)[number] = None
        self.places[number] = place

    def _put_line(self, number: int, line: bytes | None) -> None:
        if number < self.base:
            self.changed[number] = line
        else:
            self.lines[number - self.base] = line

    def _block_now(self) -> bytes:
        """Every entry's line, newest first, each ended by a newline (empty: read from the
        log): the lines added since the cache was read, then its block with their changes."""
        pieces = [(line or b"") + b"\n" for line in reversed(self.lines)]
        block, copied, cursor, at = self.block, 0, 0, 0  # ``cursor``: where line ``at`` starts
        view = memoryview(block)  # (slices of it are not copies)
        for number in sorted(self.changed, reverse=True):
            while at < self.base - 1 - number:
                cursor, at = block.index(b"\n", cursor) + 1, at + 1
            pieces += [view[copied:cursor], (self.changed[number] or b"") + b"\n"]
            copied = cursor = block.index(b"\n", cursor) + 1
            at += 1
        pieces.append(view[copied:])
        return b"".join(pieces)

    def _ids_now(self) -> bytes:
        """Every entry's id, newest first (a JSON list)."""
        if not self.ids:
            return self.kept_ids
        added = json.dumps(self.ids[::-1], separators=(",", ":")).encode()
        return added if self.kept_ids == b"[]" else added[:-1] + b"," + self.kept_ids[1:]

    def _kept_clear(self, value: Any) -> bool:
        """Whether ``value`` may be kept in clear: a JSON scalar in which no secret is found."""
        if not isinstance(value, SCALARS):
            return False
        if not isinstance(value, str):
            return True
        known = self._clean.get(value)
        if known is None:
            known = self._clean[value] = _secret_free(value)
        return known

    def _save(self, handle) -> None:
        """Write the cache (newest first); a failure only means the log is read again."""
        self.block, self.changed, self.lines = self._block_now(), {}, []
        self.kept_ids, self.ids, self.index = self._ids_now(), [], {}
        self.base = self.count
        try:
            info = os.fstat(handle.fileno())
            sections = {
                "lines": self.block,
                "facts": _facts_bytes(Facts({n: c[::-1] for n, c in self.facts.columns().items()})),
                "ids": self.kept_ids,
            }
            header = {
                "version": VERSION,
                "device": info.st_dev,
                "inode": info.st_ino,
                "offset": self.offset,
                "mtime": info.st_mtime_ns if info.st_size == self.offset else None,
                "edges": cache_home.edges(handle, self.offset),
                "rules": self.rules,
                "skipped": self.skipped,
                "count": self.count,
                "places": {str(self.count - 1 - k): v for k, v in self.places.items()},
                "orphans": self.orphans,
                "figures": None if self.places or self.orphans else self.facts.figures(),
                "sections": {n: [len(sections[n]), zlib.crc32(sections[n])] for n in SECTIONS},
            }
            head = json.dumps(header, separators=(",", ":")).encode() + b"\n"
            cache_home.keep(self.path, [head, *(sections[name] for name in SECTIONS)])
        except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
            pass

    # -- what the readers take -----------------------------------------------------------------

    def _entry_at(self, handle, place: list[int]) -> dict[str, Any]:
        handle.seek(place[0])
        entry = resurrection_log._parsed(handle.read(place[1]))
        if entry is None:
            raise _Stale
        if resurrection_log._revision(entry) is not None:
            del entry[REVISION]
        return entry

    @property
    def all_kept(self) -> bool:
        """Whether every entry's line is kept text (none to read from the log and redact)."""
        return not self.places and not self.alone

    def summaries(self) -> Iterator[tuple[str, bool]]:
        """Each entry's line (``log.summary_line``), newest first, in pieces of whole lines each
        ended by a newline, with whether the piece is kept text already found free of secrets
        (False: read from the log just now, raw). The kept lines are read (and checked) now:
        ``all_kept`` holds from here on."""
        try:
            block = self._kept_block() if self._kept else self._block_now()
        except DAMAGED:
            self._again()
            block = self._block_now()
        return self._pieces(block)

    def _pieces(self, block: bytes) -> Iterator[tuple[str, bool]]:
        if not self.places:
            yield from _decoded(block)
        else:
            lines = _split(block)
            last = self.count - 1
            run: list[bytes] = []
            for number, line in enumerate(lines):
                if line is not None:
                    run.append(line)
                    continue
                if run:
                    yield b"\n".join(run).decode("utf-8", "replace") + "\n", True
                    run = []
                yield summary_line(self.entries[last - number]) + "\n", False
            if run:
                yield b"\n".join(run).decode("utf-8", "replace") + "\n", True
        self.close()
        for entry in self.alone:
            yield summary_line(entry) + "\n", False

    def stats(self) -> dict[str, Any]:
        """``log.stats`` of every entry."""
        if self._kept and self._figures is not None and not self.places and not self.alone:
            self.close()
            return self._figures
        try:
            facts = self._kept_facts() if self._kept else None
        except DAMAGED:
            self._again()
            facts = None
        self.close()
        if facts is not None:
            facts.reverse()
        else:
            facts = Facts({name: list(column) for name, column in self.facts.columns().items()})
        for number, entry in self.entries.items():
            for name, value in zip(Facts.COLUMNS, Facts.row(entry), strict=True):
                getattr(facts, name)[number] = value
        if self.alone:
            orphans = Facts()
            for entry in reversed(self.alone):
                orphans.append(Facts.row(entry))
            for name in Facts.COLUMNS:
                setattr(facts, name, getattr(orphans, name) + getattr(facts, name))
        return facts.figures()
