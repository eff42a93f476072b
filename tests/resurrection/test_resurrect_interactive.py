"""Interactive resurrection, driven through a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

from purlin_resume.resurrection import log as resurrection_log
from tests.resurrection_data import write_config

ROOT = Path(__file__).resolve().parents[2]


def _spawn(args: list[str], cwd: Path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "TERM": "dumb"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "purlin_resume", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )


def _log(claude: Path) -> list[dict]:
    return resurrection_log.read(claude / "history" / resurrection_log.FILE_NAME)[0]


def test_pick_a_candidate_preview_and_confirm(fixtures_copy, repo):
    child = _spawn(
        ["resurrect", "find", "tmux", "module", "--claude-dir", str(fixtures_copy)], repo
    )
    child.expect("Candidates:")
    child.expect(r"why: word tmux")
    child.expect(
        r"Which one\? \[1-\d+, o1-o\d+ to continue it in Claude Code \(open\), q to cancel\]"
    )
    child.sendline("1")
    child.expect("Resurrecting agent a7be2f0")
    child.expect(r"Context: hybrid, \d+ tokens \(full: \d+\)")
    child.expect("Redacted: no secrets found")
    child.expect("Passed to the new agent: metadata")
    child.expect("--- preview ---")
    child.expect("You are a resurrection of agent a7be2f0")
    child.expect(r"Resurrect with this context\? \[Y/n\]")
    child.sendline("y")
    child.expect("res-\\d{4}-\\d{2}-\\d{2}-001")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    [entry] = _log(fixtures_copy)
    assert entry["resurrection_mode"] == "fuzzy"
    assert "autonomous" not in (entry["notes"] or "")


def test_a_large_context_asks_and_can_switch_to_summarized(fixtures_copy, repo):
    write_config(repo, context_confirm_tokens=3000)
    child = _spawn(
        [
            "resurrect",
            "--session",
            "4d56",
            "--agent",
            "a2898e3",
            "--claude-dir",
            str(fixtures_copy),
        ],
        repo,
    )
    child.expect(r"\[ask\] size")
    child.expect(r"\[s\]ummarized, \[k\]eep hybrid, \[c\]ancel")
    child.sendline("s")
    child.expect("Context: summarized")
    child.expect(r"Resurrect with this context\?")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert _log(fixtures_copy)[0]["context_extraction_method"] == "summarized"


def test_declining_starts_and_logs_nothing(fixtures_copy, repo):
    child = _spawn(["resurrect", "--session", "short", "--claude-dir", str(fixtures_copy)], repo)
    child.expect(r"Resurrect with this context\?")
    child.sendline("n")
    child.expect("cancelled: nothing was resurrected")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert _log(fixtures_copy) == []
    child = _spawn(["resurrect", "find", "tmux", "--claude-dir", str(fixtures_copy)], repo)
    child.expect(r"Which one\?")
    child.sendline("9")
    child.expect("Give a number")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert not (fixtures_copy / "history" / resurrection_log.FILE_NAME).exists() or not _log(
        fixtures_copy
    )
    assert json.dumps(_log(fixtures_copy)) == "[]"


def test_the_picker_offers_to_continue_a_session_in_claude_code(repo, tmp_path):
    """``oN`` in the picker runs ``open`` on candidate N: Claude Code resumes it in its folder."""
    from purlin_resume.core import tmux
    from purlin_resume.resurrection import native_resume
    from tests.agents_setup import configure
    from tests.claude_records import Conversation, text, write_jsonl

    claude = tmp_path / "claude-data"
    for number in (1, 2):
        work = tmp_path / f"work{number}"
        work.mkdir()
        session = f"0{number}c0ffee-0000-4000-8000-000000000000"
        chat = Conversation(session, cwd=str(work))
        write_jsonl(
            claude / "projects" / native_resume.project_folder_name(str(work)) / f"{session}.jsonl",
            [chat.user(f"tidy the tmux module {number}"), chat.assistant("m", text("tidied"))],
        )
    record = tmp_path / "record"
    configure(repo, tmux.Server(None), record)
    child = _spawn(["resurrect", "find", "tmux", "module", "--claude-dir", str(claude)], repo)
    child.expect(r"continue it: purlin-resume open 0\dc0ffee")
    child.expect(r"Which one\?")
    child.sendline("o2")
    child.expect("for shortcuts")  # the stand-in Claude Code, started in place of the picker
    started = json.loads((record / "started.json").read_text())
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    assert started["argv"][0] == "--resume"
    resumed = started["argv"][1]
    assert os.path.realpath(started["cwd"]) == os.path.realpath(tmp_path / f"work{resumed[1]}")
    assert not (claude / "history" / resurrection_log.FILE_NAME).exists()
