"""Server time of every dashboard page and API answer with 1,000 registered agents, 1,000
sessions and a 10,000-line resurrection log.

    .venv/bin/python benchmarks/dashboard.py [--runs 7] [--agents 1000] [--sessions 1000]
        [--log-lines 10000] [--old-sessions 0]

Builds (under benchmarks/.work/dashboard/, never committed) a git project whose registry holds
``--agents`` agents (nine in ten ended, every other one the successor of the one before, the
rest alive: this process), an agent history of 200 subagents in 20 parallel groups (three
interrupted, each with its conflict check, one with no files recorded: its transcript is looked
for), a Claude data folder with ``--sessions`` sessions of this project and ``--old-sessions``
copies of a 770 KB session of Claude Code 1.0 (subagents inline, read whole to find one), and a
resurrection log of ``--log-lines`` entries over 90 days. Each request goes
through the whole app (token and Host checks, redaction, templates) in-process with Starlette's
test client after one warm-up; medians of ``--runs`` runs are printed with their ratio to
the anchor.

Anchors: ``python -c pass`` (a process of ``sys.executable``, interleaved) and ``json.loads`` of
the registry plus every line of the log (the least any page over those files must do). Budget:
every page and answer <= 15x ``python -c pass``. Also timed: ``sessions --all`` over the same
folder, warm, as a whole process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "dashboard"
BUDGET = 15.0
OLD_SESSION = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"  # the fixture of Claude Code 1.0
SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
sys.path.insert(0, str(REPO))


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def build(agents: int, sessions: int, log_lines: int, old: int) -> tuple[Path, Path]:
    import os

    from tests.gsd_files import entry, write_history
    from tests.resurrection_data import session

    shutil.rmtree(WORK, ignore_errors=True)
    project, claude = WORK / "project", WORK / "claude"
    project.mkdir(parents=True)
    _git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("# bench\n")
    _git(project, "add", "README.md")
    _git(project, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "init")
    spawn = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=project, capture_output=True, text=True, check=True
    ).stdout.strip()
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    registry = {}
    for n in range(agents):
        began = start + timedelta(minutes=7 * n)
        alive = n % 10 == 9
        registry[f"agent-{n:05d}"] = {
            "pid": os.getpid() if alive else None,
            "cwd": str(project),
            "started_at": began.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "ended_at": None
            if alive
            else (began + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "transcript_path": None,
            "tmux_pane": f"%{n}",
            "role": ("builder", "qa", "architect", None)[n % 4],
            "previous_agent_id": f"agent-{n - 1:05d}" if n % 2 else None,
        }
    (project / ".purlin").mkdir()
    (project / ".purlin" / "agents.json").write_text(
        json.dumps({"version": 1, "agents": registry}, indent=2)
    )
    entries = []
    for n in range(200):
        status = "interrupted" if n in (5, 77, 150) else ("completed", "spawned", "failed")[n % 3]
        entries.append(
            entry(
                f"sub-{n:04d}",
                status,
                parallel_group=f"grp-{n // 10}",
                spawn_commit=spawn,
                files_modified=[] if n == 150 else [f"src/m{n}.py"],
            )
        )
    write_history(project, entries, max_entries=500)
    (claude / "projects").mkdir(parents=True)
    for n in range(sessions):
        session(
            claude,
            f"b0000000-0000-4000-8000-{n:012d}",
            str(project),
            [("user", f"task {n}: tune the tmux injection"), ("agent", "done " * 50)] * 5,
        )
    pre_2 = REPO / "tests/fixtures/claude/projects/-path-to-Demo"
    text = (pre_2 / f"{OLD_SESSION}.jsonl").read_text()
    for n in range(old):
        copy = f"c0000000-0000-4000-8000-{n:012d}"
        (claude / "projects" / "-path-to-Demo").mkdir(exist_ok=True)
        (claude / "projects" / "-path-to-Demo" / f"{copy}.jsonl").write_text(
            text.replace(OLD_SESSION, copy)
        )
    rng = random.Random(7)
    log = claude / "history" / "resurrection-log.jsonl"
    log.parent.mkdir(parents=True)
    with log.open("w") as out:
        for n in range(log_lines):
            moment = start + timedelta(minutes=13 * n * 90 * 24 * 60 // (13 * log_lines))
            outcome = rng.choice(("success", "success", "success", "failure", "partial"))
            out.write(
                json.dumps(
                    {
                        "resurrection_id": f"res-{moment:%Y-%m-%d}-{n:03d}",
                        "resurrected_from_agent_id": f"agent-{rng.randrange(300):05d}",
                        "resurrected_from_session_id": f"s-{n}",
                        "resurrected_from_project": rng.choice(("/srv/a", "/srv/b")),
                        "resurrected_in_project": "/srv/a",
                        "resurrected_as_agent_id": f"new-{n}",
                        "resurrected_at": moment.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
                        "resurrection_mode": rng.choice(("bookmark", "fuzzy", "direct")),
                        "context_extraction_method": "hybrid",
                        "context_size_tokens": rng.randrange(500, 20000),
                        "outcome": outcome,
                        "outcome_reason": None
                        if outcome == "success"
                        else rng.choice(("transcript gone", "too large", "agent crashed")),
                        "resurrected_from_agent_type": rng.choice(("builder", "qa", "architect")),
                        "latency_ms": rng.randrange(200, 5000),
                    }
                )
                + "\n"
            )
    return project, claude


def median_ms(action, runs: int) -> float:
    action()  # warm-up: imports, template compilation, the search index
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        action()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--log-lines", type=int, default=10000)
    parser.add_argument("--old-sessions", type=int, default=0)
    options = parser.parse_args()

    os.environ["XDG_CACHE_HOME"] = str(WORK / "xdg")  # the dashboard's cache, in-process too
    project, claude = build(
        options.agents, options.sessions, options.log_lines, options.old_sessions
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from purlin_resume.core.project import Project
    from purlin_resume.web import security, views
    from purlin_resume.web.app import create_app

    guard = security.Guard("127.0.0.1", 8765)
    client = TestClient(
        create_app(views.Scope(Project(project), claude), guard), base_url="http://127.0.0.1:8765"
    )
    headers = {"x-purlin-token": guard.token}

    def anchor() -> None:
        json.loads((project / ".purlin" / "agents.json").read_text())
        for line in (claude / "history" / "resurrection-log.jsonl").read_text().splitlines():
            json.loads(line)

    floor = median_ms(anchor, options.runs)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user runs compiled modules
    listing = [SCRIPT, "sessions", "--all", "--claude-dir", str(claude)]

    def process(argv=(sys.executable, "-c", "pass")) -> None:
        subprocess.run(argv, env=env, check=True, capture_output=True)

    started = [process, lambda: process(listing)]
    spans: list[list[float]] = [[], []]
    for action in started:
        action()  # warm-up (the listing's first run fills the cache)
    for _ in range(options.runs):
        for span, action in zip(spans, started, strict=True):
            began = time.perf_counter()
            action()
            span.append((time.perf_counter() - began) * 1000)
    bare, listed = (statistics.median(span) for span in spans)
    print(
        f"{options.agents} agents, {options.sessions} sessions, {options.log_lines} log lines;"
        f" medians of {options.runs} runs"
    )
    print(f"anchor: python -c pass                 {bare:8.1f} ms")
    print(f"anchor: json.loads of registry + log  {floor:8.1f} ms")
    print(f"sessions --all (process, warm)         {listed:8.1f} ms  {listed / bare:6.1f}x pass")
    pages = [
        "/agents",
        "/agents/cards",
        "/agents/agent-00500",
        "/subagents",
        "/resurrections",
        "/resurrections?mode=fuzzy&outcome=failure&since=2026-02-01",
        "/sessions",
        "/sessions?q=tmux+injection",
        "/transcripts/b0000000-0000-4000-8000-000000000007",
        "/api/agents",
        "/api/agents/agent-00500",
        "/api/agents/agent-00009/activity",
        "/api/subagents",
        "/api/resurrections",
        "/api/sessions",
        "/api/sessions?q=tmux+injection",
    ]
    # The resurrection figures are kept per version of the log: the "log changed" rows drop
    # them before each request, as an append to the log does.
    cold = [("/resurrections", "log changed"), ("/api/resurrections", "log changed")]
    worst = 0.0
    for path, label in [(p, "") for p in pages] + cold:

        def fetch(path=path, label=label) -> None:
            if label:
                views._summary.cache_clear()
            answer = client.get(path, headers=headers)
            assert answer.status_code == 200, (path, answer.status_code, answer.text[:200])

        took = median_ms(fetch, options.runs)
        worst = max(worst, took / bare)
        verdict = "ok" if took / bare <= BUDGET else "OVER"
        name = f"{path} ({label})" if label else path
        print(f"{name:60} {took:8.1f} ms  {took / bare:6.1f}x pass  {verdict}")
    print(f"slowest {worst:.1f}x python -c pass (budget <= {BUDGET:.0f}x)")
    return 0 if worst <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
