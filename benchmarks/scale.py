"""The budgets at the scale of a real user's history, from one command, against whatever
purlin-resume is installed in this interpreter's environment.

    .venv/bin/python benchmarks/scale.py [--runs 5] [--big-runs 3] [--quick] [--only ROW ...]

Every figure is the median of ``--runs`` whole processes (``--big-runs`` for the 30 MB and
300 MB sessions and the cold index builds), started through the installed ``purlin-resume``
console script, the commands of one row interleaved run by run. Peak RSS is the child's own
(``wait4``), the largest of the runs. Anchors run on this very interpreter (``sys.executable``),
never a ``python3`` found on PATH. Each row prints its anchor, the ratio and the issue's goal.

Rows (``--only`` takes these names): ``transcript`` (the 3.2 MB fixture session against
``claude-code-log convert -f md`` and against a ``json.loads`` loop), ``sizes`` (``transcript``
and ``export`` in every mode at 3 / 30 / 300 MB against the ``json.loads`` loop on the same
file, peak RSS, and the time per MB at 300 MB against 30 MB), ``find`` (cold index build and warm
search over 1,000 sessions), ``sessions`` (``sessions --all`` over 120 sessions, warm),
``resurrect-done`` and ``resurrections`` (a 100,000-line resurrection log against a 1-line one),
``stall`` (``stall check`` on a 10,000-file repository with uncommitted edits), ``resurrect``
(``resurrect --session`` of the 300 MB session, cold: peak RSS). The short commands'
CPU time against ``python -c pass`` is ``short_commands.py``'s.

The data is generated from the real transcripts (``tests/fixtures/claude`` or
``PURLIN_FIXTURES``) once, under ``benchmarks/.work/`` (never committed): sessions of a given
size repeat real lines with fresh uuids and message ids; the 1,000- and 120-session folders
hard-link the fixture sessions under new ids. ``--quick`` uses small sizes (a smoke test; its
figures say nothing about the goals).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402
import stall_check  # noqa: E402

SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
PASS = [sys.executable, "-c", "pass"]  # the interpreter's own start: the machine's pace
SCALE = Path(os.environ.get("PURLIN_BENCH_WORK") or run.WORK) / "scale"  # this script's own data
MIB = 2**20
ROWS = ("transcript", "sizes", "find", "sessions", "resurrect-done", "resurrections")
ROWS += ("stall", "resurrect")
FIND_QUERY = "tmux module test setup"


@dataclass
class Row:
    measure: str
    value: str
    anchor: str = ""
    ratio: str = ""
    goal: str = ""
    met: bool | None = None


@dataclass
class Plan:
    runs: int
    big_runs: int
    quick: bool

    @property
    def sizes(self) -> list[int]:
        return [3] if self.quick else [3, 30, 300]

    @property
    def find_sessions(self) -> int:
        return 30 if self.quick else 1000

    @property
    def list_sessions(self) -> int:
        return 12 if self.quick else 120

    @property
    def log_lines(self) -> int:
        return 1000 if self.quick else 100_000

    @property
    def stall_files(self) -> int:
        return 500 if self.quick else 10_000


# ---------------------------------------------------------------------------------------------
# measuring


@dataclass
class Figure:
    seconds: float  # median wall time (CPU time with --cpu)
    rss: int  # largest peak RSS, bytes

    @property
    def ms(self) -> float:
        return self.seconds * 1000

    @property
    def mib(self) -> float:
        return self.rss / MIB


CPU = [False]  # --cpu: the processes' user + system time instead of their wall time


def interleaved(
    commands: dict[str, list[str]],
    runs: int,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    ok: tuple[int, ...] = (0,),
    before: Callable[[str], None] | None = None,
    warm_up: bool = True,
) -> dict[str, Figure]:
    """Median wall time and largest peak RSS of each command, run in turn ``runs`` times
    (after one untimed warm-up round unless ``warm_up`` is false); ``before(name)`` runs
    untimed before each run of that command."""
    env = env or os.environ.copy()
    samples: dict[str, list[tuple[float, int]]] = {name: [] for name in commands}
    for round_ in range(runs + (1 if warm_up else 0)):
        for name, argv in commands.items():
            if before:
                before(name)
            result = run.run_process(argv, ok=ok, env=env, cwd=cwd, cpu=CPU[0])
            if round_ or not warm_up:
                samples[name].append(result)
    return {
        name: Figure(statistics.median(s for s, _ in got), max(r for _, r in got))
        for name, got in samples.items()
    }


def ms(value: float) -> str:
    return f"{value:.0f} ms" if value >= 100 else f"{value:.1f} ms"


def at_most(value: float, goal: float) -> tuple[str, bool]:
    return f"{value / goal:.2f}x of the goal", value <= goal


def cached_env(name: str) -> dict[str, str]:
    """The environment with its own cache folder (kept between runs: the warm figures)."""
    return {**os.environ, "XDG_CACHE_HOME": str(SCALE / "cache" / name)}


# ---------------------------------------------------------------------------------------------
# rows


def transcript_rows(plan: Plan) -> list[Row]:
    small = run.small_copy()
    session = small / "projects" / run.SESSION_FOLDER / f"{run.SESSION}.jsonl"
    size = session.stat().st_size / 1e6
    out = SCALE / "out"
    out.mkdir(parents=True, exist_ok=True)
    commands = {
        "ours": [SCRIPT, "transcript", run.SESSION, "--claude-dir", str(small), "-o", str(out / "t.md")],
        "floor": [sys.executable, "-c", run.FLOOR_SCRIPT, str(session)],
    }  # fmt: skip
    ccl = run.CCL_VENV / "bin" / "claude-code-log"
    if not plan.quick or ccl.exists():
        ccl = run.claude_code_log()
        commands["ccl"] = [str(ccl), "convert", str(session), "-f", "md"]
        commands["ccl"] += ["-o", str(out / "ccl.md"), "--no-cache"]
    got = interleaved(commands, plan.runs)
    ours, floor = got["ours"], got["floor"]
    label = f"`transcript` of a {size:.1f} MB session, whole process"
    rows = []
    if "ccl" in got:
        theirs = got["ccl"]
        faster = theirs.seconds / ours.seconds
        rows.append(
            Row(
                f"{label}, vs `claude-code-log … -f md`",
                ms(ours.ms),
                f"claude-code-log {ms(theirs.ms)}",
                f"{faster:.1f}x faster",
                ">= 3x faster",
                faster >= 3,
            )
        )
    else:
        rows.append(Row(f"{label}, vs `claude-code-log … -f md`", ms(ours.ms), "not installed"))
    rows.append(
        Row(
            f"{label}, vs the floor (`json.loads` on every line)",
            ms(ours.ms),
            f"floor {ms(floor.ms)}",
            f"{floor.seconds / ours.seconds:.2f}x the floor's throughput",
        )
    )
    return rows


MODES = {
    "": [],
    " --include-tools": ["--include-tools"],
    " --include-thinking": ["--include-thinking"],
    " --include-tools --include-thinking": ["--include-tools", "--include-thinking"],
}
FULL = " --include-tools --include-thinking"


def size_variants() -> dict[str, list[str]]:
    """Every mode of ``transcript`` and ``export``: label -> arguments after the id."""
    variants = {}
    for label, flags in MODES.items():
        variants[f"transcript{label}"] = ["transcript", "{id}", *flags]
    variants[f"transcript --json{FULL}"] = ["transcript", "{id}", "--json", *MODES[FULL]]
    for fmt in ("json", "md"):
        for label, flags in MODES.items():
            variants[f"export --format {fmt}{label}"] = ["export", "{id}", "--format", fmt, *flags]
    return variants


def sized_session(size_mb: int) -> Path:
    """A Claude data folder with one session of ``size_mb`` MB (the 300 MB one is run.py's)."""
    root = None if size_mb == 300 else SCALE / f"session-{size_mb}mb" / "claude"
    return run.big_session(size_mb, root)


def size_goal(label: str) -> float:
    """The throughput goal, as a share of the floor's: 0.3 with tool calls or thinking shown,
    0.8 without."""
    return 0.3 if "--include" in label else 0.8


def size_rows(plan: Plan) -> list[Row]:
    """Every mode at every size against the floor (``json.loads`` on every line of the same
    file, interleaved with them); then how the time per MB grows from the smallest size."""
    rows = []
    out = SCALE / "out"
    out.mkdir(parents=True, exist_ok=True)
    per_mb: dict[str, dict[int, float]] = {}
    for size_mb in plan.sizes:
        root = sized_session(size_mb)
        session = next((root / "projects").glob("*/*.jsonl"))
        size = session.stat().st_size / 1e6
        commands = {"floor": [sys.executable, "-c", run.FLOOR_SCRIPT, str(session)]}
        for label, args in size_variants().items():
            argv = [SCRIPT, *(a.replace("{id}", run.BIG_SESSION) for a in args)]
            commands[label] = [*argv, "--claude-dir", str(root), "-o", str(out / "sized.out")]
        runs = plan.runs if size_mb <= 3 else plan.big_runs
        got = interleaved(commands, runs, warm_up=size_mb <= 3)
        floor = got.pop("floor")
        for label, figure in got.items():
            share = floor.seconds / figure.seconds
            per_mb.setdefault(label, {})[size_mb] = figure.seconds / size
            goal = size_goal(label)
            rows.append(
                Row(
                    f"`{label}`, {size:.0f} MB",
                    f"{figure.seconds:.2f} s",
                    f"floor {floor.seconds:.2f} s",
                    f"{share:.2f}x the floor's throughput, {figure.mib:.0f} MiB peak",
                    f">= {goal}x, <= 150 MiB",
                    share >= goal and figure.mib <= 150 if size_mb >= 30 or plan.quick else None,
                )
            )
    if len(plan.sizes) > 1:
        small, big = sorted(plan.sizes)[-2:]  # the smallest is mostly start-up
        for label, seconds in per_mb.items():
            growth = seconds[big] / seconds[small]
            rows.append(
                Row(
                    f"`{label}`: time per MB at {big} MB against {small} MB",
                    f"{growth:.2f}x",
                    "",
                    "",
                    "linear (<= 1.3x)",
                    growth <= 1.3,
                )
            )
    return rows


def corpus(count: int) -> Path:
    """``count`` sessions: the fixture sessions hard-linked under new ids (resurrection.py's)."""
    import resurrection

    return resurrection.many_sessions(count)


def folder_mb(root: Path) -> float:
    return sum(p.stat().st_size for p in root.rglob("*.jsonl")) / 1e6


def find_rows(plan: Plan) -> list[Row]:
    count = plan.find_sessions
    root = corpus(count)
    size = folder_mb(root)
    cold_env = cached_env("find-cold")
    cold_argv = [SCRIPT, "find", FIND_QUERY, "--claude-dir", str(root)]

    def empty_cache(_name: str) -> None:
        shutil.rmtree(cold_env["XDG_CACHE_HOME"], ignore_errors=True)

    cold = interleaved(
        {"cold": cold_argv}, plan.big_runs, env=cold_env, before=empty_cache, warm_up=False
    )["cold"]
    got = interleaved({"warm": cold_argv, "pass": PASS}, plan.runs, env=cached_env("find-warm"))
    warm, start = got["warm"], got["pass"]
    label = f"{count:,} sessions / {size / 1000:.2f} GB"
    cold_ratio, cold_met = at_most(cold.seconds, 8)
    warm_ratio, warm_met = at_most(warm.ms, 150)
    return [
        Row(
            f"`find` cold index build, {label}",
            f"{cold.seconds:.1f} s",
            "",
            f"{cold_ratio}, {cold.mib:.0f} MiB peak",
            "<= 8 s (and a progress bar on a terminal: not measured here)",
            cold_met,
        ),
        Row(
            f"`find` warm, whole process, {label}",
            ms(warm.ms),
            f"python -c pass {ms(start.ms)} (the machine's pace)",
            f"{warm_ratio}; {warm.ms / start.ms:.1f}x python -c pass",
            "<= 150 ms",
            warm_met,
        ),
    ]  # fmt: skip


def sessions_rows(plan: Plan) -> list[Row]:
    count = plan.list_sessions
    root = corpus(count)
    size = folder_mb(root)
    argv = [SCRIPT, "sessions", "--all", "--claude-dir", str(root)]
    both = interleaved({"sessions": argv, "pass": PASS}, plan.runs, env=cached_env("sessions"))
    got, start = both["sessions"], both["pass"]
    ratio, met = at_most(got.ms, 150)
    return [
        Row(
            f"`sessions --all`, {count} sessions / {size:.0f} MB, warm",
            ms(got.ms),
            f"python -c pass {ms(start.ms)} (the machine's pace)",
            f"{ratio}, {got.mib:.0f} MiB peak; {got.ms / start.ms:.1f}x python -c pass",
            "<= 150 ms",
            met,
        )
    ]


# A realistic resurrection log: entries over the last year, newest last, about 700 bytes each.
_AGENTS = ["a2898e3", "a7be2f0", None, "6690d10e", None, "f4ab2bf6"]
_SESSIONS = ["4d5611e5", "8463c716", "fe5e1c67", "short", "tool_heavy", "1af7fc5e"]
_MODES = ["bookmark", "fuzzy", "direct"]
_OUTCOMES = ["success", "success", "success", "partial", "failure"]


def log_entry(number: int, moment: datetime, day_number: int) -> dict:
    agent = _AGENTS[number % len(_AGENTS)]
    mode = _MODES[number % 3]
    outcome = _OUTCOMES[number % len(_OUTCOMES)]
    return {
        "resurrection_id": f"res-{moment:%Y-%m-%d}-{day_number:03d}",
        "bookmark_id": f"bm-{number % 97}" if mode == "bookmark" else None,
        "resurrected_from_agent_id": agent,
        "resurrected_from_session_id": _SESSIONS[number % len(_SESSIONS)],
        "resurrected_from_hostname": f"host-{number % 4}",
        "resurrected_from_project": f"/home/USER/projects/project-{number % 40:02d}",
        "resurrected_as_agent_id": f"agent-{number:06d}" if outcome != "failure" else None,
        "resurrected_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "resurrected_in_session": f"00000000-0000-4000-9000-{number:012d}",
        "resurrected_in_project": f"/home/USER/projects/project-{(number * 7) % 40:02d}",
        "resurrected_by": "user" if number % 5 else "autonomous",
        "resurrection_mode": mode,
        "query": "tmux module test setup" if mode == "fuzzy" else None,
        "context_extraction_method": ("hybrid", "full", "summarized")[number % 3],
        "context_size_tokens": 1000 + (number * 37) % 20000,
        "outcome": outcome,
        "outcome_reason": "context too large for the new agent" if outcome == "failure" else None,
        "notes": f"resumed work on bead spotter-{number % 300:03d}; tests green again",
        "new_agent_duration_ms": 60_000 + (number * 911) % 3_600_000,
        "new_agent_tool_calls": number % 120,
        "resurrected_from_agent_type": "Explore" if agent else "main",
        "cross_repo": number % 6 == 0,
        "context_tokens_before": 40_000 + (number * 53) % 100_000,
        "redactions": number % 3,
        "latency_ms": 80 + (number * 13) % 900,
    }


def resurrection_log(lines: int) -> tuple[Path, str]:
    """A Claude data folder whose log holds ``lines`` entries over the last 365 days up to now
    (so ``--since 1d`` selects the last day's); rewritten on every run to stay current. Returns
    the folder and the id of its newest entry."""
    root = SCALE / f"log-{lines}" / "claude"
    log = root / "history" / "resurrection-log.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    for stale in log.parent.iterdir():
        stale.unlink()
    now = datetime.now(timezone.utc).replace(microsecond=0)
    step = timedelta(days=365) / lines
    per_day: dict[str, int] = {}
    with open(log, "w") as handle:
        for number in range(lines):
            moment = now - step * (lines - 1 - number)
            day = f"{moment:%Y-%m-%d}"
            per_day[day] = per_day.get(day, 0) + 1
            entry = log_entry(number, moment, per_day[day])
            handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
    return root, entry["resurrection_id"]


def resurrect_done_rows(plan: Plan) -> list[Row]:
    lines = plan.log_lines
    big, big_id = resurrection_log(lines)
    one, one_id = resurrection_log(1)
    done = ["resurrect", "done", "{id}", "--outcome", "success", "--agent-id", "agent-new"]
    done += ["--duration-ms", "4000", "--tool-calls", "7", "--notes", "finished"]
    commands = {
        "one": [SCRIPT, *(a.replace("{id}", one_id) for a in done), "--claude-dir", str(one)],
        "big": [SCRIPT, *(a.replace("{id}", big_id) for a in done), "--claude-dir", str(big)],
    }
    got = interleaved(commands, plan.runs)
    growth = got["big"].rss / got["one"].rss
    slower = got["big"].seconds / got["one"].seconds
    return [
        Row(
            f"`resurrect done ID` with a {lines:,}-line log, whole process",
            ms(got["big"].ms),
            f"1-line log {ms(got['one'].ms)}",
            f"{slower:.2f}x",
            "<= 1.5x the 1-line log",
            slower <= 1.5,
        ),
        Row(
            f"`resurrect done ID` with a {lines:,}-line log, peak RSS",
            f"{got['big'].mib:.0f} MiB",
            f"1-line log {got['one'].mib:.0f} MiB",
            f"{growth:.2f}x",
        ),
    ]


def resurrect_rows(plan: Plan) -> list[Row]:
    """``resurrect --session ID --yes -o FILE`` of the biggest session, cold (no kept
    context): its peak memory."""
    size_mb = max(plan.sizes)
    root = sized_session(size_mb)
    env = cached_env("resurrect")
    argv = [SCRIPT, "resurrect", "--session", run.BIG_SESSION, "--yes"]
    argv += ["-o", str(SCALE / "out" / "resurrect.md"), "--claude-dir", str(root)]
    (SCALE / "out").mkdir(parents=True, exist_ok=True)

    def cold(_name: str) -> None:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)

    got = interleaved({"resurrect": argv}, plan.big_runs, env=env, before=cold, warm_up=False)
    figure = got["resurrect"]
    return [
        Row(
            f"`resurrect --session` of a {size_mb} MB session, cold, peak RSS",
            f"{figure.mib:.0f} MiB",
            f"{figure.seconds:.1f} s",
            "",
            "<= 150 MiB",
            figure.mib <= 150,
        )
    ]


