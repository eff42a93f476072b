"""Bookmarks in the project's file and in the global one: ids that name one bookmark, and errors
that say which option reaches a bookmark in the other file."""

from __future__ import annotations

import json

from tests.resurrection.test_resurrect_cli import _fails, _log, _ok


def _add(cli, claude, name, *extra):
    args = ["bookmark", "add", name, "--session", "short", "--json", "--claude-dir", str(claude)]
    return json.loads(_ok(cli(*args, *extra)).stdout)


def test_a_local_and_a_global_bookmark_made_the_same_day_have_different_ids(
    cli, fixtures_copy, repo
):
    """Regression: both were ``bmk-YYYY-MM-DD-001``, so ``bookmark show ID`` and the log's
    ``bookmark_id`` were ambiguous."""
    local = _add(cli, fixtures_copy, "here")
    shared = _add(cli, fixtures_copy, "everywhere", "--global")
    second = _add(cli, fixtures_copy, "everywhere-2", "--global")

    assert local["bookmark_id"].endswith("-001")
    assert "-g" not in local["bookmark_id"]
    assert shared["bookmark_id"].endswith("-g001")
    assert second["bookmark_id"].endswith("-g002")
    claude = ("--claude-dir", str(fixtures_copy))
    for mark in (local, shared):
        shown = json.loads(
            _ok(cli("bookmark", "show", mark["bookmark_id"], "--json", *claude)).stdout
        )
        assert shown["name"] == mark["name"]
    _ok(cli("resurrect", shared["bookmark_id"], "--yes", *claude))
    _ok(cli("resurrect", local["bookmark_id"], "--yes", *claude))
    assert [e["bookmark_id"] for e in _log(fixtures_copy)] == [
        shared["bookmark_id"],
        local["bookmark_id"],
    ]


def test_rm_and_update_of_a_bookmark_in_the_other_file_name_the_option(cli, fixtures_copy, repo):
    _add(cli, fixtures_copy, "shared", "--global")
    _add(cli, fixtures_copy, "mine")
    claude = ("--claude-dir", str(fixtures_copy))

    _fails(cli("bookmark", "rm", "shared", *claude), 1, "it is a global bookmark: add --global")
    _fails(
        cli("bookmark", "update", "shared", "--description", "x", *claude),
        1,
        "add --global",
    )
    _fails(
        cli("bookmark", "rm", "mine", "--global", *claude),
        1,
        "it is a local bookmark: leave out --global",
    )
    _fails(cli("bookmark", "rm", "nobody", *claude), 1, "bookmark list")
    _ok(cli("bookmark", "rm", "shared", "--global", *claude))
    assert "shared" not in _ok(cli("bookmark", "list", *claude)).stdout


def test_an_old_id_in_both_files_is_ambiguous(cli, fixtures_copy, repo):
    local = _add(cli, fixtures_copy, "old-local")
    _add(cli, fixtures_copy, "old-global", "--global")
    path = fixtures_copy / "history" / "bookmarks.jsonl"
    mark = json.loads(path.read_text())
    mark["bookmark_id"] = local["bookmark_id"]  # as ids were made before
    path.write_text(json.dumps(mark) + "\n")

    result = cli("bookmark", "show", local["bookmark_id"], "--claude-dir", str(fixtures_copy))

    _fails(result, 1, "is in both files", "old-local (local)", "old-global (global)")
    _ok(cli("bookmark", "show", "old-global", "--claude-dir", str(fixtures_copy)))


def test_a_description_holding_a_unicode_line_separator_is_read_back(cli, fixtures_copy, repo):
    """Regression: the bookmarks file was cut into lines at U+2028 and U+0085 too (which a row
    written with its text kept may hold), so it read as corrupt from then on."""
    text = "first part\u2028second part\x85third"
    mark = _add(cli, fixtures_copy, "separated", "--description", text)

    listed = json.loads(
        _ok(cli("bookmark", "list", "--json", "--claude-dir", str(fixtures_copy))).stdout
    )
    assert [(b["bookmark_id"], b["description"]) for b in listed["bookmarks"]] == [
        (mark["bookmark_id"], text)
    ]


def test_a_committed_bookmark_of_odd_field_types_is_listed_and_resurrected(
    cli, fixtures_copy, repo
):
    """A line someone else wrote (tags not a list, a count that is not a number, texts that
    are not texts) reads as if those fields were absent, never a traceback."""
    good = _add(cli, fixtures_copy, "good")
    claude = ("--claude-dir", str(fixtures_copy))
    path = repo / ".purlin" / "bookmarks.jsonl"
    odd = {**good, "bookmark_id": "bmk-2026-01-01-009", "name": "odd", "uuid": 5, "tags": 5}
    odd |= {"resurrection_count": "abc", "description": ["x"], "project_path": 7}
    with path.open("a") as file:
        file.write(json.dumps(odd) + "\n")
    listed = _ok(cli("bookmark", "list", *claude)).stdout
    assert "odd" in listed
    shown = json.loads(_ok(cli("bookmark", "show", "odd", "--json", *claude)).stdout)
    assert (shown["tags"], shown["resurrection_count"], shown["description"]) == ([], 0, None)
    _ok(cli("resurrect", "odd", "--yes", *claude))
    shown = json.loads(_ok(cli("bookmark", "show", "odd", "--json", *claude)).stdout)
    assert shown["resurrection_count"] == 1


def test_the_projects_bookmarks_file_and_its_lock_stay_out_of_git_status(cli, fixtures_copy, repo):
    import subprocess

    _add(cli, fixtures_copy, "kept")
    assert (repo / ".purlin" / "bookmarks.jsonl").is_file()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "bookmarks.jsonl" not in status
