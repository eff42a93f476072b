"""``open``: a session handed back to Claude Code (``claude --resume``) in the folder it recorded,
run by a stand-in ``claude`` that records its argv, folder and environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.core import tmux
from purlin_resume.resurrection import native_resume
from tests.agents_setup import configure
from tests.claude_records import Conversation, text, write_jsonl

SESSION = "5e55a1de-0000-4000-8000-00000000c0de"


def _session(claude: Path, cwd: Path, session_id: str = SESSION, words: str = "tmux revival"):
    chat = Conversation(session_id, cwd=str(cwd))
    folder = claude / "projects" / native_resume.project_folder_name(str(cwd))
    return write_jsonl(
        folder / f"{session_id}.jsonl",
        [chat.user(f"make the {words} work"), chat.assistant("msg_1", text(f"done: {words}"))],
    )


@pytest.fixture
def world(repo, tmp_path, monkeypatch):
    """A project with one recorded session, the stand-in as ``claude``, Claude data in tmp."""
    claude = tmp_path / "claude-data"
    work = tmp_path / "work tree $(touch pwned)"  # a folder name a shell would run
    work.mkdir()
    _session(claude, work)
    record = tmp_path / "record"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    return {"repo": repo, "claude": claude, "work": work, "record": record}


def test_open_print_gives_a_quoted_resume_command_for_the_recorded_folder(world, cli):
    configure(world["repo"], tmux.Server(None), world["record"])

    result = cli("open", SESSION[:8], "--spawn", "print", "--json")

    assert result.exit_code == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["session_id"] == SESSION
    assert plan["via"] == "session"
    assert plan["cwd"] == str(world["work"])
    assert plan["argv"][-2:] == ["--resume", SESSION]
    assert plan["env"] == {"CLAUDE_CONFIG_DIR": str(world["claude"])}
    # The line runs as printed, and the $(…) in the folder name stays a name.
    line = plan["command"]
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd="/")
    assert done.returncode == 0, done.stderr
    started = json.loads((world["record"] / "started.json").read_text())
    assert started["argv"] == ["--resume", SESSION]
    assert os.path.realpath(started["cwd"]) == os.path.realpath(world["work"])
    assert not (Path("/") / "pwned").exists()
    assert not (world["work"] / "pwned").exists()


def test_open_fork_resumes_into_a_new_session_id(world, cli):
    configure(world["repo"], tmux.Server(None), world["record"])

    result = cli("open", SESSION, "--fork", "--spawn", "print", "--json")

    plan = json.loads(result.stdout)
    new = plan["new_session_id"]
    assert plan["argv"][-5:] == ["--resume", SESSION, "--fork-session", "--session-id", new]
    assert new != SESSION
    # the fork reports SESSION at SessionStart: the hook learns the id it really runs under
    assert plan["env"]["PURLIN_AGENT_ID"] == new
    assert plan["env"]["PURLIN_PREVIOUS_AGENT_ID"] == SESSION


def test_open_exec_replaces_the_process_with_claude_in_the_folder(world):
    configure(world["repo"], tmux.Server(None), world["record"])
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(world["claude"])}

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from purlin_resume.cli.entry import main; main()",
            "open",
            SESSION,
            "--spawn",
            "exec",
        ],
        cwd=world["repo"],
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )

    assert done.returncode == 0, done.stderr
    started = json.loads((world["record"] / "started.json").read_text())
    assert started["argv"] == ["--resume", SESSION]
    assert os.path.realpath(started["cwd"]) == os.path.realpath(world["work"])
    assert started["env"]["CLAUDE_CONFIG_DIR"] == str(world["claude"])


def test_open_in_tmux_starts_claude_in_a_window_of_the_configured_session(world, tmux_server, cli):
    configure(world["repo"], tmux_server, world["record"], tmux_session="agents")

    result = cli("open", SESSION, "--spawn", "tmux", "--json")

    assert result.exit_code == 0, result.stderr
    where = json.loads(result.stdout)
    assert where["session"] == "agents"
    assert tmux.wait_for(tmux_server, where["pane"], "? for shortcuts", timeout=15)
    started = json.loads((world["record"] / "started.json").read_text())
    assert started["argv"] == ["--resume", SESSION]
    assert os.path.realpath(started["cwd"]) == os.path.realpath(world["work"])
    assert started["env"]["CLAUDE_CONFIG_DIR"] == str(world["claude"])


def test_open_resolves_a_bookmark_and_a_search(world, cli):
    configure(world["repo"], tmux.Server(None), world["record"])
    added = cli("bookmark", "add", "tmux-fixer", "--session", SESSION)
    assert added.exit_code == 0, added.stderr

    by_mark = json.loads(cli("open", "tmux-fixer", "--spawn", "print", "--json").stdout)
    by_words = json.loads(cli("open", "tmux", "revival", "--spawn", "print", "--json").stdout)

    assert (by_mark["session_id"], by_mark["via"]) == (SESSION, "bookmark")
    assert (by_words["session_id"], by_words["via"]) == (SESSION, "search")


def test_find_offers_open_for_each_result(world, cli):
    result = cli("find", "tmux", "revival", "--json")
    text_result = cli("find", "tmux", "revival")

    assert json.loads(result.stdout)["results"][0]["open"] == f"purlin-resume open {SESSION}"
    assert f"continue it: purlin-resume open {SESSION}" in text_result.stdout


def test_open_of_a_session_whose_folder_is_gone_names_the_alternative(world, cli):
    shutil.rmtree(world["work"])

    result = cli("open", SESSION, "--spawn", "print")

    assert result.exit_code == 1
    assert "folder of session" in result.stderr
    assert "is gone" in result.stderr
    assert f"purlin-resume resurrect --session {SESSION}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_open_of_an_only_archived_session_names_resurrect(world, cli):
    (world["claude"] / "history" / "archive").mkdir(parents=True)
    (world["claude"] / "history" / "archive" / f"{SESSION}-2026.tar.gz").write_bytes(b"")
    mark = cli("bookmark", "add", "gone-one", "--session", SESSION)
    assert mark.exit_code == 0, mark.stderr
    shutil.rmtree(world["claude"] / "projects")

    result = cli("open", "gone-one", "--spawn", "print")

    assert result.exit_code == 1
    assert "only in an archive" in result.stderr
    assert f"resurrect --session {SESSION}" in result.stderr


def test_open_refuses_a_recorded_folder_with_control_characters(world, cli):
    evil = "9badf01d-0000-4000-8000-00000000beef"
    _session(world["claude"], Path("/tmp/x\x1b]0;owned\x07\nrm -rf ~"), evil)

    result = cli("open", evil, "--spawn", "print")

    assert result.exit_code == 1
    assert "not a plain absolute path" in result.stderr
    assert "\x1b" not in result.stderr.split("(")[0]


def test_open_of_an_unknown_id_and_of_nothing(world, cli):
    unknown = cli("open", "zzzz-no-such-thing", "--spawn", "print")
    empty = cli("open", " ", "--spawn", "print")

    assert unknown.exit_code == 1
    assert "no session matches" in unknown.stderr
    assert empty.exit_code == 2


def test_open_real_fixture_session_whose_machine_is_elsewhere(fixtures_copy, repo, cli):
    """A real 2.1 transcript from another machine: its folder does not exist here."""
    session = next((fixtures_copy / "projects").glob("*/*.jsonl")).stem

    result = cli("open", session, "--spawn", "print", "--claude-dir", str(fixtures_copy))

    assert result.exit_code == 1
    assert "resurrect --session" in result.stderr


def test_open_with_exec_when_claude_is_missing_is_one_line(world, cli):
    configure(world["repo"], tmux.Server(None), world["record"], agent_command="no-such-claude-x")
    here = os.getcwd()

    result = cli("open", SESSION, "--spawn", "exec")

    assert result.exit_code == 1
    assert "could not start 'no-such-claude-x'" in result.stderr
    assert os.getcwd() == here


DEMO = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"  # real, Claude Code 1.0.98
INLINE_AGENT = "6690d10e-f521-4ac0-800d-e5eb7a2d8072"  # one of its inline subagents


@pytest.mark.parametrize("named", [INLINE_AGENT[:4], INLINE_AGENT, "a2898e3", "agent-a2898e3"])
def test_open_of_a_subagent_of_any_layout_leads_to_its_session(fixtures_copy, cli, named):
    """Regression: a 1.0.x inline subagent's id, which ``transcript`` and ``agents`` take, was
    no id to ``open``: its prefix not found, its full id searched for as words."""
    result = cli("open", named, "--spawn", "print", "--claude-dir", str(fixtures_copy))

    assert result.exit_code == 1
    assert "no session, agent or bookmark" not in result.stderr
    assert "the folder of session" in result.stderr
    assert (DEMO if named.startswith("6690") else "4d5611e5") in result.stderr.split(" is gone")[0]


def test_open_of_an_inline_subagent_resumes_its_session_in_its_folder(
    fixtures_copy, cli, tmp_path, monkeypatch
):
    work = tmp_path / "Demo"
    work.mkdir()
    session = fixtures_copy / "projects" / "-path-to-Demo" / f"{DEMO}.jsonl"
    session.write_bytes(session.read_bytes().replace(b'"/path/to/Demo', f'"{work}'.encode()))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(fixtures_copy))

    plan = json.loads(cli("open", INLINE_AGENT[:4], "--spawn", "print", "--json").stdout)

    assert (plan["session_id"], plan["via"]) == (DEMO, "agent")
    assert plan["cwd"] == str(work)
    assert plan["argv"][-2:] == ["--resume", DEMO]
