"""An installed copy (not this checkout) finds the shipped templates and instructions."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import git

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installed_in_a_fresh_venv_runs_save_and_restore(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = dist.glob("purlin_resume-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in (
        "purlin_resume/_data/templates/stall/resume_prompt.md.j2",
        "purlin_resume/_data/templates/restore/briefing.md.j2",
        "purlin_resume/_data/templates/claude/commands/pl-resume.md",
        "purlin_resume/_data/instructions/HOW_WE_WORK_BASE.md",
        "purlin_resume/_data/instructions/references/qa_commands.md",
        "purlin_resume/_data/templates/web/agents.html.j2",
        "purlin_resume/web/static/dashboard.js",
        "purlin_resume/web/static/dashboard.css",
    ):
        assert shipped in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([venv / "bin/pip", "install", "-q", str(wheel)], check=True, capture_output=True)

    project = tmp_path / "elsewhere"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "commit", "-q", "--allow-empty", "-m", "init")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    exe = str(venv / "bin/purlin-resume")

    def run(*args: str) -> str:
        done = subprocess.run([exe, *args], cwd=project, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    where = subprocess.run(
        [
            venv / "bin/python",
            "-c",
            "import purlin_resume.core.resources as r; print(r.data_dir('templates'))",
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(venv)), "resources come from the installed wheel"
    run(
        "save",
        "--role",
        "qa",
        "--in-progress",
        "verifying",
        "--scenario-progress",
        "1 of 2",
        "--current-scenario",
        "One",
        "--next",
        "Verify two",
    )
    out = run("restore", "qa")
    assert "Checkpoint:     found" in out
    assert "QA -- Ready" in out, "the shipped command table"
    assert "Prohibitions:" in out, "the shipped instruction layers"
    without_web = subprocess.run(
        [exe, "dashboard"], cwd=project, env=env, capture_output=True, text=True
    )
    assert without_web.returncode == 1
    assert without_web.stderr.strip() == (
        "error: the dashboard needs the web extra: pip install 'purlin-resume[web]'"
    )


def test_each_command_is_built_from_the_module_that_registers_it():
    """The console script imports only the owner of the command that runs (start-up); the
    table must name, for every command, the one module that registers it, and a subcommand's
    own owner must register it (and no other subcommand of its group)."""
    import typer.main

    from purlin_resume.cli import OWNERS, SUBCOMMAND_OWNERS
    from purlin_resume.cli.commands import COMMAND_MODULES, app

    assert set(OWNERS) == set(typer.main.get_command(app).commands)
    code = (
        "import sys, importlib, typer.main\n"
        "from purlin_resume.cli.app import app\n"
        "importlib.import_module('purlin_resume.cli.' + sys.argv[1])\n"
        "print(' '.join(typer.main.get_command(app).commands))\n"
    )
    for module in COMMAND_MODULES:
        out = subprocess.run(
            [sys.executable, "-c", code, module], capture_output=True, text=True, check=True
        ).stdout.split()
        assert sorted(out) == sorted(n for n, owner in OWNERS.items() if owner == module), module
    subcommand = (
        "import sys, importlib, typer.main\n"
        "from purlin_resume.cli.app import app\n"
        "importlib.import_module('purlin_resume.cli.' + sys.argv[1])\n"
        "group = typer.main.get_command(app).commands[sys.argv[2]]\n"
        "print(' '.join(group.commands))\n"
    )
    for (group, name), module in SUBCOMMAND_OWNERS.items():
        out = subprocess.run(
            [sys.executable, "-c", subcommand, module, group],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert out == [name], module


def test_the_console_script_helps_with_every_command(tmp_path):
    exe = Path(sys.executable).with_name("purlin-resume")
    sessions = subprocess.run([str(exe), "sessions", "--help"], capture_output=True, text=True)
    assert sessions.returncode == 0, sessions.stderr
    assert "Usage: purlin-resume sessions" in sessions.stdout
    helped = subprocess.run([str(exe), "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert helped.returncode == 0
    for name in ("save", "recommend", "dashboard", "team", "mcp", "open"):
        assert name in helped.stdout
    unknown = subprocess.run(
        [str(exe), "no-such-command"], capture_output=True, text=True, cwd=tmp_path
    )
    assert unknown.returncode == 2
    assert "No such command" in unknown.stderr
