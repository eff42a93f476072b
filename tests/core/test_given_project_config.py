"""A command given ``--project`` works by that project's config, never by the working folder's:
a broken ``.purlin/config.json`` where the command is run stops nothing that was asked about
another project, and the given project's redaction patterns are the ones that apply."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.agents_setup import agent_record, write_registry
from tests.conftest import commit_file, git
from tests.resurrection_data import write_config

BROKEN = {
    "invalid JSON": "{ this is not json",
    "a wrong type": json.dumps({"resume": {"redact": 5}}),
}
TICKET = "ACME-123456"


@pytest.fixture(params=sorted(BROKEN))
def broken_here(request, repo) -> Path:
    """The working folder's project, its config broken one way or another."""
    (repo / ".purlin").mkdir(exist_ok=True)
    (repo / ".purlin" / "config.json").write_text(BROKEN[request.param])
    return repo / ".purlin" / "config.json"


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """Another project with a good config of its own (a pattern of its own among it) and one
    live registered agent."""
    root = tmp_path / "elsewhere"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "README.md", "# elsewhere\n", "initial commit")
    write_config(root, redact={"extra": [{"kind": "ticket", "pattern": r"ACME-[0-9]{6}"}]})
    write_registry(root, {"agent-1": agent_record(root, pid=os.getpid(), role=TICKET)})
    return root


def test_doctor_checks_the_given_project_whatever_the_working_folders_config(
    cli, broken_here, elsewhere
):
    text = cli("doctor", "--project", str(elsewhere))
    as_json = cli("doctor", "--project", str(elsewhere), "--json")

    assert str(broken_here) not in text.stdout + text.stderr + as_json.stdout + as_json.stderr
    assert not text.stderr.startswith("error:"), text.stderr
    assert "commands:" in text.stdout
    findings = json.loads(as_json.stdout)["findings"]
    assert not [f for f in findings if f["check"] == "config" and f["status"] != "ok"]
    assert broken_here.read_text() in BROKEN.values()  # left as it was


@pytest.mark.parametrize(
    "command",
    [
        ["checkpoints"],
        ["agents-status"],
        ["lineage", "agent-1"],
        ["stall", "check", "agent-1"],
        ["watch", "--once"],
        ["bookmark", "list"],
        ["install", "--dry-run"],
    ],
    ids=" ".join,
)
def test_commands_given_a_project_use_its_config_not_the_working_folders(
    cli, broken_here, elsewhere, command
):
    result = cli(*command, "--project", str(elsewhere))

    assert str(broken_here) not in result.stdout + result.stderr
    assert not result.stderr.startswith("error:"), result.stderr
    assert result.exit_code in (0, 3), result.stderr  # stall check: 3 when stalled


def test_the_given_projects_patterns_redact_what_is_printed(cli, repo, elsewhere):
    shown = cli("agents-status", "--project", str(elsewhere))

    assert shown.exit_code == 0, shown.stderr
    assert TICKET not in shown.stdout
    assert "[REDACTED:ticket:" in shown.stdout
    assert "redacted 1 secret(s): ticket 1" in shown.stderr
