"""The resurrection log: ``<Claude data folder>/history/resurrection-log.jsonl``, one TR-1 object
per event (seed 000), and what it says in sum (US-5, the seed's metrics).

Ids are ``res-YYYY-MM-DD-NNN``, numbered per UTC day. They are allocated under the log's lock
from a small counter file beside it (``resurrection-log.jsonl.seq``), so appending costs the
same at 100,000 lines as at one; when the counter is missing, only the last 64 KB of the log
are read to find the day's highest number. Beside TR-1's fields each entry carries
``resurrected_from_agent_type``, ``cross_repo``, ``context_tokens_before``, ``redactions`` and
``latency_ms``, and ``uuid``: a key made once per event that never repeats, even when a clock
set back repeats a readable id (additions, never renames).

The file is only ever appended to. ``complete`` (what ``resurrect done`` and hooks call) records
an outcome as an event of its own: the whole entry as it now stands, with ``"revision": N``
(2 for the first change; the line that allocated the id is revision 1 and has no such field).
Every reader folds them the same way (``History``): an entry stands where the line that
allocated its id stands, with the content of its newest revision, the ``revision`` field left
out. A revision belongs to the newest earlier line that allocated its id; one whose line is
gone (corrupt) stands on its own, after (older than) the rest. Logs without revisions read
exactly as they are.

Readers go from the end of the file backwards, a block at a time, and hold no more than what
they show: the newest entries come first, and ``since`` stops the reading after
``SINCE_RUN`` allocating lines in a row older than ``since`` by more than ``SINCE_SLACK``. Lines
are appended under the lock, each with the time it was appended, so they are in time order
unless a clock was set back or logs were merged by hand: a line out of order by less than the
slack, or a run of fewer than ``SINCE_RUN`` lines out of order by more, does not stop the
reading, and an entry newer than ``since`` is only missed behind a longer such run. Lines
that do not parse are counted among the lines read.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from datetime import timedelta
from itertools import compress
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, redact, store
from purlin_resume.core.errors import CorruptFile, NotFound, PurlinError, UsageError
from purlin_resume.resurrection.query import parse

FILE_NAME = "resurrection-log.jsonl"
MODES = ("bookmark", "fuzzy", "direct")
METHODS = ("full", "summarized", "hybrid")
OUTCOMES = ("success", "failure", "partial")
TAIL_BYTES = 65536
BLOCK_BYTES = 1 << 20
SINCE_SLACK = timedelta(days=1)
SINCE_RUN = 64
REVISION = "revision"
FIELDS = (
    "resurrection_id",
    "bookmark_id",
    "resurrected_from_agent_id",
    "resurrected_from_session_id",
    "resurrected_from_hostname",
    "resurrected_from_project",
    "resurrected_as_agent_id",
    "resurrected_at",
    "resurrected_in_session",
    "resurrected_in_project",
    "resurrected_by",
    "resurrection_mode",
    "query",
    "context_extraction_method",
    "context_size_tokens",
    "outcome",
    "outcome_reason",
    "notes",
    "new_agent_duration_ms",
    "new_agent_tool_calls",
)
# fields that hold text (or null): a value of another type is read as its JSON text
TEXT_FIELDS = tuple(
    name
    for name in (*FIELDS, "resurrected_from_agent_type")
    if not name.startswith(("context_size", "new_agent"))
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_ID = re.compile(rb'"resurrection_id":\s*"res-(\d{4}-\d{2}-\d{2})-(\d{3,})"')


def counter_path(log: Path) -> Path:
    return log.with_name(log.name + ".seq")


def _check(entry: dict[str, Any]) -> None:
    if entry.get("resurrection_mode") not in MODES:
        raise ValueError(f"resurrection_mode must be one of {MODES}")
    if entry.get("context_extraction_method") not in METHODS:
        raise ValueError(f"context_extraction_method must be one of {METHODS}")
    if entry.get("outcome") not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}")


def append(log: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """Append ``entry`` (TR-1 fields; the id and time are filled in), redacted whatever the
    prompt was (``--no-redact`` shows a prompt, it never keeps one), and return it as written."""
    log = Path(log)
    _check(entry)
    entry = redact.redact_data(entry)[0]
    counter = counter_path(log)

    def make(state: Any, tail) -> tuple[dict[str, Any], dict[str, Any]]:
        moment = clock.now()
        day = moment.strftime("%Y-%m-%d")
        if state is not None and not (
            isinstance(state, dict) and isinstance(state.get("last"), int)
        ):
            raise CorruptFile(counter, 'expected {"day": ..., "last": N}')
        if state is None:
            numbers = [
                int(number)
                for found_day, number in _ID.findall(tail(TAIL_BYTES))
                if found_day.decode() == day
            ]
            last = max(numbers, default=0)
        else:
            last = state["last"] if state.get("day") == day else 0
        record = {name: entry.get(name) for name in FIELDS}
        record.update({k: v for k, v in entry.items() if k not in FIELDS})
        record["resurrection_id"] = f"res-{day}-{last + 1:03d}"
        record["resurrected_at"] = entry.get("resurrected_at") or clock.iso(moment)
        record["uuid"] = str(uuid.uuid4())
        return record, {"day": day, "last": last + 1}

    try:
        store.private_folder(log.parent)
        written = store.append_jsonl_sequenced(log, counter, make)
    except OSError as exc:
        raise PurlinError(
            f"cannot write the resurrection log {log}: {exc.strerror or exc}; "
            "check that its folder is writable (or pass --claude-dir)"
        ) from None
    return written


def _pieces_backwards(log: Path) -> Iterator[bytes]:
    """The log in pieces of whole lines, the last piece first (its last line may lack its
    newline), read from the end a block at a time; none when the log does not exist."""
    store.confined(log)
    try:
        with open(log, "rb") as handle:
            end = handle.seek(0, 2)
            rest = b""
            while end > 0:
                start = max(0, end - BLOCK_BYTES)
                handle.seek(start)
                piece = handle.read(end - start) + rest
                end = start
                if start:
                    cut = piece.find(b"\n")
                    if cut < 0:  # a line longer than a block: read on
                        rest = piece
                        continue
                    rest, piece = piece[:cut], piece[cut + 1 :]
                yield piece
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise PurlinError(f"{log} is a folder, not a file") from None


def _lines_backwards(log: Path) -> Iterator[bytes]:
    """The log's lines, last first (a last line without its newline included)."""
    for piece in _pieces_backwards(log):
        yield from reversed(piece.split(b"\n"))


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


