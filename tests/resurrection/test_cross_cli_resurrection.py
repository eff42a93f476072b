"""``resurrect --into``: an agent of one CLI brought back as a new agent of another, its prompt
holding where the expertise came from and the project's progress as git tells it."""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path

import pytest

from purlin_resume.resurrection import log as resurrection_log
from tests import other_cli_data as data
from tests.conftest import commit_file, start_under_shell
from tests.resurrection_data import write_config


def _log(history_root: Path) -> list[dict]:
    return resurrection_log.read(history_root / "history" / resurrection_log.FILE_NAME)[0]


def _stand_in(folder: Path, name: str) -> Path:
    """A program called ``name`` that keeps its arguments and environment, on PATH first."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do printf "%s\\0" "$a"; done > "{folder}/{name}.args"\n'
        f'printf "%s" "$PURLIN_RESURRECTION_ID" > "{folder}/{name}.id"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _resurrect(cli, session: str, claude: Path, *options: str):
    return cli("resurrect", "--session", session, "--yes", *options, "--claude-dir", str(claude))


def _args(folder: Path, name: str) -> list[str]:
    return (folder / f"{name}.args").read_text().split("\0")[:-1]


def test_a_codex_session_resurrected_into_claude_code_carries_git_progress(
    cli, repo, tmp_path, monkeypatch
):
    data.codex_home()
    monkeypatch.setenv("CODEX_HOME", str(Path(os.environ["HOME"]) / ".codex"))
    claude = tmp_path / "claude-data"
    write_config(repo, allowed_roots=["/tmp/purlin-field-record"])  # where it was recorded
    # work the original agent never saw: a later commit and an uncommitted file
    later = commit_file(
        repo, "later.txt", "done after it\n", "FIELD-LATER a commit after the agent"
    )
    (repo / "wip.txt").write_text("uncommitted\n")
    result = _resurrect(cli, data.CODEX_SHELL, claude, "--into", "claude", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    prompt = document["prompt"]
    assert "git log --oneline" in prompt  # the Codex conversation came along
    assert "Expertise from: Codex CLI (you now run in Claude Code" in prompt
    progress = prompt.split("### Progress (from git, checked now)", 1)[1]
    assert "- Branch: `main`" in progress
    assert f"`{later[:7]} FIELD-LATER a commit after the agent`" in progress
    assert "- Last commit: `" + later[:7] in progress
    assert "`?? wip.txt`" in progress
    assert document["source_cli"] == "codex"
    assert document["target_cli"] == "claude"
    assert document["progress"]["branch"] == "main"
    [entry] = _log(claude)
    assert (entry["source_cli"], entry["target_cli"]) == ("codex", "claude")
    assert entry["resurrected_from_session_id"] == data.CODEX_SHELL


@pytest.mark.parametrize(
    ("into", "flag"),
    [("codex", []), ("gemini", ["--prompt-interactive"]), ("opencode", ["--prompt"])],
)
def test_spawn_process_starts_the_target_cli_with_the_prompt(
    cli, repo, fixtures_copy, tmp_path, monkeypatch, into, flag
):
    bin_dir = tmp_path / "bin"
    _stand_in(bin_dir, into)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    result = _resurrect(cli, "short", fixtures_copy, "--into", into, "--spawn", "process")
    assert result.exit_code == 0, result.stderr
    args = _args(bin_dir, into)
    assert args[: len(flag)] == flag
    assert len(args) == len(flag) + 1
    assert args[-1].startswith("You are a resurrection of")
    assert "Expertise from: Claude Code (you now run in" in args[-1]
    [entry] = _log(fixtures_copy)
    assert (entry["source_cli"], entry["target_cli"]) == ("claude", into)
    assert (bin_dir / f"{into}.id").read_text() == entry["resurrection_id"]


def test_the_default_target_is_the_cli_running_the_command(
    cli, repo, fixtures_copy, tmp_path, monkeypatch
):
    monkeypatch.setenv("GEMINI_CLI", "1")
    result = cli(
        "resurrect", "--session", "short", "--yes", "--json", "--claude-dir", str(fixtures_copy)
    )
    assert json.loads(result.stdout)["target_cli"] == "gemini"
    monkeypatch.delenv("GEMINI_CLI")
    result = cli(
        "resurrect", "--session", "short", "--yes", "--json", "--claude-dir", str(fixtures_copy)
    )
    document = json.loads(result.stdout)
    assert document["target_cli"] == "claude"
    assert "Expertise from: Claude Code\n" in document["prompt"]  # no crossing to explain


def test_an_unknown_target_is_a_usage_error(cli, repo, fixtures_copy):
    result = cli("resurrect", "--session", "short", "--yes", "--into", "vim")
    assert result.exit_code == 2


@pytest.mark.parametrize("shell", ["sh", "fish"])
def test_spawn_tmux_starts_the_target_cli_with_the_prompt_as_its_first(
    cli, repo, fixtures_copy, tmp_path, monkeypatch, tmux_server, shell
):
    """Whatever the user's shell (tmux runs a window's command with it: fish knows no
    ``var=$(…)``), the new window reads the prompt under sh."""
    bin_dir = tmp_path / "bin"
    _stand_in(bin_dir, "codex")
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    start_under_shell(tmux_server, shell)
    write_config(repo, tmux_socket=str(tmux_server.socket))
    result = _resurrect(cli, "short", fixtures_copy, "--into", "codex", "--spawn", "tmux", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    args_file = bin_dir / "codex.args"
    deadline = time.monotonic() + 30
    while not args_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    [prompt] = _args(bin_dir, "codex")
    assert prompt == document["prompt"].rstrip("\n")
    assert document["launch"]["cli"] == "codex"
    # the prompt waited in a private file, gone once read
    assert not list(Path(os.environ["XDG_CACHE_HOME"]).rglob("res-*.md"))


def test_the_ids_resurrect_prints_are_whole_and_paste_into_the_next_commands(
    cli, repo, fixtures_copy, monkeypatch
):
    """Given prefixes, ``resurrect`` names the conversation by its whole ids: pasted into
    ``transcript`` and ``resurrect done`` they are the same conversation and entry."""
    data.codex_home()
    monkeypatch.setenv("CODEX_HOME", str(Path(os.environ["HOME"]) / ".codex"))
    claude = ["--claude-dir", str(fixtures_copy)]
    write_config(repo, allowed_roots=["/tmp/purlin-field-record"])
    for typed, label, heading in (
        (["--session", "4d56", "--agent", "a28"], "agent", "# Agent "),
        (["--session", data.CODEX_SHELL[:13]], "codex session", "# Session "),
    ):
        said = cli("resurrect", *typed, "--yes", "--into", "claude", *claude)
        assert said.exit_code == 0, said.stderr
        line = next(line for line in said.stderr.splitlines() if line.startswith("res-"))
        rid, shown = re.match(rf"(res-\S+): {label} (\S+) \(", line).groups()
        entry = _log(fixtures_copy)[-1]
        assert rid == entry["resurrection_id"]
        assert shown == (entry["resurrected_from_agent_id"] or entry["resurrected_from_session_id"])
        pasted = cli("transcript", shown, *claude)
        assert pasted.exit_code == 0, pasted.stderr
        assert pasted.stdout.startswith(heading + shown), pasted.stdout[:200]
        done = cli("resurrect", "done", rid, "--outcome", "success", *claude)
        assert done.stdout == f"{rid}: success\n", done.stderr


@pytest.mark.parametrize("session", [data.OPENCODE_SHELL, data.OPENCODE_PARENT])
def test_an_opencode_session_is_resurrected_by_bookmark_and_by_id(cli, repo, tmp_path, session):
    """opencode's turns are read again from its database on each pass, never held as a list:
    the pre-flight checks find the last turn without reversing them."""
    data.opencode_home()
    claude = tmp_path / "claude-data"
    write_config(repo, allowed_roots=["/tmp/purlin-field-record"])
    by_id = _resurrect(cli, session, claude, "--task", "go on")
    assert by_id.exit_code == 0, by_id.stderr
    assert "git log --oneline" in by_id.stdout or "count the files" in by_id.stdout
    marked = cli(
        "bookmark", "add", "oc", "--session", session, "--description", "opencode",
        "--claude-dir", str(claude),
    )  # fmt: skip
    assert marked.exit_code == 0, marked.stderr
    by_name = cli("resurrect", "oc", "--yes", "--task", "go on", "--claude-dir", str(claude))
    assert by_name.exit_code == 0, by_name.stderr
    assert len(_log(claude)) == 2
