"""The resurrection log: ``<Claude data folder>/history/resurrection-log.jsonl``, one TR-1 object
per resurrection (seed 000), and what it says in sum (US-5, the seed's metrics).

Ids are ``res-YYYY-MM-DD-NNN``, numbered per UTC day. They are allocated under the log's lock
from a small counter file beside it (``resurrection-log.jsonl.seq``), so appending costs the
same at 100,000 lines as at one; when the counter is missing, only the last 64 KB of the log
are read to find the day's highest number. Beside TR-1's fields each entry carries
``resurrected_from_agent_type``, ``cross_repo``, ``context_tokens_before``, ``redactions`` and
``latency_ms``
(additions, never renames). ``complete`` (what ``resurrect done`` and hooks call) rewrites the
one entry it completes, under the same lock, leaving every other line byte for byte.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, store
from purlin_resume.core.errors import CorruptFile, NotFound, PurlinError

FILE_NAME = "resurrection-log.jsonl"
MODES = ("bookmark", "fuzzy", "direct")
METHODS = ("full", "summarized", "hybrid")
OUTCOMES = ("success", "failure", "partial")
TAIL_BYTES = 65536
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
    """Append ``entry`` (TR-1 fields; the id and time are filled in) and return it as written."""
    log = Path(log)
    _check(entry)
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
        return record, {"day": day, "last": last + 1}

    try:
        store.private_folder(log.parent)
        written = store.append_jsonl_sequenced(log, counter, make)
    except OSError as exc:
        raise PurlinError(
            f"cannot write the resurrection log {log}: {exc.strerror or exc}; "
            "check that its folder is writable (or pass --claude-dir)"
        ) from None
    _shared(log, "append", written)
    return written


def _shared(log: Path, op: str, entry: dict[str, Any]) -> None:
    """Queue the change for the team database, if this folder has joined one (never fails)."""
    from purlin_resume.resurrection import team_outbox as mirror

    mirror.changed(log.parent, "resurrection", op, entry)


def read(log: Path) -> tuple[list[dict[str, Any]], int]:
    """Every entry, oldest first, and how many lines did not parse (skipped, never fatal)."""
    try:
        text = store.read_text(Path(log))
    except NotFound:
        return [], 0
    entries, skipped = [], 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            skipped += 1
            continue
        if isinstance(entry, dict) and isinstance(entry.get("resurrection_id"), str):
            entries.append(entry)
        else:
            skipped += 1
    return entries, skipped


def _joined(kept: Any, added: Any) -> Any:
    """Notes accumulate: a new note is added after the ones already there (the decision note an
    autonomous pick wrote stays), never twice."""
    if not added or added == kept or (kept and str(kept).endswith(f"; {added}")):
        return kept
    if not kept:
        return added
    return f"{kept}; {added}"


def complete(log: Path, resurrection_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    """Set the outcome (and agent id, duration, tool calls) of one entry; add to its notes."""
    log = Path(log)
    if changes.get("outcome") is not None and changes["outcome"] not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}")
    done: list[dict[str, Any]] = []
    needle = f'"resurrection_id":"{resurrection_id}"'

    def change(text: str | None) -> str:
        lines = (text or "").splitlines(keepends=True)
        for index, line in enumerate(lines):
            if needle not in line.replace(" ", ""):
                continue
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if entry.get("resurrection_id") != resurrection_id:
                continue
            entry.update(changes, notes=_joined(entry.get("notes"), changes.get("notes")))
            lines[index] = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
            done.append(entry)
            return "".join(lines)
        raise NotFound(
            f"no resurrection {resurrection_id} in {log}; "
            "list them with 'purlin-resume resurrections'"
        )

    if not log.is_file():
        raise NotFound(f"no resurrection {resurrection_id}: {log} does not exist")
    store.update_text(log, change)
    _shared(log, "complete", done[0])
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
) -> dict[str, Any]:
    """What ``resurrect done`` (and the hooks) call when a resurrected agent ends: its outcome,
    its own id, duration, tool calls and notes (redacted). A success clears the reason."""
    from purlin_resume.core import redact

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
    return complete(log, resurrection_id, changes)


# ---------------------------------------------------------------------------------------------
# history and statistics


def parse_since(text: str) -> str:
    """``7d``, ``12h``, ``30m``, an ISO date/time, or the time words ``find`` knows (``today``,
    ``yesterday``, ``this/last week``, ``this/last month``, ``3 days ago``, ``last 7 days``:
    their start), as the ISO moment entries must not precede."""
    from datetime import timedelta

    match = re.fullmatch(r"(\d+)([dhm])", text.strip())
    if match:
        amount = int(match.group(1))
        unit = {"d": "days", "h": "hours", "m": "minutes"}[match.group(2)]
        return clock.iso(clock.now() - timedelta(**{unit: amount}))
    moment = clock.parse(text)
    if moment is None:
        from purlin_resume.resurrection.search_index import parse_query

        words = parse_query(text, clock.now())
        moment = words.start if not words.words else None
    if moment is None:
        raise PurlinError(
            f"--since {text!r}: give a date (2026-02-09), a time, 7d / 12h / 30m, "
            "or yesterday / last week / 3 days ago"
        )
    return clock.iso(moment)


def select(
    entries: Iterable[dict[str, Any]],
    since: str | None = None,
    agent: str | None = None,
    outcome: str | None = None,
    mode: str | None = None,
) -> list[dict[str, Any]]:
    chosen = []
    for entry in entries:
        if since and (entry.get("resurrected_at") or "") < since:
            continue
        if outcome and entry.get("outcome") != outcome:
            continue
        if mode and entry.get("resurrection_mode") != mode:
            continue
        if agent:
            names = (
                entry.get("resurrected_from_agent_id"),
                entry.get("resurrected_from_session_id"),
                entry.get("resurrected_as_agent_id"),
            )
            wanted = agent.removeprefix("agent-")
            if not any(
                isinstance(n, str) and n.removeprefix("agent-").startswith(wanted) for n in names
            ):
                continue
        chosen.append(entry)
    return chosen


def outcomes_by_source(entries: Iterable[dict[str, Any]]) -> dict[tuple, Counter]:
    """How each resurrected conversation fared: (session id, agent id or None) -> outcomes."""
    found: dict[tuple, Counter] = defaultdict(Counter)
    for entry in entries:
        session = entry.get("resurrected_from_session_id")
        if session and entry.get("outcome") in OUTCOMES:
            found[(session, entry.get("resurrected_from_agent_id"))][entry["outcome"]] += 1
    return dict(found)


def _percentile(values: list[float], share: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def stats(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed's resurrection metrics over ``entries``."""
    agents = Counter(
        entry.get("resurrected_from_agent_id") or entry.get("resurrected_from_session_id")
        for entry in entries
        if entry.get("outcome") != "failure"
    )
    by_mode: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    sizes: dict[str, list[int]] = defaultdict(list)
    cross = 0
    latencies = []
    failures: Counter[str] = Counter()
    for entry in entries:
        mode = by_mode[str(entry.get("resurrection_mode"))]
        mode[1] += 1
        if entry.get("outcome") == "success":
            mode[0] += 1
        elif entry.get("outcome_reason"):
            failures[str(entry["outcome_reason"])] += 1
        if isinstance(entry.get("context_size_tokens"), int):
            kind = str(entry.get("resurrected_from_agent_type") or "unknown")
            sizes[kind].append(entry["context_size_tokens"])
        if entry.get("resurrected_from_project") != entry.get("resurrected_in_project"):
            cross += 1
        if isinstance(entry.get("latency_ms"), (int, float)):
            latencies.append(entry["latency_ms"])
    return {
        "total": len(entries),
        "top_agents": [
            {"agent": name, "resurrections": count} for name, count in agents.most_common(10)
        ],
        "success_rate_by_mode": {
            mode: {"success": ok, "total": total, "rate": round(ok / total, 3)}
            for mode, (ok, total) in sorted(by_mode.items())
        },
        "average_context_tokens_by_agent_type": {
            kind: round(sum(values) / len(values)) for kind, values in sorted(sizes.items())
        },
        "cross_repo": {
            "cross": cross,
            "same": len(entries) - cross,
            "ratio": round(cross / len(entries), 3) if entries else None,
        },
        "latency_ms": {
            "p50": _percentile(latencies, 0.50),
            "p95": _percentile(latencies, 0.95),
            "p99": _percentile(latencies, 0.99),
        },
        "top_failure_reasons": [
            {"reason": reason, "count": count} for reason, count in failures.most_common(5)
        ],
    }


def frequency(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Resurrections per UTC day, oldest first, with the successes among them (the seed's
    "resurrection frequency over time"); days without one are left out."""
    days: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for entry in entries:
        moment = entry.get("resurrected_at")
        if not isinstance(moment, str) or not _DAY.match(moment):
            continue
        day = days[moment[:10]]
        day[0] += 1
        if entry.get("outcome") == "success":
            day[1] += 1
    return [
        {"day": day, "resurrections": total, "success": ok}
        for day, (total, ok) in sorted(days.items())
    ]
