"""Speed and memory of the transcript engine against its anchors.

    .venv/bin/python benchmarks/run.py [--runs 5] [--big-runs 3] [--size-mb 300] [--quality]

Prints, from one run (medians of --runs repetitions):

1. ``transcript`` of the 3.2 MB fixture session, against ``claude-code-log convert … -o x.md``
   (installed into its own venv under benchmarks/.work/) and against the floor of ``json.loads``
   on every line; both as whole processes and, for the engine, in-process;
2. throughput (MB/s) and peak RSS of ``transcript`` on a ~300 MB session made by repeating real
   fixture lines with fresh uuids (generated into benchmarks/.work/, never committed).

Targets: >= 5x faster than claude-code-log, <= 3x the floor, >= 100 MB/s, peak RSS <= 150 MB.

Then the quality measures (``QUALITY``: judgements, not timings; ``--quality`` prints only them).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work"
FIXTURES = Path(os.environ.get("PURLIN_FIXTURES", REPO / "tests" / "fixtures" / "claude"))
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
SESSION_FOLDER = "-home-USER-projects-spotter-worktrees-spotter-dov"
SOURCES = [
    f"projects/{SESSION_FOLDER}/{SESSION}.jsonl",
    "projects/-home-USER-projects-spotter-worktrees-spotter-fum/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
]
BIG_SESSION = "b16b16b1-0000-4000-8000-000000000300"
QUALITY = ("search_quality", "findings")  # modules of this folder whose main(argv) prints one
CCL_VENV = WORK / "ccl-venv"
_UUID = re.compile(rb"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{4}([0-9a-f]{8})")
_API_ID = re.compile(rb"\b((?:msg|toolu|req)_[A-Za-z0-9]{8,})")


def run_process(
    argv: list[str], ok: tuple[int, ...] = (0,), cpu: bool = False, **kwargs
) -> tuple[float, int]:
    """Wall seconds (``cpu``: its user + system seconds) and peak RSS (bytes) of one process
    (exit codes other than ``ok`` stop)."""
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a chatty stderr cannot block
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors, **kwargs)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in ok:
            errors.seek(0)
            stderr = errors.read().decode(errors="replace")
            raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}):\n{stderr}")
    if cpu:
        elapsed = usage.ru_utime + usage.ru_stime
    return elapsed, usage.ru_maxrss * 1024


def median_process(argv: list[str], runs: int) -> tuple[float, int]:
    results = [run_process(argv) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def median_call(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def floor(path: Path) -> None:
    loads = json.loads
    with open(path, "rb") as handle:
        for line in handle:
            loads(line)


# claude-code-log's own conversion, timed inside its interpreter after a warm-up call (imports
# done). It caches by path in memory, so every timed call converts a fresh copy of the folder.
CCL_INPROCESS = """
import shutil, statistics, sys, time
from pathlib import Path
from claude_code_log.converter import convert_jsonl_to
folder, name, scratch, runs = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
times = []
for run in range(runs + 1):
    copy = scratch / str(run)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy)
    started = time.perf_counter()
    convert_jsonl_to("md", copy / name, copy / "x.md", use_cache=False, silent=True)
    if run:
        times.append(time.perf_counter() - started)
