"""A state or cache folder someone else could have made is refused, never written into."""

from __future__ import annotations

import os

import pytest

from purlin_resume.core import store
from purlin_resume.core.errors import PurlinError


def _one_line_refusal(result, folder) -> None:
    assert result.exit_code == 1, result.stdout
    assert result.stderr.startswith(f"error: refusing {folder}")
    assert result.stderr.count("\n") == 1


def _save(cli):
    return cli("save", "--role", "builder", "--in-progress", "x", "--step", "2", "--next", "n")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_state_folder_of_another_user_is_refused(cli, repo):
    cache = repo / ".purlin" / "cache"
    cache.mkdir(parents=True)
    os.chown(cache, 65534, 65534)
    cache.chmod(0o777)
    _one_line_refusal(_save(cli), cache)
    assert list(cache.iterdir()) == []


def test_a_state_folder_others_may_write_is_refused(cli, repo):
    cache = repo / ".purlin" / "cache"
    cache.mkdir(parents=True)
    cache.chmod(0o777)
    _one_line_refusal(_save(cli), cache)
    assert list(cache.iterdir()) == []


def test_a_cache_folder_that_is_a_link_is_refused(cli, repo, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "cache").symlink_to(elsewhere)
    result = _save(cli)
    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_state_folder_that_is_a_link_out_gets_no_folder_made_through_it(cli, repo, tmp_path):
    """``.purlin`` itself a link out of the project: refused before ``cache`` is made there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (repo / ".purlin").symlink_to(elsewhere)
    _one_line_refusal(_save(cli), repo / ".purlin" / "cache")
    assert list(elsewhere.iterdir()) == []


def test_a_folder_of_ones_own_only_readable_by_others_is_made_private(cli, repo):
    cache = repo / ".purlin" / "cache"
    cache.mkdir(parents=True)
    cache.chmod(0o755)
    assert _save(cli).exit_code == 0
    assert cache.stat().st_mode & 0o777 == 0o700


# --- store.private_folder, the one check of a private folder ---------------------------------


def test_a_file_where_a_private_folder_belongs_is_refused_and_left_as_it_was(tmp_path):
    planted = tmp_path / "cache"
    planted.write_text("mine")
    planted.chmod(0o644)
    with pytest.raises(PurlinError, match="is not a folder"):
        store.private_folder(planted)
    assert planted.stat().st_mode & 0o777 == 0o644
    assert planted.read_text() == "mine"


def test_a_private_folder_that_cannot_be_made_is_one_line(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(PurlinError, match="cannot create"):
        store.private_folder(tmp_path / "a-file" / "cache")


def test_a_private_folder_planted_as_a_dangling_link_is_refused(tmp_path):
    (tmp_path / "cache").symlink_to(tmp_path / "nowhere")
    with pytest.raises(PurlinError, match="symbolic link"):
        store.private_folder(tmp_path / "cache")
    assert not (tmp_path / "nowhere").exists()
