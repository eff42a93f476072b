"""What a resume takes from a history it cannot trust (a committed file, a branch's, a careless
caller's): the size of a task, the branch of a spawn, a spawn commit, phase, plan and files."""

from __future__ import annotations

import json
import re

import pytest

from purlin_resume.history.agent_history import PROMPT_CHARS
from tests.conftest import commit_file, git
from tests.core.test_redact import PLANTED
from tests.gsd_files import entry, one_error_line, read_history, snapshot, write_history


def interrupted(cli, agent_id, *files, task="Execute plan 02-01", phase="02", plan="01"):
    spawned = cli(
        "history", "spawn", "--agent-id", agent_id, "--task", task, "--phase", phase, "--plan", plan
    )
    assert spawned.exit_code == 0, spawned.stderr
    flags = [part for name in files for part in ("--files", name)]
    assert cli("history", "interrupt", agent_id, *flags).exit_code == 0
    return spawned


# --- the size of a task ------------------------------------------------------------------------


def test_a_huge_task_given_to_spawn_is_kept_cut_saying_how_long_it_was(repo, cli):
    spawned = interrupted(cli, "agent_big", task="T" * 100_000)
    assert "--task of 100000 characters" in spawned.stderr
    kept = read_history(repo)["entries"][0]["task_description"]
    assert len(kept) <= PROMPT_CHARS
    assert kept.endswith("… (100000 characters)")

    before = len((repo / ".planning" / "agent-history.json").read_text())
    briefed = cli("resume-task")
    assert briefed.exit_code == 0, briefed.stderr
    assert "… (100000 characters)" in briefed.stdout
    assert len(briefed.stdout) < PROMPT_CHARS + 5_000
    grown = len((repo / ".planning" / "agent-history.json").read_text()) - before
    assert grown < PROMPT_CHARS + 2_000, "a resume copies the entry, the task cut"


def test_a_huge_task_and_prompt_of_a_committed_history_are_cut_once_and_stay_cut(repo, cli):
    """Each resume copies the entry: a committed task of megabytes no longer doubles the file,
    nor fills the briefing; a second resume keeps the length the first one said."""
    huge = {"task_description": "T" * 1_000_000, "prompt": "P" * 300_000}
    write_history(repo, [entry("agent_huge", "interrupted", **huge)])
    first = cli("resume-task", "--json")
    assert first.exit_code == 0, first.stderr
    assert len(first.stdout) < 8 * PROMPT_CHARS
    briefing = json.loads(first.stdout)["briefing"]
    assert "… (1000000 characters)" in briefing
    assert "… (300000 characters)" in briefing
    old, resumed = read_history(repo)["entries"]
    assert old["task_description"] == huge["task_description"], "the old entry is left as it was"
    assert len(resumed["task_description"]) == PROMPT_CHARS
    assert resumed["task_description"].endswith("… (1000000 characters)")
    assert resumed["prompt"].endswith("… (300000 characters)")

    assert cli("history", "interrupt", "agent_huge").exit_code == 0
    assert cli("resume-task").exit_code == 0
    again = read_history(repo)["entries"][-1]
    assert again["task_description"] == resumed["task_description"]
    assert again["prompt"] == resumed["prompt"]


def test_a_task_is_redacted_before_it_is_cut(repo, cli):
    """A secret the cut would cross is found whole first: no part of it is kept, nor a part
    of its placeholder."""
    token = PLANTED["github-token"]
    end = PROMPT_CHARS - len("… (1000000 characters)")
    kept = "T" * (end - 200) + f" {token} "
    crossing = "T" * (end - 20 - len(kept)) + f" {token} "  # the cut falls inside it
    task = kept + crossing + "T" * 1_000_000
    write_history(repo, [entry("agent_tok", "interrupted", task_description=task)])
    result = cli("resume-task", "--json")
    assert result.exit_code == 0, result.stderr
    resumed = read_history(repo)["entries"][-1]["task_description"]
    assert resumed.count("[REDACTED:github-token:") == 1
    assert re.search(r"\[REDACTED:[^\]]*$", resumed) is None, "no placeholder left open"
    assert token[:10] not in result.stdout + json.dumps(resumed)


# --- the branch the agent was spawned on --------------------------------------------------------


@pytest.fixture
def spawned_on_feat(repo, cli):
    """An agent spawned and interrupted on branch ``feat``, its history then brought to
    ``main`` (which does not hold the spawn commit); HEAD is on ``main``."""
    commit_file(repo, "z.txt", "x\n")
    git(repo, "switch", "-q", "-c", "feat")
    commit_file(repo, "z.txt", "x\nfeat\n")
    commit_file(repo, "f.txt", "f\n")
    interrupted(cli, "agent_br1", "f.txt", "z.txt")
    git(repo, "add", ".planning")
    git(repo, "commit", "-q", "-m", "history")
    git(repo, "switch", "-q", "main")
    commit_file(repo, "README.md", "# demo\nmain\n")
    git(repo, "checkout", "-q", "feat", "--", ".planning")
    return repo


