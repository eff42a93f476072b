"""The files an agent's transcript wrote (``activity.files_touched``), kept between runs.

``stall check`` asks it on every run, and ``watch`` of every agent at every round, of transcripts
that grow to hundreds of megabytes. A transcript is only ever appended to, so what was found up
to an offset (the end of a whole line) still holds while the file is the same one (device and
inode) with the same first and last 4 KiB before that offset (``cache_home.edges``), and, when
its size is still the offset, the same modification time. A run then reads only the lines
appended since, and keeps its answer for the next.

The kept file is ``written-<digest of the transcript's real path>.json`` in the user cache
folder (``cache_home``: 0600 in a 0700 folder, replaced whole by a rename). It holds the checks
above, the tools asked about, the redaction rules in use, the paths as the tool calls name them,
and the uuids of the records they came from (a later record with one of them is a repeat). No
secret is kept in clear: when the redaction rules in use find anything in those paths or uuids,
nothing is kept and the transcript is read whole on every run. A kept file that does not parse,
does not describe the transcript or cannot be written only means reading it whole: never an
error, never a different answer.
"""

from __future__ import annotations

import json
import os
import stat
from hashlib import sha256
from pathlib import Path
from typing import Any

from purlin_resume.claude.records import Scan
from purlin_resume.core import cache_home

VERSION = 1
DAMAGED = (ValueError, KeyError, TypeError, RecursionError)


def kept_path(transcript: Path) -> Path:
    digest = sha256(os.fsencode(os.path.realpath(transcript))).hexdigest()[:16]
    return Path(cache_home.folder()) / f"written-{digest}.json"


def written(transcript: Path, names: frozenset[str]) -> set[str]:
    """The paths the main thread's calls of the tools ``names`` name, as
    ``records.main_tool_uses`` finds them (``records.file_path_of``; empty ones left out), the
    part kept from an earlier run not read again."""
    from purlin_resume.claude import records

    try:
        info = os.stat(transcript)
    except OSError:
        return set()
    if not stat.S_ISREG(info.st_mode):
        return set()  # a folder, a FIFO (whose reading would wait for a writer): no transcript
    kept = kept_path(transcript)
    tools = sorted(names)
    rules = _rules()
    found = _load(kept, transcript, info, tools, rules)
    scan = records.Scan(found["offset"], found["seen"]) if found else records.Scan()
    paths = set(found["paths"]) if found else set()
    start = scan.offset
    tail: set[str] = set()  # from a last line without its newline: given, not kept
    for block in records.main_tool_uses(transcript, names, scan):
        path = records.file_path_of(block.get("input"))
        if path:
            (paths if scan.whole else tail).add(path)
    if found is None or scan.offset != start:
        _keep(kept, transcript, info, (tools, rules), scan, paths)
    return paths | tail


def _rules() -> str:
    from purlin_resume.claude import listing

    return listing.rules()


def _load(
    kept: Path, transcript: Path, info: os.stat_result, tools: list[str], rules: str
) -> dict[str, Any] | None:
    """What was kept of ``transcript``, when it still describes it."""
    handle = cache_home.open_kept(kept)
    if handle is None:
        return None
    try:
        with handle:
            data = json.load(handle)
        offset = data["offset"]
        if not (
            data["version"] == VERSION
            and data["device"] == info.st_dev
            and data["inode"] == info.st_ino
            and data["tools"] == tools
            and data["rules"] == rules
            and type(offset) is int
            and 0 <= offset <= info.st_size
            and (info.st_size != data["size"] or info.st_mtime_ns == data["mtime_ns"])
            and type(data["paths"]) is list
            and type(data["seen"]) is list
            and all(type(item) is str for item in (*data["paths"], *data["seen"]))
        ):
            return None
        with open(transcript, "rb") as source:
            if cache_home.edges(source, offset) != data["edges"]:
                return None
    except (*DAMAGED, OSError):
        return None
    return data


def _keep(
    kept: Path,
    transcript: Path,
    before: os.stat_result,
    asked: tuple[list[str], str],
    scan: Scan,
    paths: set[str],
) -> None:
    """Keep what the scan of ``transcript`` (as it was ``before``) found, for the tools and
    rules ``asked``, unless it holds something the redaction rules find."""
    from purlin_resume.core import redact

    tools, rules = asked
    try:
        if redact.find("\n".join([*sorted(paths), *sorted(scan.seen)])):
            kept.unlink(missing_ok=True)
            return
        with open(transcript, "rb") as source:
            info = os.fstat(source.fileno())
            if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
                return  # replaced meanwhile: what was read is not this file's
            edges = cache_home.edges(source, scan.offset)
        data = {
            "version": VERSION,
            "device": info.st_dev,
            "inode": info.st_ino,
            "size": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "offset": scan.offset,
            "edges": edges,
            "tools": tools,
            "rules": rules,
            "paths": sorted(paths),
            "seen": sorted(scan.seen),
        }
        cache_home.keep(kept, [json.dumps(data).encode()])  # (escaped: any string comes back)
    except OSError:
        return  # not kept: the next run reads the transcript whole
