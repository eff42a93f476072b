"""GSD's hand-off (``.planning/HANDOFF.json`` + ``.continue-here.md``): read into the restore and
SessionStart briefings, written by ``save --gsd-handoff`` in GSD's own shape.

The shape is GSD's template: ``get-shit-done/workflows/pause-work.md`` (gsd-build/get-shit-done),
step ``write_structured`` (HANDOFF.json version 1.0) and step ``write`` (``.continue-here.md``).
"""

from __future__ import annotations

import io
import json

from purlin_resume.checkpoints import gsd_handoff
from purlin_resume.core.project import Project
from purlin_resume.integration import hook_call
from tests.conftest import commit_file

# HANDOFF.json exactly as GSD's pause-work template fills it in (values made up).
GSD_HANDOFF = {
    "version": "1.0",
    "timestamp": "2026-03-02T10:15:00.000Z",
    "phase": "03",
    "phase_name": "auth-module",
    "phase_dir": ".planning/phases/03-auth-module",
    "plan": 2,
    "task": 3,
    "total_tasks": 5,
    "status": "paused",
    "completed_tasks": [
        {"id": 1, "name": "session store", "status": "done", "commit": "a1b2c3d"},
        {"id": 2, "name": "login route", "status": "done", "commit": "d4e5f6a"},
        {"id": 3, "name": "token refresh", "status": "in_progress", "progress": "happy path"},
    ],
    "remaining_tasks": [
        {"id": 4, "name": "logout route", "status": "not_started"},
        {"id": 5, "name": "rate limit", "status": "not_started"},
    ],
    "blockers": [{"description": "staging DB down", "type": "external", "workaround": "mock"}],
    "human_actions_pending": [
        {"action": "create the OAuth app", "context": "needs the admin", "blocking": True}
    ],
    "decisions": [{"decision": "JWT over sessions", "rationale": "stateless", "phase": "03"}],
    "uncommitted_files": ["src/auth/refresh.ts"],
    "next_action": "finish refresh-token rotation in src/auth/refresh.ts",
    "context_notes": "rotation must be atomic",
}
SECRET = "sk-ant-api03-" + "Zx9" * 30


def _plan(repo):
    phase = repo / ".planning" / "phases" / "03-auth-module"
    phase.mkdir(parents=True)
    (phase / "03-02-PLAN.md").write_text("# plan\n")
    return phase


def test_restore_briefing_shows_a_present_gsd_handoff(repo, cli):
    _plan(repo)
    (repo / ".planning" / "HANDOFF.json").write_text(json.dumps(GSD_HANDOFF))
    (repo / ".planning" / "phases" / "03-auth-module" / ".continue-here.md").write_text("x")

    result = cli("restore", "builder", "--keep")
    as_json = json.loads(cli("restore", "builder", "--keep", "--json").stdout)

    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "## GSD hand-off" in text
    assert "`.planning/HANDOFF.json`, written 2026-03-02T10:15:00.000Z" in text
    assert "`.planning/phases/03-auth-module/.continue-here.md`" in text
    assert "- Phase: auth-module, plan 2, task 3 of 5" in text
    assert "- Next action: finish refresh-token rotation in src/auth/refresh.ts" in text
    assert "- Blockers: staging DB down" in text
    assert "- Waiting for a human: create the OAuth app" in text
    assert text.rstrip().endswith("would you like to adjust?")  # the question stays last
    assert as_json["gsd_handoff"]["next_action"].startswith("finish refresh-token")


