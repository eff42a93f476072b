"""The cache file (core/cache_home.py): 0600 in a 0700 folder, refused behind a link or when
others may write it, built again when damaged or foreign; and the single kept files still
written beside it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from purlin_resume.core import cache_home
from tests.conftest import give_away

KEEPER = r"""
import sys
from purlin_resume.core import cache_home
target, me = sys.argv[1], sys.argv[2]
for n in range(40):
    cache_home.keep(target, [(me + "\n").encode()] * (2000 + n))
"""


def read(path: Path) -> bytes | None:
    kept = cache_home.open_kept(path)
    if kept is None:
        return None
    with kept:
        return kept.read()


def test_concurrent_keepers_take_no_lock_and_never_mix(tmp_path):
    target = tmp_path / "cache" / "recommendations.json"
    assert cache_home.keep(target, [b"first\n"])
    assert read(target) == b"first\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert target.parent.stat().st_mode & 0o777 == 0o700
    writers = [
        subprocess.Popen([sys.executable, "-c", KEEPER, str(target), f"w{n}"]) for n in range(6)
    ]
    assert all(w.wait(timeout=300) == 0 for w in writers)
    lines = target.read_text().splitlines()
    assert len(set(lines)) == 1 and lines[0] in {f"w{n}" for n in range(6)}  # one writer's whole
    assert sorted(p.name for p in target.parent.iterdir()) == ["recommendations.json"]


def test_a_link_in_place_of_a_kept_file_is_neither_read_nor_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs")
    outside.chmod(0o600)
    target = tmp_path / "cache" / "kept.json"
    target.parent.mkdir(mode=0o700)
    target.symlink_to(outside)
    assert read(target) is None
    assert cache_home.keep(target, [b"mine"])
    assert outside.read_text() == "theirs" and not target.is_symlink()
    assert read(target) == b"mine"


def test_a_fifo_is_not_waited_on(tmp_path):
    target = tmp_path / "cache" / "kept.json"
    target.parent.mkdir(mode=0o700)
    os.mkfifo(target, 0o600)
    assert read(target) is None


def test_files_and_folders_others_may_write_are_not_believed_nor_written(tmp_path):
    target = tmp_path / "cache" / "kept.json"
    assert cache_home.keep(target, [b"mine"])
    target.chmod(0o666)
    assert read(target) is None
    target.chmod(0o600)
    target.parent.chmod(0o777)
    assert read(target) is None
    assert not cache_home.keep(target, [b"other"])
    assert target.read_bytes() == b"mine"


def test_an_own_folder_readable_by_others_is_made_private(tmp_path):
    target = tmp_path / "cache" / "kept.json"
    target.parent.mkdir(mode=0o755)
    target.parent.chmod(0o755)
    assert cache_home.keep(target, [b"mine"])
    assert target.parent.stat().st_mode & 0o777 == 0o700


def test_a_file_owned_by_someone_else_is_not_believed(tmp_path):
    target = tmp_path / "cache" / "kept.json"
    assert cache_home.keep(target, [b"theirs"])
    give_away(target)
    assert read(target) is None


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
