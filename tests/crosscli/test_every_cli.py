"""`sessions`, `agents`, `transcript` and `export` over the real sessions of every agent CLI,
with a secret planted in each reader's data redacted on the way out."""

from __future__ import annotations

import json
import sqlite3

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


def test_an_id_no_cli_knows(cli, every_cli):
    result = cli("transcript", "nosuchsession")
    assert result.exit_code == 1
    assert "no session or agent matches" in result.stderr
