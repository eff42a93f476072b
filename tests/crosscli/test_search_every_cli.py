"""`find` and `recommend` over one index of every agent CLI's real sessions: each CLI's session
found by words planted in its own data, beside Claude Code's, and kept up to date as they
change."""

from __future__ import annotations

import json
import sqlite3

from purlin_resume.core.errors import PurlinError
from purlin_resume.opencode import storage
from tests.other_cli_data import (
    CODEX_CHILD,
    CODEX_PARENT,
    CODEX_SHELL,
    GEMINI_SHELL,
    OPENCODE_CHILD,
    OPENCODE_PARENT,
    OPENCODE_SHELL,
    aws_key,
    gemini_home,
    home,
    opencode_home,
    rollout,
)

CLAUDE_SESSION = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"  # the 1.0.98 fixture session
WORDS = {"claude": "quillwort", "codex": "zanzibar", "gemini": "marzipan", "opencode": "oxbow"}


def _replace_in(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _plant(word: dict[str, str]) -> None:
    """Each CLI's word in one of its sessions (in a prompt or an answer)."""
    claude = next((home() / ".claude/projects").rglob(f"{CLAUDE_SESSION}.jsonl"))
    _replace_in(claude, "appears to be empty", f"appears to be empty {word['claude']}")
    _replace_in(rollout(CODEX_SHELL), "show the git log", f"show the git log {word['codex']}")
    chat = next((gemini_home() / "tmp/project/chats").glob(f"session-*{GEMINI_SHELL[:8]}.jsonl"))
    _replace_in(chat, "show the git log", f"show the git log {word['gemini']}")
    with sqlite3.connect(opencode_home() / "opencode.db") as db:
        db.execute(
            "update part set data = replace(data, 'show the git log', ?) where session_id = ?",
            (f"show the git log {word['opencode']}", OPENCODE_SHELL),
        )
        # as opencode does when it writes to a session
        db.execute(
            "update session set time_updated = time_updated + 1 where id = ?", (OPENCODE_SHELL,)
        )
    db.close()


def _found(cli, *query: str) -> list[dict]:
    result = cli("find", *query, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"]


def test_find_reads_every_cli_into_one_index(cli, every_cli):
    _plant(WORDS)
    expected = {
        "claude": CLAUDE_SESSION,
        "codex": CODEX_SHELL,
        "gemini": GEMINI_SHELL,
        "opencode": OPENCODE_SHELL,
    }
    for name, word in WORDS.items():
        results = _found(cli, word)
        assert [(r["cli"], r["session_id"]) for r in results] == [(name, expected[name])]
        assert f"word {word}" in results[0]["reasons"]
    together = _found(cli, *WORDS.values())
    assert {(r["cli"], r["session_id"]) for r in together} == set(expected.items())
    caches = list((home() / ".cache" / "purlin-resume").glob("search-*.sqlite"))
    assert len(caches) == 1  # one index


def test_a_child_session_is_found_under_its_parent(cli, every_cli):
    results = _found(cli, "FIELD-CHILD", "--limit", "20")
    children = {(r["cli"], r["session_id"], r["agent_id"]) for r in results if r["agent_id"]}
    assert ("opencode", OPENCODE_PARENT, OPENCODE_CHILD) in children
    assert ("codex", CODEX_PARENT, CODEX_CHILD) in children
    text = cli("find", "FIELD-CHILD").stdout
    assert f"read it: purlin-resume transcript {OPENCODE_CHILD}" in text


def test_the_index_follows_another_cli_changing(cli, every_cli):
    assert _found(cli, WORDS["codex"]) == []
    _plant(WORDS)
    assert [r["session_id"] for r in _found(cli, WORDS["codex"])] == [CODEX_SHELL]
    assert [r["session_id"] for r in _found(cli, WORDS["opencode"])] == [OPENCODE_SHELL]
    rollout(CODEX_SHELL).unlink()
    assert _found(cli, WORDS["codex"]) == []  # a deleted rollout leaves the index


def test_find_without_claude_code(cli):
    from tests.other_cli_data import codex_home

    codex_home()
    _replace_in(rollout(CODEX_SHELL), "show the git log", "show the git log zanzibar")
    assert [r["cli"] for r in _found(cli, "zanzibar")] == ["codex"]


def test_a_secret_in_another_cli_never_reaches_the_index(cli, every_cli):
    secret = aws_key()
    _plant({**WORDS, "codex": secret, "opencode": secret})
    assert _found(cli, WORDS["gemini"])  # the index is built
    index = next((home() / ".cache" / "purlin-resume").glob("search-*.sqlite"))
    with sqlite3.connect(index) as db:
        held = "\n".join(body for (body,) in db.execute("select body from docs_fts"))
    db.close()
    assert secret not in held
    assert "[REDACTED:" in held


def test_recommend_names_another_clis_session(cli, every_cli):
    _plant(WORDS)
    task = f"{WORDS['gemini']} {WORDS['opencode']}"
    result = cli("recommend", "--task", task, "--threshold", "0", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["recommendations"]
    assert {(r["cli"], r["session_id"]) for r in found} >= {
        ("gemini", GEMINI_SHELL),
        ("opencode", OPENCODE_SHELL),
    }


def test_an_opencode_database_that_fails_while_it_is_indexed_stops_no_search(
    cli, every_cli, monkeypatch
):
    """The database read as far as its turns were counted, then no further (locked, changed
    meanwhile): the other CLIs' sessions are indexed and found all the same."""

    def cut_short(session, options):
        raise PurlinError(f"{session.path}: the opencode database could not be read to the end")
        yield

    monkeypatch.setattr(storage, "_read_again", cut_short)
    _plant(WORDS)
    assert [r["session_id"] for r in _found(cli, WORDS["codex"])] == [CODEX_SHELL]
