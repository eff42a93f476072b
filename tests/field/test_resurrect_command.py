"""The /resurrect slash command in the real Claude Code: it shows the candidates and the context
preview and resurrects nothing until the user picked one."""

from __future__ import annotations

import json
import shutil

from tests.conftest import FIXTURES
from tests.field.scripted_model import bash, last_user, text

FUM = "8463c716-a2ea-4c14-9efa-87158ebd9f20"


def _with_fixture_transcripts(field) -> None:
    """The real transcripts beside the field's own, as earlier work of this user."""
    for folder in (FIXTURES / "projects").iterdir():
        shutil.copytree(folder, field.projects_dir() / folder.name, dirs_exist_ok=True)


def _log(field) -> list[dict]:
    path = field.claude_dir / "history" / "resurrection-log.jsonl"
    return [json.loads(line) for line in path.open()] if path.exists() else []


def test_resurrect_asks_before_it_resurrects(field):
    """Regression: /resurrect ran ``resurrect … --yes --json``, so the best match of a search was
    resurrected without the user ever seeing a candidate."""
    _with_fixture_transcripts(field)
    field.model.reply(last_user("tmux module"), text("Which one shall I resurrect? 1, 2 or cancel"))
    asked = field.claude('/resurrect find "tmux module"')
    assert asked.returncode == 0, asked.stderr
    assert not field.model.unused()

    (request,) = field.model.messages  # the command as the model received it
    assert "Nothing is resurrected yet" in request.text
    assert '"clear_winner": true' in request.text  # the preview ran, in Claude Code itself
    assert "Explore Tmux module and test setup" in request.text  # a candidate
    assert "Would resurrect agent a7be2f0" in request.text  # and its context preview
    assert "AskUserQuestion" in request.text
    assert _log(field) == []  # nothing was resurrected

    # the user picks the first: exactly that one is resurrected
    picked = f"purlin-resume resurrect --session {FUM} --agent a7be2f0 --yes --json"
    field.model.reply(last_user("the first one"), bash(picked, "Resurrect the picked agent"))
    field.model.reply(last_user("resurrection_id"), text("Resurrected agent a7be2f0."))
    done = field.claude("the first one", "--resume", asked.session_id)
    assert done.returncode == 0, done.stderr
    assert [entry["resurrected_from_agent_id"] for entry in _log(field)] == ["a7be2f0"]


def test_nothing_found_is_the_one_error_line_and_no_question(field):
    """When the preview fails (nothing matches), Claude Code stops the command (the newer
    versions show the error line as its result) and never asks the model."""
    _with_fixture_transcripts(field)
    run = field.claude('/resurrect find "zzqxv"')
    assert run.returncode == 0, run.stderr
    assert field.model.messages == []
    assert _log(field) == []
    if run.result:  # (2.1.197 prints nothing in -p mode)
        assert "error: nothing matches 'zzqxv'" in run.result
