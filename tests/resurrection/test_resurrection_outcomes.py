"""The one rule that gives a resurrection its logged outcome, case by case, with the real checks;
then through the CLI on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from purlin_resume.core import path_safety
from purlin_resume.resurrection import preflight
from purlin_resume.resurrection.preflight import Check
from tests.claude_records import Conversation, text, write_jsonl
from tests.conftest import commit_file, git
from tests.resurrection.test_resurrect_cli import _fails, _log, _ok
from tests.resurrection_data import write_config

EXISTS = Check("exists", preflight.OK, "agent a in session s")


def _known(**values) -> dict:
    return {"turns": 3, "status": None, "answered": True, **values}


def _moved_project(repo: Path) -> Check:
    recorded = git(repo, "rev-parse", "HEAD").strip()
    commit_file(repo, "later.txt", "later\n")
    return preflight.project(str(repo), path_safety.roots([str(repo.parent)]), recorded)


CASES = {
    "every check ok": (lambda repo: [], "success"),
    "bookmarked on another host": (
        lambda repo: [preflight.hostname("far.example", "here.example")],
        "success",
    ),
    "the transcript is gone, the archive is read": (
        lambda repo: [Check("accessible", preflight.WARN, "the original transcript is gone")],
        "success",
    ),
    "lines that did not parse": (
        lambda repo: [preflight.extractable(_known(malformed=2), "f.jsonl")],
        "partial",
    ),
    "interrupted": (lambda repo: [preflight.completeness(_known(interrupted=True))], "partial"),
    "crashed mid-line": (lambda repo: [preflight.completeness(_known(truncated=True))], "partial"),
    "API error": (lambda repo: [preflight.completeness(_known(api_error=True))], "partial"),
    "unfinished": (lambda repo: [preflight.completeness(_known(status="unfinished"))], "partial"),
    "status unknown, final answer given": (
        lambda repo: [preflight.completeness(_known(status="unknown"))],
        "success",
    ),
    "status unknown, no final answer": (
        lambda repo: [preflight.completeness(_known(status="unknown", answered=False))],
        "partial",
    ),
    "project not on this machine": (
        lambda repo: [preflight.project("/nowhere/at/all", [], None)],
        "success",
    ),
    "no project recorded": (lambda repo: [preflight.project(None, [], None)], "success"),
    "project moved past the recorded commit": (lambda repo: [_moved_project(repo)], "success"),
    "large context: warned and asked": (
        lambda repo: preflight.size(30000, "full", 40, 10000, 20000, 10),
        "success",
    ),
    "a failed check": (
        lambda repo: [preflight.meaningful(_known(turns=0))],
        "failure",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_outcome_rule(case, repo):
    make, expected = CASES[case]
    checks = [EXISTS, *make(repo)]

    outcome, reason = preflight.outcome(checks)

    assert outcome == expected
    if expected == "success":
        assert reason is None
        warned = [c for c in checks if c.level == preflight.WARN and c.name != "size"]
        assert [note.split("; ")[0] for note in preflight.notes(checks)] == [
            c.message for c in warned
        ]  # a warning that is no outcome is a note
    else:
        bad = [c.message for c in checks if c.level in (preflight.WARN, preflight.FAIL)]
        assert reason
        assert reason.split("; ")[0] == bad[0]


def _orphan_subagent(claude: Path, cwd: Path, answer: str) -> None:
    """A 2.1 subagent whose parent session file Claude Code has deleted."""
    talk = Conversation("5e55a0d0-0000-4000-8000-000000000001", cwd=str(cwd))
    records = [
        talk.user("Find where the config is parsed", isSidechain=True, agentId="a0bcdef1"),
        talk.assistant("m1", text("Looking at config.py and the loader first."), isSidechain=True),
        talk.assistant("m2", text(answer), isSidechain=True, agentId="a0bcdef1"),
    ]
    folder = claude / "projects" / ("-" + str(cwd).strip("/").replace("/", "-"))
    write_jsonl(folder / talk.session_id / "subagents" / "agent-a0bcdef1.jsonl", records)


def test_an_orphan_agent_with_a_final_answer_is_a_success(cli, repo, tmp_path):
    """Regression: its unknown status (the parent session file is gone) made it ``partial``."""
    claude = tmp_path / "claude"
    _orphan_subagent(claude, repo, "The config is parsed in loader.py, line 40, by load().")
    write_config(repo, allowed_roots=[str(tmp_path)])

    args = ["resurrect", "--session", "5e55a0d0", "--agent", "a0bcdef1", "--yes", "--json"]
    data = json.loads(_ok(cli(*args, "--claude-dir", str(claude))).stdout)

    complete = next(c for c in data["checks"] if c["name"] == "complete")
    assert complete["level"] == "ok"
    assert "final answer" in complete["message"]
    [entry] = _log(claude)
    assert (entry["outcome"], entry["outcome_reason"]) == ("success", None)


def test_done_notes_are_added_to_the_autonomous_decision_note(cli, fixtures_copy, repo):
    """Regression: ``resurrect done ID --notes X`` replaced the note an autonomous pick wrote."""
    claude = ("--claude-dir", str(fixtures_copy))
    data = json.loads(
        _ok(cli("resurrect", "--session", "short", "--yes", "--json", *claude)).stdout
    )
    rid = data["resurrection"]["resurrection_id"]
    decision = _log(fixtures_copy)[0]["notes"]
    assert decision.startswith("autonomous: picked ")

    _ok(cli("resurrect", "done", rid, "--outcome", "success", "--notes", "fixed it", *claude))
    _ok(cli("resurrect", "done", rid, "--outcome", "success", "--notes", "fixed it", *claude))

    assert _log(fixtures_copy)[0]["notes"] == f"{decision}; fixed it"


def test_resurrections_name_what_a_failure_was_asked_for(cli, fixtures_copy, repo):
    """Regression: a failed resurrection was listed as ``None → None``."""
    claude = ("--claude-dir", str(fixtures_copy))
    assert cli("resurrect", "--session", "zzqx0000", "--yes", *claude).exit_code == 1
    _ok(cli("resurrect", "--session", "short", "--yes", *claude))

    listed = _ok(cli("resurrections", *claude)).stdout

    assert "None" not in listed
    failed, done = listed.splitlines()[1], listed.splitlines()[0]
    assert "zzqx0000" in failed
    assert "(nothing resurrected)  failure" in failed
    assert " → " in done
    assert "55604662-cf2a-4331-851a-ec234028f8ca" in done  # short.jsonl


def test_from_may_name_the_transcripts_own_project_outside_the_roots(cli, tmp_path, repo):
    """Regression: ``--from`` set to the very project the transcript records was refused when
    it lay outside ``allowed_roots`` (here: the home folder), though leaving it out went ahead."""
    from tests.resurrection_data import session

    claude = tmp_path / "claude"
    session(claude, "ownproj", str(repo), [("user", "hi"), ("agent", "hello there, done")])
    base = ["resurrect", "--session", "ownproj", "--yes", "--claude-dir", str(claude)]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    _ok(cli(*base))
    _ok(cli(*base, "--from", str(repo)))
    _ok(cli(*base, "--from", str(repo / ".")))

    assert cli(*base, "--from", str(elsewhere)).exit_code == 2  # neither the project nor a root
    _fails(cli(*base, "--from", f"{repo}/../project"), 2, "'..' is not allowed")
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    _fails(cli(*base, "--from", str(link)), 2, "outside the allowed folders")


def test_a_recorded_project_that_is_a_symlink_does_not_carry_the_permission(cli, tmp_path, repo):
    from tests.resurrection_data import session

    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "proj-link").symlink_to(outside)
    claude = tmp_path / "claude"
    session(claude, "linked", str(tmp_path / "proj-link"), [("user", "hi"), ("agent", "hello")])
    base = ["resurrect", "--session", "linked", "--yes", "--claude-dir", str(claude)]

    result = cli(*base, "--from", str(tmp_path / "proj-link"))

    assert result.exit_code == 2
    assert "symbolic link leads to" in result.stderr


@pytest.mark.parametrize("method", ["full", "hybrid", "summarized"])
def test_a_large_context_is_advised_the_summarized_method_unless_it_is_that_already(method):
    for tokens in (15_000, 30_000):  # over the warning, over the question
        [check] = preflight.size(tokens, method, 5, 10_000, 20_000, 10)
        assert check.message.startswith(f"the context is {tokens} tokens, over ")
        wanted = None if method == "summarized" else "--method summarized makes it smaller"
        assert check.suggestion == wanted
