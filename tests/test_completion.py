"""Shell completion: ``--install-completion`` writes the shell's completion script; completing
works through the console script; the hook path never loads Typer for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).parent / "purlin-resume"  # the console script, as installed


def _run(args: list[str], home: Path, extra: dict | None = None, stdin: str = ""):
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT), "SHELL": "/bin/bash"}
    return subprocess.run(
        [str(SCRIPT), *args],
        env={**env, **(extra or {})},
        input=stdin,
        capture_output=True,
        text=True,
        cwd=home,
    )


def test_install_completion_writes_the_bash_script(tmp_path):
    # Typer names the shell from the processes above (shellingham), not from $SHELL: run
    # from bash, as a user does, whatever started the tests
    done = subprocess.run(
        ["bash", "-c", '"$0" --install-completion; exit $?', str(SCRIPT)],
        env={**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stderr
    script = tmp_path / ".bash_completions" / "purlin-resume.sh"
    assert "_PURLIN_RESUME_COMPLETE=complete_bash" in script.read_text()
    assert str(script) in (tmp_path / ".bashrc").read_text()


def test_completing_a_command_name(tmp_path):
    done = _run(
        [],
        tmp_path,
        {
            "_PURLIN_RESUME_COMPLETE": "complete_bash",
            "COMP_WORDS": "purlin-resume op",
            "COMP_CWORD": "1",
        },
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["open"]


def test_the_hook_path_loads_no_typer(tmp_path):
    probe = (
        "import sys, io, runpy; sys.argv = ['purlin-resume', 'hook', 'session-end'];"
        "sys.stdin = io.StringIO('{}');"
        "from purlin_resume.cli import entry\n"
        "try:\n    entry.main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich')))"
    )
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().replace("'", '"')) == []
