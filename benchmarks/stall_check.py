"""Speed of ``stall check`` on a repository of 10,000 files, against ``git status``.

    .venv/bin/python benchmarks/stall_check.py [--runs 7] [--files 10000]

Builds (once, under benchmarks/.work/stall/, never committed) a git repository of ``--files``
tracked files in 100 folders (20 of them edited and 5 new files, uncommitted), 2,000 more under
node_modules/ and a virtualenv (both skipped by the files source), 30 commits of the last hours,
one of them carrying the agent's ``Agent-Id:`` trailer, and a registered agent whose transcript
is the real 3.2 MB fixture session (when ``tests/fixtures/claude`` is there). Then prints medians of ``--runs`` runs:

1. ``stall.detect`` in-process (imports done): the whole assessment, every source asked;
2. ``purlin-resume stall check AGENT --json`` as a whole process (what a user waits for);
3. the anchor: ``git status --porcelain`` as a whole process on the same repository, which also
   looks at every file of the work tree; and ``purlin-resume --version`` (start-up alone).

Target: ``stall check`` within 150 ms. Its exit code says active (0) or stalled (3); both count.

``--against DIR`` (other code: ``git archive COMMIT purlin_resume | tar -x -C DIR``) also runs
that code's ``stall check`` (``python -m purlin_resume`` with ``PYTHONPATH=DIR``), interleaved
run by run with this checkout's, and prints both medians: wall time, and the CPU time of the
process and of the git processes it waits for (less bent by other load than the wall time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "stall"
FIXTURES = Path(os.environ.get("PURLIN_FIXTURES", REPO / "tests" / "fixtures" / "claude"))
SESSION = (
    "projects/-home-USER-projects-spotter-worktrees-spotter-dov/"
    "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)
AGENT = "bench-agent-0001"
TARGET_MS = 150.0


def git(root: Path, *args: str, env: dict | None = None) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


def build(root: Path, files: int) -> None:
    marker = root.with_name(root.name + ".built")
    if marker.is_file() and marker.read_text() == f"{files} edited":
        return
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    identity = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com"}
    identity |= {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    git(root, "init", "-q", "-b", "main")
    for n in range(files):
        folder = root / "src" / f"pkg{n % 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module{n:05d}.py").write_text(f"VALUE = {n}\n")
    for n in range(2000):
        folder = root / "node_modules" / f"dep{n % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"index{n}.js").write_text("module.exports = 1\n")
    venv = root / ".venv"
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".gitignore").write_text("node_modules/\n.venv/\n.purlin/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial import", env=identity)
    now = int(time.time())
    for n in range(30):
        moment = f"@{now - (30 - n) * 600} +0000"
        env = {**identity, "GIT_AUTHOR_DATE": moment, "GIT_COMMITTER_DATE": moment}
        target = root / "src" / f"pkg{n % 100:03d}" / f"module{n:05d}.py"
        target.write_text(f"VALUE = {n} + 1\n")
        message = f"change {n}" + (f"\n\nAgent-Id: {AGENT}" if n == 20 else "")
        git(root, "commit", "-q", "-am", message, env=env)
    old = time.time() - 3 * 3600
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            os.utime(os.path.join(folder, name), (old, old))
    transcript = FIXTURES / SESSION
    agent = {
        "pid": None,
        "cwd": str(root),
        "started_at": "2026-01-15T14:00:00Z",
        "ended_at": None,
        "transcript_path": str(transcript) if transcript.is_file() else None,
        "tmux_pane": None,
        "role": "builder",
        "previous_agent_id": None,
    }
    for n in range(0, files, max(1, files // 20)):  # uncommitted edits, and new files
        (root / "src" / f"pkg{n % 100:03d}" / f"module{n:05d}.py").write_text(f"VALUE = {n} - 1\n")
    for n in range(5):
        (root / "src" / f"new{n}.py").write_text("NEW = 1\n")
    (root / ".purlin").mkdir()
    (root / ".purlin" / "agents.json").write_text(
        json.dumps({"version": 1, "agents": {AGENT: agent}}, indent=2)
    )
    marker.write_text(f"{files} edited")


def median_ms(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def process(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL)
    if done.returncode not in (0, 3):  # stall check: 0 active, 3 stalled
        raise SystemExit(f"{' '.join(argv)} failed with exit code {done.returncode}")


def paired(code: dict[str, Path], root: Path, runs: int) -> dict[str, tuple[float, float]]:
    """(median wall ms, median CPU ms) of ``stall check`` for each checkout, interleaved."""
    argv = [sys.executable, "-m", "purlin_resume", "stall", "check", AGENT, "--json"]
    taken: dict[str, list[tuple[float, float]]] = {name: [] for name in code}
    for run in range(runs + 1):  # the first round warms up
        for name, folder in code.items():
            env = {**os.environ, "PYTHONPATH": str(folder)}
            started = time.perf_counter()
            child = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - started
            if os.waitstatus_to_exitcode(status) not in (0, 3):
                raise SystemExit(f"{name}: stall check failed ({status})")
            if run:
                taken[name].append((wall * 1000, (usage.ru_utime + usage.ru_stime) * 1000))
    return {
        name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
        for name, got in taken.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--against", type=Path, help="a checkout of other code to compare with")
    args = parser.parse_args()
    root = WORK / f"repo-{args.files}"
    build(root, args.files)

    sys.path.insert(0, str(REPO))
    from purlin_resume.agents import stall
    from purlin_resume.core.project import Project

    project = Project(root)
    result = stall.detect(project, AGENT)  # warm-up; also shows what was found
    inproc = median_ms(lambda: stall.detect(project, AGENT), args.runs)
    cli = [str(Path(sys.executable).with_name("purlin-resume")), "stall", "check", AGENT, "--json"]
    whole = median_ms(lambda: process(cli, root), args.runs)
    anchor = median_ms(lambda: process(["git", "status", "--porcelain"], root), args.runs)
    startup = median_ms(lambda: process([cli[0], "--version"], root), args.runs)

    transcript = "real 3.2 MB fixture session" if (FIXTURES / SESSION).is_file() else "none"
    print(
        f"repository: {args.files} tracked files (+2000 in node_modules, a .venv); transcript: {transcript}"
    )
    print(f"assessment: {[s.source.value for s in result.signals]} -> active={result.is_active}")
    print(
        f"medians of {args.runs} runs; anchor: `git status --porcelain` process = {anchor:.1f} ms"
    )
    print(f"start-up alone: `purlin-resume --version` process = {startup:.1f} ms")
    for name, value in (("stall.detect in-process", inproc), ("`stall check` process", whole)):
        verdict = "met" if value <= TARGET_MS else "missed"
        print(
            f"{name:<26} {value:7.1f} ms  {value / anchor:5.2f}x the anchor  "
            f"target <= {TARGET_MS:.0f} ms: {verdict}"
        )
    if args.against is not None:
        got = paired({"this checkout": REPO, str(args.against): args.against}, root, args.runs)
        (here, here_cpu), (there, there_cpu) = got.values()
        print(f"interleaved with {args.against} (medians of {args.runs}, wall and CPU):")
        for name, (wall, cpu) in got.items():
            print(f"  {name:<40} {wall:7.1f} ms wall  {cpu:7.1f} ms CPU")
        print(f"  ratio this/that: {here / there:.2f} wall, {here_cpu / there_cpu:.2f} CPU")


if __name__ == "__main__":
    main()
