"""Teammates for the team tests: each a HOME of their own with a copy of the real transcripts,
a git project, and ``purlin-resume`` run as its own process (the team database engine must load
before SQLite, which an in-process run cannot promise)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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
        assert len(lines) == 1 and lines[0].startswith("error: "), self.stderr
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
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CLAUDE", "PURLIN", "_DOLTLITE"))
        }
        env.update(
            HOME=str(self.home),
            CLAUDE_CONFIG_DIR=str(self.claude),
            PURLIN_TEAM_FOREGROUND="1",
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


def require_team_extra() -> None:
    """Skip without the team extra on a developer machine; in CI its absence fails the run.
    (doltlite is looked up, never imported: importing it here would re-execute pytest.)"""
    import importlib.util

    import pytest

    missing = [n for n in ("doltlite", "pymysql") if importlib.util.find_spec(n) is None]
    if not missing:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{', '.join(missing)} missing in CI: .ci/run installs '.[test,team]'")
    pytest.skip(
        f"the team extra is not installed ({', '.join(missing)}): pip install -e '.[team]'",
        allow_module_level=True,
    )
