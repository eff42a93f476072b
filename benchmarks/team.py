"""Team sharing through git (purlin_resume/team) at team scale.

    .venv/bin/python benchmarks/team.py [--rows 5000] [--teams 5,20]

Everything happens in a temp dir: for each team size, that many teammates (history folders of
their own, each with a JSONL log of --rows resurrections) join one bare repository on disk and
sync in turn. Prints, per team size: the median first sync (a teammate's rows sent, everyone's
fetched and indexed), the median sync of 5 new rows, the local storage of one teammate (its copy
of the ref and its index) against its own JSONL and against the team's JSONL, the remote's
size, and ``resurrections stats --team`` as a whole process (statistics computed in SQL over
the index).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def entry(number: int, who: str) -> dict:
    day = f"2026-02-{1 + number % 28:02d}"
    return {
        "resurrection_id": f"res-{day}-{number:03d}",
        "bookmark_id": None,
        "resurrected_from_agent_id": f"agent-{number % 97:07x}",
        "resurrected_from_session_id": f"session-{number % 389:08x}",
        "resurrected_from_hostname": f"{who}-laptop",
        "resurrected_from_project": f"/home/{who}/src/project-{number % 13}",
        "resurrected_as_agent_id": f"agent-{number:07x}",
        "resurrected_at": f"{day}T{number % 24:02d}:00:00Z",
        "resurrected_in_session": f"session-{number:08x}",
        "resurrected_in_project": f"/home/{who}/src/project-{number % 7}",
        "resurrected_by": who,
        "resurrection_mode": ("bookmark", "fuzzy", "direct")[number % 3],
        "query": "tmux pane tests",
        "context_extraction_method": "hybrid",
        "context_size_tokens": 1000 + number % 4000,
        "outcome": ("success", "success", "partial", "failure")[number % 4],
        "outcome_reason": None if number % 4 < 2 else "the agent stopped early",
        "notes": None,
        "new_agent_duration_ms": 45000,
        "new_agent_tool_calls": 12,
        "resurrected_from_agent_type": ("Explore", "general-purpose", None)[number % 3],
        "cross_repo": number % 2 == 0,
        "context_tokens_before": 9000,
        "redactions": {},
        "latency_ms": 300 + number % 700,
        "uuid": str(uuid.uuid4()),
    }


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def write_log(history: Path, who: str, first: int, count: int) -> None:
    history.mkdir(parents=True, exist_ok=True)
    with open(history / "resurrection-log.jsonl", "a", encoding="utf-8") as out:
        for number in range(first, first + count):
            out.write(json.dumps(entry(number, who)) + "\n")


def one_team(base: Path, people: int, rows: int) -> dict:
    from purlin_resume.team import sync

    remote = str(base / "team.git")
    homes = [base / f"member{n}" / ".claude" / "history" for n in range(people)]
    firsts = []
    for n, history in enumerate(homes):
        write_log(history, f"member{n}", 0, rows)
        started = time.perf_counter()
        sync.init(history, [], remote=remote)
        firsts.append(time.perf_counter() - started)
    for history in homes:  # everyone brings in everyone's rows
        sync.sync(history, [])
    smalls = []
    for n, history in enumerate(homes[:5]):
        write_log(history, f"member{n}", rows, 5)
        started = time.perf_counter()
        sync.sync(history, [])
        smalls.append(time.perf_counter() - started)
    sync.sync(homes[0], [])
    own_jsonl = size(homes[0] / "resurrection-log.jsonl")
    team_jsonl = sum(size(h / "resurrection-log.jsonl") for h in homes)
    local = size(homes[0] / "team")
    subprocess.run(
        ["git", "--git-dir", str(homes[0] / "team" / "repo.git"), "gc", "-q"], check=True
    )
    local_gc = size(homes[0] / "team")
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(homes[0].parent), "PYTHONPATH": str(REPO)}
    stats_times = []
    for _ in range(3):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "purlin_resume", "resurrections", "stats", "--team", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        stats_times.append(time.perf_counter() - started)
    total = json.loads(done.stdout)["total"]
    assert total == people * rows + 5 * min(5, people), total
    return {
        "teammates": people,
        "rows_each": rows,
        "first_sync_s": statistics.median(firsts),
        "last_first_sync_s": firsts[-1],
        "sync_5_rows_s": statistics.median(smalls),
        "own_jsonl_mb": own_jsonl / 1e6,
        "team_jsonl_mb": team_jsonl / 1e6,
        "local_mb": local / 1e6,
        "local_after_gc_mb": local_gc / 1e6,
        "local_vs_team_jsonl": local / team_jsonl,
        "remote_mb": size(base / "team.git") / 1e6,
        "stats_team_s": statistics.median(stats_times),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--teams", default="5,20")
    args = parser.parse_args()
    for people in [int(n) for n in args.teams.split(",")]:
        with tempfile.TemporaryDirectory(prefix="team-bench-") as folder:
            found = one_team(Path(folder), people, args.rows)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in found.items()}))


if __name__ == "__main__":
    main()
