"""`sessions` keeps what it read of each session (the cache's ``sessions`` table) and reads again
only the sessions whose files changed (size, mtime, inode); the cache is redacted, private, never
fatal."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.claude_records import Conversation, text, write_jsonl
from tests.secret_corpus import corpus

SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))


def _cache_folder() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "purlin-resume"


def _cache_file() -> Path:
    return _cache_folder() / "cache.sqlite"


def _kept() -> dict[str, dict]:
    """The kept entries: session file -> its figures."""
    with sqlite3.connect(_cache_file()) as connection:
        rows = connection.execute("SELECT file, entry FROM sessions").fetchall()
    return {file: json.loads(entry) for file, entry in rows}


def _set_entry(file: str, entry: str) -> None:
    with sqlite3.connect(_cache_file()) as connection:
        connection.execute("UPDATE sessions SET entry = ? WHERE file = ?", (entry, file))


def _sessions(cli, root: Path, *args: str):
    result = cli("sessions", "--all", *args, "--claude-dir", str(root))
    assert result.exit_code == 0, result.stderr
    return result


def _demo(tmp_path: Path, prompt: str = "fix the login page") -> tuple[Path, Path]:
    root = tmp_path / "claude"
    c = Conversation("11111111-aaaa-4000-8000-000000000001", cwd="/srv/demo")
    path = write_jsonl(
        root / "projects" / "-srv-demo" / "11111111-aaaa-4000-8000-000000000001.jsonl",
        [c.user(prompt), c.assistant("msg_1", text("done"))],
    )
    d = Conversation("22222222-bbbb-4000-8000-000000000002", cwd="/srv/demo")
    write_jsonl(
        root / "projects" / "-srv-demo" / "22222222-bbbb-4000-8000-000000000002.jsonl",
        [d.user("another task"), d.assistant("msg_2", text("ok"))],
    )
    return root, path


def _rewrite_in_place(path: Path, old: bytes, new: bytes, keep_mtime: bool) -> None:
    """Same size, same inode; the mtime put back when ``keep_mtime``."""
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes()
    assert old in data
    with open(path, "r+b") as handle:
        handle.write(data.replace(old, new))
    if keep_mtime:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert path.stat().st_ino == before.st_ino


def test_warm_listing_is_the_cold_one_byte_for_byte(cli, fixtures_copy):
    for args in ((), ("--json",)):
        shutil.rmtree(_cache_folder(), ignore_errors=True)
        cold = _sessions(cli, fixtures_copy, *args)
        warm = _sessions(cli, fixtures_copy, *args)
        assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
        assert _cache_file().exists()
    here = _sessions(cli, fixtures_copy, "--json")
    assert len(json.loads(here.stdout)["sessions"]) == 6


def test_a_session_is_read_again_only_when_its_size_or_mtime_changed(cli, tmp_path):
    root, path = _demo(tmp_path)
    assert "fix the login page" in _sessions(cli, root).stdout
    # the same size and mtime: the kept figures stand (nothing is read)
    _rewrite_in_place(path, b"fix the login page", b"FIX THE LOGIN PAGE", keep_mtime=True)
    assert "fix the login page" in _sessions(cli, root).stdout
    # a new mtime: read again
    _rewrite_in_place(path, b"FIX THE LOGIN PAGE", b"fix the LOGIN page", keep_mtime=False)
    assert "fix the LOGIN page" in _sessions(cli, root).stdout
    # a new size (a turn appended, as Claude Code does): read again
    with open(path, "a") as handle:
        c = Conversation("11111111-aaaa-4000-8000-000000000001", cwd="/srv/demo")
        c.count = 10  # a fresh uuid (a repeated one is a duplicate record)
        handle.write(json.dumps(c.user("and the signup page")) + "\n")
    listed = json.loads(_sessions(cli, root, "--json").stdout)["sessions"]
    assert {s["id"]: s["turns"] for s in listed}["11111111-aaaa-4000-8000-000000000001"] == 3


def test_a_deleted_session_leaves_the_listing_and_the_cache(cli, tmp_path):
    root, path = _demo(tmp_path)
    _sessions(cli, root)
    assert str(path) in _kept()
    path.unlink()
    listed = json.loads(_sessions(cli, root, "--json").stdout)["sessions"]
    assert [s["id"] for s in listed] == ["22222222-bbbb-4000-8000-000000000002"]
    assert str(path) not in _kept()


def test_a_file_replaced_by_a_symlink_of_the_same_size_and_mtime_is_read_again(cli, tmp_path):
    root, path = _demo(tmp_path)
    assert "fix the login page" in _sessions(cli, root).stdout
    other = tmp_path / "elsewhere.jsonl"
    other.write_bytes(path.read_bytes().replace(b"fix the login page", b"drop the usr table"))
    before = path.stat()
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    path.unlink()
    path.symlink_to(other)
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    out = _sessions(cli, root).stdout
    assert "drop the usr table" in out
    assert "fix the login page" not in out


@pytest.mark.parametrize(
    "damage",
    [
        "not json at all {",
        "",
        "[1, 2, 3]",
        '{"sig": "SIG", "asked": 5}',
        '{"sig": "SIG", "asked": [], "found": [], "cwd": [null], "summaries": [[1]],'
        ' "session": {}, "titles": {}}',
        "[" * 100_000,
    ],
)
def test_a_damaged_entry_is_read_past_and_rewritten(cli, tmp_path, damage):
    root, path = _demo(tmp_path)
    cold = _sessions(cli, root)
    entry = _kept()[str(path)]
    _set_entry(str(path), damage.replace("SIG", entry["sig"]))
    again = _sessions(cli, root)
    assert (again.stdout, again.stderr) == (cold.stdout, cold.stderr)
    assert _kept()[str(path)] == entry


@pytest.mark.parametrize(
    "damage", [b"not a database at all", b"SQLite format 3\x00" + b"\xff" * 5000, b""]
)
def test_a_damaged_cache_file_is_built_again(cli, tmp_path, damage):
    root, path = _demo(tmp_path)
    cold = _sessions(cli, root)
    entry = _kept()[str(path)]
    for suffix in ("-wal", "-shm"):
        Path(f"{_cache_file()}{suffix}").unlink(missing_ok=True)
    _cache_file().write_bytes(damage)
    again = _sessions(cli, root)
    assert (again.stdout, again.stderr) == (cold.stdout, cold.stderr)
    assert _kept()[str(path)] == entry


def test_a_foreign_sqlite_file_in_its_place_is_built_again(cli, tmp_path):
    root, path = _demo(tmp_path)
    cold = _sessions(cli, root)
    shutil.rmtree(_cache_folder())
    _cache_folder().mkdir(mode=0o700, parents=True)
    with sqlite3.connect(_cache_file()) as connection:  # someone else's tables, same names
        connection.execute("CREATE TABLE sessions (folder, file, entry)")
        connection.execute(
            "INSERT INTO sessions VALUES (?, ?, ?)", (str(root), str(path), '{"sig": "x"}')
        )
    _cache_file().chmod(0o600)
    again = _sessions(cli, root)
    assert (again.stdout, again.stderr) == (cold.stdout, cold.stderr)
    assert _kept()[str(path)]["sig"] != "x"


@pytest.mark.parametrize("how", ["linked", "shared"])
def test_a_planted_cache_is_not_believed(cli, tmp_path, how):
    """A cache with the right signatures whose titles were changed, behind a link or in a file
    others may write, is refused: the transcripts are read again."""
    root, path = _demo(tmp_path)
    cold = _sessions(cli, root)
    assert "fix the login page" in cold.stdout
    entry = json.dumps(_kept()[str(path)]).replace("fix the login page", "planted title")
    _set_entry(str(path), entry)
    if how == "linked":
        elsewhere = tmp_path / "elsewhere.sqlite"
        shutil.copy(_cache_file(), elsewhere)
        _cache_file().unlink()
        _cache_file().symlink_to(elsewhere)
    else:
        _cache_file().chmod(0o666)
    again = _sessions(cli, root)
    assert (again.stdout, again.stderr) == (cold.stdout, cold.stderr)


def test_a_cache_folder_that_is_a_link_is_refused(cli, tmp_path, monkeypatch):
    root, _ = _demo(tmp_path)
    expected = _sessions(cli, root).stdout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (xdg / "purlin-resume").symlink_to(elsewhere)
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    assert _sessions(cli, root).stdout == expected
    assert list(elsewhere.iterdir()) == [], "nothing is written through the link"


def test_a_cache_that_cannot_be_written_only_costs_time(cli, tmp_path, monkeypatch):
    root, _ = _demo(tmp_path)
    expected = _sessions(cli, root).stdout
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    for _ in range(2):
        assert _sessions(cli, root).stdout == expected
    assert blocked.read_text() == "a file where the cache folder should be"


def test_a_read_only_cache_folder_only_costs_time(cli, tmp_path):
    root, _ = _demo(tmp_path)
    expected = _sessions(cli, root).stdout
    cache = _cache_file()
    kept = cache.read_bytes()
    _cache_folder().chmod(0o500)
    cache.chmod(0o400)
    try:
        if os.geteuid() == 0:  # root writes anyway: a folder of another user's stands in
            os.chown(_cache_folder(), 65534, -1)
        (root / "projects" / "-srv-demo" / "22222222-bbbb-4000-8000-000000000002.jsonl").touch()
        assert _sessions(cli, root).stdout == expected
        assert cache.read_bytes() == kept
    finally:
        _cache_folder().chmod(0o700)
        if os.geteuid() == 0:
            os.chown(_cache_folder(), 0, -1)


def test_the_cache_is_private_and_holds_no_secret(cli, tmp_path):
    planted = corpus(19)[:12]
    root = tmp_path / "claude"
    folder = root / "projects" / "-srv-vault"
    for number, item in enumerate(planted):
        session = f"33333333-cccc-4000-8000-{number:012d}"
        c = Conversation(session, cwd="/srv/vault")
        records = [c.user(f"deploy with {item.line}"), c.assistant("msg_x", text("ok"))]
        if number % 3 == 1:
            records.append({"type": "ai-title", "aiTitle": f"Rotate {item.line}"})
        if number % 3 == 2:
            records.insert(0, {"type": "summary", "summary": item.line, "leafUuid": "gone"})
        records[0]["gitBranch"] = f"fix/{item.secret}"
        write_jsonl(folder / f"{session}.jsonl", records)
    for args in ((), ("--json",)):
        shutil.rmtree(_cache_folder(), ignore_errors=True)
        cold = _sessions(cli, root, *args)
        warm = _sessions(cli, root, *args)
        assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
        assert "redacted" in warm.stderr
        kept = json.dumps(_kept())
        for item in planted:
            assert item.secret not in kept
            assert item.secret not in warm.stdout
        assert _cache_file().stat().st_mode & 0o777 == 0o600
        assert _cache_folder().stat().st_mode & 0o777 == 0o700
    # --no-redact prints what is there: the cache (redacted) is not used for it
    raw = cli("--no-redact", "sessions", "--all", "--claude-dir", str(root))
    assert planted[0].secret in raw.stdout


def test_a_trusted_project_allow_list_is_honoured_over_the_cache(cli, tmp_path, repo):
    root, _ = _demo(tmp_path, prompt="token ghp_" + "a1B2c3D4e5" * 3 + "abcdef")
    shown = _sessions(cli, root).stdout
    assert "[REDACTED:" in shown
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "config.json").write_text(
        json.dumps({"resume": {"redact": {"allow": ["ghp_a1B2.*"]}}})
    )
    assert "[REDACTED:" in _sessions(cli, root).stdout  # a committed file loosens nothing
    assert cli("trust").exit_code == 0
    allowed = _sessions(cli, root).stdout
    assert "ghp_a1B2" in allowed
    assert "[REDACTED:" not in allowed


def test_concurrent_listings_agree_and_leave_a_whole_cache(fixtures_copy, tmp_path):
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [SCRIPT, "sessions", "--all", "--json", "--claude-dir", str(fixtures_copy)]
    running = [
        subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    outputs = [process.communicate(timeout=120) for process in running]
    assert all(process.returncode == 0 for process in running), outputs
    assert len({out for out, _ in outputs}) == 1
    assert len(_kept()) == 6
    again = subprocess.run(argv, env=env, capture_output=True, check=True)
    assert again.stdout == outputs[0][0]
