from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import git
from tests.gsd_files import read_history

_WORKER = """
import sys
from purlin_resume.cli.commands import app
agent = sys.argv[1]
for args in (
    ["history", "spawn", "--agent-id", agent, "--task", "work of " + agent,
     "--phase", "05", "--plan", agent[-2:], "--group", "phase-05-batch-1"],
    ["history", "complete", agent, "--files", "src/" + agent + ".py"],
):
    try:
        app(args)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
"""


@pytest.mark.slow
def test_16_processes_spawning_and_completing_at_once_lose_no_entry(repo):
    agents = [f"agent_{n:02d}" for n in range(16)]
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, agent],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for agent in agents
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    entries = read_history(repo)["entries"]
    assert sorted(e["agent_id"] for e in entries) == agents
    assert all(e["status"] == "completed" and e["completion_timestamp"] for e in entries)
    assert all(e["files_modified"] == [f"src/{e['agent_id']}.py"] for e in entries)
    assert (repo / ".planning" / "current-agent-id.txt").read_text().strip() in agents
    assert git(repo, "status", "--porcelain", "--untracked-files=all").split() == [
        "??",
        ".planning/agent-history.json",
        "??",
        ".planning/current-agent-id.txt",
    ]
