"""Speed of resurrection against its anchors.

    .venv/bin/python benchmarks/resurrection.py [--runs 7] [--sessions 1000]

Prints medians of --runs repetitions and the ratio to each anchor:

1. direct resurrection of the large fixture agent (session 4d5611e5, 3.2 MB, 142 turns; and its
   Explore subagent a2898e3), cold (no context cache), in-process and as a whole
   ``purlin-resume resurrect --session … --yes -o FILE`` process: seed target < 5 s, ours < 1 s;
2. ``find`` over N sessions made from the fixtures (hard links under new session ids in
   benchmarks/.work/, never committed): the first (cold) index build, then warm searches, which
   still check every file's size and mtime: target <= 100 ms;
3. appending to the resurrection log at 100,000 lines against 1 line: target <= 1.5x;
4. redaction throughput over the fixture transcripts' text: target >= 20 MB/s.
"""

from __future__ import annotations

import argparse
import json
import os
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
sys.path.insert(0, str(REPO))

from purlin_resume.core import redact  # noqa: E402
from purlin_resume.core.config import Settings  # noqa: E402
from purlin_resume.resurrection import flow as resurrection  # noqa: E402
from purlin_resume.resurrection import log as resurrection_log  # noqa: E402
from purlin_resume.resurrection import search_index  # noqa: E402

sys.path.insert(0, str(HERE))
from run import median_call as median  # noqa: E402

