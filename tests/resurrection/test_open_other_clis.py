"""``open`` resumes a session of Codex CLI, Gemini CLI or opencode in its own CLI, in the folder
the session recorded (a child session: its parent), and forks where the CLI can."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import other_cli_data as data

RECORDED = Path("/tmp/purlin-field-record")  # where the fixture sessions were recorded


@pytest.fixture
def recorded_folders():
    """The fixture sessions' folders, made when absent and left in place: tests running at the
    same moment in other workers use them too (removing them made those fail)."""
    for cli in ("codex", "gemini", "opencode"):
        (RECORDED / cli / "project").mkdir(parents=True, exist_ok=True)
    data.codex_home(), data.gemini_home(), data.opencode_home()


CASES = [
    ("codex", data.CODEX_PARENT, ["codex", "resume", data.CODEX_PARENT]),
    ("gemini", data.GEMINI_PARENT, ["gemini", "--resume", data.GEMINI_PARENT]),
    ("opencode", data.OPENCODE_PARENT, ["opencode", "--session", data.OPENCODE_PARENT]),
]


def _open(cli, *args: str) -> dict:
    result = cli("open", *args, "--spawn", "print", "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(("name", "session", "argv"), CASES)
def test_open_resumes_a_session_in_its_own_cli_and_folder(
    cli, recorded_folders, name, session, argv
):
    planned = _open(cli, session)
    assert (planned["cli"], planned["argv"], planned["via"]) == (name, argv, "session")
    assert planned["cwd"] == str(RECORDED / name / "project")
    assert planned["command"].startswith(f"cd {RECORDED / name / 'project'} && ")


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        (data.CODEX_CHILD, data.CODEX_PARENT),
        (data.GEMINI_CHILD, data.GEMINI_PARENT),
        (data.OPENCODE_CHILD, data.OPENCODE_PARENT),
    ],
)
def test_open_of_a_child_session_resumes_its_parent(cli, recorded_folders, child, parent):
    planned = _open(cli, child)
    assert (planned["session_id"], planned["via"]) == (parent, "agent")


def test_open_fork_where_the_cli_can_fork(cli, recorded_folders):
    assert _open(cli, data.CODEX_PARENT, "--fork")["argv"] == ["codex", "fork", data.CODEX_PARENT]
    assert _open(cli, data.OPENCODE_PARENT, "--fork")["argv"] == [
        "opencode",
        "--session",
        data.OPENCODE_PARENT,
        "--fork",
    ]
    refused = cli("open", data.GEMINI_PARENT, "--fork", "--spawn", "print")
    assert refused.exit_code == 2
    assert "Gemini CLI cannot fork a session" in refused.stderr


def test_open_passes_on_where_the_cli_keeps_its_sessions(cli, recorded_folders, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(data.codex_home()))
    planned = _open(cli, data.CODEX_SHELL)
    assert planned["env"] == {"CODEX_HOME": str(data.codex_home())}
    assert planned["command"].endswith(
        f"CODEX_HOME={data.codex_home()} codex resume {data.CODEX_SHELL}"
    )


@pytest.mark.parametrize("older", [True, False], ids=["older format", "newer format"])
def test_open_of_a_long_codex_rollout_of_either_format(cli, tmp_path, monkeypatch, older):
    from tests.codex.test_rollouts import _long_rollout

    thread = "0b1c2d3e-0000-4000-8000-00000000000" + ("a" if older else "b")
    codex = tmp_path / "codex"
    folder = tmp_path / "project"
    folder.mkdir()
    _long_rollout(codex, older, thread, folder)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    planned = _open(cli, thread)
    assert (planned["cwd"], planned["argv"]) == (str(folder), ["codex", "resume", thread])
    assert planned["title"] == "go"
