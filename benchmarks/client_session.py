"""What the hooks cost a session of the real Claude Code: with the hooks installed, against the
same session without them.

    .venv/bin/python benchmarks/client_session.py [--runs 3] [--agents 12] [--background EVENTS]

For each Claude Code version of tests/field/CLAUDE_CODE_VERSIONS that is installed (or each
binary of ``$PURLIN_FIELD_CLAUDE``), three projects are made as the field tests make them (a git
project, ``purlin-resume install``): one keeps our hooks, run as a user runs them (the installed
``purlin-resume``, not the field tests' recording shim); one has the same events run
``python -c`` reading the payload (the anchor: what any Python hook costs, a process per
event); one has no hooks. Against the scripted model (tests/field/scripted_model.py), each run
times, in the three projects, interleaved:

- ``claude -p`` of a session whose model makes ``--agents`` Agent calls one after the other
  (each subagent answers at once), then answers;
- ``claude -p /compact --resume`` of a session of one turn (made just before, not timed).

Medians of ``--runs`` runs and the ratios to the session without hooks are printed, ours and
the anchor's, with the load average; goals (ours): the session at most 1.5x, ``/compact`` at
most 1.2x. A run whose hooks logged a failure,
or whose history does not hold every agent completed, stops the benchmark.

``--background PostToolUse,SubagentStop`` installs those events with ``"async": true`` as well
(what it would cost; not how ``install`` writes them): a run then does not stop on agents left
running, it counts them, and the sessions that ended without a ``SessionEnd`` hook.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.field.harness import Field, versions  # noqa: E402
from tests.field.scripted_model import (  # noqa: E402
    ScriptedModel,
    agent,
    conversation,
    text,
)

SESSION_GOAL, COMPACT_GOAL = 1.5, 1.2


def _change_hooks(field: Field, change) -> None:
    """``change`` applied to the ``hooks`` of the project's ``.claude/settings.json``."""
    settings = field.project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    change(data["hooks"])
    settings.write_text(json.dumps(data, indent=2) + "\n")


def _without_hooks(hooks: dict) -> None:
    hooks.clear()


def _commands(command: str):
    """Every hook of ours run as ``command`` followed by its arguments."""

    def change(hooks: dict) -> None:
        for groups in hooks.values():
            for group in groups:
                for hook in group["hooks"]:
                    hook["command"] = hook["command"].replace("purlin-resume", command, 1)

    return change


INSTALLED = str(Path(sys.executable).parent / "purlin-resume")
ANCHOR = f"{sys.executable} -c 'import sys; sys.stdin.buffer.read()'"


def _in_background(events: list[str]):
    def change(hooks: dict) -> None:
        for event in events:
            for group in hooks[event]:
                for hook in group["hooks"]:
                    hook["async"] = True

    return change


def _script_session(model: ScriptedModel, mark: str, agents: int) -> None:
    for number in range(agents):
        sub = f"{mark}-SUB{number:02d}"
        model.reply(conversation(f"{mark}-MAIN"), agent(f"Check part {number}", f"{sub} check"))
        model.reply(conversation(sub), text(f"Part {number} checked."))
    model.reply(conversation(f"{mark}-MAIN"), text("Every part checked."))


def _timed(field: Field, *argv: str) -> tuple[float, str | None]:
    started = time.perf_counter()
    run = field.claude(*argv, timeout=600)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"claude {' '.join(argv)} failed: {run.stderr[-2000:]}")
    return elapsed, run.session_id


def _check(field: Field, agents: int, session: str | None, lost: Counter | None) -> None:
    """Stop on a hook failure, or (``lost`` None) on an agent not recorded completed; else
    count in ``lost`` the agents not recorded completed and the session if it has no end."""
    log = field.project / ".purlin" / "cache" / "hook.log"
    if log.exists():
        raise SystemExit(f"a hook logged a failure: {log.read_text()}")
    entries = field.history()["entries"]
    done = [
        e for e in entries if e["status"] == "completed" and not e["agent_id"].startswith("toolu_")
    ]
    if lost is None and len(done) != agents:
        raise SystemExit(f"{len(done)} of {agents} agents recorded completed: {entries}")
    if lost is not None:
        registry = json.loads((field.project / ".purlin" / "agents.json").read_text())
        lost["agents not completed"] += agents - len(done)
        ended = registry["agents"].get(session or "", {}).get("ended_at")
        lost["sessions without SessionEnd"] += not ended  # or never registered


