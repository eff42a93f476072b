"""Revival of a dead agent of Codex CLI: its own CLI resumes the same session by its id in a
new tmux window, refused while another process holds that session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest

from purlin_resume.agents import registry
from purlin_resume.core import tmux
from purlin_resume.core.project import Project
from tests.agents_setup import agent_record, configure, dead_pid, write_registry
from tests.conftest import start_under_shell


@pytest.fixture
def session_id():
    """An id of this test's own: the revival looks for processes naming the id machine-wide, so
    tests running side by side must not share one."""
    return str(uuid.uuid4())


def _fake_codex(folder):
    """A ``codex`` on PATH that keeps its arguments and shows Codex's ready line."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "codex"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s " "$@" > "{folder}/args"\n'
        'echo "› Ask Codex to do anything"; echo "? for shortcuts"; exec sleep 60\n'
    )
    script.chmod(0o755)


@pytest.mark.parametrize("shell", ["sh", "fish"])
def test_a_dead_codex_agent_is_resumed_by_its_session_id(
    repo, tmux_server, tmp_path, cli, monkeypatch, shell, session_id
):
    bin_dir = tmp_path / "bin"
    _fake_codex(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    start_under_shell(tmux_server, shell)  # the user's shell runs the window's command
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(
        repo,
        {
            session_id: agent_record(
                repo, pid=dead_pid(), cli="codex", ended_at="2026-11-27T11:00:00Z"
            )
        },
    )
    result = cli("revive", session_id[:13], "--json")
    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)
    assert (done["successor"], done["native"], done["injections"]) == (session_id, True, [])
    assert done["command"] == f"codex resume {session_id}"
    deadline = time.monotonic() + 10
    while not (bin_dir / "args").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (bin_dir / "args").read_text().split() == ["resume", session_id]
    agent = registry.load(Project(repo))[session_id]
    assert (agent.cli, agent.ended_at, agent.tmux_pane) == ("codex", None, done["tmux_pane"])
    assert tmux.pane_alive(tmux_server, done["tmux_pane"])


def test_a_session_open_in_another_process_is_not_revived(
    repo, tmux_server, tmp_path, cli, session_id
):
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(
        repo,
        {
            session_id: agent_record(
                repo, pid=dead_pid(), cli="codex", ended_at="2026-11-27T11:00:00Z"
            )
        },
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "resume", session_id]
    )
    try:
        result = cli("revive", session_id)
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 1
    assert f"session {session_id} is open in another process (pid {holder.pid})" in result.stderr
