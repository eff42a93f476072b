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


# --- hooks in a deleted working directory --------------------------------------------------


def _hook_in_deleted_cwd(event: str, payload: str, tmp_path: Path, **env: str):
    import json
    import subprocess
    import sys

    from tests.test_hooks import EXE

    gone = tmp_path / "removed-worktree"
    gone.mkdir()
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    environment.update(PURLIN_HOOK_FOREGROUND="1", GONE=str(gone), **env)
    return subprocess.run(
        ["sh", "-c", f'cd "$GONE" && rmdir "$GONE" && exec "{EXE}" hook {event}'],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )


@pytest.mark.parametrize(
    ("event", "records"),
    [
        ("session-start", True),
        ("pre-tool-use", True),
        ("session-end", True),
        ("pre-compact", False),
        ("subagent-stop", False),
    ],
)
def test_a_hook_whose_cwd_was_deleted_uses_the_payloads_cwd(repo, tmp_path, event, records):
    import json

    payload = {
        "session_id": "s-1",
        "cwd": str(repo),
        "hook_event_name": event,
        "source": "compact",
        "tool_name": "Agent",
        "tool_use_id": "toolu_X",
        "tool_input": {"description": "write tests"},
        "trigger": "manual",
        "agent_id": "a1",
    }
    out = _hook_in_deleted_cwd(event, json.dumps(payload), tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    written = [p for p in (repo / ".purlin", repo / ".planning") if p.is_dir()]
    assert bool(written) == records, "the project named by the payload got no record"
    log = repo / ".purlin" / "cache" / "hook.log"
    assert not log.exists(), log.read_text()


@pytest.mark.parametrize("stdin", ["{not json", '{"cwd": "/no/such/folder"}', ""])
def test_a_hook_with_a_deleted_cwd_and_no_usable_payload_still_exits_zero(tmp_path, stdin):
    out = _hook_in_deleted_cwd("session-start", stdin, tmp_path)
    assert out.returncode == 0
    assert "Traceback" not in out.stderr
