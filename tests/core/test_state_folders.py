"""A state or cache folder someone else could have made is refused, never written into."""

from __future__ import annotations

import os
import stat

import pytest


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


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_folder_made_here_is_private_and_one_its_owner_opened_keeps_its_mode(
    cli, repo, fixtures_copy, tmp_path, monkeypatch, umask_022
):
    """Ours are made 0700; a mode the user gave one later is left as it is, and what is written
    into it is still 0600."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache, history = repo / ".purlin" / "cache", fixtures_copy / "history"
    shared = tmp_path / "xdg" / "purlin-resume"
    where = ["--claude-dir", str(fixtures_copy)]
    assert _save(cli).exit_code == 0
    assert cli("resurrect", "--session", "4d56", "--yes", *where).exit_code == 0
    assert (_mode(cache), _mode(history), _mode(shared)) == (0o700, 0o700, 0o700)
    cache.chmod(0o750)
    history.chmod(0o755)
    shared.chmod(0o750)
    (cache / "hook.log").unlink(missing_ok=True)
    for written in cache.glob("*.md"):
        written.unlink()
    assert _save(cli).exit_code == 0
    assert cli("resurrect", "--session", "4d56", "--yes", *where).exit_code == 0
    assert (_mode(cache), _mode(history), _mode(shared)) == (0o750, 0o755, 0o750)
    kept = (*cache.rglob("*"), *shared.iterdir(), history / "resurrection-log.jsonl")
    files = [p for p in kept if p.is_file()]
    assert {".md", ".sqlite", ".jsonl"} <= {p.suffix for p in files}
    assert {_mode(p) for p in files if not p.name.endswith(".lock")} == {0o600}
