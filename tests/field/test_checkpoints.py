"""Scenarios 4 and 5: checkpoints saved and restored by the real Claude Code's hooks."""

from __future__ import annotations

import json

from tests.field.scripted_model import bash, conversation, last_user, text

CHECKPOINT = """purlin-resume save --from - <<'CHECKPOINT'
role: builder
feature: features/field.md
in_progress: FIELD-WORK wiring the scripted model into the harness
done:
  - the stand-in server answers streamed requests
next:
  - FIELD-NEXT run the resumed session
notes: nothing blocks
step: 2
step_note: writing the scenarios
delivery_plan: "Phase 1 of 2 -- IN_PROGRESS"
work_queue: ["[HIGH] field.md -- Phase 1"]
pending_decisions: []
CHECKPOINT"""


def save_through_bash(field, mark: str):
    """A session whose model runs the /pl-resume save command through its Bash tool."""
    field.model.reply(conversation(mark), bash(CHECKPOINT, "Save the checkpoint"))
    field.model.reply(conversation(mark), text("Checkpoint saved."))
    run = field.claude(f"{mark} save where we are")
    assert run.returncode == 0, run.stderr
    assert not field.model.unused()
    return run


def test_save_through_bash_is_keyed_by_the_real_session(field):
    run = save_through_bash(field, "S4-SAVE")
    saved = field.project / ".purlin" / "cache" / "checkpoints" / f"{run.session_id}.md"
    assert saved.exists(), sorted(p.name for p in (field.project / ".purlin" / "cache").rglob("*"))
    assert "FIELD-WORK" in saved.read_text()


def test_the_briefing_of_a_resumed_session_reaches_the_model(field):
    first = save_through_bash(field, "S4-MAIN")
    field.model.reply(last_user("S4-AGAIN"), text("Resuming from the checkpoint."))
    again = field.claude("S4-AGAIN carry on", "--resume", first.session_id)
    assert again.returncode == 0, again.stderr
    assert not field.model.unused()

    (start,) = [c for c in field.hooks("SessionStart") if c.payload.get("source") == "resume"]
    assert start.payload["session_id"] == first.session_id
    assert "FIELD-WORK" in start.stdout
    # the next request the model receives holds the briefing
    (request,) = [r for r in field.model.messages if r.step == len(field.model.steps) - 1]
    assert "FIELD-WORK" in request.text
    assert "FIELD-NEXT" in request.text


SUMMARY = "<analysis>A listing.</analysis>\n<summary>S5-SUMMARY the project was listed.</summary>"


def test_compaction_checkpoints_and_rebriefs_the_same_role(field):
    """An agent started in a role (``PURLIN_ROLE``, as revive and resurrect start them)."""
    model = field.model
    model.reply(conversation("S5-MAIN"), bash("ls", "List the files"))
    model.reply(conversation("S5-MAIN"), text("Listed."))
    model.reply(last_user("create a detailed summary of the conversation"), text(SUMMARY))
    model.reply(last_user("S5-AFTER"), text("Continuing."))
    role = {"PURLIN_ROLE": "qa"}

    first = field.claude("S5-MAIN list the project", env=role)
    assert first.returncode == 0, first.stderr
    session = first.session_id
    compacted = field.claude("/compact", "--resume", session, env=role)
    assert compacted.returncode == 0, compacted.stderr

    # PreCompact wrote the automatic checkpoint of this session, in its role
    (pre,) = field.hooks("PreCompact")
    assert pre.payload["session_id"] == session
    assert pre.payload["trigger"] == "manual"
    written = sorted((field.project / ".purlin" / "cache").glob(f"**/{session}*.md"))
    assert len(written) == 1, written
    checkpoint = written[0].read_text()
    assert "**Role:** qa" in checkpoint
    assert "Listed." in checkpoint

    # SessionStart(compact) briefed the same role, from that checkpoint
    (start,) = [c for c in field.hooks("SessionStart") if c.payload.get("source") == "compact"]
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "restoring the QA" in context, context[:300]
    assert "Listed." in context

    # the briefing reaches the model with the next prompt
    after = field.claude("S5-AFTER go on", "--resume", session, env=role)
    assert after.returncode == 0, after.stderr
    assert not model.unused()
    (request,) = [r for r in model.messages if r.step == len(model.steps) - 1]
    assert "SessionStart hook (compact)" in request.text
    assert "S5-SUMMARY" in request.text

    # the product reads the compaction as one, and its run is no subagent
    (row,) = [
        s
        for s in json.loads(field.purlin("sessions", "--json").stdout)["sessions"]
        if s["id"] == session
    ]
    assert row["compactions"] == 1
    assert row["subagents"] == 0
    assert row["unknown_records"] == 0
    assert field.history()["entries"] == []


def test_compaction_after_a_save_rebriefs_the_saved_role(field):
    """A QA agent that saved its checkpoint (role qa) comes back as QA after compaction."""
    first = save_through_bash(field, "S5-SAVE")  # the checkpoint says role: builder
    field.model.reply(last_user("create a detailed summary of the conversation"), text(SUMMARY))
    compacted = field.claude("/compact", "--resume", first.session_id)
    assert compacted.returncode == 0, compacted.stderr
    (start,) = [c for c in field.hooks("SessionStart") if c.payload.get("source") == "compact"]
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "FIELD-WORK" in context  # the agent's own save wins over the automatic checkpoint


def test_compaction_in_a_project_without_roles_briefs_neutrally(field):
    """No role anywhere (no PURLIN_ROLE, no instructions/, no save): the automatic checkpoint
    comes back as the session's own content and git state, without a Builder persona."""
    model = field.model
    model.reply(conversation("S6-MAIN"), bash("ls", "List the files"))
    model.reply(conversation("S6-MAIN"), text("Listed."))
    model.reply(last_user("create a detailed summary of the conversation"), text(SUMMARY))
    first = field.claude("S6-MAIN list the project")
    assert first.returncode == 0, first.stderr
    compacted = field.claude("/compact", "--resume", first.session_id)
    assert compacted.returncode == 0, compacted.stderr
    (start,) = [c for c in field.hooks("SessionStart") if c.payload.get("source") == "compact"]
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "S6-MAIN list the project" in context
    assert "## Git" in context
    for persona in ("Builder", "Role Compact", "/pl-", "Critic"):
        assert persona not in context
    assert len(context) < 3000
