"""What a resurrection is logged with, on the real transcripts: an agent cut off mid-work is not
complete, a warning is a note and not an outcome, no new agent is named before it exists, a
changed outcome drops the old reason, and SEC-2 refusals are logged."""

from __future__ import annotations

import json
from pathlib import Path

from tests.resurrection.test_resurrect_cli import _fails, _log, _ok
from tests.resurrection_data import write_config

FUM = "-home-USER-projects-spotter-worktrees-spotter-fum"
FUM_SESSION = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
DOV = "-home-USER-projects-spotter-worktrees-spotter-dov"
DOV_PROJECT = "/home/USER/projects/spotter-worktrees/spotter-dov"


def cut_mid_work(claude: Path) -> Path:
    """The fixture subagent a7be2f0 as a crash leaves it: its file ends after the result of one
    of the two tool calls of its message "Let me fix that and list the directory properly:"
    (lines 25-34); the agent never answered."""
    path = claude / "projects" / FUM / FUM_SESSION / "subagents" / "agent-a7be2f0.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assert b"Let me fix that and list the directory properly" in lines[24]
    assert b'"tool_result"' in lines[33]
    path.write_bytes(b"".join(lines[:34]))
    return path


def _resurrect(cli, claude: Path, *args: str) -> dict:
    base = ["resurrect", "--yes", "--json", "--claude-dir", str(claude)]
    return json.loads(_ok(cli(*base, *args)).stdout)


def _check(data: dict, name: str) -> dict:
    return next(c for c in data["checks"] if c["name"] == name)


def test_an_agent_cut_off_mid_work_is_not_complete(cli, fixtures_copy, repo):
    """Regression: it was taken as complete and logged ``success``, with "Let me fix that…"
    as its final output."""
    cut_mid_work(fixtures_copy)

    data = _resurrect(cli, fixtures_copy, "--session", "8463", "--agent", "a7be2f0")

    complete = _check(data, "complete")
    assert complete["level"] == "warn"
    assert "ended mid-work" in complete["message"]
    [entry] = _log(fixtures_copy)
    assert entry["outcome"] == "partial"
    assert "ended mid-work" in entry["outcome_reason"]
    assert "partial: the agent did not end normally" in data["prompt"]


def test_the_whole_agent_is_complete(cli, fixtures_copy, repo):
    data = _resurrect(cli, fixtures_copy, "--session", "8463", "--agent", "a7be2f0")

    assert _check(data, "complete")["level"] == "ok"


def test_a_source_folder_absent_here_is_a_note_not_an_outcome(cli, fixtures_copy, repo):
    """Regression: every resurrection of a project not on this machine was logged ``partial``,
    and the stats showed that warning as the top failure reason."""
    claude = ("--claude-dir", str(fixtures_copy))
    _resurrect(cli, fixtures_copy, "--session", "4d56", "--agent", "a2898e3")
    cut_mid_work(fixtures_copy)
    _resurrect(cli, fixtures_copy, "--session", "8463", "--agent", "a7be2f0")
    _fails(cli("resurrect", "--session", "zzqx0000", "--yes", *claude), 1)

    whole, crashed, missing = _log(fixtures_copy)
    assert (whole["outcome"], whole["outcome_reason"]) == ("success", None)
    assert f"{DOV_PROJECT} is not on this machine" in whole["notes"]
    assert crashed["outcome"] == "partial"
    assert "is not on this machine" in crashed["notes"]
    stats = json.loads(_ok(cli("resurrections", "stats", "--json", *claude)).stdout)
    reasons = [r["reason"] for r in stats["top_failure_reasons"]]
    assert len(reasons) == 1
    assert "zzqx0000" in reasons[0]
    assert stats["success_rate_by_mode"]["direct"]["success"] == 1
    shown = _ok(cli("resurrections", "stats", *claude)).stdout
    assert "not on this machine" not in shown
    assert "mid-work" not in shown


def test_recommend_counts_a_resurrection_with_a_warning_as_a_success(cli, fixtures_copy, repo):
    """Regression: the warning made it ``partial``, and ``recommend`` gave the agent no credit
    for it ("partly successful")."""
    claude = ("--claude-dir", str(fixtures_copy))
    _resurrect(cli, fixtures_copy, "--session", "8463")

    task = ("--task", "LiveView transcript rendering", "--threshold", "0")
    found = json.loads(_ok(cli("recommend", "--json", *task, *claude)).stdout)

    why = {r["session_id"]: r["why"] for r in found["recommendations"] if not r["agent_id"]}
    assert "resurrected once, successful" in why[FUM_SESSION]