def resurrections_rows(plan: Plan) -> list[Row]:
    lines = plan.log_lines
    root, _ = resurrection_log(lines)
    log = root / "history" / "resurrection-log.jsonl"
    env = cached_env("resurrections")  # where the reads keep what they take from the log
    base = [SCRIPT, "resurrections"]
    commands = {
        "resurrections": [*base, "--claude-dir", str(root)],
        "resurrections stats": [*base, "stats", "--claude-dir", str(root)],
        "resurrections --since 1d": [*base, "--since", "1d", "--claude-dir", str(root)],
    }
    got = interleaved(commands, plan.runs, env=env)
    rows = [
        Row(
            f"`{label}`, {lines:,} lines",
            ms(figure.ms),
            "",
            f"{figure.ms / 400:.2f}x of 400 ms, {figure.mib:.0f} MiB peak",
            "<= 400 ms, <= 60 MiB",
            figure.ms <= 400 and figure.mib <= 60,
        )
        for label, figure in got.items()
    ]

    def empty_cache(_name: str) -> None:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)

    def one_more_line(_name: str) -> None:  # what `resurrect done` appends: a revision
        with open(log, "rb+") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - 4096))
            last = json.loads(handle.read().splitlines()[-1])
            last = {**last, "outcome": "partial", "revision": last.get("revision", 1) + 1}
            handle.write(json.dumps(last, separators=(",", ":")).encode() + b"\n")

    listing = commands["resurrections"]
    for label, runs, before in (
        ("cache made (its first run)", plan.big_runs, empty_cache),
        ("right after a line was appended (cache extended)", plan.runs, one_more_line),
    ):
        figure = interleaved({label: listing}, runs, env=env, before=before, warm_up=False)[label]
        rows.append(
            Row(
                f"`resurrections`, {lines:,} lines, {label}",
                ms(figure.ms),
                "",
                f"{figure.ms / 400:.2f}x of 400 ms, {figure.mib:.0f} MiB peak",
            )
        )
    return rows


