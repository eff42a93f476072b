"""`recommend` on the real transcripts: a strong match of the task's words is recommended
however old it is, at the command line and in the SessionStart briefing."""

from __future__ import annotations

import json

from tests.conftest import commit_file, git
from tests.resurrection.test_recommend import context_of, session_start
from tests.resurrection.test_resurrect_cli import _ok

FUM = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
TASK = "what happens in the Tmux module when tmux is not running, and the LiveView test setup"


def test_a_strong_text_match_is_recommended_whatever_its_age(cli, fixtures_copy, repo):
    """Regression: the text score was capped at 30 and the 9-month-old agent's recency is 0,
    so under the threshold of 35 ``recommend --task`` alone never recommended anyone."""
    claude = ("--claude-dir", str(fixtures_copy))
    found = json.loads(_ok(cli("recommend", "--task", TASK, "--json", *claude)).stdout)
    best = found["recommendations"][0]
    assert (best["session_id"], best["agent_id"]) == (FUM, "a7be2f0")
    assert best["parts"]["recency"] == 0
    assert "months old" in best["why"]
    shown = _ok(cli("recommend", "--task", TASK, *claude)).stdout
    assert "agent a7be2f0 (Explore)" in shown
    # a weak match is still left out: the threshold judges what it shares with the task
    weak = "kubernetes helm chart deployment running"  # one word of five in common
    found = json.loads(_ok(cli("recommend", "--task", weak, "--json", *claude)).stdout)
    assert found["recommendations"] == []


def test_the_bookmarked_expert_is_named_at_session_start(cli, fixtures_copy, repo):
    """Regression: a new session on a branch about the Tmux module's tests was never told about
    the bookmarked Explore agent that studied exactly that (old, and in another repository)."""
    git(repo, "checkout", "-q", "-b", "tmux-module-test-setup")
    commit_file(repo, "docs/notes.md", "what to test\n")  # a change of the branch
    claude = ("--claude-dir", str(fixtures_copy))
    _ok(cli("bookmark", "add", "tmux-expert", "--session", FUM, "--agent", "a7be2f0", *claude))
    _ok(cli("find", "tmux", *claude))  # the index (a hook never builds it)
    context = context_of(session_start(repo, fixtures_copy))
    line = next(line for line in context.splitlines() if "Worked on this before" in line)
    assert "agent a7be2f0 (Explore Tmux module and test setup)" in line
    assert "bookmarked as tmux-expert" in line
