"""Start-up cost of ``purlin-resume`` commands, against a bare interpreter.

    .venv/bin/python benchmarks/startup.py [--runs 30] [--imports]

Times, interleaved, whole processes of the console script next to the running interpreter:
``purlin-resume --version`` (start-up alone), ``purlin-resume --help`` (replaying the kept page,
and rendering it with no page kept), ``purlin-resume sessions --all --claude-dir
examples/claude`` (a read command with path and choice options) and ``purlin-resume
checkpoints`` in a fresh temporary git repository (a project command). The anchor is
``python -c pass`` on the same interpreter. Prints each median and its ratio to the anchor
(goals: ``--version`` <= 4x, ``--help`` <= 8x).
``--imports`` also prints the slowest imports of ``--version`` (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))


def commands(project: Path) -> dict[str, tuple[list[str], Path]]:
    claude = str(REPO / "examples" / "claude")
    return {
        "anchor: python -c pass": ([sys.executable, "-c", "pass"], REPO),
        "purlin-resume --version": ([SCRIPT, "--version"], REPO),
        "purlin-resume --help (the kept page)": ([SCRIPT, "--help"], REPO),
        "purlin-resume --help (rendered: no kept page)": ([SCRIPT, "--help"], Path("/")),
        "purlin-resume sessions --all --claude-dir examples/claude": (
            [SCRIPT, "sessions", "--all", "--claude-dir", claude],
            REPO,
        ),
        "purlin-resume checkpoints (temp git repo)": ([SCRIPT, "checkpoints"], project),
    }


def timed(argv: list[str], cwd: Path, cache: Path) -> float:
    """One run; the kept --help page lives in ``cache``, except for the run from ``/``, which
    gets an empty cache folder every time (what the first --help after an upgrade costs)."""
    fresh = cwd == Path("/")
    if fresh:
        shutil.rmtree(cache / "fresh", ignore_errors=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache / ("fresh" if fresh else "kept"))}
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=env)
    return (time.perf_counter() - started) * 1000


def slowest_imports(count: int = 15) -> str:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "purlin_resume", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    return "\n".join(f"{us / 1000:7.1f} ms {name}" for us, name in rows[:count])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--imports", action="store_true", help="show the slowest imports too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project, cache = Path(tmp) / "project", Path(tmp) / "cache"
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        table = commands(project)
        times: dict[str, list[float]] = {name: [] for name in table}
        for argv, cwd in table.values():  # warm-up: caches, .pyc files, the kept --help page
            timed(argv, cwd, cache)
        for _ in range(args.runs):
            for name, (argv, cwd) in table.items():
                times[name].append(timed(argv, cwd, cache))
    medians = {name: statistics.median(values) for name, values in times.items()}
    anchor = medians["anchor: python -c pass"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"medians of {args.runs} interleaved runs ({os.cpu_count()} cores, load {load:.1f})")
    for name, value in medians.items():
        print(f"{name:<58} {value:7.1f} ms  {value / anchor:5.1f}x the anchor")
    if args.imports:
        print("\nslowest imports of `purlin-resume --version` (cumulative):")
        print(slowest_imports())


if __name__ == "__main__":
    main()
