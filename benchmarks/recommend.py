"""Quality and speed of ``recommend``.

    .venv/bin/python benchmarks/recommend.py [--claude-dir DIR] [--runs 7] [--sessions 1000]

1. Ranking quality, leave-one-out, on real transcripts (the fixtures, or your own
   ``--claude-dir ~/.claude``). Every conversation (a session's main agent or a subagent) that
   edited files is a case when an earlier conversation edited one of the same files (paths
   relative to each one's project, so worktrees and clones of one repository compare). The case's
   first prompt and edited files are the current task; the case itself and everything that
   started after it are left out; a hit is an earlier conversation that edited one of those
   files. Printed: hit@3 and the mean reciprocal rank of the first hit, for the combined ranking
   and for the baseline of words alone (bm25 over the same task's words).
2. Speed: ``purlin-resume recommend`` as a whole process over N sessions made from the fixtures
   (hard links under new ids, in benchmarks/.work/), warm (the index built), against the 300 ms
   target and against the anchor ``sys.executable -c pass``; and in-process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from resurrection import FIXTURES, many_sessions  # noqa: E402
from run import median_call as median  # noqa: E402

from purlin_resume.resurrection import recommendation, search_index  # noqa: E402

TARGET = 0.3


def conversations(root: Path) -> list[dict]:
    """Every main agent and subagent of ``root``: ids, start, first prompt, files it edited."""
    from purlin_resume.claude.catalog import Catalog
    from purlin_resume.claude.transcript import ReadOptions

    catalog = Catalog(root)
    found = []
    for session in catalog.session_files():
        view = catalog.view(session, ReadOptions(tools=True))
        pairs = [(None, view.main)] if view.main is not None else []
        pairs += [(agent_id, t) for agent_id, t in view.agents.items()]
        home = view.main.project_path if view.main is not None else None
        for agent_id, transcript in pairs:
            files = search_index.conversation_files(transcript, home)  # as the index keeps them
            edited = [path for path, was_edited in files if was_edited]
            found.append(
                {
                    "key": (session.id, agent_id),
                    "started": transcript.started_at or "",
                    "prompt": transcript.first_prompt or "",
                    "edited": set(edited),
                    "project": transcript.project_path,
                }
            )
    return found


def quality(root: Path, cache: Path) -> list[str]:
    search_index.refresh(root, cache)
    everyone = conversations(root)
    scores = {"combined": [], "words alone": []}
    cases = 0
    for case in everyone:
        if not case["edited"] or not case["started"]:
            continue
        earlier = {
            c["key"]: c for c in everyone if c["started"] < case["started"] and c is not case
        }
        relevant = {k for k, c in earlier.items() if c["edited"] & case["edited"]}
        if not relevant:
            continue
        cases += 1
        own = [p for p in case["edited"] if not p.startswith("/")]  # the project's files
        task = recommendation.Task(case["prompt"], sorted(own), None, case["project"], ["case"])
        for label, text_only in (("combined", False), ("words alone", True)):
            ranked = recommendation.rank(
                task, root, cache, threshold=0, limit=1000, update=False, text_only=text_only
            )
            keys = [
                (r.session_id, r.agent_id) for r in ranked if (r.session_id, r.agent_id) in earlier
            ]
            rank = next((n for n, key in enumerate(keys, 1) if key in relevant), None)
            scores[label].append(rank)
    lines = [f"ranking quality, leave-one-out over {root}: {cases} case(s)"]
    if not cases:
        return lines + ["  no conversation has an earlier one that edited the same files"]
    figures = {}
    for label, ranks in scores.items():
        hit3 = sum(1 for r in ranks if r is not None and r <= 3) / len(ranks)
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        figures[label] = (hit3, mrr)
        lines.append(f"  {label:12} hit@3 {hit3:.2f}   MRR {mrr:.3f}   ranks {ranks}")
    (c3, cm), (b3, bm) = figures["combined"], figures["words alone"]
    verdict = "ahead" if (c3, cm) > (b3, bm) else ("level" if (c3, cm) == (b3, bm) else "BEHIND")
    lines.append(f"  combined vs words alone: hit@3 {c3 - b3:+.2f}, MRR {cm - bm:+.3f} ({verdict})")
    return lines


def speed(runs: int, count: int, scratch: Path) -> list[str]:
    root = many_sessions(count)
    env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "xdg"), "PYTHONPATH": str(REPO)}
    env.pop("CLAUDE_CODE_SESSION_ID", None)
    argv = [
        sys.executable,
        "-m",
        "purlin_resume",
        "recommend",
        "--json",
        "--task",
        "transcript renderer for subagents",
        "--file",
        "lib/spotter/services/transcript_renderer.ex",
        "--file",
        "lib/spotter_web/live/session_live.ex",
        "--claude-dir",
        str(root),
    ]

    def process():
        subprocess.run(argv, env=env, cwd=scratch, check=True, stdout=subprocess.DEVNULL)

    started = time.perf_counter()
    process()  # builds the index
    cold = time.perf_counter() - started
    warm = median(process, runs)
    anchor = median(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), runs)
    cache = scratch / "xdg" / "purlin-resume"
    task = recommendation.Task(
        "transcript renderer for subagents",
        ["lib/spotter/services/transcript_renderer.ex", "lib/spotter_web/live/session_live.ex"],
    )
    inside = median(lambda: recommendation.rank(task, root, cache, limit=5), runs)
    return [
        f"recommend over {count} sessions (medians of {runs})",
        f"  cold, whole process (builds the index): {cold:.1f} s",
        f"  warm, whole process: {warm * 1000:.0f} ms = {warm / TARGET:.2f}x the 300 ms target"
        f" ({'met' if warm <= TARGET else 'missed'}); {warm / anchor:.1f}x `python -c pass`"
        f" ({anchor * 1000:.0f} ms)",
        f"  warm, in-process: {inside * 1000:.0f} ms",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claude-dir", type=Path, default=FIXTURES)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        for line in quality(args.claude_dir.expanduser(), scratch / "quality-cache"):
            print(line, flush=True)
        for line in speed(args.runs, args.sessions, scratch):
            print(line, flush=True)


if __name__ == "__main__":
    main()
