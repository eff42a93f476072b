"""Kept files in the user's cache folder (core/cache_home.py): written whole without a lock,
read only when they are this user's own, private regular files."""

from __future__ import annotations

import os
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
