"""The walk over the transcripts' files that ``find`` starts ahead, on the other core: what it
hands over is what a walk of that folder gives, used only for that folder, and a command that
ends before it searches leaves no process behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from purlin_resume.claude import listing
from purlin_resume.cli import find_run
from purlin_resume.core.errors import PurlinError
from tests.conftest import no_children_left

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


def _walking_here_fails(monkeypatch) -> None:
    """From now on this process may not walk: an answer must come from the child (forked
    before, with the real walk)."""

    def walk(root):
        raise AssertionError(f"walked {root} in this process")

    monkeypatch.setattr(listing, "_walk", walk)


def test_the_walk_ahead_gives_what_a_walk_gives(fixtures_copy, tmp_path, monkeypatch):
    link = tmp_path / "link-to-claude"
    link.symlink_to(fixtures_copy)
    monkeypatch.chdir(tmp_path)
    expected = listing.signatures(fixtures_copy.resolve())
    assert len(expected) >= 6
    listing.walk_ahead(Path("link-to-claude"))  # another spelling of the same folder
    _walking_here_fails(monkeypatch)
    assert listing.signatures(fixtures_copy.resolve()) == expected
    assert no_children_left()


def test_a_walk_of_another_folder_is_not_used(fixtures_copy, tmp_path):
    empty = tmp_path / "other"
    (empty / "projects").mkdir(parents=True)
    listing.walk_ahead(empty)
    mine = listing.signatures(fixtures_copy.resolve())
    assert mine and mine == listing.signatures(fixtures_copy.resolve())
    assert no_children_left()


def test_the_walk_ahead_answers_once_and_the_next_call_walks_afresh(fixtures_copy, monkeypatch):
    """The child's answer serves one call; a session written after it is seen by the next."""
    root = fixtures_copy.resolve()
    listing.walk_ahead(root)
    with monkeypatch.context() as here:
        _walking_here_fails(here)
        before = listing.signatures(root)  # the child's answer
    folder = next(p for p in (root / "projects").iterdir() if p.is_dir())
    (folder / "99999999-9999-4999-8999-999999999999.jsonl").write_text("{}\n")
    after = listing.signatures(root)  # walked here
    assert set(after) - set(before) == {f"{folder}/99999999-9999-4999-8999-999999999999.jsonl"}


def test_a_walk_of_a_missing_folder_is_empty(tmp_path):
    gone = tmp_path / "deleted"
    listing.walk_ahead(gone)
    assert listing.signatures(gone.resolve()) == {}


def test_find_that_fails_before_it_searches_leaves_no_child(fixtures_copy, tmp_path):
    with pytest.raises(PurlinError):
        find_run.find(
            ["tmux"], 5, fixtures_copy, tmp_path / "no such project", as_json=True, team=False
        )
    assert no_children_left()
    assert listing.signatures(fixtures_copy.resolve())  # walks afresh: nothing was left pending


def test_hostile_names_come_back_as_the_walk_read_them(fixtures_copy, monkeypatch):
    """File and folder names with bytes that are no UTF-8, line breaks, `$(…)` and escape
    sequences travel through the child unchanged."""
    root = fixtures_copy.resolve()
    hostile = root / "projects" / "-srv-$(touch pwned)-\x1b[31m"
    hostile.mkdir()
    (hostile / "11111111-2222-4333-8444-555555555555.jsonl").write_text("{}\n")
    odd = os.fsdecode(b"odd-\xff\xfe-line\nbreak")
    (hostile / f"{odd}.jsonl").write_text("{}\n")
    (hostile / "11111111-2222-4333-8444-555555555555" / "subagents").mkdir(parents=True)
    (hostile / "11111111-2222-4333-8444-555555555555" / "subagents" / "agent-a1.jsonl").write_text(
        "{}\n"
    )
    expected = listing.signatures(root)
    assert f"{hostile}/{odd}.jsonl" in expected
    listing.walk_ahead(root)
    _walking_here_fails(monkeypatch)
    assert listing.signatures(root) == expected
    assert no_children_left()
    assert not (root / "pwned").exists() and not Path("pwned").exists()