def test_done_with_another_outcome_drops_the_stale_reason(cli, fixtures_copy, repo):
    """Regression: ``done --outcome failure`` kept the reason of the ``partial`` it replaced."""
    claude = ("--claude-dir", str(fixtures_copy))
    cut_mid_work(fixtures_copy)
    rid = _resurrect(cli, fixtures_copy, "--session", "8463", "--agent", "a7be2f0")["resurrection"][
        "resurrection_id"
    ]
    assert "mid-work" in _log(fixtures_copy)[0]["outcome_reason"]

    _ok(cli("resurrect", "done", rid, "--outcome", "failure", *claude))
    assert (_log(fixtures_copy)[0]["outcome"], _log(fixtures_copy)[0]["outcome_reason"]) == (
        "failure",
        None,
    )
    _ok(cli("resurrect", "done", rid, "--outcome", "failure", "--reason", "wrong files", *claude))
    _ok(cli("resurrect", "done", rid, "--outcome", "failure", "--notes", "retried", *claude))
    assert _log(fixtures_copy)[0]["outcome_reason"] == "wrong files"  # same outcome: kept


def test_a_printed_prompt_names_no_new_agent_until_one_starts(cli, fixtures_copy, repo):
    """Regression: ``--spawn none`` logged a made-up ``resurrected_as_agent_id``."""
    from purlin_resume.integration import capture

    result = _ok(
        cli("resurrect", "--session", "8463", "--agent", "a7be2f0", "--yes", "--claude-dir",
            str(fixtures_copy))
    )  # fmt: skip

    [entry] = _log(fixtures_copy)
    assert entry["resurrected_as_agent_id"] is None
    assert "agent-" not in result.stderr.replace("agent a7be2f0", "")
    listed = _ok(cli("resurrections", "--claude-dir", str(fixtures_copy))).stdout
    assert "a7be2f0 → a new agent (its id is not known)" in listed
    # the agent that uses the prompt names itself when it starts (SessionStart)
    env = {
        "PURLIN_RESURRECTION_ID": entry["resurrection_id"],
        "CLAUDE_CONFIG_DIR": str(fixtures_copy),
    }
    capture._resurrection_started("5e55a0d0-1111-4000-8000-000000000001", env)
    assert (
        _log(fixtures_copy)[0]["resurrected_as_agent_id"] == "5e55a0d0-1111-4000-8000-000000000001"
    )


def _move_project(claude: Path, folder: Path) -> None:
    """The dov fixture session as if it had run in ``folder``."""
    for path in (claude / "projects" / DOV).rglob("*.jsonl"):
        path.write_bytes(path.read_bytes().replace(DOV_PROJECT.encode(), str(folder).encode()))


def test_a_source_project_outside_home_is_allowed_by_default(cli, fixtures_copy, repo, tmp_path):
    """Regression: the default ``allowed_roots: ["~"]`` refused any project outside the home
    folder (``/srv``, ``/work``, a mounted disk) with exit 2."""
    project = tmp_path / "srv" / "spotter-dov"
    project.mkdir(parents=True)
    _move_project(fixtures_copy, project)

    data = _resurrect(cli, fixtures_copy, "--session", "4d56", "--agent", "a2898e3")

    assert _check(data, "project") == {
        "name": "project",
        "level": "ok",
        "message": str(project),
        "suggestion": None,
    }


def test_refusals_are_logged(cli, fixtures_copy, repo, tmp_path):
    """Regression: SEC-2 refusals (outside the allowed folders, ``..``) were not in the log."""
    project = tmp_path / "srv" / "spotter-dov"
    project.mkdir(parents=True)
    _move_project(fixtures_copy, project)
    write_config(repo, allowed_roots=[str(repo)], allow_own_projects=False)
    base = ["resurrect", "--session", "4d56", "--yes", "--claude-dir", str(fixtures_copy)]

    _fails(cli(*base, "--agent", "a2898e3"), 2, "outside the allowed folders")
    _fails(cli(*base, "--from", f"{project}/../spotter-dov"), 2, "'..' is not allowed")

    outside, dots = _log(fixtures_copy)
    assert outside["outcome"] == "failure"
    assert "outside the allowed folders" in outside["outcome_reason"]
    assert outside["resurrected_from_agent_id"] == "a2898e3"
    assert dots["outcome"] == "failure"
    assert "'..' is not allowed" in dots["outcome_reason"]
