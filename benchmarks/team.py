"""Speed of team sharing (purlin_resume/team) against its anchors.

    .venv/bin/python benchmarks/team.py [--runs 3] [--rows 10000] [--stats-rows 100000]

Needs the team extra (pip install -e '.[team]'). Everything happens in a temp dir: two
teammates (two HOMEs) and a file:// remote. Prints medians of --runs whole processes:

1. ``team sync`` of --rows queued log rows each way: alice commits and pushes hers; bob commits
   his, pulls and merges hers, pushes; alice pulls bob's. Anchor: the same rows inserted into a
   plain SQLite file by ``sys.executable`` (stdlib sqlite3, one transaction), as a process.
2. ``resurrections stats --team`` over --stats-rows rows (target <= 1 s). Anchor: the same
   ``resurrections stats`` over a local JSONL log of the same rows.
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


def entry(number: int, who: str) -> dict:
    day = f"2026-02-{1 + number % 28:02d}"
    return {
        "resurrection_id": f"res-{day}-{number:06d}",
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
    }


class Teammate:
    def __init__(self, base: Path, name: str):
        self.name = name
        self.home = base / name
        (self.home / ".claude" / "projects").mkdir(parents=True)
        self.history = self.home / ".claude" / "history"

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "PURLIN"))}
        env.update(HOME=str(self.home), CLAUDE_CONFIG_DIR=str(self.home / ".claude"))
        env["PYTHONPATH"] = str(REPO)
        return env

    def run(self, *args: str) -> float:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "purlin_resume", *args],
            env=self.env(),
            cwd=self.home,
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - started

    def queue(self, entries: list[dict]) -> None:
        lines = [json.dumps({"kind": "resurrection", "op": "append", "record": e}) for e in entries]
        (self.history / "team" / "outbox.jsonl").write_text("\n".join(lines) + "\n")

    def write_log(self, entries: list[dict]) -> None:
        self.history.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)
        (self.history / "resurrection-log.jsonl").write_text(text)


PLAIN_SQLITE = """
import json, sqlite3, sys
rows = [json.loads(line)["record"] for line in open(sys.argv[1])]
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE IF NOT EXISTS log (id TEXT PRIMARY KEY, data TEXT)")
with db:
    db.executemany("INSERT OR REPLACE INTO log VALUES (?, ?)",
                   [(r["resurrection_id"], json.dumps(r)) for r in rows])
"""


def sync_each_way(rows: int) -> dict[str, float]:
    base = Path(tempfile.mkdtemp(prefix="team-bench-"))
    try:
        remote = f"file://{base}/purlin-team.db"
        alice, bob = Teammate(base, "alice"), Teammate(base, "bob")
        alice.run("team", "init", "--remote", remote)
        bob.run("team", "init", "--remote", remote)
        alice.queue([entry(n, "alice") for n in range(rows)])
        bob.queue([entry(n, "bob") for n in range(rows)])
        outbox = alice.history / "team" / "outbox.jsonl"
        anchor_input = base / "anchor.jsonl"
        shutil.copy(outbox, anchor_input)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", PLAIN_SQLITE, str(anchor_input), str(base / "plain.db")],
            check=True,
        )
        anchor = time.perf_counter() - started
        return {
            "push": alice.run("team", "sync"),
            "merge": bob.run("team", "sync"),
            "pull": alice.run("team", "sync"),
            "anchor": anchor,
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)


def stats_over(rows: int, runs: int) -> dict[str, float]:
    base = Path(tempfile.mkdtemp(prefix="team-bench-"))
    try:
        alice = Teammate(base, "alice")
        alice.run("team", "init", "--remote", f"file://{base}/purlin-team.db")
        entries = [entry(n, "alice") for n in range(rows)]
        alice.queue(entries)
        alice.write_log(entries)
        load = alice.run("team", "sync")
        team = [alice.run("resurrections", "stats", "--team", "--json") for _ in range(runs)]
        local = [alice.run("resurrections", "stats", "--json") for _ in range(runs)]
        return {"load": load, "team": statistics.median(team), "local": statistics.median(local)}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--stats-rows", type=int, default=100_000)
    options = parser.parse_args()
    try:
        import doltlite  # noqa: F401
    except ImportError:
        sys.exit("benchmarks/team.py needs the team extra: pip install -e '.[team]'")

    runs = [sync_each_way(options.rows) for _ in range(options.runs)]
    figures = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    anchor = figures["anchor"]
    print(f"team sync, {options.rows:,} rows each way (medians of {options.runs} processes)")
    print(f"  anchor: plain SQLite insert of the rows, one process   {anchor:7.2f} s")
    for key, label in (
        ("push", "alice commits and pushes hers"),
        ("merge", "bob commits his, pulls, merges, pushes"),
        ("pull", "alice pulls bob's"),
    ):
        print(f"  {label:<50} {figures[key]:7.2f} s  {figures[key] / anchor:5.1f}x the anchor")

    stats = stats_over(options.stats_rows, options.runs)
    verdict = "met" if stats["team"] <= 1 else "missed"
    print(f"resurrections stats over {options.stats_rows:,} rows (median of {options.runs})")
    print(f"  loading them: one team sync                            {stats['load']:7.2f} s")
    print(f"  anchor: 'resurrections stats' over the JSONL log       {stats['local']:7.2f} s")
    print(
        f"  'resurrections stats --team'                           {stats['team']:7.2f} s  "
        f"{stats['team'] / stats['local']:5.1f}x the anchor; <= 1 s: {verdict}"
    )


if __name__ == "__main__":
    main()