def stall_repository(files: int) -> Path:
    """stall_check.py's repository (its own copy) with uncommitted edits: 20 changed files,
    5 new ones, one deleted."""
    root = SCALE / f"stall-{files}"
    stall_check.build(root, files)
    src = root / "src"
    for n in range(20):
        (src / f"pkg{n % 100:03d}" / f"module{n + 100:05d}.py").write_text(f"VALUE = {n} * 2\n")
    for n in range(5):
        (src / f"new_module{n}.py").write_text("NEW = True\n")
    (src / "pkg050" / "module00050.py").unlink(missing_ok=True)
    return root


def stall_rows(plan: Plan) -> list[Row]:
    root = stall_repository(plan.stall_files)
    got = interleaved(
        {
            "git status": ["git", "status", "--porcelain"],
            "stall": [SCRIPT, "stall", "check", stall_check.AGENT, "--json"],
            "pass": PASS,
        },
        plan.runs,
        cwd=root,
        ok=(0, 3),  # 3: stalled
    )
    value = got["stall"].ms
    ratio, met = at_most(value, 150)
    return [
        Row(
            f"`stall check` on a {plan.stall_files:,}-file tree with uncommitted edits",
            ms(value),
            f"`git status --porcelain` {ms(got['git status'].ms)}, python -c pass "
            f"{ms(got['pass'].ms)}",
            f"{ratio}; {value / got['pass'].ms:.1f}x python -c pass",
            "<= 150 ms",
            met,
        )
    ]


