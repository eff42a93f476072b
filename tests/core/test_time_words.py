"""Time words: what ``find`` says when they filter everything out, and ``--since`` taking them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from purlin_resume.resurrection import log as resurrection_log
from tests.resurrection.test_resurrect_cli import _fails, _ok


def test_find_says_how_many_matches_a_time_word_left_out(cli, fixtures_copy, repo):
    """Regression: ``find "tmux last week"`` said only that nothing matched (the real
    transcripts are from February 2026)."""
    claude = ("--claude-dir", str(fixtures_copy))
    words = json.loads(_ok(cli("find", "tmux", "--json", *claude)).stdout)["results"]
    assert words, "the words alone match"

    text = _ok(cli("find", "tmux", "last", "week", *claude)).stdout
    data = json.loads(_ok(cli("find", "tmux last week", "--json", *claude)).stdout)
    failed = cli("resurrect", "find", "tmux last week", "--yes", *claude)

    assert text.startswith("Nothing matches 'tmux last week' (")
    assert "outside 'last week')." in text
    assert data["results"] == []
    assert data["outside_time"].endswith("outside 'last week'")
    assert int(data["outside_time"].split()[0]) > 0
    _fails(failed, 1, "nothing matches 'tmux last week' (", "outside 'last week')")
    plain = _ok(cli("find", "zzqxv", *claude)).stdout
    assert plain == "Nothing matches 'zzqxv'.\n"


@pytest.mark.parametrize(
    ("words", "days"),
    [("yesterday", 2), ("last week", 14), ("3 days ago", 4), ("last 7 days", 8), ("today", 1)],
)
def test_since_takes_time_words(words, days):
    """The start of the window, at most ``days`` back (days start at midnight)."""
    start = datetime.fromisoformat(resurrection_log.parse_since(words).replace("Z", "+00:00"))
    now = datetime.now(timezone.utc)
    assert now - timedelta(days=days, seconds=5) <= start <= now


def test_resurrections_since_time_words(cli, fixtures_copy, repo):
    claude = ("--claude-dir", str(fixtures_copy))
    _ok(cli("resurrect", "--session", "short", "--yes", *claude))

    for words in ("yesterday", "last week", "today"):
        listed = json.loads(_ok(cli("resurrections", "--since", words, "--json", *claude)).stdout)
        assert len(listed["resurrections"]) == 1, words
    _fails(cli("resurrections", "--since", "someday", *claude), 2, "yesterday / last week")
