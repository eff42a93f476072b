"""Time of every installed Claude Code hook event, against bare Python start-up.

    .venv/bin/python benchmarks/hooks.py [--runs 15]

Builds a git project in a temp folder, installs purlin-resume's hooks into it, and gives it a
Claude data folder holding a real 3 MB Claude Code 2.1 session with a subagent (from
tests/fixtures/claude). Each run restores the project's state, then plays one subagent's life as
the client does: SessionStart, UserPromptSubmit, PreToolUse (the Task call, the transcript cut
just after it), SubagentStart, SubagentStop, PostToolUse, the SubagentStart and SubagentStop
Claude Code sends for a compaction run, PreCompact and SessionEnd, each through the installed console script with a realistic payload on stdin.
``python -c pass`` (the venv's interpreter) runs before each of them: the anchor. The first run
is not counted (it compiles the modules, as a user's first hook call does once). Medians of
``--runs`` runs, wall time and CPU time (user + system, the git a hook runs included), and
their ratios to the anchor's are printed; budgets, judged on CPU time: 8x for the events that
run on a tool call or a prompt, 15x for the others. The run fails when a hook logged a failure
or the subagent did not end up completed under its own id.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from purlin_resume.claude import settings as claude_settings

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "claude" / "projects"
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
FOLDER = FIXTURES / "-home-USER-projects-spotter-worktrees-spotter-dov"
TOOL_USE = "toolu_017pLRuPHYTX5t99EnLyV53m"
AGENT = "a2898e3"
EARLIER_SESSION = "0e1d2c3b-0000-4000-8000-000000000001"  # an earlier session of the project
COMPACTION = "acompact-e1f845"
EXE = Path(sys.executable).with_name("purlin-resume")
TOOL_CALL, SESSION_EVENT = 8.0, 15.0
SESSION_EVENTS = ("session-start", "session-end", "pre-compact")


def _git(root: Path, *args: str) -> None:
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, *args], cwd=root, check=True, capture_output=True)


def _project(folder: Path) -> Path:
    root = folder / "project"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("bench\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "init")
    subprocess.run([str(EXE), "install", "--project", str(root)], check=True, capture_output=True)
    history = root / ".planning" / "agent-history.json"
    data = json.loads(history.read_text())
    data["entries"] = [
        {
            "agent_id": f"agent_{n:03d}",
            "task_description": "earlier work",
            "phase": "01",
            "plan": f"{n:02d}",
            "timestamp": "2026-01-01T00:00:00Z",
            "status": "completed",
        }
        for n in range(20)
    ]
    history.write_text(json.dumps(data, indent=2) + "\n")
    return root


def _claude(folder: Path, root: Path) -> tuple[Path, Path, Path]:
    """The Claude data folder; the session's transcript (cut after the Task call, as it is
    when PreToolUse runs) and the whole one."""
    claude = folder / "claude"
    projects = claude / "projects" / "".join(c if c.isalnum() else "-" for c in str(root))
    shutil.copytree(FOLDER / SESSION, projects / SESSION)
    whole = FOLDER / f"{SESSION}.jsonl"
    lines = whole.read_bytes().splitlines(keepends=True)
    cut = next(n for n, line in enumerate(lines) if f'"id":"{TOOL_USE}"'.encode() in line)
    transcript = projects / f"{SESSION}.jsonl"
    transcript.write_bytes(b"".join(lines[: cut + 1]))
    return claude, transcript, whole


def _payloads(root: Path, transcript: Path) -> list[tuple[str, str, dict]]:
    """(label, event, payload) in the order the client sends them."""
    base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(root)}
    subagents = transcript.parent / SESSION / "subagents"
    line = next(
        json.loads(line)
        for line in transcript.read_text().splitlines()
        if f'"id":"{TOOL_USE}"' in line
    )
    call = next(b for b in line["message"]["content"] if b.get("id") == TOOL_USE)
    tool = {"tool_name": call["name"], "tool_input": call["input"], "tool_use_id": TOOL_USE}
    answer = "Here is what I found about the transcript rendering."
    return [
        ("SessionStart", "session-start", {**base, "source": "startup"}),
        ("UserPromptSubmit", "user-prompt-submit", {**base, "prompt": "Look at the rendering"}),
        ("PreToolUse", "pre-tool-use", {**base, **tool}),
        ("SubagentStart", "subagent-start", {**base, "agent_id": AGENT, "agent_type": "Explore"}),
        (
            "SubagentStop",
            "subagent-stop",
            {
                **base,
                "agent_id": AGENT,
                "agent_type": "Explore",
                "agent_transcript_path": str(subagents / f"agent-{AGENT}.jsonl"),
                "last_assistant_message": answer,
            },
        ),
        (
            "PostToolUse",
            "post-tool-use",
            {
                **base,
                **tool,
                "tool_response": {
                    "status": "completed",
                    "agentId": AGENT,
                    "content": [{"type": "text", "text": answer}],
                },
            },
        ),
        ("SubagentStart (compaction)", "subagent-start", {**base, "agent_id": COMPACTION}),
        (
            "SubagentStop (compaction)",
            "subagent-stop",
            {
                **base,
                "agent_id": COMPACTION,
                "agent_transcript_path": str(subagents / f"agent-{COMPACTION}.jsonl"),
                "last_assistant_message": "<summary>the conversation so far</summary>",
            },
        ),
        ("PreCompact", "pre-compact", {**base, "trigger": "auto", "custom_instructions": ""}),
        ("SessionEnd", "session-end", {**base, "reason": "exit"}),
    ]


def _worked_before(root: Path, steps, env) -> None:
    """Another session's agent through every event first: the project has had agents before
    (its history holds 20), so its state and lock files exist and are kept out of git already,
    as they are on every call but a project's first."""
    for _, event, payload in steps:
        text = json.dumps(payload).replace(SESSION, EARLIER_SESSION).replace(AGENT, "a0e1d2c3")
        _timed(
            [str(EXE), "hook", event], text.replace(TOOL_USE, "toolu_earlier").encode(), env, root
        )
    log = root / ".purlin" / "cache" / "hook.log"
    if log.exists():
        raise SystemExit(f"a hook logged a failure: {log.read_text()}")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the git it runs included) of one whole process."""
    cpu, started = _cpu(), time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed, cpu = time.perf_counter() - started, _cpu() - cpu
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed, cpu


def _recorded(history: Path, agent_id: str) -> dict | None:
    try:
        entries = json.loads(history.read_text())["entries"]
    except (OSError, ValueError, KeyError):
        return None
    return next(
        (e for e in reversed(entries) if agent_id in (e["agent_id"], e.get("tool_use_id"))), None
    )


def _restore(root: Path, kept: Path) -> None:
    for name in (".planning", ".purlin"):
        shutil.rmtree(root / name, ignore_errors=True)
        if (kept / name).exists():
            shutil.copytree(kept / name, root / name, symlinks=True)


def _one_run(root: Path, kept: Path, steps, env) -> dict[str, tuple[tuple, tuple]]:
    _restore(root, kept)
    history = root / ".planning" / "agent-history.json"
    times = {}
    for label, event, payload in steps:
        anchor = _timed([sys.executable, "-c", "pass"], b"", env, root)
        hook = _timed([str(EXE), "hook", event], json.dumps(payload).encode(), env, root)
        times[label] = (anchor, hook)
        if event == "pre-tool-use":  # in the client, the agent runs for a while now
            deadline = time.monotonic() + 10
            while _recorded(history, TOOL_USE) is None and time.monotonic() < deadline:
                time.sleep(0.01)
    log = root / ".purlin" / "cache" / "hook.log"
    if log.exists():
        raise SystemExit(f"a hook logged a failure: {log.read_text()}")
    entry = _recorded(history, AGENT)
    if entry is None or entry.get("status") != "completed" or entry.get("tool_use_id") != TOOL_USE:
        raise SystemExit(f"the subagent was not recorded right: {entry}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if not EXE.exists():
        raise SystemExit(f"{EXE} not found: install the package into this venv first")
    folder = Path(tempfile.mkdtemp(prefix="purlin-hook-bench-"))
    try:
        root = _project(folder)
        claude, transcript, _ = _claude(folder, root)
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "CLAUDE_CONFIG_DIR": str(claude)}
        env.update(XDG_CACHE_HOME=str(folder / "cache"), PYTHONPATH=str(REPO))
        for name in (
            "PURLIN_SESSION_ID",
            "CLAUDE_CODE_SESSION_ID",
            "PURLIN_ROLE",
            "TMUX",
            "PYTHONDONTWRITEBYTECODE",  # a user's hooks run from compiled modules
        ):
            env.pop(name, None)
        kept = folder / "kept"
        steps = _payloads(root, transcript)
        _worked_before(root, steps, env)
        for name in (".planning", ".purlin"):
            if (root / name).exists():
                shutil.copytree(root / name, kept / name, symlinks=True)
        missing = {h.name for h in claude_settings.HOOKS} - {event for _, event, _ in steps}
        if missing:
            raise SystemExit(f"installed hook events not measured: {', '.join(sorted(missing))}")
        runs = [_one_run(root, kept, steps, env) for _ in range(args.runs + 1)][1:]
        anchor = [statistics.median(a[n] for run in runs for a, _ in run.values()) for n in (0, 1)]
        print(
            f"anchor  {sys.executable} -c pass: median {anchor[0] * 1000:.1f} ms, "
            f"CPU {anchor[1] * 1000:.1f} ms"
        )
        print(f"{'event':28} {'ms':>7} {'ratio':>6} {'CPU ms':>7} {'ratio':>6} {'budget':>7}")
        missed = 0
        for label, event, _ in steps:
            wall, cpu = (statistics.median(run[label][1][n] for run in runs) for n in (0, 1))
            budget = SESSION_EVENT if event in SESSION_EVENTS else TOOL_CALL
            ratio, cpu_ratio = wall / anchor[0], cpu / anchor[1]
            missed += cpu_ratio > budget
            verdict = "met" if cpu_ratio <= budget else "MISSED"
            print(
                f"{label:28} {wall * 1000:7.1f} {ratio:5.1f}x {cpu * 1000:7.1f} {cpu_ratio:5.1f}x "
                f"{budget:6.0f}x {verdict}"
            )
        print(
            f"({args.runs} runs, interleaved with the anchor; the verdict on CPU time, which a "
            f"busy machine disturbs least; load {os.getloadavg()[0]:.1f})"
        )
        sys.exit(1 if missed else 0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
