"""Stall watch reads a Codex CLI rollout and a Gemini CLI chat file by their own record types:
the newest tool call, answer or prompt is the activity signal."""

from __future__ import annotations

import json
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


def _nudged(cli: str) -> list[dict]:
    """A tool call at 08:00, then our nudge and the agent's answer to it, in ``cli``'s records."""
    nudge, answer = "[c2a] inactivity detected: what are you doing?", "Still on it."
    if cli == "codex":
        return [
            {"type": "response_item", "payload": {"type": "function_call", "name": "shell"}},
            {"type": "response_item", "payload": _codex_message("user", "input_text", nudge)},
            {
                "type": "response_item",
                "payload": _codex_message("assistant", "output_text", answer),
            },
        ]
    return [
        {"type": "gemini", "content": [{"text": "running it"}], "toolCalls": [{"name": "shell"}]},
        {"type": "user", "content": [{"text": nudge}]},
        {"type": "gemini", "content": [{"text": answer}]},
    ]


def _codex_message(role: str, part: str, text: str) -> dict:
    return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}


def test_the_answer_to_a_nudge_is_no_activity_for_codex_and_gemini(tmp_path):
    for cli in ("codex", "gemini"):
        path = tmp_path / f"{cli}.jsonl"
        records = _nudged(cli)
        for minute, record in enumerate(records):
            record["timestamp"] = f"2026-11-27T08:0{minute}:00.000Z"
        path.write_text("".join(json.dumps(record) + "\n" for record in records))
        now = clock.parse("2026-11-27T08:10:00Z")
        [signal] = activity.transcript_signals(_subject(tmp_path, path, cli), now)
        assert signal.to_dict()["detail"] == "last record: tool_use", cli
        assert signal.to_dict()["timestamp"].startswith("2026-11-27T08:00"), cli