def _one_run(
    fields: dict[str, Field], model: ScriptedModel, run: int, agents: int, lost: Counter | None
) -> dict:
    times: dict[str, float] = {}
    for variant, field in fields.items():
        mark = f"B{run}{variant[0].upper()}"
        _script_session(model, mark, agents)
        times[f"session {variant}"], main = _timed(field, f"{mark}-MAIN check every part")
        if variant == "with hooks":
            _check(field, agents, main, lost)
            (field.project / ".planning" / "agent-history.json").unlink()
        model.reply(conversation(f"{mark}-SHORT"), text("Noted."))
        _, session = _timed(field, f"{mark}-SHORT remember this")
        times[f"compact {variant}"], _ = _timed(field, "/compact", "--resume", str(session))
    return times


def _measure(
    version, runs: int, agents: int, background: list[str], lost: Counter
) -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory(prefix="purlin-client-bench-") as folder,
        ScriptedModel() as model,
    ):
        fields = {
            "with hooks": Field(Path(folder) / "with", version, model),
            "anchor": Field(Path(folder) / "anchor", version, model),
            "without": Field(Path(folder) / "without", version, model),
        }
        _change_hooks(fields["without"], _without_hooks)
        _change_hooks(fields["anchor"], _commands(ANCHOR))
        _change_hooks(fields["with hooks"], _commands(INSTALLED))
        for variant in ("with hooks", "anchor"):
            _change_hooks(fields[variant], _in_background(background))
        counted = lost if background else None
        try:
            _one_run(fields, model, 0, agents, counted)  # warm-up: byte-code, the client's caches
            results = [_one_run(fields, model, n, agents, counted) for n in range(1, runs + 1)]
        finally:
            for field in fields.values():
                field.stop_all()
    return {key: statistics.median(r.get(key, 0) for r in results) for key in results[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--agents", type=int, default=12)
    parser.add_argument(
        "--background",
        default="",
        help="hook events to install with async: true too, comma-separated (e.g. PostToolUse)",
    )
    args = parser.parse_args()
    background = [event for event in args.background.split(",") if event]
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's hooks run from byte-code
    installed = [v for v in versions() if v.binary is not None and v.binary.exists()]
    if not installed:
        raise SystemExit("no Claude Code installed: run tests/field/install-claude-code")
    missed = 0
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"{'Claude Code':12} {'what':28} {'with':>9} {'anchor':>9} {'without':>9} "
        f"{'ratio':>6} {'anchor':>6} {'goal':>5}"
    )
    for version in installed:
        lost: Counter = Counter()
        medians = _measure(version, args.runs, args.agents, background, lost)
        for what, goal in (
            (f"session of {args.agents} Agent calls", SESSION_GOAL),
            ("/compact", COMPACT_GOAL),
        ):
            key = "session" if what.startswith("session") else "compact"
            ours, anchor = medians[f"{key} with hooks"], medians[f"{key} anchor"]
            without = medians[f"{key} without"]
            ratio = ours / without
            missed += ratio > goal
            verdict = "met" if ratio <= goal else "MISSED"
            print(
                f"{version.number:12} {what:28} {ours:8.2f}s {anchor:8.2f}s {without:8.2f}s "
                f"{ratio:5.2f}x {anchor / without:5.2f}x {goal:4.1f}x {verdict}"
            )
        if background:
            print(
                f"{version.number:12} {args.background} async, {args.runs + 1} sessions "
                f"(the warm-up too): {dict(lost)}"
            )
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.runs} runs")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
