"""Quality of search: realistic queries with their expected answers, on the real transcripts.

    .venv/bin/python benchmarks/search_quality.py [--verbose]

The Claude data folder is a copy of ``tests/fixtures/claude`` plus one session made from it: the
session a resurrection of the Explore agent a7be2f0 starts (its first prompt is the real prompt
``resurrect`` writes for that agent), so that the original and its resurrection compete.

Each query is what a user would type to ``find`` (words, typos, time words; the time words
anchored to a fixed "now") with the conversation they mean, or none when nothing in the data is
what they mean ("kubernetes helm chart"). Printed: hit@1 (the expected conversation ranked
first, over the queries that have one), and what an autonomous pick (``resurrect find --yes``)
does on every query: right, wrong (a conversation other than the expected one, or any pick on a
query that has none; should be 0) or refused (no clear winner: exit 1 listing the candidates).
Beside it, what taking the first result every time would have picked wrong (the behaviour before
the clear-winner rule).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = Path(os.environ.get("PURLIN_FIXTURES", REPO / "tests" / "fixtures" / "claude"))
sys.path.insert(0, str(REPO))

FUM = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
FUM_FOLDER = "-home-USER-projects-spotter-worktrees-spotter-fum"
SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"  # short.jsonl, by the id its records carry
TOOL_HEAVY = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"  # tool_heavy.jsonl
RESURRECTED = "5e55e55e-0000-4000-8000-00000000a7be"  # the session the resurrection starts
FRIDAY = datetime(2026, 2, 13, 9, 0, tzinfo=timezone.utc)  # the Friday after the fixtures' week
NEXT_MONTH = datetime(2026, 3, 20, 9, 0, tzinfo=timezone.utc)


class Case(NamedTuple):
    query: str
    expected: str | None  # "agent ID" / "session ID" as labelled, or None: nothing fits
    now: datetime = NEXT_MONTH


CASES = [
    Case("tmux module test setup", "agent a7be2f0"),
    Case("what happens when tmux is not running", "agent a7be2f0"),
    Case("tmux modle", "agent a7be2f0"),
    Case("session registry pane id", "agent a7be2f0"),
    Case("explore transcript rendering codebase", "agent a2898e3"),
    Case("agent who explored the codebase yesterday", "agent a2898e3", FRIDAY),
    Case("transcript renderer annotation selection", "agent a2898e3"),
    Case("xterm.js scrolling", f"session {TOOL_HEAVY}"),
    Case("xterm scrollng", f"session {TOOL_HEAVY}"),
    Case("xterm scrolling last week", f"session {TOOL_HEAVY}", FRIDAY),
    Case("start phoenix in background", f"session {TOOL_HEAVY}"),
    Case("mix phx.server doesnt seem to start", f"session {SHORT}"),
    Case("spotter-fum", f"session {FUM}"),
    Case("spotter-dov", "session 4d5611e5-241a-462a-8d15-5122611a9569"),
    Case("create data models", "agent f4546a51-ea10-47e0-b4e0-76802974f8a9"),
    Case("implement state management", "agent 0d692b0f-17cb-4fd0-94fb-215dabcef803"),
    Case("build todo components", "agent 6690d10e-f521-4ac0-800d-e5eb7a2d8072"),
    Case("main page integration", "agent f4ab2bf6-d642-431a-85cb-66691f24c404"),
    Case("setup next.js project", "agent 60dade70-20bb-4edb-9dad-9f08267e0cc2"),
    Case("orchestrator todo app", "session fe5e1c67-53e7-4862-81ae-d0e013e3270b"),
    Case("kubernetes helm chart", None),
    Case("terraform aws lambda deploy", None),
    Case("react native push notifications", None),
    Case("postgres replication lag", None),
    Case("django admin migration", None),
]


def resurrected_session(claude: Path) -> Path:
    """A session in the spotter-fum project whose first prompt is the prompt a resurrection of
    agent a7be2f0 writes, and one answer: what a user gets after resurrecting it."""
    from purlin_resume.resurrection import candidates, environment, flow

    env = environment.environment(claude, None)
    prompt = flow.plan(env, candidates.direct(FUM, "a7be2f0"), "direct").prompt
    base = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/USER/projects/spotter-worktrees/spotter-fum",
        "sessionId": RESURRECTED,
        "version": "2.1.39",
        "gitBranch": "spotter-fum",
    }
    records = [
        {
            **base,
            "type": "user",
            "message": {"role": "user", "content": prompt},
            "uuid": "5e55e55e-0000-4000-8000-000000000001",
            "timestamp": "2026-02-12T09:00:00.000Z",
        },
        {
            **base,
            "parentUuid": "5e55e55e-0000-4000-8000-000000000001",
            "type": "assistant",
            "message": {
                "id": "msg_resurrected01",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-6",
                "content": [{"type": "text", "text": "Ready: I know the Tmux module again."}],
            },
            "uuid": "5e55e55e-0000-4000-8000-000000000002",
            "timestamp": "2026-02-12T09:00:05.000Z",
        },
    ]
    path = claude / "projects" / FUM_FOLDER / f"{RESURRECTED}.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def prepared(scratch: Path) -> Path:
    """A writable copy of the fixtures with the resurrected session added."""
    claude = scratch / "claude"
    shutil.copytree(FIXTURES, claude)
    for path in claude.rglob("*"):
        path.chmod(path.stat().st_mode | 0o200)
    resurrected_session(claude)
    return claude


class Outcome(NamedTuple):
    case: Case
    ranked: list[str]  # labels, best first
    scores: list[float]
    picked: str | None  # what an autonomous pick takes (None: refused)


def run(claude: Path) -> list[Outcome]:
    from purlin_resume.resurrection import candidates, environment

    env = environment.environment(claude, None)
    outcomes = []
    for case in CASES:
        found = candidates.by_search(env, case.query, 5, now=case.now)
        try:
            picked = candidates.clear_winner(case.query, found).label() if found else None
        except candidates.NoClearWinner:
            picked = None
        outcomes.append(
            Outcome(case, [c.label() for c in found], [c.score or 0.0 for c in found], picked)
        )
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    answered = [o for o in outcomes if o.case.expected]
    return {
        "queries": len(outcomes),
        "with an answer": len(answered),
        "hit@1": sum(1 for o in answered if o.ranked[:1] == [o.case.expected]),
        "picked right": sum(1 for o in outcomes if o.picked and o.picked == o.case.expected),
        "picked wrong": sum(1 for o in outcomes if o.picked and o.picked != o.case.expected),
        "refused": sum(1 for o in outcomes if o.picked is None),
        "first result wrong": sum(
            1 for o in outcomes if o.ranked and o.ranked[0] != o.case.expected
        ),
    }


def report(outcomes: list[Outcome], verbose: bool) -> None:
    for o in outcomes:
        top = ", ".join(
            f"{label} {score:.1f}" for label, score in zip(o.ranked, o.scores, strict=True)
        )
        first = "hit" if o.ranked[:1] == [o.case.expected] else "miss"
        pick = (
            "refused"
            if o.picked is None
            else "right"
            if o.picked == o.case.expected
            else f"WRONG ({o.picked})"
        )
        print(f"  {o.case.query!r:<48} {first:<4}  autonomous: {pick}")
        if verbose:
            print(f"      expected {o.case.expected or 'nothing'}; ranked {top or 'nothing'}")
    got = summary(outcomes)
    answered = got["with an answer"]
    print()
    print(
        f"hit@1: {got['hit@1']}/{answered} ({100 * got['hit@1'] / answered:.0f}%) of the queries "
        "with an expected answer"
    )
    print(
        f"autonomous picks over {got['queries']} queries: {got['picked right']} right, "
        f"{got['picked wrong']} wrong (should be 0), {got['refused']} refused "
        f"(of which {got['queries'] - answered} have no answer)"
    )
    print(f"taking the first result every time: {got['first result wrong']} wrong")


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true", help="Show each query's ranking.")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="search-quality-") as scratch:
        os.environ["XDG_CACHE_HOME"] = str(Path(scratch) / "cache")  # a fresh index
        claude = prepared(Path(scratch))
        outcomes = run(claude)
    print(f"search quality: {len(CASES)} queries on the fixture transcripts")
    report(outcomes, args.verbose)
    return summary(outcomes)


if __name__ == "__main__":
    main()