def test_session_start_briefs_a_gsd_handoff_even_without_a_checkpoint(repo):
    (repo / ".planning").mkdir()
    (repo / ".planning" / "HANDOFF.json").write_text(
        json.dumps({**GSD_HANDOFF, "context_notes": f"key {SECRET}"})
    )
    payload = {
        "session_id": "5e55-start",
        "transcript_path": str(repo / "t.jsonl"),
        "cwd": str(repo),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    out = io.StringIO()

    hook_call.run("session-start", io.StringIO(json.dumps(payload)), out, env={})

    context = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    assert "## GSD hand-off" in context
    assert "finish refresh-token rotation" in context
    assert SECRET not in context


def test_a_corrupt_handoff_is_named_and_left_alone(repo, cli):
    (repo / ".planning").mkdir()
    broken = repo / ".planning" / "HANDOFF.json"
    broken.write_text('{"version": "1.0", ')

    result = cli("restore", "qa", "--keep")

    assert result.exit_code == 0, result.stderr
    assert "`.planning/HANDOFF.json` is present but unreadable" in result.stdout
    assert broken.read_text() == '{"version": "1.0", '


def test_save_gsd_handoff_writes_both_files_in_gsds_shape(repo, cli):
    phase = _plan(repo)
    commit_file(repo, "src/a.py", "x = 1\n")
    (repo / "src" / "a.py").write_text("x = 2\n")

    result = cli(
        "save",
        "--role",
        "builder",
        "--step",
        "2",
        "--feature",
        "features/auth.md",
        "--in-progress",
        "token refresh",
        "--done",
        "session store",
        "--done",
        "login route",
        "--next",
        "logout route",
        "--next",
        "rate limit",
        "--pending-decision",
        "JWT over sessions",
        "--notes",
        f"uses {SECRET}",
        "--gsd-handoff",
        "--json",
    )

    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["gsd_handoff"] == [
        ".planning/HANDOFF.json",
        ".planning/phases/03-auth-module/.continue-here.md",
    ]
    data = json.loads((repo / ".planning" / "HANDOFF.json").read_text())
    assert list(data)[: len(gsd_handoff.FIELDS)] == list(gsd_handoff.FIELDS)
    assert set(GSD_HANDOFF) <= set(data)  # every field of GSD's template, in its order
    for key, value in GSD_HANDOFF.items():  # and of the same JSON type
        assert data[key] is None or type(data[key]) is type(value), key
    assert (data["phase"], data["phase_name"]) == ("03", "auth-module")
    assert data["phase_dir"] == ".planning/phases/03-auth-module"
    assert data["status"] == "paused"
    assert data["task"] == 3
    assert data["total_tasks"] == 5
    assert data["completed_tasks"][2] == {"id": 3, "name": "token refresh", "status": "in_progress"}
    assert [t["name"] for t in data["remaining_tasks"]] == ["logout route", "rate limit"]
    assert data["decisions"][0]["decision"] == "JWT over sessions"
    assert data["uncommitted_files"] == ["src/a.py", ".planning/"]  # git status, as GSD lists it
    assert data["next_action"] == "logout route"
    assert SECRET not in json.dumps(data)
    note = (phase / ".continue-here.md").read_text()
    assert note.startswith("---\nphase: 03-auth-module\ntask: 3\ntotal_tasks: 5\n")
    for section in (
        "current_state",
        "completed_work",
        "remaining_work",
        "decisions_made",
        "blockers",
        "context",
        "next_action",
    ):
        assert f"<{section}>" in note
        assert f"</{section}>" in note
    assert "- Task 1: session store - Done" in note
    assert "Start with: logout route" in note
    assert SECRET not in note
    # What was written reads back into the briefing.
    found = gsd_handoff.read(Project(repo))
    assert found.data == data
    assert found.continue_here == phase / ".continue-here.md"


def test_save_gsd_handoff_without_a_phase_writes_only_the_json(repo, cli):
    result = cli(
        "save",
        "--role",
        "qa",
        "--scenario-progress",
        "1 of 2",
        "--current-scenario",
        "one",
        "--in-progress",
        "checking",
        "--next",
        "two",
        "--gsd-handoff",
    )

    assert result.exit_code == 0, result.stderr
    assert "only HANDOFF.json was written" in result.stderr
    data = json.loads((repo / ".planning" / "HANDOFF.json").read_text())
    assert data["phase"] is None
    assert data["phase_dir"] is None
    assert not list((repo / ".planning").rglob(".continue-here.md"))


def test_long_context_notes_are_redacted_before_they_are_cut(repo, cli):
    (repo / ".planning").mkdir()
    notes = "x" * 985 + " " + SECRET  # the cut at 1,000 characters falls inside the key
    (repo / ".planning" / "HANDOFF.json").write_text(
        json.dumps({**GSD_HANDOFF, "context_notes": notes})
    )
    as_json = json.loads(cli("restore", "builder", "--keep", "--json").stdout)
    assert "sk-ant-api03" not in json.dumps(as_json)
    assert "sk-ant-api03" not in cli("restore", "builder", "--keep").stdout
