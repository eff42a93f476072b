"""`recommend`, `resurrect --recommended N` and the SessionStart line: who worked on this before.

Each test builds a real git repository with the work in play (a branch, changed files) and a
Claude data folder of earlier agents written the way Claude Code writes them (Edit, Read and
Write tool calls with absolute paths), or uses the real fixture transcripts.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.resurrection import recommendation
from tests.claude_records import Conversation, text, tool, write_jsonl
from tests.conftest import commit_file, git
from tests.core.test_redact import PLANTED
from tests.resurrection_data import write_config

EXE = Path(sys.executable).with_name("purlin-resume")
NOW = datetime.now(timezone.utc)


def earlier_agent(
    claude: Path,
    session_id: str,
    cwd: Path | str,
    prompt: str,
    *,
    edits: tuple[str, ...] = (),
    reads: tuple[str, ...] = (),
    says: str = "Done.",
    days_ago: float = 3,
) -> Path:
    """A finished session in ``cwd``: the prompt, Read and Edit calls on files (relative to
    ``cwd``, written absolute as Claude Code does), and a closing answer ``days_ago``."""
    talk = Conversation(session_id, cwd=str(cwd))
    records = [talk.user(prompt)]
    for number, name in enumerate(reads):
        use = f"toolu_r{number}"
        records.append(
            talk.assistant(f"msg_r{number}", tool(use, "Read", file_path=f"{cwd}/{name}"))
        )
        records.append(talk.result(use, "file contents"))
    for number, name in enumerate(edits):
        use = f"toolu_e{number}"
        records.append(
            talk.assistant(
                f"msg_e{number}",
                tool(use, "Edit", file_path=f"{cwd}/{name}", old_string="a", new_string="b"),
            )
        )
        records.append(talk.result(use, "The file has been updated."))
    records.append(talk.assistant("msg_end", text(says)))
    moment = NOW - timedelta(days=days_ago)
    for number, record in enumerate(records):
        stamp = moment + timedelta(seconds=number)
        record["timestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    folder = claude / "projects" / ("-" + str(cwd).strip("/").replace("/", "-"))
    return write_jsonl(folder / f"{session_id}.jsonl", records)


@pytest.fixture
def work(repo):
    """The repository on a feature branch with two files changed: one committed on the branch,
    one uncommitted."""
    commit_file(repo, "src/parser.py", "x = 1\n")
    commit_file(repo, "src/cache.py", "y = 1\n")
    write_config(repo, allowed_roots=[str(repo.parent)])  # resurrecting from here is allowed
    commit_file(repo, ".gitignore", ".purlin/\n")
    git(repo, "checkout", "-q", "-b", "feature/parser-cache")
    commit_file(repo, "src/parser.py", "x = 2\n")
    (repo / "src" / "cache.py").write_text("y = 2\n")
    return repo


@pytest.fixture
def claude(tmp_path):
    folder = tmp_path / "claude"
    (folder / "projects").mkdir(parents=True)
    return folder


def recommend(cli, claude: Path, *args: str, env: dict | None = None) -> dict:
    result = cli("recommend", "--json", "--claude-dir", str(claude), *args, env=env)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def ids(found: dict) -> list[str]:
    return [r["agent_id"] or r["session_id"] for r in found["recommendations"]]


# ranking -------------------------------------------------------------------------------------


def test_an_agent_that_edited_the_files_ranks_above_one_that_only_mentioned_the_words(
    cli, work, claude
):
    earlier_agent(
        claude,
        "talker",
        work,
        "parser cache parser cache: how do the parser and the cache work?",
        says="The parser feeds the cache; the cache keys on the parser's output.",
    )
    earlier_agent(
        claude, "editor", work, "speed up loading", edits=("src/parser.py", "src/cache.py")
    )
    found = recommend(cli, claude, "--threshold", "0")
    assert ids(found)[:2] == ["editor", "talker"]
    best = found["recommendations"][0]
    assert best["why"].startswith("edited 2 of the 2 files you changed")
    assert best["cross_repo"] is False
    assert found["task"]["files"] == ["src/parser.py", "src/cache.py"]
    assert "branch feature/parser-cache" in found["task"]["summary"]


def test_reading_counts_less_than_editing(cli, work, claude):
    earlier_agent(claude, "reader", work, "look around", reads=("src/parser.py",))
    earlier_agent(claude, "editor", work, "look around", edits=("src/parser.py",))
    found = recommend(cli, claude, "--threshold", "0")
    assert ids(found) == ["editor", "reader"]
    assert found["recommendations"][1]["why"].startswith("read 1 of the 2 files you changed")


def log_outcome(claude: Path, session_id: str, outcome: str) -> None:
    resurrection_log.append(
        claude / "history" / resurrection_log.FILE_NAME,
        {
            "resurrected_from_session_id": session_id,
            "resurrected_as_agent_id": "new-agent",
            "resurrection_mode": "direct",
            "context_extraction_method": "hybrid",
            "outcome": outcome,
        },
    )


def test_a_failed_past_resurrection_lowers_a_candidate_and_success_raises_it(cli, work, claude):
    for name in ("alpha", "beta", "gamma"):
        earlier_agent(claude, name, work, "work on the parser", edits=("src/parser.py",))
    log_outcome(claude, "alpha", "failure")
    log_outcome(claude, "gamma", "success")
    log_outcome(claude, "gamma", "success")
    found = recommend(cli, claude, "--threshold", "0")
    assert ids(found) == ["gamma", "beta", "alpha"]
    why = {r["session_id"]: r["why"] for r in found["recommendations"]}
    assert "resurrected twice, both successful" in why["gamma"]
    assert "resurrected once, failed" in why["alpha"]
    assert "resurrected" not in why["beta"]


def test_cross_repository_candidates_are_ranked_and_marked(cli, work, claude, tmp_path):
    clone = tmp_path / "elsewhere" / "project-clone"
    earlier_agent(claude, "there", clone, "parser work", edits=("src/parser.py", "src/cache.py"))
    earlier_agent(claude, "here", work, "parser work", edits=("src/parser.py", "src/cache.py"))
    found = recommend(cli, claude, "--threshold", "0")
    assert ids(found) == ["here", "there"]  # the same work here is ranked first
    first, second = found["recommendations"]
    assert (first["cross_repo"], second["cross_repo"]) == (False, True)
    assert "in another repository (project-clone)" in second["why"]
    shown = cli("recommend", "--claude-dir", str(claude), "--threshold", "0")
    assert "[other repository]" in shown.stdout


def test_no_recommendation_when_nothing_clears_the_threshold(cli, work, claude):
    earlier_agent(claude, "gardener", work, "water the tomatoes", says="Watered.")
    found = recommend(cli, claude)
    assert found["recommendations"] == []
    shown = cli("recommend", "--claude-dir", str(claude))
    assert shown.exit_code == 0
    assert "No earlier agent clears the threshold" in shown.stdout
    # a candidate that matches but scores below a raised threshold is not named either
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py",))
    assert ids(recommend(cli, claude)) == ["editor"]
    assert recommend(cli, claude, "--threshold", "99")["recommendations"] == []
    write_config(work, recommend_threshold=99.0)
    assert recommend(cli, claude)["recommendations"] == []


def test_recency_alone_recommends_no_one(cli, work, claude):
    earlier_agent(claude, "fresh", work, "unrelated chores", days_ago=0.01)
    assert recommend(cli, claude, "--threshold", "0")["recommendations"] == []


def test_the_current_session_prompt_is_the_task_and_is_never_recommended(cli, repo, claude):
    earlier_agent(claude, "current", repo, "fix the tokenizer overflow in the lexer", days_ago=0)
    earlier_agent(
        claude,
        "before",
        repo,
        "the tokenizer overflows on long lexer input",
        says="The lexer tokenizer buffer overflows at 64 KB.",
        days_ago=20,
    )
    earlier_agent(claude, "other", repo, "write the changelog", days_ago=1)
    found = recommend(cli, claude, env={"CLAUDE_CODE_SESSION_ID": "current"})
    assert ids(found) == ["before"]
    assert "first prompt 'fix the tokenizer overflow in the lexer'" in found["task"]["summary"]
    assert "mentions tokenizer, overflow, lexer" in found["recommendations"][0]["why"]
    assert "2 weeks old" in found["recommendations"][0]["why"]
    # --session names it too; PURLIN_SESSION_ID wins over CLAUDE_CODE_SESSION_ID
    assert ids(recommend(cli, claude, "--session", "current")) == ["before"]
    env = {"PURLIN_SESSION_ID": "other", "CLAUDE_CODE_SESSION_ID": "current"}
    assert (
        "first prompt 'write the changelog'" in recommend(cli, claude, env=env)["task"]["summary"]
    )


def test_a_live_checkpoint_feature_is_part_of_the_task(cli, repo, claude):
    earlier_agent(claude, "spec", repo, "write the billing export spec", days_ago=2)
    assert recommend(cli, claude)["recommendations"] == []
    saved = cli(
        "save",
        "--role",
        "builder",
        "--feature",
        "features/billing_export.md",
        "--in-progress",
        "x",
        "--next",
        "y",
        "--step",
        "1",
    )
    assert saved.exit_code == 0, saved.stderr
    found = recommend(cli, claude)
    assert ids(found) == ["spec"]
    assert "checkpoint feature features/billing_export.md" in found["task"]["summary"]


def test_bookmark_tags_raise_a_candidate_and_archived_bookmarks_are_candidates(
    cli, work, claude, monkeypatch
):
    earlier_agent(claude, "plain", work, "parser speed", edits=("src/parser.py",))
    earlier_agent(claude, "marked", work, "parser speed", edits=("src/parser.py",))
    added = cli(
        "bookmark",
        "add",
        "parser-guru",
        "--session",
        "marked",
        "--tag",
        "parser",
        "--claude-dir",
        str(claude),
    )
    assert added.exit_code == 0, added.stderr
    found = recommend(cli, claude, "--threshold", "0")
    assert ids(found)[:2] == ["marked", "plain"]
    assert "bookmarked as parser-guru (tag parser)" in found["recommendations"][0]["why"]
    # Claude Code deletes the transcript: the bookmark (and its archive) remains a candidate
    for path in (claude / "projects").rglob("marked.jsonl"):
        path.unlink()
    found = recommend(cli, claude, "--threshold", "0")
    assert "marked" in ids(found)


def test_on_the_real_fixtures_the_sibling_worktree_ranks_first(cli, repo, fixtures_copy):
    # the work of session 4d5611e5 (spotter-dov) as the current task: the earlier session of
    # the other worktree, which edited the same renderer files, is the one to ask
    files = [
        "lib/spotter/services/transcript_renderer.ex",
        "test/spotter/services/transcript_renderer_test.exs",
        "priv/static/assets/spotter.css",
        "lib/spotter_web/live/session_live.ex",
    ]
    args = [
        "--task",
        "transcript rendering of subagents",
        "--session",
        "4d5611e5-241a-462a-8d15-5122611a9569",
    ]
    for name in files:
        args += ["--file", name]
    found = recommend(cli, fixtures_copy, *args)
    best = found["recommendations"][0]
    assert best["session_id"].startswith("8463c716")
    assert best["why"].startswith("edited 4 of the 4 files you changed")
    assert best["cross_repo"] is True
    assert all(not r["session_id"].startswith("4d5611e5") for r in found["recommendations"])
    # words alone: the Explore agent of the same session talks about transcript rendering, but
    # only the edits make the other worktree's session the first
    words_only = recommend(cli, fixtures_copy, *args[:4], "--threshold", "0")
    assert words_only["recommendations"]


# resurrect --recommended ---------------------------------------------------------------------


def test_resurrect_recommended_resurrects_the_nth_of_the_last_list(cli, work, claude):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py", "src/cache.py"))
    earlier_agent(claude, "helper", work, "parser", edits=("src/parser.py",))
    assert ids(recommend(cli, claude)) == ["editor", "helper"]
    result = cli("resurrect", "--recommended", "2", "--yes", "--claude-dir", str(claude), "--json")
    assert result.exit_code == 0, result.stderr
    entry = json.loads(result.stdout)["resurrection"]
    assert entry["resurrected_from_session_id"] == "helper"
    assert entry["resurrection_mode"] == "fuzzy"
    assert entry["query"] == "recommended #2"
    again = cli("resurrect", "--recommended=1", "--yes", "--claude-dir", str(claude), "--json")
    assert json.loads(again.stdout)["resurrection"]["resurrected_from_session_id"] == "editor"


def test_resurrect_recommended_without_a_list_ranks_now_and_rejects_a_number_past_it(
    cli, work, claude
):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py",))
    result = cli("resurrect", "--recommended", "1", "--yes", "--claude-dir", str(claude), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["resurrection"]["resurrected_from_session_id"] == "editor"
    past = cli("resurrect", "--recommended", "7", "--yes", "--claude-dir", str(claude))
    assert past.exit_code == 2
    assert "the last recommendations hold 1" in past.stderr
    assert cli("resurrect", "--recommended", "0", "--yes").exit_code == 2


def _cache_file() -> Path:
    return Path(os.environ["HOME"]) / ".cache" / "purlin-resume" / "cache.sqlite"


def _remembered() -> dict:
    with sqlite3.connect(_cache_file()) as connection:
        (made,) = connection.execute("SELECT made FROM recommendations").fetchone()
    return json.loads(made)


def _remember(made: str) -> None:
    with sqlite3.connect(_cache_file()) as connection:
        connection.execute("UPDATE recommendations SET made = ?", (made,))


def test_a_corrupt_remembered_list_is_ranked_again(cli, work, claude):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py",))
    recommend(cli, claude)
    _remember("{not json")
    result = cli("resurrect", "--recommended", "1", "--yes", "--claude-dir", str(claude), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["resurrection"]["resurrected_from_session_id"] == "editor"


def test_a_remembered_list_others_could_have_planted_is_not_believed(cli, work, claude, tmp_path):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py",))
    earlier_agent(claude, "helper", work, "parser", edits=("src/parser.py",))
    recommend(cli, claude)
    listed = _remembered()

    def first_resurrected() -> str:
        result = cli(
            "resurrect", "--recommended", "1", "--yes", "--claude-dir", str(claude), "--json"
        )
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)["resurrection"]["resurrected_from_session_id"]

    with sqlite3.connect(_cache_file()) as connection:
        connection.execute("DELETE FROM recommendations")
    ranked_now = first_resurrected()  # no list kept: ranked again (and kept)
    other = next(r for r in listed["recommendations"] if r["session_id"] != ranked_now)
    _remember(json.dumps({**listed, "recommendations": [other]}))
    assert first_resurrected() == other["session_id"]  # the user's own private file: believed
    forged = tmp_path / "forged.sqlite"
    shutil.copy(_cache_file(), forged)
    _cache_file().unlink()
    _cache_file().symlink_to(forged)  # a link: not followed, ranked again
    assert first_resurrected() == ranked_now
    _cache_file().unlink()
    shutil.copy(forged, _cache_file())
    _cache_file().chmod(0o666)  # writable by others: not believed
    assert first_resurrected() == ranked_now


# the SessionStart line -----------------------------------------------------------------------


def session_start(
    root: Path, claude: Path, session_id: str = "new-session", role: str | None = None
) -> subprocess.CompletedProcess:
    payload = {
        "session_id": session_id,
        "transcript_path": str(claude / "projects" / "x" / f"{session_id}.jsonl"),
        "cwd": str(root),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(claude),
        "CLAUDE_PROJECT_DIR": str(root),
        "CLAUDE_CODE_SESSION_ID": session_id,
        **({"PURLIN_ROLE": role} if role else {}),
    }
    return subprocess.run(
        [str(EXE), "hook", "session-start"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=False,
    )


def context_of(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 0, out.stderr
    if not out.stdout.strip():
        return ""
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def test_session_start_names_the_best_candidate_in_one_line(cli, work, claude):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py", "src/cache.py"))
    assert context_of(session_start(work, claude)) == ""  # no index yet: the hook never builds it
    recommend(cli, claude)  # any find or recommend builds it
    context = context_of(session_start(work, claude))
    lines = [line for line in context.splitlines() if "Worked on this before" in line]
    assert len(lines) == 1
    assert "session editor" in lines[0]
    assert "edited 2 of the 2 files you changed" in lines[0]
    assert "purlin-resume resurrect --recommended 1" in lines[0]


def test_session_start_line_has_an_off_switch_and_a_threshold(cli, work, claude):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py", "src/cache.py"))
    recommend(cli, claude)
    write_config(work, recommend_in_briefing=False)
    assert "Worked on this before" not in context_of(session_start(work, claude))
    write_config(work, recommend_threshold=99.0)
    assert "Worked on this before" not in context_of(session_start(work, claude))


def test_a_failing_recommendation_costs_only_its_line(cli, work, claude):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py",))
    recommend(cli, claude)
    saved = cli(
        "save", "--role", "builder", "--in-progress", "parsing", "--next", "tests", "--step", "2"
    )
    assert saved.exit_code == 0, saved.stderr
    (work / ".purlin" / "bookmarks.jsonl").write_text("{broken\n")
    context = context_of(session_start(work, claude, role="builder"))
    assert "parsing" in context  # the builder's checkpoint briefing is still given
    assert "Worked on this before" not in context


# hostile and bad input -----------------------------------------------------------------------


def test_hostile_transcript_text_is_shown_as_one_plain_line(cli, work, claude):
    prompt = "parser \x1b[2J\x1b]0;owned\x07 $(touch /tmp/pwned) `id`\nsecond line\r\x1b[201~"
    earlier_agent(claude, "hostile", work, prompt, edits=("src/parser.py",))
    shown = cli("recommend", "--claude-dir", str(claude))
    assert shown.exit_code == 0, shown.stderr
    assert "\x1b" not in shown.stdout
    assert "\x07" not in shown.stdout
    assert "\r" not in shown.stdout
    entry = [line for line in shown.stdout.splitlines() if "session hostile" in line]
    assert len(entry) == 1  # text, shown as text
    assert "$(touch /tmp/pwned)" in entry[0]
    assert not Path("/tmp/pwned").exists()


def test_secrets_in_the_task_and_in_transcripts_never_reach_any_output(cli, work, claude):
    secrets = list(PLANTED.values())[:6]
    earlier_agent(
        claude,
        "leaky",
        work,
        "parser " + " ".join(secrets),
        edits=("src/parser.py",),
        says="Used " + secrets[0],
    )
    task = "parser " + " ".join(secrets)
    shown = cli("recommend", "--claude-dir", str(claude), "--task", task, "--file", "src/parser.py")
    as_json = cli(
        "recommend",
        "--json",
        "--claude-dir",
        str(claude),
        "--task",
        task,
        "--file",
        "src/parser.py",
    )
    assert "session leaky" in shown.stdout
    on_disk = json.dumps(_remembered())
    assert on_disk
    assert _cache_file().stat().st_mode & 0o777 == 0o600
    assert _cache_file().parent.stat().st_mode & 0o777 == 0o700
    for secret in secrets:
        for output in (shown.stdout, shown.stderr, as_json.stdout, on_disk):
            assert secret not in output


def test_a_long_secret_in_the_task_is_redacted_before_the_task_is_shortened(cli, work, claude):
    secret = PLANTED["slack-webhook"]  # longer than the task's shown line
    earlier_agent(claude, "leaky", work, "parser work", edits=("src/parser.py",))
    args = ("--claude-dir", str(claude), "--task", f"parser {secret}", "--file", "src/parser.py")
    for shown in (cli("recommend", *args), cli("recommend", "--json", *args)):
        assert "--task" in shown.stdout
        assert secret[33:45] not in shown.stdout + shown.stderr


def test_a_title_is_cut_before_a_placeholder_never_inside_it(cli, work, claude):
    earlier_agent(claude, "cut", work, "parser " + "w" * 40 + " " + PLANTED["github-token"])
    shown = cli("recommend", "--claude-dir", str(claude), "--task", "parser")
    [entry] = [line for line in shown.stdout.splitlines() if "session cut" in line]
    assert "w" * 40 in entry
    assert "[REDACTED" not in entry or entry.count("[REDACTED:") == entry.count("]")


@pytest.mark.parametrize(
    "args, code, words",
    [
        (["--task", "  "], 2, "--task is empty"),
        (["--limit", "0"], 2, "--limit"),
        (["--threshold", "101"], 2, "--threshold"),
        (["--session", "$(touch x)"], 2, "session id"),
    ],
)
def test_bad_arguments_are_usage_errors(cli, work, claude, args, code, words):
    result = cli("recommend", "--claude-dir", str(claude), *args)
    assert result.exit_code == code
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_no_transcripts_and_no_bookmarks_is_one_line(cli, work, tmp_path):
    result = cli("recommend", "--claude-dir", str(tmp_path / "nowhere"))
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0
    assert "nothing to recommend" in result.stderr


def test_corrupt_log_lines_are_skipped_and_a_corrupt_bookmark_file_is_named(cli, work, claude):
    earlier_agent(claude, "editor", work, "parser", edits=("src/parser.py",))
    log = claude / "history" / resurrection_log.FILE_NAME
    log.parent.mkdir(parents=True)
    log.write_text('{"torn": \n[1, 2]\n')
    assert ids(recommend(cli, claude)) == ["editor"]
    (work / ".purlin").mkdir(exist_ok=True)
    (work / ".purlin" / "bookmarks.jsonl").write_text("{broken\n")
    result = cli("recommend", "--claude-dir", str(claude))
    assert result.exit_code == 1
    assert "bookmarks.jsonl" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_huge_prompt_and_outside_paths_are_bounded(cli, work, claude):
    earlier_agent(
        claude,
        "huge",
        work,
        "parser " + "word " * 200_000 + " ".join(f"w{i}x" for i in range(5000)),
        edits=("src/parser.py",),
        reads=("../../etc/passwd",),
    )
    earlier_agent(claude, "outside", "/etc", "hosts", edits=("hosts",))
    found = recommend(cli, claude, env={"CLAUDE_CODE_SESSION_ID": "huge"})
    assert len(found["task"]["words"]) <= recommendation.MAX_WORDS
    assert "outside" not in ids(found)


# the words of the why ------------------------------------------------------------------------


def test_outcome_and_age_wording():
    assert recommendation.outcome_text(Counter()) is None
    assert recommendation.outcome_text(Counter(success=1)) == "resurrected once, successful"
    assert recommendation.outcome_text(Counter(success=2)) == "resurrected twice, both successful"
    assert recommendation.outcome_text(Counter(failure=3)) == "resurrected 3 times, all failed"
    assert (
        recommendation.outcome_text(Counter(success=2, failure=1))
        == "resurrected 3 times: 2 successes, 1 failure"
    )
    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    ages = {
        days: recommendation.age_text(now - timedelta(days=days), now)
        for days in (0.2, 1.5, 5, 21, 70, 800)
    }
    assert ages == {
        0.2: "from today",
        1.5: "from yesterday",
        5: "5 days old",
        21: "3 weeks old",
        70: "2 months old",
        800: "2 years old",
    }
