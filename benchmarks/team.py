"""Team sharing through git (purlin_resume/team) at team scale.

    .venv/bin/python benchmarks/team.py [--rows 5000] [--teams 5,10,20] [--small 10]

Everything happens in a temp dir: for each team size, that many teammates (history folders of
their own, each with a JSONL log of --rows resurrections) join one bare repository on disk in
turn (the first sync: their rows sent, everyone's so far fetched and indexed), then each syncs
once more (everyone's rows brought in), then --small syncs of 5 new rows each follow, spread
over the teammates. Prints one row per team size: the median wall and CPU (user + system, git's
included) of the first syncs and of the 5-row syncs, what each 5-row sync adds to the remote
and to a teammate's copy, one teammate's storage (the local copy of the ref after ``git gc``,
and the index) against the team's JSONL (goal: at most 5x), the remote's size, and
``resurrections stats --team`` as a whole process (wall, CPU, and against ``python -c pass``).
Then the growth of each figure from the smallest team to the largest.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def cpu() -> float:
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(function) -> tuple[float, float]:
    """Wall and CPU seconds of one call (git's processes included)."""
    wall, spent = time.perf_counter(), cpu()
    function()
    return time.perf_counter() - wall, cpu() - spent


def process(argv: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {child.stderr.read().decode()}")
    child.stderr.close()
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def one_team(base: Path, people: int, rows: int, small: int) -> dict:
    from purlin_resume.team import sync

    remote = base / "team.git"
    homes = [base / f"member{n}" / ".claude" / "history" for n in range(people)]
    firsts = []
    for n, history in enumerate(homes):
        write_log(history, f"member{n}", 0, rows)
        firsts.append(timed(lambda h=history: sync.init(h, [], remote=str(remote))))
    for history in homes:  # everyone brings in everyone's rows
        sync.sync(history, [])
    before = size(remote), size(homes[0] / "team" / "repo.git")
    smalls = []
    for number in range(small):
        n = number % people
        write_log(homes[n], f"member{n}", rows + number * 5, 5)
        smalls.append(timed(lambda h=homes[n]: sync.sync(h, [])))
    sync.sync(homes[0], [])
    grown = size(remote) - before[0], size(homes[0] / "team" / "repo.git") - before[1]
    team_jsonl = sum(size(h / "resurrection-log.jsonl") for h in homes)
    repo = homes[0] / "team" / "repo.git"
    subprocess.run(["git", "--git-dir", str(repo), "gc", "-q"], check=True)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(homes[0].parent), "PYTHONPATH": str(REPO)}
    stats, anchor = [], []
    for _ in range(3):  # interleaved with the anchor, so load slows both alike
        stats.append(
            process(
                [sys.executable, "-m", "purlin_resume", "resurrections", "stats", "--team"], env
            )
        )
        anchor.append(process([sys.executable, "-c", "pass"], env))
    said = subprocess.run(
        [sys.executable, "-m", "purlin_resume", "resurrections", "stats", "--team", "--json"],
        env=env,
        capture_output=True,
        check=True,
    )
    assert json.loads(said.stdout)["total"] == people * rows + 5 * small  # none lost or repeated
    median = statistics.median
    return {
        "teammates": people,
        "rows": people * rows,
        "first sync s": median(w for w, _ in firsts),
        "first sync CPU s": median(c for _, c in firsts),
        "5-row sync s": median(w for w, _ in smalls),
        "5-row sync CPU s": median(c for _, c in smalls),
        "remote KB per 5-row sync": grown[0] / small / 1e3,
        "copy KB per 5-row sync": grown[1] / small / 1e3,
        "team JSONL MB": team_jsonl / 1e6,
        "copy MB (after gc)": size(repo) / 1e6,
        "index MB": size(homes[0] / "team" / "index.sqlite") / 1e6,
        "teammate / JSONL": (size(repo) + size(homes[0] / "team" / "index.sqlite")) / team_jsonl,
        "remote MB": size(remote) / 1e6,
        "stats --team s": median(w for w, _ in stats),
        "stats --team CPU s": median(c for _, c in stats),
        "stats --team / python -c pass": median(w for w, _ in stats) / median(w for w, _ in anchor),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=5000, help="rows in each teammate's log")
    parser.add_argument("--teams", default="5,10,20", help="team sizes, comma-separated")
    parser.add_argument("--small", type=int, default=10, help="5-row syncs measured per team")
    args = parser.parse_args()
    found = []
    for people in [int(n) for n in args.teams.split(",")]:
        with tempfile.TemporaryDirectory(prefix="team-bench-") as folder:
            found.append(one_team(Path(folder), people, args.rows, args.small))
        if len(found) == 1:
            print("| " + " | ".join(found[0]) + " |")
            print("|" + "---|" * len(found[0]))
        print("| " + " | ".join(_shown(v) for v in found[-1].values()) + " |", flush=True)
    if len(found) > 1:
        first, last = found[0], found[-1]
        factor = last["teammates"] / first["teammates"]
        print(f"\ngrowth from {first['teammates']} to {last['teammates']} teammates (x{factor:g}):")
        for name in first:
            if first[name] and name not in ("teammates",):
                print(f"  {name}: x{last[name] / first[name]:.2f}")


def _shown(value) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:.2f}"


if __name__ == "__main__":
    main()
