"""Stall watch reads a Codex CLI rollout and a Gemini CLI chat file by their own record types:
the newest tool call, answer or prompt is the activity signal."""

from __future__ import annotations

from datetime import timedelta

from purlin_resume.agents import activity
from purlin_resume.core import clock
from tests import other_cli_data as data


def _subject(tmp_path, path, cli: str) -> activity.Subject:
    return activity.Subject("a", tmp_path, tmp_path, tmp_path, transcript=path, cli=cli)


def test_the_last_codex_answer_and_gemini_answer_are_the_signal(tmp_path):
    codex = data.rollout(data.CODEX_SHELL)
    gemini = next(data.gemini_home().rglob("session-*445d2a96.jsonl"))
    for path, cli, moment in (
        (codex, "codex", "2026-11-27T08:35:32"),
        (gemini, "gemini", "2026-11-27T08:38:58.128"),
    ):
        now = clock.parse(moment + "Z") + timedelta(minutes=1)
        [signal] = activity.transcript_signals(_subject(tmp_path, path, cli), now)
        assert signal.to_dict()["confidence"] == 0.72  # an answer (response)
        assert signal.to_dict()["timestamp"].startswith(moment[:16]), signal.to_dict()


def test_a_codex_rollout_read_as_claude_code_gives_no_signal(tmp_path):
    codex = data.rollout(data.CODEX_SHELL)
    now = clock.parse("2026-11-27T08:36:00Z")
    assert activity.transcript_signals(_subject(tmp_path, codex, "claude"), now) == []
