"""Time from starting ``purlin-resume mcp`` to its answer to ``initialize``, and to ``tools/list``.

    .venv/bin/python benchmarks/mcp_start.py [--runs 10]

Starts the console script next to the running interpreter as Claude Code does (stdio), sends
``initialize``, then ``notifications/initialized`` and ``tools/list``, and times each answer
from the start of the process. The anchor is ``python -c pass``. Prints the medians. Claude
Code sends the model's first request while a server is still connecting; a server that answers
late is missing from it ("still connecting").
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
from pathlib import Path

from purlin_resume.integration.doctor import INITIALIZE_REQUEST as INITIALIZE

SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _send(process: subprocess.Popen, message: dict) -> None:
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def one_run(cwd: Path) -> tuple[float, float]:
    """(ms to the initialize answer, ms to the tools/list answer) of one server process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [SCRIPT, "mcp"],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(cwd)},
    )
    try:
        _send(process, INITIALIZE)
        answered = json.loads(process.stdout.readline())
        initialized = (time.perf_counter() - started) * 1000
        assert answered.get("id") == 1, answered
        assert "result" in answered, answered
        _send(process, INITIALIZED)
        _send(process, LIST)
        listed = json.loads(process.stdout.readline())
        assert listed.get("id") == 2, listed
        assert listed["result"]["tools"], listed
        return initialized, (time.perf_counter() - started) * 1000
    finally:
        process.stdin.close()
        process.wait(30)


def anchor() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        runs = [one_run(Path(folder)) for _ in range(args.runs)]
    anchors = [anchor() for _ in range(args.runs)]
    print(f"load average: {os.getloadavg()[0]:.1f} (1 min); medians of {args.runs} runs")
    print(f"  python -c pass               {statistics.median(anchors):7.0f} ms")
    print(f"  initialize answered          {statistics.median(r[0] for r in runs):7.0f} ms")
    print(f"  tools/list answered          {statistics.median(r[1] for r in runs):7.0f} ms")


if __name__ == "__main__":
    main()
