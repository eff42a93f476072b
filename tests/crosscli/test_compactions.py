"""Compactions the real Codex CLI, Gemini CLI and opencode wrote (a context overflowing after a
shell command; Gemini CLI compresses at the next prompt, of a resumed session): each reader shows
one compaction with the summary the model wrote, between the work before it and what follows
it, in every reading command."""

from __future__ import annotations

import json

import pytest

from purlin_resume.crosscli import sessions as crosscli
from tests.other_cli_data import (
    CODEX_COMPACTED,
    GEMINI_COMPACTED,
    OPENCODE_COMPACTED,
    SUMMARY,
    compaction_home,
)

ANSWER = "The project has one commit: start."
CASES = [
    ("codex", CODEX_COMPACTED, None, ANSWER),
    ("gemini", GEMINI_COMPACTED, None, "FIELD-AGAIN is it still one commit?"),
    ("opencode", OPENCODE_COMPACTED, "auto", ANSWER),
]


@pytest.mark.parametrize(("name", "session", "trigger", "after_it"), CASES)
def test_the_compaction_is_shown_once_with_its_summary(cli, name, session, trigger, after_it):
    compaction_home(name)
    listed = json.loads(cli("sessions", "--all", "--json").stdout)["sessions"]
    assert [(s["cli"], s["id"], s["compactions"]) for s in listed] == [(name, session, 1)]
    document = json.loads(cli("export", session, "--include-tools").stdout)
    assert document["compactions"] == 1
    items = document["conversation"]
    assert [i["content"] for i in items if i.get("type") == "compaction"] == [SUMMARY]
    assert json.dumps(items).count("FIELD-SUMMARY") == 1  # the summary is not an answer too
    [compaction] = crosscli.open_conversation(session).conversation.transcript.compactions
    assert (compaction.summary, compaction.trigger) == (SUMMARY, trigger)
    shown = cli("transcript", session, "--include-tools", "--max-chars", "0").stdout
    before, _, after = shown.partition("Conversation compacted")
    assert "git log --oneline" in before
    assert SUMMARY in after
    assert after_it in after