QUERIES = [
    "tmux module test setup",
    "transcript rendering yesterday",
    "phoenix server",
    "nextjs todo",
    "spotter-dov",
    "tmxu modle",
]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def direct(runs: int, scratch: Path) -> list[tuple[str, str, str, str]]:
    rows = []
    for label, session, agent in (
        ("session 4d56 (3.2 MB)", "4d56", None),
        ("agent a2898e3", "4d56", "a2898e3"),
    ):

        def once(session=session, agent=agent):
            cache = Path(tempfile.mkdtemp(dir=scratch))
            env = resurrection.environment(FIXTURES, None, Settings())
            env.cache, env.history = cache, scratch / "history"
            plan = resurrection.plan(env, resurrection.direct(session, agent), "direct")
            shutil.rmtree(cache)
            return plan

        seconds = median(once, runs)
        plan = once()
        rows.append(
            (
                f"direct resurrection, in-process, {label}",
                ms(seconds),
                f"{5 / seconds:.0f}x under 5 s",
                "< 1 s: " + ("met" if seconds < 1 else "missed"),
            )
        )
        rows.append(
            (
                f"  hybrid vs full tokens, {label}",
                f"{plan.tokens} / {plan.tokens_full}",
                f"{plan.tokens / plan.tokens_full:.1%}",
                "<= 50%: " + ("met" if plan.tokens <= plan.tokens_full / 2 else "missed"),
            )
        )
    claude = scratch / "proc-claude"
    if not claude.exists():
        shutil.copytree(FIXTURES, claude)
    out = scratch / "prompt.md"
    argv = [
        sys.executable,
        "-m",
        "purlin_resume",
        "resurrect",
        "--session",
        "4d56",
        "--yes",
        "-o",
        str(out),
        "--claude-dir",
        str(claude),
    ]
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "xdg"), "PYTHONPATH": str(REPO)}

    def process():
        shutil.rmtree(scratch / "xdg", ignore_errors=True)
        subprocess.run(
            argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    seconds = median(process, runs)
    rows.append(
        (
            "direct resurrection, whole process, session 4d56",
            ms(seconds),
            f"{5 / seconds:.0f}x under 5 s",
            "< 1 s: " + ("met" if seconds < 1 else "missed"),
        )
    )
    return rows


def _link(source: Path, target: Path) -> None:
    """A hard link (no disk used), else a copy (linking another user's file can be refused)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def many_sessions(count: int) -> Path:
    """A Claude data folder of ``count`` sessions: the fixture sessions hard-linked under new ids."""
    root = WORK / f"find-{count}"
    marker = root / ".complete"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    sources = sorted(
        p for p in FIXTURES.glob("projects/*/*.jsonl") if not p.name.startswith("agent-")
    )
    for number in range(count):
        source = sources[number % len(sources)]
        folder = root / "projects" / f"{source.parent.name}-{number // len(sources):04d}"
        folder.mkdir(parents=True, exist_ok=True)
        new_id = f"00000000-0000-4000-8000-{number:012d}"
        _link(source, folder / f"{new_id}.jsonl")
        agents = source.with_suffix("") / "subagents"
        if agents.is_dir():
            (folder / new_id / "subagents").mkdir(parents=True)
            for agent in agents.iterdir():
                _link(agent, folder / new_id / "subagents" / agent.name)
    marker.write_text("")
    return root


def find(runs: int, count: int, scratch: Path) -> list[tuple[str, str, str, str]]:
    root = many_sessions(count)
    cache = scratch / "find-cache"
    started = time.perf_counter()
    built = search_index.refresh(root, cache)
    cold = time.perf_counter() - started
    rows = [
        (f"find index build, {built['sessions']} sessions (cold, once)", f"{cold:.1f} s", "", "")
    ]
    warm = {q: median(lambda q=q: search_index.search(root, cache, q), runs) for q in QUERIES}
    worst = max(warm.values())
    middle = statistics.median(warm.values())
    rows.append(
        (
            f"find, warm, in-process, median of {len(QUERIES)} queries",
            ms(middle),
            f"{middle / 0.1:.2f}x of 100 ms",
            "<= 100 ms: " + ("met" if middle <= 0.1 else "missed"),
        )
    )
    rows.append(
        (
            "find, warm, in-process, slowest query",
            ms(worst),
            f"{worst / 0.1:.2f}x of 100 ms",
            "<= 100 ms: " + ("met" if worst <= 0.1 else "missed"),
        )
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "xdg-find"), "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "purlin_resume", "find", "tmux module", "--claude-dir", str(root)]
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)  # builds its own index
    seconds = median(
        lambda: subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL), runs
    )
    rows.append(("find, warm, whole process (start-up included)", ms(seconds), "", ""))
    return rows


def _entry() -> dict:
    return {
        "resurrected_from_agent_id": "a2898e3",
        "resurrected_from_session_id": "4d56",
        "resurrection_mode": "direct",
        "context_extraction_method": "hybrid",
        "outcome": "success",
        "context_size_tokens": 4500,
    }


def log_append(runs: int, scratch: Path) -> list[tuple[str, str, str, str]]:
    small = scratch / "small" / resurrection_log.FILE_NAME
    big = scratch / "big" / resurrection_log.FILE_NAME
    for path in (small, big):
        shutil.rmtree(path.parent, ignore_errors=True)
        path.parent.mkdir(parents=True)
    resurrection_log.append(small, _entry())
    line = (
        json.dumps(
            {**_entry(), "resurrection_id": "res-2000-01-01-001", "notes": "x" * 200},
            separators=(",", ":"),
        )
        + "\n"
    )
    with open(big, "w") as handle:
        handle.write(line * 100_000)
    resurrection_log.append(big, _entry())  # the counter is recovered from the log's tail
    repeats = max(runs, 20)
    one = median(lambda: resurrection_log.append(small, _entry()), repeats)
    many = median(lambda: resurrection_log.append(big, _entry()), repeats)
    ratio = many / one
    return [
        (
            "log append at 1 line",
            ms(one),
            "",
            "< 100 ms (PERF-3): " + ("met" if one < 0.1 else "missed"),
        ),
        (
            "log append at 100,000 lines",
            ms(many),
            f"{ratio:.2f}x of 1 line",
            "<= 1.5x: " + ("met" if ratio <= 1.5 else "missed"),
        ),
    ]


def redaction(runs: int) -> list[tuple[str, str, str, str]]:
    text = "".join(p.read_text(errors="replace") for p in sorted(FIXTURES.rglob("*.jsonl")))
    size = len(text.encode()) / 1e6
    seconds = median(lambda: redact.redact(text), runs)
    rate = size / seconds
    return [
        (
            f"redaction of the fixtures' text ({size:.1f} MB)",
            f"{rate:.0f} MB/s",
            f"{rate / 20:.1f}x of 20 MB/s",
            ">= 20 MB/s: " + ("met" if rate >= 20 else "missed"),
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    if not FIXTURES.is_dir():
        raise SystemExit(f"the real transcripts are not at {FIXTURES} (set PURLIN_FIXTURES)")
    WORK.mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="bench-", dir=WORK))
    try:
        rows = direct(args.runs, scratch)
        rows += find(args.runs, args.sessions, scratch)
        rows += log_append(args.runs, scratch)
        rows += redaction(args.runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'median':>14}  {'ratio':>20}  target")
    for name, value, ratio, target in rows:
        print(f"{name:<{width}}  {value:>14}  {ratio:>20}  {target}")


if __name__ == "__main__":
    main()
