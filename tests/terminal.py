"""Running a command with one of its standard streams on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess


def on_a_terminal(
    argv: list[str], stream: str = "stdout", env: dict[str, str] | None = None
) -> tuple[int, bytes, bytes]:
    """Run ``argv`` with ``stream`` ("stdout" or "stderr") on a pseudo-terminal and the other
    on a pipe; (exit code, what the pipe got, what the terminal got)."""
    leader, follower = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, stream: follower}
    process = subprocess.Popen(argv, env=env, **streams)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        seen += chunk
    piped = (process.stderr if stream == "stdout" else process.stdout).read()
    process.wait(timeout=120)
    os.close(leader)
    return process.returncode, piped, seen