def test_an_agent_spawned_on_another_branch_stops_the_resume_naming_it(spawned_on_feat, cli):
    before = snapshot(spawned_on_feat)
    result = cli("resume-task", "agent_br1")
    assert result.exit_code == 1
    message = one_error_line(result)
    assert "agent agent_br1 was spawned on commit" in message
    assert "which this branch does not contain" in message
    assert "'git switch feat' goes back to it (branch feat holds it)" in message
    assert "--ref BRANCH with its work checks them here" in message
    assert "run again with --force to resume anyway" in message
    assert result.stdout == ""
    assert snapshot(spawned_on_feat) == before, "a stopped resume records nothing"

    forced = cli("resume-task", "agent_br1", "--force", "--json")
    assert forced.exit_code == 0, forced.stderr
    done = json.loads(forced.stdout)["agents"][0]
    assert done["conflicts"]["off_branch"] is True
    assert done["conflicts"]["spawn_branches"] == ["feat"]
    assert (
        "which this branch does not contain (branch feat holds it)"
        in json.loads(forced.stdout)["briefing"]
    )
    assert "None of the files this agent modifies changed" not in forced.stdout


def test_with_the_agents_branch_the_resume_on_another_branch_is_checked(spawned_on_feat, cli):
    result = cli("resume-task", "agent_br1", "--ref", "feat", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["agents"][0]["conflicts"]["off_branch"] is False


def test_a_spawn_commit_no_branch_holds_says_how_to_reach_it(spawned_on_feat, cli):
    git(spawned_on_feat, "branch", "-q", "-D", "feat")
    result = cli("resume-task", "agent_br1")
    assert result.exit_code == 1
    message = one_error_line(result)
    spawn = read_history(spawned_on_feat)["entries"][0]["spawn_commit"]
    assert f"no branch holds it, 'git switch --detach {spawn[:12]}' goes back to it" in message


# --- the spawn commit ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["resume-task"], ["history", "list"]])
def test_a_spawn_commit_that_is_no_commit_id_makes_the_history_corrupt(repo, cli, command):
    write_history(repo, [entry("agent_c", "interrupted", spawn_commit="--output=/tmp/x")])
    before = snapshot(repo)
    result = cli(*command)
    assert result.exit_code == 1
    message = one_error_line(result)
    assert "agent-history.json is corrupt" in message
    assert "spawn_commit: commit id '--output=/tmp/x' is not valid" in message
    assert result.stdout == ""
    assert snapshot(repo) == before


def test_a_spawn_commit_that_no_longer_exists_is_not_offered_to_git_diff(repo, cli):
    write_history(repo, [entry("agent_g", "interrupted", spawn_commit="1234567deadbeef")])
    result = cli("resume-task")
    assert result.exit_code == 0, result.stderr
    assert "the spawn commit 1234567deadbeef no longer exists" in result.stdout
    assert "git diff" not in result.stdout
    assert "at commit 1234567deadb" in result.stdout, "where it was spawned is still said"


# --- phase, plan and files -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [("phase", "01\n## injected"), ("plan", "01\r"), ("parallel_group", ["g\u2028"])],
)
def test_a_committed_line_field_with_a_control_character_makes_the_history_corrupt(
    repo, cli, field, value
):
    write_history(repo, [entry("agent_p", "interrupted", **{field: value})])
    before = snapshot(repo)
    result = cli("resume-task")
    assert result.exit_code == 1
    assert f"{field} holds a control character" in one_error_line(result)
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    "args",
    [
        ["--phase", "01\n## injected", "--plan", "01"],
        ["--phase", "01", "--plan", "01\x1b[2J"],
        ["--phase", "01", "--plan", "01", "--group", "g\nx"],
    ],
)
def test_spawn_refuses_a_control_character_in_phase_plan_or_group(repo, cli, args):
    before = snapshot(repo)
    result = cli("history", "spawn", "--agent-id", "agent_s3", "--task", "t", *args)
    assert result.exit_code == 2
    assert "holds a control character; give it on one line" in one_error_line(result)
    assert snapshot(repo) == before


@pytest.mark.parametrize("name", ["../../../../etc/passwd", "/etc/shadow", "src/../../x", "x\ny"])
@pytest.mark.parametrize("verb", ["interrupt", "complete", "fail"])
def test_files_outside_the_project_are_refused_where_they_enter(repo, cli, name, verb):
    write_history(repo, [entry("agent_f")])
    before = snapshot(repo)
    result = cli("history", verb, "agent_f", "--files", "src/a.py", "--files", name)
    assert result.exit_code == 2
    assert f"--files {name!r}" in one_error_line(result)
    assert snapshot(repo) == before


def test_a_file_given_by_its_path_inside_the_project_is_recorded_relative(repo, cli):
    write_history(repo, [entry("agent_f")])
    result = cli("history", "interrupt", "agent_f", "--files", str(repo / "src" / "a.py"))
    assert result.exit_code == 0, result.stderr
    assert read_history(repo)["entries"][0]["files_modified"] == ["src/a.py"]


def test_a_committed_historys_files_outside_the_project_are_left_out_of_the_briefing(repo, cli):
    recorded = ["src/a.py", "../../../../etc/passwd", "/etc/shadow", "x\ny"]
    write_history(repo, [entry("agent_o", "interrupted", files_modified=recorded)])
    result = cli("resume-task", "--json")
    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)["agents"][0]
    assert done["conflicts"]["agent_files"] == ["src/a.py"]
    assert done["conflicts"]["files_left_out"] == 3
    briefing = json.loads(result.stdout)["briefing"]
    assert "- `src/a.py`" in briefing
    for outside in ("passwd", "shadow", "`x"):
        assert outside not in briefing
    assert "Left out: 3 recorded paths outside the project" in briefing