def _finite(number: str) -> float:
    value = float(number)
    if not math.isfinite(value):  # 1e400
        raise ValueError(f"{number} is out of range")
    return value


def _parsed(line: bytes) -> dict[str, Any] | None:
    """The entry a line holds; None when it is not one (not UTF-8, not JSON, no id). NaN,
    Infinity and a number too big for a float are not JSON a reader can take back (a log edited
    by hand or shared by another tool may hold them): every figure over the log would be one."""
    try:
        entry = json.loads(line.decode("utf-8"), parse_constant=_not_json, parse_float=_finite)
    except (ValueError, RecursionError):
        return None
    if isinstance(entry, dict) and isinstance(entry.get("resurrection_id"), str):
        for name in TEXT_FIELDS:
            value = entry.get(name)
            if value is not None and not isinstance(value, str):  # a log edited by hand
                entry[name] = json.dumps(value, ensure_ascii=False)
        return entry
    return None


def _revision(entry: dict[str, Any]) -> int | None:
    number = entry.get(REVISION)
    return number if type(number) is int else None


def _read_line(line: bytes) -> tuple[dict[str, Any] | None, bool]:
    """What one line holds: its entry (None when it holds none) and whether it counts as a
    skipped line (it is not blank and does not parse)."""
    if not line.strip():
        return None, False
    entry = _parsed(line)
    if entry is None:
        return None, bool(line.decode("utf-8", "replace").strip())
    return entry, False


class History:
    """The log's entries, newest first, each as its newest revision says (see above).

    ``since`` (an ISO moment) stops the reading early; the caller still filters on it.
    ``skipped`` is how many of the lines read did not parse, once the iteration is over.
    """

    def __init__(self, log: Path, since: str | None = None) -> None:
        self.log = Path(log)
        self.since = since
        self.skipped = 0

    def _cutoff(self) -> str | None:
        moment = clock.parse(self.since) if self.since else None
        return clock.iso(moment - SINCE_SLACK) if moment else None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        cutoff, older = self._cutoff(), 0
        newest: dict[str, dict[str, Any]] = {}  # revisions whose first line is still to come
        for line in _lines_backwards(self.log):
            entry, skipped = _read_line(line)
            if entry is None:
                self.skipped += skipped
                continue
            key = entry["resurrection_id"]
            if _revision(entry) is not None:
                if key not in newest:
                    del entry[REVISION]
                    newest[key] = entry
                continue
            yield newest.pop(key, entry)
            if cutoff:
                moment = entry.get("resurrected_at")
                older = older + 1 if isinstance(moment, str) and moment < cutoff else 0
                if older == SINCE_RUN:
                    break
        yield from newest.values()


