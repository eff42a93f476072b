"""What ``stall check`` does, without Typer (``cli/fast_path`` calls it when the command line is
plain; the Typer command in ``cli/agents`` otherwise)."""

from __future__ import annotations

from pathlib import Path

from purlin_resume.cli.common import print_json, print_text, project_for

STALLED_EXIT = 3  # 0 active, 3 stalled, so scripts can tell them from errors


def check(agent_id: str, lookback: float | None, project: Path | None, as_json: bool) -> None:
    """Whether agent ``agent_id`` is active, printed; exits 0 when it is, 3 when stalled."""
    from purlin_resume.agents import stall
    from purlin_resume.core.errors import UsageError

    if lookback is not None and lookback <= 0:
        raise UsageError("--lookback must be a positive number of minutes")
    result = stall.detect(project_for(project), agent_id, lookback)
    if as_json:
        print_json(result.to_dict())
        raise SystemExit(0 if result.is_active else STALLED_EXIT)
    verdict = "active" if result.is_active else "stalled"
    last = result.to_dict()["last_activity"] or "never"
    lines = [
        f"{result.agent_id}: {verdict} (confidence {result.confidence:.2f}, {result.level}; "
        f"validation {'passed' if result.validation_passed else 'failed'}; last activity {last})"
    ]
    lines += [
        f"  signal {s.source.value} tier {s.tier} {s.confidence:.2f} "
        f"{s.to_dict()['timestamp']} {s.detail}"
        for s in result.signals
    ]
    lines += [f"  reason: {reason}" for reason in result.reasons]
    lines += [f"  note: {note}" for note in result.notes]
    print_text("\n".join(lines) + "\n")
    raise SystemExit(0 if result.is_active else STALLED_EXIT)
