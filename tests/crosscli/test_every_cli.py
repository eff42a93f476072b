"""`sessions`, `agents`, `transcript` and `export` over the real sessions of every agent CLI,
with a secret planted in each reader's data redacted on the way out."""

from __future__ import annotations

import json
import random
import sqlite3
import string

import pytest

from tests.other_cli_data import (
    CODEX_CHILD,
    CODEX_PARENT,
    CODEX_SHELL,
    GEMINI_CHILD,
    GEMINI_PARENT,
    GEMINI_SHELL,
    OPENCODE_CHILD,
    OPENCODE_PARENT,
    OPENCODE_SHELL,
    aws_key,
    gemini_home,
    opencode_home,
    rollout,
)


def test_one_listing_of_every_cli(cli, every_cli):
    result = cli("sessions", "--all", "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)["sessions"]
    by_cli = {}
    for session in listed:
        by_cli.setdefault(session["cli"], set()).add(session["id"])
    assert set(by_cli) == {"claude", "codex", "gemini", "opencode"}
    assert CODEX_PARENT in by_cli["codex"]  # a child
    assert CODEX_CHILD not in by_cli["codex"]
    assert GEMINI_CHILD not in by_cli["gemini"]
    assert OPENCODE_CHILD not in by_cli["opencode"]
    text = cli("sessions", "--all", "--cli", "codex,gemini").stdout
    assert "codex" in text
    assert "gemini" in text
    assert "opencode " not in text
    assert "claude " not in text


def test_an_unknown_cli_is_a_usage_error(cli, every_cli):
    result = cli("sessions", "--all", "--cli", "copilot")
    assert result.exit_code == 2
    assert "--cli takes" in result.stderr


@pytest.mark.parametrize(
    ("parent", "child"),
    [(CODEX_PARENT, CODEX_CHILD), (GEMINI_PARENT, GEMINI_CHILD), (OPENCODE_PARENT, OPENCODE_CHILD)],
)
def test_agents_and_export_of_a_child(cli, every_cli, parent, child):
    tree = json.loads(cli("agents", parent[:12], "--json").stdout)
    assert [node["id"] for node in tree["subagents"]] == [child]
    document = json.loads(cli("export", child, "--include-tools").stdout)
    assert document["agent_id"] == child
    assert document["session_id"] == parent
    assert document["tool_calls_summary"]["total"] >= 1
    assert document["cli"] in ("codex", "gemini", "opencode")


def _plant(secret: str) -> None:
    path = rollout(CODEX_SHELL)
    path.write_text(path.read_text().replace("start\\n", f"start {secret}\\n"))
    chat = next((gemini_home() / "tmp/project/chats").glob(f"session-*{GEMINI_SHELL[:8]}.jsonl"))
    chat.write_text(chat.read_text().replace("show the git log", f"show the git log {secret}"))
    with sqlite3.connect(opencode_home() / "opencode.db") as db:
        db.execute("update part set data = replace(data, 'start\\n', ?)", (f"start {secret}\\n",))
    db.close()


@pytest.mark.parametrize("session", [CODEX_SHELL, GEMINI_SHELL, OPENCODE_SHELL])
def test_a_planted_secret_never_leaves(cli, every_cli, session):
    secret = aws_key()
    _plant(secret)
    outputs = [
        cli("export", session, "--include-tools"),
        cli("export", session, "--include-tools", "--format", "md"),
        cli("transcript", session, "--include-tools", "--max-chars", "0"),
        cli("transcript", session, "--json", "--include-tools"),
        cli("sessions", "--all", "--json"),
    ]
    for result in outputs:
        assert result.exit_code == 0, result.output
        assert secret not in result.stdout
    assert "[REDACTED:" in outputs[0].stdout
    planted = cli("--no-redact", "export", session, "--include-tools").stdout
    assert secret in planted  # it was there to find


def _plant_in_a_tool_call(secret: str) -> None:
    """``secret`` in the shell command each CLI's session ran, past where its one-line summary
    is cut."""
    command = "git log --oneline " + "x" * 60 + " --ref " + secret
    for path in (
        rollout(CODEX_SHELL),
        next((gemini_home() / "tmp/project/chats").glob(f"session-*{GEMINI_SHELL[:8]}.jsonl")),
    ):
        path.write_text(path.read_text().replace("git log --oneline", command))
    with sqlite3.connect(opencode_home() / "opencode.db") as db:
        db.execute("update part set data = replace(data, 'git log --oneline', ?)", (command,))
    db.close()


@pytest.mark.parametrize("session", [CODEX_SHELL, GEMINI_SHELL, OPENCODE_SHELL])
def test_a_secret_where_a_tool_calls_summary_is_cut_leaves_no_part_of_it(cli, every_cli, session):
    rng = random.Random(41)
    secret = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    _plant_in_a_tool_call(secret)
    for command in (
        ("transcript", "--include-tools"),
        ("export", "--format", "md", "--include-tools"),
    ):
        result = cli(command[0], session, *command[1:])
        assert result.exit_code == 0, result.output
        assert "x" * 60 in result.stdout  # the summary, up to the token
        assert secret[:12] not in result.stdout


def test_an_id_no_cli_knows(cli, every_cli):
    result = cli("transcript", "nosuchsession")
    assert result.exit_code == 1
    assert "no session or agent matches" in result.stderr
