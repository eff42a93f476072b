"""Hostile input from a transcript, a branch or the file system: each way in, closed."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from tests.test_transcripts_cli import DOV_SESSION, run

# --- -o FILE and the overflow folder ---------------------------------------------------------


def test_output_to_dev_null_keeps_the_device(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "transcript", DOV_SESSION, "-o", os.devnull)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_output_into_a_fifo_writes_into_it(cli, fixtures_copy, tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run(cli, fixtures_copy, "export", DOV_SESSION, "-o", str(fifo))
    reader.join(10)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert b'"conversation"' in received[0]


def test_output_to_a_folder_is_refused(cli, fixtures_copy, tmp_path):
    result = run(cli, fixtures_copy, "export", DOV_SESSION, "-o", str(tmp_path))
    assert result.exit_code == 2
    assert "folder" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def temp_root(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _overflow(cli, fixtures_copy):
    return run(cli, fixtures_copy, "transcript", DOV_SESSION, "--max-chars", "2000")


def test_overflow_folder_is_created_private(cli, fixtures_copy, temp_root):
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 0, result.stderr
    folder = temp_root / f"purlin-resume-{os.getuid()}"
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700


def test_overflow_folder_planted_as_a_symlink_is_refused(cli, fixtures_copy, temp_root, tmp_path):
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir(mode=0o700)
    (temp_root / f"purlin-resume-{os.getuid()}").symlink_to(elsewhere)
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 1
    assert "symbolic link" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(elsewhere.iterdir()) == []


def test_overflow_folder_of_another_user_is_refused(cli, fixtures_copy, temp_root, monkeypatch):
    someone_else = os.getuid() + 1
    planted = temp_root / f"purlin-resume-{someone_else}"
    planted.mkdir(mode=0o700)  # ours on disk; we pose as the next user id, for whom it is foreign
    monkeypatch.setattr(os, "getuid", lambda: someone_else)
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 1
    assert "not to you" in result.stderr
    assert list(planted.iterdir()) == []


def test_overflow_folder_open_to_others_is_refused(cli, fixtures_copy, temp_root):
    planted = temp_root / f"purlin-resume-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 1
    assert "open to others (mode 777)" in result.stderr
    assert list(planted.iterdir()) == []