print(statistics.median(times))
"""
FLOOR_SCRIPT = "import json,sys\nfor line in open(sys.argv[1],'rb'): json.loads(line)\n"


def claude_code_log() -> Path:
    binary = CCL_VENV / "bin" / "claude-code-log"
    if not binary.exists():
        print(f"installing claude-code-log into {CCL_VENV} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(CCL_VENV)], check=True)
        subprocess.run(
            [str(CCL_VENV / "bin" / "pip"), "install", "-q", "claude-code-log"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return binary


def small_copy() -> Path:
    """A writable copy of the fixture project (claude-code-log may write beside its input)."""
    root = WORK / "small" / "claude"
    if not (root / "projects" / SESSION_FOLDER / f"{SESSION}.jsonl").exists():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(FIXTURES / "projects" / SESSION_FOLDER, root / "projects" / SESSION_FOLDER)
        for path in root.rglob("*"):
            path.chmod(path.stat().st_mode | 0o200)
    return root


def big_session(size_mb: int, root: Path | None = None) -> Path:
    """A Claude data folder (``root``) holding one session of about ``size_mb`` MB: real fixture
    lines repeated with fresh ids."""
    root = root or WORK / "big" / "claude"
    target = root / "projects" / "-bench-big" / f"{BIG_SESSION}.jsonl"
    if target.exists() and abs(target.stat().st_size / 1e6 - size_mb) < max(size_mb * 0.05, 1):
        return root
    target.parent.mkdir(parents=True, exist_ok=True)
    sources = [(FIXTURES / name).read_bytes().splitlines(keepends=True) for name in SOURCES]
    print(f"generating a {size_mb} MB session in {target} ...", file=sys.stderr)
    written = 0
    repetition = 0
    with open(target, "wb") as out:
        while written < size_mb * 1_000_000:
            lines = sources[repetition % len(sources)]
            tag = b"%04x" % (repetition % 0x10000)
            suffix = b"r%d" % repetition
            for line in lines:
                line = _UUID.sub(lambda m, tag=tag: m.group(1) + tag + m.group(2), line)
                line = _API_ID.sub(lambda m, suffix=suffix: m.group(1) + suffix, line)
                out.write(line)
                written += len(line)
            repetition += 1
    return root


def cli(root: Path, identifier: str, output: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "purlin_resume", "transcript", identifier,
        "--claude-dir", str(root), "-o", str(output), *flags,
    ]  # fmt: skip


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big-runs", type=int, default=3)
    parser.add_argument("--size-mb", type=int, default=300)
    parser.add_argument("--quality", action="store_true", help="Only the quality measures.")
    args = parser.parse_args()
    if args.quality:
        return quality()
    if not (FIXTURES / SOURCES[0]).exists():
        raise SystemExit(f"fixture session not found under {FIXTURES} (set PURLIN_FIXTURES)")
    sys.path.insert(0, str(REPO))
    from purlin_resume.claude import rendering
    from purlin_resume.claude.catalog import Catalog, open_target
    from purlin_resume.claude.transcript import ReadOptions

    WORK.mkdir(exist_ok=True)
    small = small_copy()
    session_file = small / "projects" / SESSION_FOLDER / f"{SESSION}.jsonl"
    size = session_file.stat().st_size
    ccl = claude_code_log()
    runs = args.runs

    def engine(full: bool):
        options = ReadOptions(tools=full, thinking=full)
        opened = open_target(Catalog(small), SESSION, options)
        rendering.render(opened.transcript, rendering.MarkdownOptions(full, full))

    floor_in = median_call(lambda: floor(session_file), runs)
    engine_in = median_call(lambda: engine(False), runs)
    engine_full_in = median_call(lambda: engine(True), runs)
    floor_proc, _ = median_process([sys.executable, "-c", FLOOR_SCRIPT, str(session_file)], runs)
    ours, ours_rss = median_process(cli(small, SESSION, WORK / "ours.md"), runs)
    ours_full, _ = median_process(
        cli(small, SESSION, WORK / "ours-full.md", "--include-tools", "--include-thinking"), runs
    )
    startup, _ = median_process([sys.executable, "-m", "purlin_resume", "--version"], runs)
    theirs, theirs_rss = median_process(
        [str(ccl), "convert", str(session_file), "-o", str(WORK / "x.md"), "--no-cache"], runs
    )

    theirs_in = float(
        subprocess.run(
            [
                str(ccl.parent / "python"),
                "-c",
                CCL_INPROCESS,
                str(session_file.parent),
                session_file.name,
                str(WORK / "ccl-runs"),
                str(runs),
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
    )

    big_root = big_session(args.size_mb)
    big_file = next((big_root / "projects").glob("*/*.jsonl"))
    big_size = big_file.stat().st_size
    big, big_rss = median_process(cli(big_root, BIG_SESSION, WORK / "big.md"), args.big_runs)
    big_floor = median_call(lambda: floor(big_file), 1)

    report(
        f"transcript of {SESSION} ({size / 1e6:.1f} MB), medians of {runs} runs",
        [
            ("json.loads every line, in-process (floor)", ms(floor_in), ""),
            (
                "engine: read + Markdown, in-process",
                ms(engine_in),
                f"{engine_in / floor_in:.2f}x floor",
            ),
            (
                "engine, tools + thinking, in-process",
                ms(engine_full_in),
                f"{engine_full_in / floor_in:.2f}x floor",
            ),
            ("claude-code-log convert_jsonl_to md, in-process", ms(theirs_in), ""),
            ("python json.loads loop, whole process (floor)", ms(floor_proc), ""),
            ("purlin-resume --version (CLI start-up)", ms(startup), ""),
            (
                "purlin-resume transcript -o",
                ms(ours),
                f"{ours / floor_proc:.2f}x floor, peak RSS {ours_rss / 1e6:.0f} MB",
            ),
            (
                "purlin-resume transcript, tools + thinking",
                ms(ours_full),
                f"{ours_full / floor_proc:.2f}x floor",
            ),
            (
                "claude-code-log convert -o x.md --no-cache",
                ms(theirs),
                f"peak RSS {theirs_rss / 1e6:.0f} MB",
            ),
        ],
    )
    throughput = big_size / 1e6 / big
    report(
        f"{big_size / 1e6:.0f} MB session, medians of {args.big_runs} runs",
        [
            (
                "purlin-resume transcript -o",
                f"{big:.2f} s",
                f"{throughput:.0f} MB/s, peak RSS {big_rss / 1e6:.0f} MB",
            ),
            (
                "json.loads every line, in-process (floor)",
                f"{big_floor:.2f} s",
                f"{big_size / 1e6 / big_floor:.0f} MB/s",
            ),
        ],
    )
    report(
        "targets",
        [
            (
                ">= 5x faster than claude-code-log, processes",
                f"{theirs / ours:.1f}x",
                f"{theirs / ours_full:.1f}x with tools + thinking  {verdict(theirs / ours >= 5)}",
            ),
            (
                ">= 5x faster than claude-code-log, in-process",
                f"{theirs_in / engine_in:.1f}x",
                f"{theirs_in / engine_full_in:.1f}x with tools + thinking  {verdict(theirs_in / engine_in >= 5)}",
            ),
            (
                "<= 3x the json.loads floor, in-process",
                f"{engine_in / floor_in:.2f}x",
                verdict(engine_in / floor_in <= 3),
            ),
            (
                "<= 3x the json.loads floor, processes",
                f"{ours / floor_proc:.2f}x",
                verdict(ours / floor_proc <= 3),
            ),
            (">= 100 MB/s", f"{throughput:.0f} MB/s", verdict(throughput >= 100)),
            ("peak RSS <= 150 MB", f"{big_rss / 1e6:.0f} MB", verdict(big_rss / 1e6 <= 150)),
        ],
    )
    quality()


def quality() -> None:
    """Print every quality measure of ``QUALITY``."""
    sys.path.insert(0, str(HERE))
    for name in QUALITY:
        importlib.import_module(name).main([])
        print()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def report(title: str, rows: list[tuple[str, str, str]]) -> None:
    print(title)
    for label, value, note in rows:
        print(f"  {label:<50} {value:>10}  {note}".rstrip())
    print()


if __name__ == "__main__":
    main()
