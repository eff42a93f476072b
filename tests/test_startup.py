"""The console script as a user starts it: a lone ``--version`` answered without Typer, and
each command built alone helping as the whole command line does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def python(code: str, *args: str, cwd: Path, env: dict | None = None):
    """``python -c CODE ARGS...``, its output as text."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})},
        capture_output=True,
        text=True,
        encoding="utf-8",
    )


def without_typer(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``purlin-resume ARGS...`` where Typer cannot be imported."""
    code = (
        "import sys, runpy\n"
        "sys.modules['typer'] = None\n"
        "sys.argv = ['purlin-resume', *sys.argv[1:]]\n"
        "runpy.run_module('purlin_resume', run_name='__main__')\n"
    )
    return python(code, *args, cwd=cwd)


def test_version_is_answered_before_typer_loads(tmp_path):
    done = without_typer("--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "purlin-resume 0.1.0\n"
    exe = Path(sys.executable).with_name("purlin-resume")
    both = subprocess.run(
        [str(exe), "--version", "--no-redact"], capture_output=True, text=True, cwd=tmp_path
    )  # Typer's eager option
    assert both.stdout == done.stdout


def typer_help(cwd: Path, env: dict, *command: str) -> str:
    """The page as Typer renders it with every command loaded, without the console script."""
    code = (
        "import sys\n"
        "sys.argv = ['purlin-resume', *sys.argv[1:], '--help']\n"
        "from purlin_resume.cli.commands import app\n"
        "app(prog_name='purlin-resume')\n"
    )
    done = python(code, *command, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def help_page(cwd: Path, env: dict, *command: str) -> str:
    """The page through the console script (only the command's own module loaded)."""
    exe = Path(sys.executable).with_name("purlin-resume")
    done = subprocess.run(
        [str(exe), *command, "--help"],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **env},
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "command",
    [
        (),
        ("recommend",),
        ("bookmark",),
        ("bookmark", "add"),
        ("resurrections",),
        ("resurrections", "stats"),
        ("resurrect",),
        ("resurrect", "done"),
        ("stall", "check"),
        ("install",),
    ],
)
def test_a_command_built_alone_helps_as_in_the_whole_command_line(tmp_path, command):
    """The console script builds only the command that runs; what it prints is unchanged."""
    env = {"COLUMNS": "100"}
    page = help_page(tmp_path, env, *command)
    assert page == typer_help(tmp_path, env, *command)
    assert f"Usage: purlin-resume {' '.join(command)}".rstrip() in page
