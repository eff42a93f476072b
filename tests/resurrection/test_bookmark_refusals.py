"""A bookmark refused (its name taken, its bookmarks file corrupt) leaves no archive behind: the
session's raw transcripts are copied only for a bookmark that is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.resurrection.test_resurrect_cli import _fails, _ok

FIRST = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"
OTHER = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"


def _archived(claude: Path) -> set[str]:
    folder = claude / "history" / "archive"
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


@pytest.mark.parametrize("scope", [(), ("--global",)])
def test_a_name_taken_is_refused_before_the_archive_is_made(cli, fixtures_copy, repo, scope):
    claude = ("--claude-dir", str(fixtures_copy))
    _ok(cli("bookmark", "add", "setup", *scope, "--session", FIRST, *claude))
    before = _archived(fixtures_copy)

    refused = cli("bookmark", "add", "setup", *scope, "--session", OTHER, *claude)

    _fails(refused, 1, "a bookmark named 'setup' exists")
    assert _archived(fixtures_copy) == before
    assert not any(name.startswith(OTHER) for name in before)


def test_a_corrupt_bookmarks_file_is_refused_before_the_archive_is_made(cli, fixtures_copy, repo):
    shelf = repo / ".purlin" / "bookmarks.jsonl"
    shelf.parent.mkdir()
    shelf.write_text("not a bookmark\n")

    refused = cli(
        "bookmark", "add", "setup", "--session", OTHER, "--claude-dir", str(fixtures_copy)
    )

    _fails(refused, 1, "corrupt", str(shelf))
    assert _archived(fixtures_copy) == set()
    assert shelf.read_text() == "not a bookmark\n"