def read(log: Path) -> tuple[list[dict[str, Any]], int]:
    """Every entry, oldest first, and how many lines did not parse (skipped, never fatal)."""
    history = History(log)
    entries = list(history)
    entries.reverse()
    return entries, history.skipped


def _current(log: Path, resurrection_id: str) -> dict[str, Any] | None:
    """The newest line of one entry (its first line, or its newest revision)."""
    needle = re.compile(rb'"resurrection_id"\s*:\s*"' + re.escape(resurrection_id.encode()) + rb'"')
    for piece in _pieces_backwards(log):
        for found in reversed(list(needle.finditer(piece))):
            start = piece.rfind(b"\n", 0, found.start()) + 1
            end = piece.find(b"\n", found.end())
            entry = _parsed(piece[start : end if end >= 0 else len(piece)])
            if entry is not None and entry["resurrection_id"] == resurrection_id:
                return entry
    return None


def _joined(kept: Any, added: Any) -> Any:
    """Notes accumulate: a new note is added after the ones already there (the decision note an
    autonomous pick wrote stays), never twice."""
    if not added or added == kept or (kept and str(kept).endswith(f"; {added}")):
        return kept
    if not kept:
        return added
    return f"{kept}; {added}"


def complete(log: Path, resurrection_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Set the outcome (and agent id, duration, tool calls) of one entry; add to its notes. A
    new outcome drops the reason of the old one (``changes`` may give its own)."""
    return _revise(log, resurrection_id, changes)[0]


def _revise(
    log: Path, resurrection_id: str, changes: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """``complete``: the entry as it now stands, and the outcome a new one replaced (None when
    the outcome did not change)."""
    log = Path(log)
    if changes.get("outcome") is not None and changes["outcome"] not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}")
    if not log.is_file():
        raise NotFound(f"no resurrection {resurrection_id}: {log} does not exist")

    def revised() -> dict[str, Any]:
        entry = _current(log, resurrection_id)
        if entry is None:
            raise NotFound(
                f"no resurrection {resurrection_id} in {log}; "
                "list them with 'purlin-resume resurrections'"
            )
        number = entry.pop(REVISION, None)
        replaced = None
        if changes.get("outcome") not in (None, entry.get("outcome")):
            replaced = entry.get("outcome")
            entry["outcome_reason"] = None  # the reason of the outcome it replaces
        entry.update(changes, notes=_joined(entry.get("notes"), changes.get("notes")))
        done.append((entry, replaced))
        return {**entry, REVISION: (number if type(number) is int else 1) + 1}

    done: list[tuple[dict[str, Any], str | None]] = []
    try:
        store.append_jsonl_made(log, revised)
    except OSError as exc:
        raise PurlinError(
            f"cannot write the resurrection log {log}: {exc.strerror or exc}"
        ) from None
    return done[0]


def record_outcome(
    log: Path,
    resurrection_id: str,
    outcome: str,
    agent_id: str | None = None,
    duration_ms: int | None = None,
    tool_calls: int | None = None,
    notes: str | None = None,
    reason: str | None = None,
) -> tuple[dict[str, Any], str | None]:
    """What ``resurrect done`` (and the hooks) call when a resurrected agent ends: its outcome,
    its own id, duration, tool calls and notes (redacted). A success has no reason; another
    outcome has the one given (a changed outcome without one: none, never the old one's).
    Returns the entry as it now stands and the outcome it had before, when that was another."""
    changes: dict[str, Any] = {"outcome": outcome}
    for key, value in (
        ("resurrected_as_agent_id", agent_id),
        ("new_agent_duration_ms", duration_ms),
        ("new_agent_tool_calls", tool_calls),
        ("notes", redact.redact(notes).text if notes else None),
    ):
        if value is not None:
            changes[key] = value
    if outcome == "success":
        changes["outcome_reason"] = None
    elif reason:
        changes["outcome_reason"] = redact.redact(reason).text
    return _revise(log, resurrection_id, changes)


# ---------------------------------------------------------------------------------------------
# history and statistics


def parse_since(text: str) -> str:
    """``7d``, ``12h``, ``30m``, an ISO date/time, or the time words ``find`` knows (``today``,
    ``yesterday``, ``this/last week``, ``this/last month``, ``3 days ago``, ``last 7 days``:
    their start), as the ISO moment entries must not precede."""
    match = re.fullmatch(r"(\d+)([dhm])", text.strip())
    if match:
        amount = int(match.group(1))
        unit = {"d": "days", "h": "hours", "m": "minutes"}[match.group(2)]
        return clock.iso(clock.now() - timedelta(**{unit: amount}))
    moment = clock.parse(text)
    if moment is None:
        words = parse(text, clock.now())
        moment = words.start if not words.words else None
    if moment is None:
        raise UsageError(
            f"--since {text!r}: give a date (2026-02-09), a time, 7d / 12h / 30m, "
            "or yesterday / last week / 3 days ago"
        )
    return clock.iso(moment)


def matching(
    entries: Iterable[dict[str, Any]],
    since: str | None = None,
    agent: str | None = None,
    outcome: str | None = None,
    mode: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The entries that pass every filter given, in the order they come."""
    wanted = agent.removeprefix("agent-") if agent else None
    for entry in entries:
        if since and (entry.get("resurrected_at") or "") < since:
            continue
        if outcome and entry.get("outcome") != outcome:
            continue
        if mode and entry.get("resurrection_mode") != mode:
            continue
        if wanted is not None:
            names = (
                entry.get("resurrected_from_agent_id"),
                entry.get("resurrected_from_session_id"),
                entry.get("resurrected_as_agent_id"),
            )
            if not any(
                isinstance(n, str) and n.removeprefix("agent-").startswith(wanted) for n in names
            ):
                continue
        yield entry


def select(
    entries: Iterable[dict[str, Any]],
    since: str | None = None,
    agent: str | None = None,
    outcome: str | None = None,
    mode: str | None = None,
) -> list[dict[str, Any]]:
    return list(matching(entries, since, agent, outcome, mode))


def outcomes_by_source(entries: Iterable[dict[str, Any]]) -> dict[tuple, Counter]:
    """How each resurrected conversation fared: (session id, agent id or None) -> outcomes."""
    found: dict[tuple, Counter] = defaultdict(Counter)
    for entry in entries:
        session = entry.get("resurrected_from_session_id")
        if session and entry.get("outcome") in OUTCOMES:
            found[(session, entry.get("resurrected_from_agent_id"))][entry["outcome"]] += 1
    return dict(found)


def _nearest_rank(ordered: list[float], share: float) -> float | None:
    """Nearest-rank percentile of values already sorted."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _ranked(keys: Iterable[Any], count: int) -> list[tuple[Any, int]]:
    """The ``count`` most frequent of ``keys`` (oldest first), ranked as ``Counter.most_common``
    ranks them (ties: the first met first)."""
    keys = list(keys)
    first = {key: index for index, key in enumerate(dict.fromkeys(keys))}
    return sorted(Counter(keys).items(), key=lambda pair: (-pair[1], first[pair[0]]))[:count]


class Facts:
    """What the metrics take from each entry, a column per fact, one row per entry (oldest
    first): all ``stats`` reads, small enough to keep for every entry of a large log."""

    COLUMNS = (
        "agent",
        "counted",
        "mode",
        "success",
        "reason",
        "tokens",
        "kind",
        "cross",
        "latency",
    )
    agent: list[str | None]
    counted: list[bool]
    mode: list[str]
    success: list[bool]
    reason: list[str | None]
    tokens: list[int | None]
    kind: list[str | None]
    cross: list[bool]
    latency: list[float | None]

    def __init__(self, columns: dict[str, list[Any]] | None = None) -> None:
        columns = columns or {}
        for name in self.COLUMNS:
            setattr(self, name, columns.get(name, []))

    @staticmethod
    def row(entry: dict[str, Any]) -> tuple[Any, ...]:
        """One entry's facts, in the order of ``COLUMNS``."""
        outcome = entry.get("outcome")
        tokens = entry.get("context_size_tokens")
        latency = entry.get("latency_ms")
        reason = entry.get("outcome_reason")
        return (
            entry.get("resurrected_from_agent_id") or entry.get("resurrected_from_session_id"),
            outcome != "failure",
            str(entry.get("resurrection_mode")),
            outcome == "success",
            str(reason) if reason and outcome == "failure" else None,
            tokens if isinstance(tokens, int) else None,
            str(entry.get("resurrected_from_agent_type") or "unknown")
            if isinstance(tokens, int)
            else None,
            _cross_repo(entry),
            latency if isinstance(latency, (int, float)) else None,
        )

    def columns(self) -> dict[str, list[Any]]:
        return {name: getattr(self, name) for name in self.COLUMNS}

    def append(self, row: tuple[Any, ...]) -> None:
        for name, value in zip(self.COLUMNS, row, strict=True):
            getattr(self, name).append(value)

    def reverse(self) -> None:
        for name in self.COLUMNS:
            getattr(self, name).reverse()

    def figures(self) -> dict[str, Any]:
        """The seed's resurrection metrics over these entries."""
        total = len(self.mode)
        by_mode: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for (mode, success), count in Counter(zip(self.mode, self.success, strict=True)).items():
            by_mode[mode][1] += count
            if success:
                by_mode[mode][0] += count
        sizes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for kind, tokens in zip(self.kind, self.tokens, strict=True):
            if tokens is not None and kind is not None:  # a row has both or neither
                size = sizes[kind]
                size[0] += tokens
                size[1] += 1
        cross = sum(map(bool, self.cross))
        latencies = sorted(value for value in self.latency if value is not None)  # once
        agents = _ranked(compress(self.agent, self.counted), 10)
        failures = _ranked(filter(None, self.reason), 5)
        return {
            "total": total,
            "top_agents": [{"agent": name, "resurrections": count} for name, count in agents],
            "success_rate_by_mode": {
                mode: {"success": ok, "total": count, "rate": round(ok / count, 3)}
                for mode, (ok, count) in sorted(by_mode.items())
            },
            "average_context_tokens_by_agent_type": {
                kind: round(summed / count) for kind, (summed, count) in sorted(sizes.items())
            },
            "cross_repo": {
                "cross": cross,
                "same": total - cross,
                "ratio": round(cross / total, 3) if total else None,
            },
            "latency_ms": {
                "p50": _nearest_rank(latencies, 0.50),
                "p95": _nearest_rank(latencies, 0.95),
                "p99": _nearest_rank(latencies, 0.99),
            },
            "top_failure_reasons": [
                {"reason": reason, "count": count} for reason, count in failures
            ],
        }


def _cross_repo(entry: dict[str, Any]) -> bool:
    """Whether the agent was brought back in another project than its own: a failure that chose
    no agent has no project of its own, and is no cross-repo resurrection."""
    source, target = entry.get("resurrected_from_project"), entry.get("resurrected_in_project")
    return source is not None and target is not None and source != target


def stats(entries: Iterable[dict[str, Any]], newest_first: bool = False) -> dict[str, Any]:
    """The seed's resurrection metrics over ``entries`` (oldest first, or ``newest_first``), in
    one pass that keeps only their facts."""
    facts = Facts()
    for entry in entries:
        facts.append(Facts.row(entry))
    if newest_first:
        facts.reverse()
    return facts.figures()


def summary_line(entry: dict[str, Any]) -> str:
    """An entry on one line (the listing's): id, time, mode, what became of what, outcome and
    context size."""
    return (
        f"{entry['resurrection_id']}  {entry.get('resurrected_at')}  "
        f"{entry.get('resurrection_mode')}  {_what_became(entry)}  "
        f"{entry.get('outcome')}"
        + (f" ({entry['outcome_reason']})" if entry.get("outcome_reason") else "")
        + f"  {entry.get('context_size_tokens') or '-'} tokens"
    )


def _what_became(entry: dict[str, Any]) -> str:
    """``SOURCE → NEW AGENT``; for an entry without them (a failure before an agent was chosen
    or made) the query and what did not happen; a new agent whose id is not known yet (the
    prompt printed, or the agent not started yet) is named so."""
    source = entry.get("resurrected_from_agent_id") or entry.get("resurrected_from_session_id")
    target = entry.get("resurrected_as_agent_id")
    if source and target:
        return f"{source} → {target}"
    if source and entry.get("outcome") != "failure":
        return f"{source} → a new agent (its id is not known)"
    asked = source or (repr(entry["query"]) if entry.get("query") else "?")
    return f"{asked} (nothing resurrected)"


def count_day(days: dict[str, list[int]], entry: dict[str, Any]) -> None:
    """Add ``entry`` to ``days`` (UTC day -> [resurrections, successes]) for ``frequency``."""
    moment = entry.get("resurrected_at")
    if not isinstance(moment, str) or not _DAY.match(moment):
        return
    day = days.setdefault(moment[:10], [0, 0])
    day[0] += 1
    if entry.get("outcome") == "success":
        day[1] += 1


def frequency(
    entries: Iterable[dict[str, Any]], days: dict[str, list[int]] | None = None
) -> list[dict[str, Any]]:
    """Resurrections per UTC day, oldest first, with the successes among them (the seed's
    "resurrection frequency over time"); days without one are left out. ``days``: counts
    already made with ``count_day``."""
    days = {} if days is None else days
    for entry in entries:
        count_day(days, entry)
    return [
        {"day": day, "resurrections": total, "success": ok}
        for day, (total, ok) in sorted(days.items())
    ]
