"""Speed of ``sessions --all`` and ``find`` at the scale of a real history, as whole processes.

    .venv/bin/python benchmarks/listing.py [--runs 9] [--sessions 120] [--find-sessions 1000]

1. ``sessions --all`` over --sessions sessions (about 215 MB for 120) made from the fixture
   transcripts, every line with fresh uuids and API ids (generated into benchmarks/.work/, never
   committed): cold (no listing cache) and warm (target <= 150 ms);
2. ``find`` warm over the --find-sessions corpus of benchmarks/resurrection.py (target <= 150 ms)
   and its cold index build, in-process (target <= 8 s for 1,000 sessions).

Anchors, interleaved with the measures: ``python -c pass`` and ``purlin-resume --version`` on
the same interpreter (``sys.executable``). Prints medians and ratios to both anchors.
"""

from __future__ import annotations

import argparse
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
SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
# the big sessions more often than the small ones: about 1.8 MB a session on average
SOURCES = [
    "-home-USER-projects-spotter-worktrees-spotter-dov/4d5611e5-241a-462a-8d15-5122611a9569",
    "-home-USER-projects-spotter-worktrees-spotter-fum/8463c716-a2ea-4c14-9efa-87158ebd9f20",
    "-path-to-Demo/fe5e1c67-53e7-4862-81ae-d0e013e3270b",
    "-home-USER-projects-spotter-worktrees-spotter-dov/4d5611e5-241a-462a-8d15-5122611a9569",
    "-home-USER-projects-spotter-worktrees-spotter-fum/8463c716-a2ea-4c14-9efa-87158ebd9f20",
    "-home-marco-projects-spotter/short",
    "-home-marco-projects-spotter/tool_heavy",
    "-path-to-Demo/1af7fc5e-8455-4414-9ccd-011d40f70b2a",
]
_UUID = re.compile(rb"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{4}([0-9a-f]{8})")
_API_ID = re.compile(rb"\b((?:msg|toolu|req)_[A-Za-z0-9]{8,})")


def _fresh(data: bytes, number: int) -> bytes:
    tag = b"%04x" % number
    data = _UUID.sub(lambda m: m.group(1) + tag + m.group(2), data)
    return _API_ID.sub(lambda m: m.group(1) + b"s%d" % number, data)


def corpus(count: int) -> Path:
    """``count`` sessions (with their subagents) made from the fixtures, each with fresh ids."""
    root = WORK / f"sessions-{count}"
    if (root / ".complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    print(f"generating {count} sessions in {root} ...", file=sys.stderr)
    for number in range(count):
        source = FIXTURES / "projects" / SOURCES[number % len(SOURCES)]
        folder = root / "projects" / f"{source.parent.name}-{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        name = _fresh(source.name.encode(), number).decode()
        if name == source.name:
            name = f"{name}-{number:04d}"
        data = _fresh(source.with_suffix(".jsonl").read_bytes(), number)
        (folder / f"{name}.jsonl").write_bytes(data)
        agents = source / "subagents"
        if agents.is_dir():
            (folder / name / "subagents").mkdir(parents=True)
            for agent in agents.iterdir():
                target = folder / name / "subagents" / agent.name
                target.write_bytes(_fresh(agent.read_bytes(), number))
    (root / ".complete").write_text("")
    return root


def timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--sessions", type=int, default=120)
    parser.add_argument("--find-sessions", type=int, default=1000)
    parser.add_argument("--no-cold-build", action="store_true", help="skip the index build")
    args = parser.parse_args()
    if not FIXTURES.is_dir():
        raise SystemExit(f"the real transcripts are not at {FIXTURES} (set PURLIN_FIXTURES)")
    WORK.mkdir(exist_ok=True)
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(REPO))
    from resurrection import many_sessions

    listed = corpus(args.sessions)
    size = sum(p.stat().st_size for p in listed.rglob("*.jsonl")) / 1e6
    many = many_sessions(args.find_sessions)
    scratch = Path(tempfile.mkdtemp(prefix="listing-", dir=WORK))
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "xdg"), "PYTHONPATH": str(REPO)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user runs compiled modules
    sessions = [SCRIPT, "sessions", "--all", "--claude-dir", str(listed)]
    find = [SCRIPT, "find", "tmux module", "--claude-dir", str(many)]
    table = {
        "anchor: python -c pass": [sys.executable, "-c", "pass"],
        "anchor: purlin-resume --version": [SCRIPT, "--version"],
        f"sessions --all, {args.sessions} sessions / {size:.0f} MB, warm": sessions,
        f"find 'tmux module', {args.find_sessions} sessions, warm": find,
    }
    rows: list[tuple[str, float, str]] = []
    try:
        started = time.perf_counter()
        timed(find, env)  # builds the index
        build_process = time.perf_counter() - started
        cold = []
        for _ in range(max(3, args.runs // 3)):
            shutil.rmtree(scratch / "xdg" / "purlin-resume" / "listing", ignore_errors=True)
            for path in (scratch / "xdg" / "purlin-resume").glob("cache.sqlite*"):
                path.unlink()  # the listing's rows (the search index is a file of its own)
            cold.append(timed(sessions, env))
        times: dict[str, list[float]] = {name: [] for name in table}
        for _ in range(args.runs):
            for name, argv in table.items():
                times[name].append(timed(argv, env))
        medians = {name: statistics.median(values) for name, values in times.items()}
        rows.append(
            (f"sessions --all, {args.sessions} sessions, cold", statistics.median(cold), "")
        )
        rows += [
            (name, value, "" if name.startswith("anchor") else "<= 150 ms")
            for name, value in medians.items()
        ]
        if not args.no_cold_build:
            from purlin_resume.resurrection import search_index

            cache = scratch / "build"
            started = time.perf_counter()
            search_index.refresh(many, cache)
            rows.append(
                (
                    f"find index build, {args.find_sessions} sessions, cold, in-process",
                    time.perf_counter() - started,
                    "<= 8 s",
                )
            )
        rows.append(("find index build, whole process (first find)", build_process, ""))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    anchor = medians["anchor: python -c pass"]
    version = medians["anchor: purlin-resume --version"]
    load = os.getloadavg()[0]
    print(f"medians of {args.runs} interleaved runs ({os.cpu_count()} cores, load {load:.1f})")
    width = max(len(r[0]) for r in rows)
    for name, seconds, target in rows:
        verdict = ""
        if target.startswith("<="):
            limit = float(target.split()[1]) * (1e-3 if target.endswith("ms") else 1)
            verdict = f"{target}: " + ("met" if seconds <= limit else "missed")
        print(
            f"{name:<{width}}  {seconds * 1000:9.1f} ms  {seconds / anchor:6.1f}x pass"
            f"  {seconds / version:5.2f}x --version  {verdict}"
        )


if __name__ == "__main__":
    main()
