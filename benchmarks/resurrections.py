"""The resurrection log at 100,000 lines: `resurrect done` and the readers, as whole processes.

    .venv/bin/python benchmarks/resurrections.py [--runs 5] [--lines 100000] [--before CMD]

Generates (once, under benchmarks/.work/resurrections/, never committed) a Claude data folder
whose ``history/resurrection-log.jsonl`` holds --lines entries written by the real writer
(``resurrection_log.append``, fsync switched off while generating; its lines then repeated with
fresh ids and times): one resurrection every five minutes up to now, of the fixture sessions and agents, in the three modes, with queries, notes,
failures and their reasons, latencies and context sizes like real ones.

Then times, interleaved, whole processes of the venv's console script (``sys.executable``'s
``purlin-resume``) and reports the median and the peak RSS of each (``wait4`` of a fresh
process, i.e. getrusage of that one child):

- ``purlin-resume --version``: start-up alone, the anchor;
- ``resurrect done ID --outcome success`` on the newest and on a middle entry (each run on a
  fresh copy of the log): target <= 100 ms above start-up (seed PERF-3), memory flat; and on a
  1-line log, which shows what the command costs whatever the log's size;
- ``resurrections``, ``resurrections stats``, ``resurrections --since 1d`` (and ``--json``):
  target <= 400 ms and <= 60 MiB.

``--before CMD`` also runs another build (a command line, e.g. a checkout of the previous
commit run by the same interpreter), interleaved with this one, for a before/after pair.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "resurrections"
SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
sys.path.insert(0, str(REPO))

FIVE_MINUTES = timedelta(minutes=5)
SOURCES = [  # (session, agent, agent type, project) as the fixtures have them
    ("4d5611e5-241a-462a-8d15-5122611a9569", None, None, "spotter-dov"),
    ("4d5611e5-241a-462a-8d15-5122611a9569", "agent-a2898e3", "Explore", "spotter-dov"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", None, None, "spotter-fum"),
    ("8463c716-a2ea-4c14-9efa-87158ebd9f20", "agent-ad1c5b2", "general-purpose", "spotter-fum"),
    ("b1e5c0de-0000-4000-8000-000000000001", "agent-a77f3e1", "Plan", "phoenix"),
    ("0f6a9b3e-3c3d-4e4b-9a43-2f0d6e1c9a55", None, None, "nextjs-todo"),
]
QUERIES = ["tmux module test setup", "transcript rendering", "phoenix server", "nextjs todo"]
REASONS = [
    "agent command exited with 1",
    "the new agent never showed its prompt (waited 30 s)",
    "no session matches 'phoenix servr'",
]
NOTES = [
    "picked #1 of 3: best score 0.92 (title, recent)",
    "Used the earlier investigation of the flaky tmux tests for the CI fix",
    None,
]


def _entry(rng: random.Random) -> dict:
    session, agent, kind, project = rng.choice(SOURCES)
    mode = rng.choices(("direct", "bookmark", "fuzzy"), (5, 3, 2))[0]
    outcome = rng.choices(("success", "failure", "partial"), (85, 10, 5))[0]
    here = rng.choice(("spotter-dov", "spotter-fum", "phoenix"))
    return {
        "bookmark_id": f"bmk-2026-01-{rng.randint(10, 28)}-00{rng.randint(1, 9)}"
        if mode == "bookmark"
        else None,
        "resurrected_from_agent_id": agent,
        "resurrected_from_session_id": session,
        "resurrected_from_hostname": "devbox",
        "resurrected_from_project": f"/home/dev/projects/{project}",
        "resurrected_as_agent_id": f"agent-{rng.getrandbits(28):07x}",
        "resurrected_in_session": f"{rng.getrandbits(32):08x}-1111-4000-8000-000000000000",
        "resurrected_in_project": f"/home/dev/projects/{here}",
        "resurrected_by": "dev",
        "resurrection_mode": mode,
        "query": rng.choice(QUERIES) if mode == "fuzzy" else None,
        "context_extraction_method": rng.choices(("hybrid", "full", "summarized"), (8, 1, 1))[0],
        "context_size_tokens": rng.randint(800, 40_000),
        "outcome": outcome,
        "outcome_reason": rng.choice(REASONS) if outcome != "success" else None,
        "notes": rng.choice(NOTES),
        "new_agent_duration_ms": rng.randint(5_000, 900_000) if outcome == "success" else None,
        "new_agent_tool_calls": rng.randint(0, 80) if outcome == "success" else None,
        "resurrected_from_agent_type": kind,
        "cross_repo": project != here,
        "context_tokens_before": rng.randint(40_000, 400_000),
        "redactions": rng.choice((0, 0, 0, 1, 3)),
        "latency_ms": rng.randint(40, 3_000),
    }


def generate(lines: int, written: int = 500) -> Path:
    """A Claude data folder whose log holds ``lines`` entries ending now (cached for 6 hours).

    The first ``written`` entries go through the real writer (its record, its id, its line);
    the log is then filled by repeating those lines with fresh ids and times, in the writer's
    own layout (appending 100,000 times under the lock would take minutes on a busy machine).
    """
    from purlin_resume.core import clock, store
    from purlin_resume.resurrection import log as resurrection_log

    claude = WORK / f"claude-{lines}"
    log = claude / "history" / resurrection_log.FILE_NAME
    marker = claude / ".complete"
    if marker.exists() and time.time() - marker.stat().st_mtime < 6 * 3600:
        return claude
    shutil.rmtree(claude, ignore_errors=True)
    rng = random.Random(19)
    start = datetime.now(timezone.utc).replace(microsecond=0) - FIVE_MINUTES * lines
    sample = WORK / "sample" / resurrection_log.FILE_NAME
    shutil.rmtree(sample.parent, ignore_errors=True)
    moment = [start]
    real_now, real_fsync = clock.now, os.fsync
    clock.now = lambda: moment[0]
    os.fsync = lambda fd: None
    try:
        for number in range(min(written, lines)):
            moment[0] = start + FIVE_MINUTES * (number + 1)
            resurrection_log.append(sample, _entry(rng))
    finally:
        clock.now, os.fsync = real_now, real_fsync
    records = [json.loads(line) for line in sample.read_text().splitlines()]
    store.private_folder(log.parent)
    per_day: dict[str, int] = {}
    with open(log, "w", encoding="utf-8") as out:
        for number in range(lines):
            at = start + FIVE_MINUTES * (number + 1)
            day = at.strftime("%Y-%m-%d")
            per_day[day] = per_day.get(day, 0) + 1
            record = dict(records[number % len(records)])
            record["resurrection_id"] = f"res-{day}-{per_day[day]:03d}"
            record["resurrected_at"] = clock.iso(at)
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    store.write_json(resurrection_log.counter_path(log), {"day": day, "last": per_day[day]})
    marker.write_text("")
    return claude


def run(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one fresh process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    stderr = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{stderr}")
    return elapsed, usage.ru_maxrss * 1024


def ids(claude: Path) -> tuple[str, str]:
    """The newest entry's id and one from the middle of the log."""
    log = claude / "history" / "resurrection-log.jsonl"
    size = log.stat().st_size
    with open(log, "rb") as handle:
        handle.seek(size // 2)
        handle.readline()
        middle = json.loads(handle.readline())["resurrection_id"]
        handle.seek(max(0, size - 8192))
        newest = json.loads(handle.read().splitlines()[-1])["resurrection_id"]
    return newest, middle


def measure(script: list[str], template: Path, one: Path, reads, measures) -> None:
    """One run of every command of ``script`` (a command line), added to ``measures``."""
    scratch = WORK / "scratch"

    def fresh() -> str:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(template, scratch)
        return str(scratch)

    def add(label: str, argv: list[str]) -> None:
        measures.setdefault(label, []).append(run(argv))

    newest, middle = ids(template)
    first_line = (one / "history" / "resurrection-log.jsonl").read_bytes().split(b"\n")[0]
    one_id = json.loads(first_line)["resurrection_id"]
    add("purlin-resume --version", [*script, "--version"])
    done = [*script, "resurrect", "done"]
    add(
        "resurrect done (1-line log)",
        [*done, one_id, "--outcome", "success", "--claude-dir", str(one)],
    )
    for where, rid in (("newest", newest), ("middle", middle)):
        add(
            f"resurrect done ({where}, {rid})",
            [*done, rid, "--outcome", "success", "--claude-dir", fresh()],
        )
    claude = fresh()
    for label, extra in reads:
        add(label, [*script, "resurrections", *extra, "--claude-dir", claude])
    shutil.rmtree(scratch, ignore_errors=True)


def report(measures: dict[str, list[tuple[float, int]]], runs: int, lines: int) -> None:
    anchor = statistics.median(s for s, _ in measures["purlin-resume --version"])
    one_line = statistics.median(s for s, _ in measures["resurrect done (1-line log)"])
    width = max(map(len, measures))
    print(f"medians of {runs} runs, {lines:,}-line log; anchor: --version")
    print(f"{'measure':<{width}}  {'median':>9}  {'above anchor':>12}  {'peak RSS':>9}  target")
    for label, results in measures.items():
        seconds = statistics.median(s for s, _ in results)
        rss = statistics.median(r for _, r in results) / 2**20
        above = (seconds - anchor) * 1000
        if label == "resurrect done (1-line log)":
            target = "(the same command's fixed cost)"
        elif label.startswith("resurrect done"):
            flat = seconds - one_line
            target = f"{flat * 1000:+.0f} ms vs 1 line; <= 100 ms above start-up: " + (
                "met" if above <= 100 else "missed"
            )
        elif label.startswith("resurrections"):
            ok = seconds <= 0.4 and rss <= 60
            target = "<= 400 ms, <= 60 MiB: " + ("met" if ok else "missed")
        else:
            target = "(anchor)"
        print(
            f"{label:<{width}}  {seconds * 1000:7.0f}ms  {above:10.0f}ms  {rss:6.0f}MiB  {target}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--before", help="also run this build, interleaved (a command line)")
    parser.add_argument("--quick", action="store_true", help="leave out the full --json listing")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    template = generate(args.lines)
    print(f"log of {args.lines:,} lines ready in {time.perf_counter() - started:.1f} s")
    from purlin_resume.resurrection import log as resurrection_log

    one = WORK / "one-line"
    shutil.rmtree(one, ignore_errors=True)
    resurrection_log.append(one / "history" / resurrection_log.FILE_NAME, _entry(random.Random(1)))
    reads = [
        ("resurrections", []),
        ("resurrections --json", ["--json"]),
        ("resurrections stats", ["stats"]),
        ("resurrections stats --json", ["stats", "--json"]),
        ("resurrections --since 1d", ["--since", "1d"]),
        ("resurrections --since 1d --json", ["--since", "1d", "--json"]),
    ]
    if args.quick:
        reads.remove(("resurrections --json", ["--json"]))
    builds = {"this checkout": [SCRIPT]}
    if args.before:
        builds = {"before": shlex.split(args.before), **builds}
    measures: dict[str, dict[str, list[tuple[float, int]]]] = {name: {} for name in builds}
    for _ in range(args.runs):
        for name, script in builds.items():
            measure(script, template, one, reads, measures[name])
    for name in builds:
        print(f"\n{name}: {' '.join(builds[name])}")
        report(measures[name], args.runs, args.lines)


if __name__ == "__main__":
    main()
