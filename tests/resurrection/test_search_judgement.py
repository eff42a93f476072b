"""What a search judges for the user on the real transcripts: a typo is no evidence, an
autonomous pick needs a clear winner, a resurrection ranks below its original, a subagent's
type is a word, "last week" includes the days of this week."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

from purlin_resume.core import cache_home
from purlin_resume.resurrection import candidates, log, query, search_index
from tests.resurrection.test_resurrect_cli import ROOT, _fails, _ok
from tests.resurrection_data import session

FUM = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
FUM_CWD = "/home/USER/projects/spotter-worktrees/spotter-fum"
FRIDAY = datetime(2026, 2, 13, 9, 0, tzinfo=timezone.utc)


def _found(cli, claude, text: str) -> list[dict]:
    done = _ok(cli("find", text, "--json", "--claude-dir", str(claude)))
    return json.loads(done.stdout)["results"]


def test_a_word_found_only_under_another_spelling_is_no_match(cli, fixtures_copy, repo):
    """Regression: "kubernetes helm chart" scored an unrelated session 30 through helm~help and
    chart~cat, as much as a real match, and ``resurrect find --yes`` resurrected it."""
    found = _found(cli, fixtures_copy, "kubernetes helm chart")
    assert found
    assert any("word helm~help" in r["reasons"] for r in found)
    assert max(r["score"] for r in found) < candidates.AUTONOMOUS_FLOOR / 2

    failed = cli(
        "resurrect", "find", "kubernetes helm chart", "--yes", "--claude-dir", str(fixtures_copy)
    )
    _fails(failed, 1, "no clear winner for 'kubernetes helm chart'", "under 30")
    assert failed.stderr.startswith("Candidates:\n")
    assert failed.stdout == ""
    entries = [json.loads(line) for line in (fixtures_copy / "history" / log.FILE_NAME).open()]
    assert [e["outcome"] for e in entries] == ["failure"]  # logged, and nothing resurrected

    opened = cli("open", "kubernetes", "helm", "chart", "--yes", "--claude-dir", str(fixtures_copy))
    _fails(opened, 1, "no clear winner")


def test_a_typo_counts_less_than_the_word_typed(cli, fixtures_copy, repo):
    typed = _found(cli, fixtures_copy, "tmux module")
    misspelt = _found(cli, fixtures_copy, "tmux modle")
    assert typed[0]["agent_id"] == misspelt[0]["agent_id"] == "a7be2f0"
    score = {(r["session_id"], r["agent_id"]): r["score"] for r in typed}
    for found in misspelt:  # (it scored more, 50 against 43.1, in the session that used both)
        assert found["score"] < score.get((found["session_id"], found["agent_id"]), 100)
    assert "word modle~module/mode/modules" in misspelt[0]["reasons"]


def test_a_short_word_is_a_typo_only_of_words_one_edit_or_swap_away(cli, tmp_path, repo):
    """A word of four letters or fewer is a typo only of words one edit (or one swap of two
    letters) away: "todo" is not "took" or "tool", which ratio alone took for it."""
    claude = tmp_path / "claude"
    said = [("user", "the build took long with the lint tool"), ("agent", "the pipeline ran")]
    app = str(tmp_path / "app")
    session(claude, "5e55a000-0000-4000-8000-000000000001", app, said)
    session(claude, "5e55a000-0000-4000-8000-000000000002", app, [("user", "tmux pane")])
    assert _found(cli, claude, "todo") == []
    [found] = _found(cli, claude, "tmxu")
    assert "word tmxu~tmux" in found["reasons"]


def test_a_clear_winner_is_still_resurrected_without_asking(cli, fixtures_copy, repo):
    args = ["resurrect", "find", "tmux module test setup", "--yes", "--json"]
    done = json.loads(_ok(cli(*args, "--claude-dir", str(fixtures_copy))).stdout)
    assert done["candidate"]["agent_id"] == "a7be2f0"


def test_a_close_second_is_no_clear_winner(cli, fixtures_copy, repo):
    """The Explore agent and the session that spawned it (which holds its prompt) score alike
    on "transcript renderer annotation selection": the pick is the user's."""
    found = _found(cli, fixtures_copy, "transcript renderer annotation selection")
    assert found[0]["agent_id"] == "a2898e3"
    assert found[1]["session_id"].startswith("4d5611e5")
    failed = cli(
        "resurrect",
        "find",
        "transcript renderer annotation selection",
        "--yes",
        "--claude-dir",
        str(fixtures_copy),
    )
    _fails(failed, 1, "no match is clearly ahead of the next", "agent a2898e3")


