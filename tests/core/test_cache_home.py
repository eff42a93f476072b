"""The cache file (core/cache_home.py): 0600 in a 0700 folder, refused behind a link or when
others may write it, built again when damaged or foreign."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.core import cache_home

# --- the cache file --------------------------------------------------------------------------


def _recommend(where: Path, project: str, made: str) -> None:
    with cache_home.opened(where) as connection:
        assert connection is not None
        connection.execute("INSERT OR REPLACE INTO recommendations VALUES (?, ?)", (project, made))


def _recommended(where: Path, project: str) -> str | None:
    with cache_home.opened(where) as connection:
        if connection is None:
            return None
        row = connection.execute(
            "SELECT made FROM recommendations WHERE project = ?", (project,)
        ).fetchone()
    return row[0] if row else None


def test_the_cache_file_is_private_in_a_private_folder(tmp_path):
    where = tmp_path / "cache" / "purlin-resume"
    old = os.umask(0)
    try:
        _recommend(where, "p", "made")
    finally:
        os.umask(old)
    assert where.stat().st_mode & 0o777 == 0o700
    assert cache_home.path_of(where).stat().st_mode & 0o777 == 0o600
    assert _recommended(where, "p") == "made"


@pytest.mark.parametrize(
    "damage", [b"garbage", b"SQLite format 3\x00" + b"\x07" * 8000, b"\x00" * 4096]
)
def test_a_damaged_cache_file_is_built_again(tmp_path, damage):
    _recommend(tmp_path, "p", "made")
    path = cache_home.path_of(tmp_path)
    cache_home.discard(str(path))
    path.write_bytes(damage)
    path.chmod(0o600)
    assert _recommended(tmp_path, "p") is None  # nothing believed
    _recommend(tmp_path, "p", "again")
    assert _recommended(tmp_path, "p") == "again"


@pytest.mark.parametrize("pragma", ["application_id = 7", "user_version = 99"])
def test_a_foreign_or_other_version_cache_file_is_built_again(tmp_path, pragma):
    path = cache_home.path_of(tmp_path)
    tmp_path.chmod(0o700)
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE recommendations (project, made)")
        connection.execute("INSERT INTO recommendations VALUES ('p', 'theirs')")
        connection.execute(f"PRAGMA {pragma}")
    path.chmod(0o600)
    assert _recommended(tmp_path, "p") is None
    _recommend(tmp_path, "p", "ours")
    assert _recommended(tmp_path, "p") == "ours"


def test_a_cache_file_that_is_a_link_is_refused_and_left_alone(tmp_path):
    where = tmp_path / "cache"
    _recommend(where, "p", "made")
    elsewhere = tmp_path / "elsewhere.sqlite"
    cache_home.path_of(where).rename(elsewhere)
    cache_home.path_of(where).symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    with cache_home.opened(where) as connection:
        assert connection is None
    assert elsewhere.read_bytes() == before
    assert cache_home.path_of(where).is_symlink()


def test_a_cache_folder_that_is_a_link_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "linked").symlink_to(real)
    with cache_home.opened(tmp_path / "linked") as connection:
        assert connection is None
    assert list(real.iterdir()) == []


def test_a_cache_file_others_may_write_is_refused(tmp_path):
    _recommend(tmp_path, "p", "made")
    cache_home.path_of(tmp_path).chmod(0o666)
    with cache_home.opened(tmp_path) as connection:
        assert connection is None


WRITER = r"""
import sys
from purlin_resume.core import cache_home
where, me = sys.argv[1], sys.argv[2]
for n in range(60):
    with cache_home.opened(where) as connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT OR REPLACE INTO recommendations VALUES (?, ?)", (f"{me}-{n}", me))
        connection.execute("COMMIT")
"""


def test_processes_at_once_all_keep_their_rows(tmp_path):
    where = tmp_path / "fresh"  # the first of them makes the file while the others open it
    running = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(where), f"w{n}"], stderr=subprocess.PIPE
        )
        for n in range(4)
    ]
    errors = [process.communicate(timeout=120)[1] for process in running]
    assert [process.returncode for process in running] == [0] * 4, errors
    with cache_home.opened(where) as connection:
        (count,) = connection.execute("SELECT count(*) FROM recommendations").fetchone()
    assert count == 4 * 60
