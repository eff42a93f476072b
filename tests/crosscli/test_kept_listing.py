"""`sessions --all` keeps what it read of the other CLIs' sessions (redacted) in the cache and
reads a conversation again only when it changed."""

from __future__ import annotations

import json
import os
import sqlite3

from tests.other_cli_data import (
    CODEX_SHELL,
    GEMINI_SHELL,
    OPENCODE_SHELL,
    aws_key,
    gemini_home,
    home,
    opencode_home,
    rollout,
)


def _titles(cli) -> dict[str, str]:
    result = cli("sessions", "--all", "--json")
    assert result.exit_code == 0, result.output
    return {s["id"]: s["title"] for s in json.loads(result.stdout)["sessions"]}


def _same_stamp(path, text: str) -> None:
    """``text`` written over the file keeping its size and times (its signature)."""
    before = os.stat(path)
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_an_unchanged_session_is_not_read_again(cli, every_cli):
    first = _titles(cli)
    path = rollout(CODEX_SHELL)
    original = path.read_text()
    assert "show the git log" in first[CODEX_SHELL]
    _same_stamp(path, original.replace("show the git log", "show the git LOG"))
    assert _titles(cli)[CODEX_SHELL] == first[CODEX_SHELL]  # kept
    path.write_text(original.replace("show the git log", "show the git tree"))
    assert "show the git tree" in _titles(cli)[CODEX_SHELL]  # changed: read again
    with sqlite3.connect(opencode_home() / "opencode.db") as db:
        db.execute("update session set title = 'renamed', time_updated = time_updated + 1")
    db.close()
    assert _titles(cli)[OPENCODE_SHELL] == "renamed"


def test_the_kept_listing_holds_no_secret(cli, every_cli):
    secret = aws_key()
    path = rollout(CODEX_SHELL)
    path.write_text(path.read_text().replace("show the git log", f"show the git log {secret}"))
    listed = cli("sessions", "--all", "--json")
    again = cli("sessions", "--all")
    assert secret not in listed.stdout + again.stdout
    assert "[REDACTED:" in again.stdout
    cache = home() / ".cache" / "purlin-resume" / "cache.sqlite"
    with sqlite3.connect(cache) as db:
        rows = db.execute("select folder, entry from sessions").fetchall()
    db.close()
    folders = {folder for folder, _ in rows}
    assert str((home() / ".codex").resolve()) in folders
    assert str((home() / ".gemini").resolve()) in folders
    assert secret not in "\n".join(entry for _, entry in rows)


def test_a_gemini_chat_is_opened_by_its_id_as_the_chat_says_now(cli, every_cli):
    """A chat's id is inside it (its first record): a chat rewritten under another id is found
    by the new one, not the old, once the listing has been kept."""
    chats = gemini_home() / "tmp" / "project" / "chats"
    path = next(chats.glob(f"session-*-{GEMINI_SHELL[:8]}.jsonl"))
    assert cli("transcript", GEMINI_SHELL).exit_code == 0
    renamed = "0ddba110" + GEMINI_SHELL[8:]
    path.write_text(path.read_text().replace(GEMINI_SHELL, renamed) + "\n")
    assert cli("transcript", GEMINI_SHELL).exit_code == 1
    again = cli("transcript", renamed)
    assert again.exit_code == 0, again.output
    assert "show the git log" in again.stdout
