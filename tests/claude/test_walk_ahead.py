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


def test_the_walk_ahead_gives_what_a_walk_gives(fixtures_copy, tmp_path, monkeypatch):
    link = tmp_path / "link-to-claude"
    link.symlink_to(fixtures_copy)
    monkeypatch.chdir(tmp_path)
    expected = listing.signatures(fixtures_copy.resolve())
    assert len(expected) >= 6
    listing.walk_ahead(Path("link-to-claude"))  # another spelling of the same folder
    assert listing.signatures(fixtures_copy.resolve()) == expected
    assert no_children_left()


def test_a_walk_of_another_folder_is_not_used(fixtures_copy, tmp_path):
    empty = tmp_path / "other"
    (empty / "projects").mkdir(parents=True)
    listing.walk_ahead(empty)
    mine = listing.signatures(fixtures_copy.resolve())
    assert mine and mine == listing.signatures(fixtures_copy.resolve())
    assert no_children_left()


def test_the_walk_sees_the_files_as_they_were_when_it_began(fixtures_copy):
    """It is one moment's picture, as any walk is: a session written after it is seen by the
    next one."""
    root = fixtures_copy.resolve()
    listing.walk_ahead(root)
    before = listing.signatures(root)
    folder = next(p for p in (root / "projects").iterdir() if p.is_dir())
    (folder / "99999999-9999-4999-8999-999999999999.jsonl").write_text("{}\n")
    after = listing.signatures(root)
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
