"""Time and peak memory of ``transcript`` and ``export`` in every mode, at 3, 30 and 300 MB.

    .venv/bin/python benchmarks/transcripts.py [--runs 3] [--sizes 3,30,300] [--against DIR]

Each size is a session made by repeating real fixture lines with fresh ids (``run.big_session``,
generated under benchmarks/.work/, never committed). Each row is one whole process of the venv's
own interpreter writing to ``-o``: the median wall time of ``--runs`` runs, MB/s, the highest peak
RSS of its runs, and the ratio of its time to the anchor, ``json.loads`` on every line of the
same file in-process (the floor). Cost should grow linearly (MB/s about the same at every size)
and memory stay flat (peak RSS about the same at every size).

``--against DIR``: run the same commands with the package of another checkout (``git archive``
of an older commit, say) first on ``PYTHONPATH``, and print its figures beside ours.

Targets (issue 19): 300 MB with tools and thinking >= 80 MB/s, peak RSS <= 150 MiB, in every mode.
"""

from __future__ import annotations

import argparse
import os
import statistics
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


def measure(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, int]:
    """Median wall seconds and the highest peak RSS (bytes) of ``runs`` fresh processes."""
    results = [run.run_process(argv, env=env) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="3,30,300")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated names")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    modes = [name.strip() for name in args.modes.split(",")]
    versions = [("ours", dict(os.environ))]
    if args.against is not None:
        other = dict(os.environ, PYTHONPATH=str(args.against.resolve()))
        versions.insert(0, (f"against {args.against}", other))
    output = run.WORK / "scale-output"
    rows = []
    for size_mb in sizes:
        root = session(size_mb)
        path = next((root / "projects").glob("*/*.jsonl"))
        megabytes = path.stat().st_size / 1e6
        started = time.perf_counter()
        run.floor(path)
        floor = time.perf_counter() - started
        rows.append((f"{megabytes:.0f} MB: json.loads every line (anchor)", f"{floor:.2f} s", ""))
        for mode in modes:
            argv = [sys.executable, "-m", "purlin_resume", *MODES[mode], run.BIG_SESSION]
            argv += ["--claude-dir", str(root), "-o", str(output)]
            for version, env in versions:
                seconds, peak = measure(argv, args.runs, env)
                rows.append(
                    (
                        f"{megabytes:.0f} MB: {mode} ({version})",
                        f"{seconds:.2f} s",
                        f"{megabytes / seconds:.0f} MB/s, {seconds / floor:.1f}x anchor, "
                        f"peak RSS {peak / MIB:.0f} MiB",
                    )
                )
                print(*rows[-1], sep="  ", file=sys.stderr)
    run.report(f"transcript and export, medians of {args.runs} runs", rows)


if __name__ == "__main__":
    main()
