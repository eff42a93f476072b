"""Time and peak memory of ``transcript`` and ``export`` in every mode, at 3, 30 and 300 MB.

    .venv/bin/python benchmarks/transcripts.py [--runs 3] [--sizes 3,30,300] [--against DIR]

Each size is a session made by repeating real fixture lines with fresh ids (``run.big_session``,
generated under benchmarks/.work/, never committed). Each row is one whole process of the venv's
own interpreter writing to ``-o``: the median wall time of ``--runs`` runs, MB/s of wall and of
CPU time (user + system: what a loaded machine does not distort), the highest peak RSS of its
runs, and the ratio of its CPU time to the anchor's, ``json.loads`` on every line of the same
file in-process (the floor). Cost should grow linearly (MB/s about the same at every size)
and memory stay flat (peak RSS about the same at every size).

``--against DIR``: run the same commands from another checkout (``git archive`` of an older
commit, say), whose package ``python -m`` then imports, and print its figures beside ours.

Targets (issue 19): 300 MB with tools and thinking >= 80 MB/s, peak RSS <= 150 MiB, in every mode.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import run

MODES = {
    "transcript": ("transcript",),
    "transcript tools": ("transcript", "--include-tools"),
    "transcript thinking": ("transcript", "--include-thinking"),
    "transcript tools+thinking": ("transcript", "--include-tools", "--include-thinking"),
    "export json": ("export",),
    "export json tools+thinking": ("export", "--include-tools", "--include-thinking"),
    "export md tools+thinking": (
        "export",
        "--format",
        "md",
        "--include-tools",
        "--include-thinking",
    ),
}
MIB = 1024 * 1024


def session(size_mb: int) -> Path:
    """The Claude data folder of a generated session of ``size_mb`` MB."""
    run.WORK = run.HERE / ".work" / f"scale-{size_mb}"
    run.WORK.mkdir(parents=True, exist_ok=True)
    return run.big_session(size_mb)


def one_process(argv: list[str], where: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (bytes) of one process run from
    ``where`` (``python -m`` imports the package of the working folder first)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=where, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{stderr}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def measure(argv: list[str], runs: int, where: Path) -> tuple[float, float, int]:
    """Median wall and CPU seconds and the highest peak RSS of ``runs`` fresh processes."""
    results = [one_process(argv, where) for _ in range(runs)]
    return (
        statistics.median(r[0] for r in results),
        statistics.median(r[1] for r in results),
        max(r[2] for r in results),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="3,30,300")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated names")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    modes = [name.strip() for name in args.modes.split(",")]
    versions = [("ours", run.REPO)]
    if args.against is not None:
        versions.insert(0, (f"against {args.against}", args.against.resolve()))
    output = run.WORK / "scale-output"
    rows = []
    for size_mb in sizes:
        root = session(size_mb)
        path = next((root / "projects").glob("*/*.jsonl"))
        megabytes = path.stat().st_size / 1e6
        started = time.process_time()
        run.floor(path)
        floor = time.process_time() - started
        rows.append((f"{megabytes:.0f} MB: json.loads every line (anchor)", f"{floor:.2f} s", ""))
        for mode in modes:
            argv = [sys.executable, "-m", "purlin_resume", *MODES[mode], run.BIG_SESSION]
            argv += ["--claude-dir", str(root), "-o", str(output)]
            for version, where in versions:
                seconds, cpu, peak = measure(argv, args.runs, where)
                rows.append(
                    (
                        f"{megabytes:.0f} MB: {mode} ({version})",
                        f"{seconds:.2f} s",
                        f"{megabytes / seconds:.0f} MB/s ({megabytes / cpu:.0f} MB/s of CPU), "
                        f"{cpu / floor:.1f}x anchor, peak RSS {peak / MIB:.0f} MiB",
                    )
                )
                print(*rows[-1], sep="  ", file=sys.stderr)
    run.report(f"transcript and export, medians of {args.runs} runs", rows)


if __name__ == "__main__":
    main()