def test_a_session_started_by_a_resurrection_ranks_below_its_original(cli, fixtures_copy, repo):
    """Regression: the session a resurrection started (its first prompt is the old agent's
    context) tied with the original agent, or beat it."""
    claude = ("--claude-dir", str(fixtures_copy))
    prompt = _ok(cli("resurrect", "--session", FUM, "--agent", "a7be2f0", "--yes", *claude)).stdout
    session(fixtures_copy, "5e55e55e-1111", FUM_CWD, [("user", prompt), ("agent", "Ready.")])

    found = _found(cli, fixtures_copy, "tmux modle")
    labels = [(r["session_id"], r["agent_id"]) for r in found]
    assert labels[0] == (FUM, "a7be2f0")
    copy = next(r for r in found if r["session_id"] == "5e55e55e-1111")
    assert copy["resurrects"] == "agent a7be2f0"
    assert "resurrection of agent a7be2f0" in copy["reasons"]
    assert copy["score"] < found[0]["score"]
    # it holds the same context: no rival to its original for an autonomous pick
    done = _ok(cli("resurrect", "find", "tmux modle", "--yes", "--json", *claude))
    assert json.loads(done.stdout)["candidate"]["agent_id"] == "a7be2f0"


def test_the_agent_who_explored_is_the_explore_agent(fixtures_copy):
    """Regression: "agent who explored the codebase yesterday" put the main session first."""
    hits = search_index.search(
        fixtures_copy,
        cache_home.folder(),
        "agent who explored the codebase yesterday",
        now=FRIDAY,
    )
    assert hits[0].id == "a2898e3"
    assert "type Explore" in hits[0].reasons
    assert hits[0].score > hits[1].score


def test_last_week_on_a_friday_includes_tuesday(fixtures_copy):
    """Regression: "last week" was the previous calendar week, so on Friday 2026-02-13
    Tuesday's session (2026-02-10) did not match."""
    window = query.parse("xterm scrolling last week", FRIDAY)
    tuesday = datetime(2026, 2, 10, 22, 59, tzinfo=timezone.utc)
    assert window.start <= tuesday < window.end
    assert window.start <= datetime(2026, 2, 3, tzinfo=timezone.utc)  # the week before, too
    hits = search_index.search(
        fixtures_copy, cache_home.folder(), "xterm scrolling last week", now=FRIDAY
    )
    tool_heavy = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"  # the id tool_heavy.jsonl's records carry
    assert hits[0].id == tool_heavy
    assert "time last week" in hits[0].reasons


def test_a_preview_shows_the_candidates_and_the_context_and_resurrects_nothing(
    cli, fixtures_copy, repo
):
    """What /resurrect shows the user before asking (the slash command runs it)."""
    claude = ("--claude-dir", str(fixtures_copy))
    args = ["resurrect", "find", "tmux module", "--preview"]
    data = json.loads(_ok(cli(*args, "--json", *claude)).stdout)
    first = data["candidates"][0]
    assert first["agent_id"] == "a7be2f0"
    assert len(data["candidates"]) > 1
    assert first["resurrect"] == f"purlin-resume resurrect --session {FUM} --agent a7be2f0"
    assert data["clear_winner"] is True
    assert data["problem"] is None
    assert data["plan"]["agent_id"] == "a7be2f0"
    assert data["plan"]["tokens"] > 0
    assert data["preview"].startswith(f"Would resurrect agent a7be2f0 (session {FUM})")
    assert "--- preview ---\nYou are a resurrection of agent a7be2f0" in data["preview"]

    shown = _ok(cli(*args, *claude)).stdout
    assert shown.startswith("Candidates:\n 1.  ")
    assert shown.endswith(
        f"Nothing was resurrected. To go on: purlin-resume resurrect --session {FUM} "
        "--agent a7be2f0\n"
    )
    weak = cli("resurrect", "find", "kubernetes helm chart", "--preview", "--json", *claude)
    assert json.loads(_ok(weak).stdout)["clear_winner"] is False
    assert not (fixtures_copy / "history" / log.FILE_NAME).exists()  # nothing logged

    _fails(cli(*args, "-o", "x.md", *claude), 2, "--preview resurrects nothing")


def test_the_slash_command_asks_before_it_resurrects():
    """The command runs the preview, not ``--yes``; the model asks the user (field test:
    tests/field/test_resurrect_command.py)."""
    text = (ROOT / "plugin" / "commands" / "resurrect.md").read_text()
    head, body = text.split("---\n")[1:3]
    assert "AskUserQuestion" in head.split("allowed-tools:")[1]
    (line,) = [row for row in body.splitlines() if row.startswith("!`")]
    assert line == "!`purlin-resume resurrect $ARGUMENTS --preview --json`"
    assert "Never pick for the user" in body
    skill = (ROOT / "plugin" / "skills" / "resurrect-earlier-work" / "SKILL.md").read_text()
    assert "--preview --json" in skill
    assert "Never pick for the user" in skill


def test_one_command_prints_the_quality_measures():
    """benchmarks/run.py --quality: the search benchmark finds every expected answer first and
    makes no wrong autonomous pick."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quality"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "hit@1: 20/20" in done.stdout
    assert " 0 wrong (should be 0)" in done.stdout
