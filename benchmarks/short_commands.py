"""CPU time of the short commands as whole processes, against ``python -c pass``.

    .venv/bin/python benchmarks/short_commands.py [--runs 9] [--sessions 120] [--also NAME=SCRIPT]

Each command runs through the installed console script (this interpreter's ``purlin-resume``);
``--also before=/tmp/before/.venv/bin/purlin-resume`` (repeatable) measures another checkout's
console script beside it. Every run of every command, of both versions and of the
anchor is interleaved; each figure is the median CPU time (user + system, from ``wait4``) of
``--runs`` runs, so other load on the machine counts less than in wall time. Budget: each
command at most 15x ``python -c pass`` (this very interpreter). Typer's own share is measured
beside them, by the interpreter of each console script (its own Typer): a bare Typer command of
one argument and four options (the shape of ``resurrect done``), with no purlin-resume code.
The processes run without ``PYTHONDONTWRITEBYTECODE``: the first, uncounted round writes the
bytecode of an editable checkout, as an installed package has it.

The commands: ``--version``, ``--help``, ``resurrect done`` on a log of one entry (put back
before every run), ``sessions --all`` and ``find tmux`` warm over ``--sessions`` sessions (the
fixture sessions hard-linked under new ids; each version has its own cache folder, filled by a
first run that is not counted), ``transcript`` of the 3.2 MB fixture session (written to
``-o``), and ``stall check`` of an agent in a small git project. The data is made under
``benchmarks/.work/short/`` (``PURLIN_BENCH_WORK``), never committed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("PURLIN_BENCH_WORK", HERE / ".work")) / "short"
FIXTURES = Path(os.environ.get("PURLIN_FIXTURES", HERE.parent / "tests" / "fixtures" / "claude"))
SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
BUDGET = 15.0
SESSION = "4d5611e5"
RESURRECTION = "res-2026-01-05-001"
LOG_ENTRY = {
    "resurrection_id": RESURRECTION,
    "bookmark_id": None,
    "resurrected_from_agent_id": None,
    "resurrected_from_session_id": "4d5611e5-241a-462a-8d15-5122611a9569",
    "resurrected_from_hostname": "bench-host",
    "resurrected_from_project": "/home/USER/projects/spotter",
    "resurrected_as_agent_id": "agent-0000001",
    "resurrected_at": "2026-01-05T09:00:00Z",
    "resurrected_in_session": None,
    "resurrected_in_project": "/home/USER/projects/spotter",
    "resurrected_by": "user",
    "resurrection_mode": "direct",
    "query": None,
    "context_extraction_method": "hybrid",
    "context_size_tokens": 4200,
    "outcome": "success",
    "outcome_reason": None,
    "notes": None,
    "new_agent_duration_ms": None,
    "new_agent_tool_calls": None,
}

# A Typer command with the parameters of `resurrect done`, and nothing else: Typer's own cost.
BARE = "bare Typer command"
BARE_TYPER = """
from typing import Optional
import typer
app = typer.Typer()
@app.callback()
def root(no_redact: bool = False): pass
@app.command()
def done(rid: str, outcome: str = "success", agent_id: Optional[str] = None,
         notes: Optional[str] = None, as_json: bool = typer.Option(False, "--json")):
    print(rid, outcome)
app()
"""

sys.path.insert(0, str(HERE))
from resurrection import many_sessions  # noqa: E402
from stall_check import AGENT  # noqa: E402
from stall_check import build as build_project  # noqa: E402


def cpu_seconds(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The user + system CPU time of one whole process (its output thrown away)."""
    child = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def commands(script: str, data: dict[str, Path]) -> dict[str, list[str]]:
    corpus, claude, out = str(data["corpus"]), str(data["claude"]), str(data["out"])
    python = str(Path(script).with_name("python"))
    return {
        BARE: [python, "-c", BARE_TYPER, "done", "res-1", "--agent-id", "a"],
        "--version": [script, "--version"],
        "--help": [script, "--help"],
        "resurrect done": [script, "resurrect", "done", RESURRECTION, "--outcome", "success"]
        + ["--claude-dir", str(data["log_claude"])],
        "sessions --all (warm)": [script, "sessions", "--all", "--claude-dir", corpus],
        "find tmux (warm)": [script, "find", "tmux", "--claude-dir", corpus],
        "transcript 3.2 MB": [script, "transcript", SESSION, "--claude-dir", claude, "-o", out],
        "stall check": [script, "stall", "check", AGENT, "--json"],
    }


