"""What the resurrection prompt tells the new agent, on the real transcripts: the original
agent's conclusions (not its narration), Claude Code's own compaction summary, and the project
it now works in."""

from __future__ import annotations

import json
import re

from tests.resurrection.test_resurrect_cli import _ok

NARRATION = re.compile(r"\b(?:let me|let's|I'll|now I)\b|^(?:perfect|great|excellent)!|:$", re.I)


def _prompt(cli, claude, *args: str) -> str:
    base = ["resurrect", "--yes", "--json", "--claude-dir", str(claude)]
    return json.loads(_ok(cli(*base, *args)).stdout)["prompt"]


def _findings(prompt: str) -> list[str]:
    part = prompt.split("## Original agent's findings", 1)[1].split("## Original agent's", 1)[0]
    return [line[2:] for line in part.splitlines() if line.startswith("- ")]


def test_findings_are_conclusions_not_narration(cli, fixtures_copy, repo):
    """Regression: the findings were mostly narration ("Perfect! Now let me…", "Let me check
    if there are tests for these LiveView modules:")."""
    for args in (
        ("--session", "8463"),
        ("--session", "8463", "--agent", "a7be2f0"),
        ("--session", "fe5e1c67", "--agent", "60dade70"),
    ):
        found = _findings(_prompt(cli, fixtures_copy, *args))
        assert [line for line in found if NARRATION.search(line)] == [], args

    main = _findings(_prompt(cli, fixtures_copy, "--session", "8463"))
    assert "All 141 tests pass (127 ExUnit + 14 doctests), zero credo issues." in main
    helper = _findings(_prompt(cli, fixtures_copy, "--session", "fe5e1c67", "--agent", "60dade70"))
    assert "The development server is running successfully." in helper  # after "Great!"


def test_the_hybrid_context_of_a_compacted_session_holds_claudes_summary(cli, fixtures_copy, repo):
    """Regression: the hybrid context left out Claude Code's own compaction summary."""
    prompt = _prompt(cli, fixtures_copy, "--session", "4d56")

    assert "### Claude Code's own summary of the conversation, at its last compaction" in prompt
    assert "1. Primary Request and Intent:" in prompt
    assert "9. Optional Next Step:" in prompt
    # its instructions to the model that went on are not for the new agent
    assert "Please continue the conversation from where we left off" not in prompt
    assert "Analysis:\nLet me chronologically analyze" not in prompt


def test_the_prompt_says_the_new_agent_works_in_another_project(cli, fixtures_copy, repo):
    """Regression: the prompt never said so; every path in it is the old repository's."""
    prompt = _prompt(cli, fixtures_copy, "--session", "4d56", "--agent", "a2898e3")

    assert "## Where you work now" in prompt
    assert f"You now work in another project: `{repo}`" in prompt
    assert "`/home/USER/projects/spotter-worktrees/spotter-dov`" in prompt


def test_no_other_project_is_named_when_it_is_the_same(cli, tmp_path, repo):
    from tests.resurrection_data import session

    claude = tmp_path / "claude"
    session(claude, "samehere", str(repo), [("user", "hi"), ("agent", "hello there, done")])

    assert "## Where you work now" not in _prompt(cli, claude, "--session", "samehere")