MEASURES: dict[str, Callable[[Plan], list[Row]]] = {
    "transcript": transcript_rows,
    "sizes": size_rows,
    "find": find_rows,
    "sessions": sessions_rows,
    "resurrect-done": resurrect_done_rows,
    "resurrections": resurrections_rows,
    "stall": stall_rows,
    "resurrect": resurrect_rows,
}


# ---------------------------------------------------------------------------------------------
# report


def verdict(met: bool | None) -> str:
    return {True: "met", False: "MISSED", None: ""}[met]


def table(rows: list[Row]) -> str:
    lines = [
        "| measurement | median | anchor | ratio | goal | |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        cells = (row.measure, row.value, row.anchor, row.ratio, row.goal, verdict(row.met))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def installed_version() -> str:
    done = subprocess.run([SCRIPT, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or done.stderr.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per median (default 5)")
    parser.add_argument(
        "--big-runs", type=int, default=3, help="runs at 30/300 MB and cold builds (default 3)"
    )
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke test)")
    parser.add_argument("--only", action="append", choices=ROWS, help="this row only (repeatable)")
    parser.add_argument(
        "--cpu", action="store_true", help="time as user + system CPU (a loaded machine)"
    )
    args = parser.parse_args(argv)
    CPU[0] = args.cpu
    if args.runs < 1 or args.big_runs < 1:
        parser.error("--runs and --big-runs must be at least 1")
    if not (run.FIXTURES / run.SOURCES[0]).exists():
        print(
            f"the real transcripts are not at {run.FIXTURES} (set PURLIN_FIXTURES)", file=sys.stderr
        )
        return 1
    if not Path(SCRIPT).exists():
        print(f"no purlin-resume next to {sys.executable}: install it first", file=sys.stderr)
        return 1
    SCALE.mkdir(parents=True, exist_ok=True)
    plan = Plan(args.runs, args.big_runs, args.quick)
    load = os.getloadavg()[0]
    print(
        f"{installed_version()} · Python {sys.version.split()[0]} · "
        f"{os.cpu_count()} cores, "
        f"load {load:.1f} · medians of {args.runs} runs ({args.big_runs} at 30/300 MB and cold)"
        + (" · CPU time" if args.cpu else "")
        + (" · QUICK: small sizes, not the issue's" if args.quick else "")
    )
    rows: list[Row] = []
    for name in args.only or ROWS:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        rows += MEASURES[name](plan)
    print(table(rows))
    missed = sum(1 for row in rows if row.met is False)
    print(f"\n{sum(1 for r in rows if r.met)} goals met, {missed} missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