def prepare(name: str, sessions: int) -> dict[str, Path]:
    """The data of one version: its cache folder, its log and its output file."""
    own = WORK / name
    own.mkdir(parents=True, exist_ok=True)
    return {
        "corpus": many_sessions(sessions),
        "claude": FIXTURES,
        "log_claude": own / "claude",
        "out": own / "transcript.md",
        "cache": own / "cache",
        "project": WORK / "project",
    }


def reset_log(data: dict[str, Path]) -> None:
    log = data["log_claude"] / "history" / "resurrection-log.jsonl"
    shutil.rmtree(log.parent, ignore_errors=True)
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps(LOG_ENTRY, separators=(",", ":")) + "\n")


def measure(versions: dict[str, str], runs: int, sessions: int) -> dict[str, dict[str, float]]:
    """Median CPU seconds of every command of every version, and of the anchor."""
    plans = {}
    for name, script in versions.items():
        data = prepare(name, sessions)
        env = {**ENV, "XDG_CACHE_HOME": str(data["cache"]), "COLUMNS": "100"}
        plans[name] = (data, env, commands(script, data))
    build_project(WORK / "project", 200)
    taken: dict[str, dict[str, list[float]]] = {name: {} for name in versions}
    anchor: list[float] = []
    for number in range(runs + 1):  # the first round fills the caches and is not counted
        seconds = cpu_seconds([sys.executable, "-c", "pass"], WORK, ENV)
        if number:
            anchor.append(seconds)
        for name, (data, env, argvs) in plans.items():
            for label, argv in argvs.items():
                reset_log(data)
                cwd = data["project"] if label == "stall check" else WORK
                seconds = cpu_seconds(argv, cwd, env)
                if number:
                    taken[name].setdefault(label, []).append(seconds)
    figures = {
        name: {k: statistics.median(v) for k, v in got.items()} for name, got in taken.items()
    }
    figures["anchor"] = {"python -c pass": statistics.median(anchor)}
    return figures


def check_outputs(versions: dict[str, str], sessions: int) -> None:
    """Each command of each version ends as it should (0; ``stall check`` 0 or 3)."""
    for name, script in versions.items():
        data = prepare(name, sessions)
        env = {**ENV, "XDG_CACHE_HOME": str(data["cache"])}
        for label, argv in commands(script, data).items():
            reset_log(data)
            cwd = data["project"] if label == "stall check" else WORK
            done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
            if done.returncode not in ((0, 3) if label == "stall check" else (0,)):
                raise SystemExit(f"{name}: {label} failed ({done.returncode}): {done.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per median (default 9)")
    parser.add_argument("--sessions", type=int, default=120, help="sessions listed (default 120)")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="NAME=SCRIPT",
        help="another checkout's purlin-resume, measured beside (repeatable)",
    )
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    build_project(WORK / "project", 200)
    versions = {"now": SCRIPT}
    for given in args.also:
        name, _, script = given.partition("=")
        if not script or name in versions:
            parser.error(f"--also {given}: give NAME=SCRIPT, a name of its own")
        versions[name] = script
    check_outputs(versions, args.sessions)
    figures = measure(versions, args.runs, args.sessions)
    anchor = figures["anchor"]["python -c pass"]
    print(
        f"CPU time, medians of {args.runs} interleaved runs, load {os.getloadavg()[0]:.1f}; "
        f"python -c pass = {anchor * 1000:.1f} ms"
    )
    head = "| command |" + "".join(f" {name} | ratio |" for name in versions) + " budget |"
    print(head)
    print("|---|" + "---|---|" * len(versions) + "---|")
    for label in figures["now"]:
        cells = []
        for name in versions:
            seconds = figures[name][label]
            cells.append(f" {seconds * 1000:.1f} ms | {seconds / anchor:.1f}x |")
        ratio = figures["now"][label] / anchor
        verdict = f"<= {BUDGET:.0f}x: " + ("met" if ratio <= BUDGET else "MISSED")
        print(f"| `{label}` |" + "".join(cells) + f" {verdict if label != BARE else '-'} |")


if __name__ == "__main__":
    main()
