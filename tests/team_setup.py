"""Teammates for the team tests: each a HOME of their own with a copy of the real transcripts,
a git project, and ``purlin-resume`` run as its own process; and a git server on loopback."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import FIXTURES, git

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)

    def error(self) -> str:
        """The one error line a failed command printed (and nothing else on stderr)."""
        lines = self.stderr.strip().splitlines()
        assert len(lines) == 1, self.stderr
        assert lines[0].startswith("error: "), self.stderr
        return lines[0]


@dataclass
class Teammate:
    name: str
    home: Path
    project: Path
    extra_env: dict

    @property
    def claude(self) -> Path:
        return self.home / ".claude"

    @property
    def history(self) -> Path:
        return self.claude / "history"

    def env(self) -> dict:
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "PURLIN", "GIT_"))
        }
        env.update(
            HOME=str(self.home),
            CLAUDE_CONFIG_DIR=str(self.claude),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            PYTHONPATH=str(ROOT),
            USER=self.name,
            LOGNAME=self.name,
        )
        env.update(self.extra_env)
        return env

    def popen(self, *args: str, **options) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "purlin_resume", *args],
            cwd=self.project,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **options,
        )

    def __call__(self, *args: str, timeout: float = 120) -> Run:
        done = subprocess.run(
            [sys.executable, "-m", "purlin_resume", *args],
            cwd=self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    def ok(self, *args: str, timeout: float = 120) -> Run:
        done = self(*args, timeout=timeout)
        assert done.code == 0, (args, done.stdout, done.stderr)
        return done

    def log(self) -> list[dict]:
        from purlin_resume.resurrection import log as resurrection_log

        return resurrection_log.read(self.history / resurrection_log.FILE_NAME)[0]


def teammate(base: Path, name: str, transcripts: bool = True) -> Teammate:
    home = base / name
    claude = home / ".claude"
    if transcripts:
        shutil.copytree(FIXTURES, claude)
    else:
        (claude / "projects").mkdir(parents=True)
    project = home / "project"
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text(f"# {name}\n")
    git(project, "add", "README.md")
    git(project, "commit", "-q", "-m", "initial commit")
    return Teammate(name, home, project, {})


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """``git daemon`` on 127.0.0.1 serving a new bare ``team.git`` with pushes allowed; its
    URL."""
    import socket
    import time

    served = base / "served"
    served.mkdir()
    git(served, "init", "-q", "--bare", "team.git")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    daemon = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            f"--base-path={served}",
            "--listen=127.0.0.1",
            f"--port={port}",
            str(served),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"git://127.0.0.1:{port}/team.git"
    finally:
        daemon.terminate()
        daemon.wait(timeout=20)
