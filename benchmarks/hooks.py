"""Latency of the Claude Code hook that runs on every subagent spawn, against bare Python start-up.

    .venv/bin/python benchmarks/hooks.py [--runs 40]

Prints the medians of ``--runs`` interleaved runs, from one run:

- anchor: ``python -c pass`` with the very interpreter the hook runs on (the venv's, so a
  ``python3`` shim on PATH cannot make the ratio look better than it is);
- ``purlin-resume hook pre-tool-use`` through the installed console script, with a real Agent
  payload on stdin, recording a spawn in a temp git repository whose history holds 20 entries
  (restored before every run, so every run does the same work).

Target: the hook at most 2.5x the anchor. The hook answers at once and a detached child records
the spawn; also printed: when the spawn is on disk, and the hook run in the foreground. ``-X importtime`` of the same call is printed with
``--imports`` to show where start-up goes.
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

TARGET = 2.5
EXE = Path(sys.executable).with_name("purlin-resume")


def _timed(argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def _last_id(history: Path) -> str | None:
    try:
        return json.loads(history.read_text())["entries"][-1]["agent_id"]
    except (ValueError, KeyError, IndexError):
        return None  # being replaced right now


def _project(folder: Path) -> tuple[Path, bytes]:
    root = folder / "project"
    root.mkdir()
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / "README.md").write_text("bench\n")
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=root, check=True)
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
    return root, history.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--imports", action="store_true", help="print -X importtime of one call")
    args = parser.parse_args()
    if not EXE.exists():
        raise SystemExit(f"{EXE} not found: install the package into this venv first")
    folder = Path(tempfile.mkdtemp(prefix="purlin-hook-bench-"))
    try:
        root, baseline = _project(folder)
        history = root / ".planning" / "agent-history.json"
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
        env.pop("PURLIN_SESSION_ID", None)
        anchor, hook, landed, inline = [], [], [], []
        inline_env = {**env, "PURLIN_HOOK_FOREGROUND": "1"}
        for n in range(args.runs + 2):
            payload = json.dumps(
                {
                    "session_id": "bench-session",
                    "transcript_path": str(root / "t.jsonl"),
                    "cwd": str(root),
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Agent",
                    "tool_use_id": f"toolu_bench{n:04d}",
                    "tool_input": {
                        "description": "Execute plan 02-01",
                        "prompt": "Do the plan.",
                        "subagent_type": "general-purpose",
                    },
                }
            ).encode()
            history.write_bytes(baseline)
            a = _timed([sys.executable, "-c", "pass"], b"", env, root)
            started = time.perf_counter()
            h = _timed([str(EXE), "hook", "pre-tool-use"], payload, env, root)
            wanted = f"toolu_bench{n:04d}"
            while _last_id(history) != wanted:  # the detached child records it
                if time.perf_counter() - started > 10:
                    raise SystemExit("the hook did not record the spawn within 10 s")
                time.sleep(0.002)
            on_disk = time.perf_counter() - started
            history.write_bytes(baseline)
            i = _timed([str(EXE), "hook", "pre-tool-use"], payload, inline_env, root)
            if _last_id(history) != wanted:
                raise SystemExit("the foreground hook did not record the spawn")
            if n >= 2:  # the first runs warm the caches
                anchor.append(a)
                hook.append(h)
                landed.append(on_disk)
                inline.append(i)
        if (root / ".purlin" / "cache" / "hook.log").exists():
            raise SystemExit(
                "the hook logged a failure: " + (root / ".purlin/cache/hook.log").read_text()
            )
        a, h = statistics.median(anchor), statistics.median(hook)
        ratio = h / a
        d, f = statistics.median(landed), statistics.median(inline)
        print(
            f"anchor  {sys.executable} -c pass       median {a * 1000:6.1f} ms ({args.runs} runs)"
        )
        print(
            f"hook    purlin-resume hook pre-tool-use   median {h * 1000:6.1f} ms ({args.runs} runs)"
        )
        print(
            f"ratio   {ratio:.2f}x (target <= {TARGET}x: {'met' if ratio <= TARGET else 'missed'})"
        )
        print(
            f"spawn on disk after  median {d * 1000:6.1f} ms ({d / a:.1f}x; by the detached child)"
        )
        print(
            f"foreground hook      median {f * 1000:6.1f} ms ({f / a:.1f}x; PURLIN_HOOK_FOREGROUND=1)"
        )
        if args.imports:
            payload = payload.replace(b"bench", b"imports")
            history.write_bytes(baseline)
            out = subprocess.run(
                [sys.executable, "-X", "importtime", str(EXE), "hook", "pre-tool-use"],
                input=payload,
                env=env,
                cwd=root,
                capture_output=True,
                check=True,
            )
            lines = [line for line in out.stderr.decode().splitlines() if "|" in line][1:]
            top = sorted(lines, key=lambda line: -int(line.split("|")[1]))[:15]
            print("\n".join(top))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
