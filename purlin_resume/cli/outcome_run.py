"""What ``resurrect done`` does, without Typer (``cli/fast_path`` calls it when the command line
is plain; the Typer command in ``cli/resurrect`` otherwise)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from purlin_resume.cli.common import print_json, print_text
from purlin_resume.core.errors import UsageError


class Outcome(str, Enum):
    success = "success"
    failure = "failure"
    partial = "partial"


def done(
    resurrection_id: str,
    outcome: Outcome,
    agent_id: str | None,
    duration_ms: int | None,
    tool_calls: int | None,
    reason: str | None,
    notes: str | None,
    claude_dir: Path | None,
    as_json: bool,
) -> None:
    """Record the outcome of resurrection ``resurrection_id`` in the log."""
    import re

    from purlin_resume.claude import layout
    from purlin_resume.resurrection import log as resurrection_log

    if not re.fullmatch(r"res-\d{4}-\d{2}-\d{2}-\d{3,}", resurrection_id):
        raise UsageError(f"{resurrection_id!r} is not a resurrection id (res-YYYY-MM-DD-NNN)")
    log = layout.history_dir(claude_dir) / resurrection_log.FILE_NAME
    entry = resurrection_log.record_outcome(
        log, resurrection_id, outcome.value, agent_id, duration_ms, tool_calls, notes, reason
    )
    if as_json:
        print_json(entry)
        return
    print_text(f"{resurrection_id}: {entry['outcome']}\n")
