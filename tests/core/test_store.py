from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from purlin_resume.core import store
from purlin_resume.core.errors import CorruptFile, NotFound
from tests.conftest import without_opening

ROOT = Path(__file__).resolve().parents[2]


def test_write_then_read_json(tmp_path):
    target = tmp_path / "deep" / "state.json"
    store.write_json(target, {"a": [1, 2], "é": "ü"})
    assert store.read_json(target) == {"a": [1, 2], "é": "ü"}
    assert target.read_text(encoding="utf-8").endswith("\n")
    assert sorted(p.name for p in target.parent.iterdir()) == ["state.json", "state.json.lock"]


def test_missing_file_is_not_found_unless_default(tmp_path):
    with pytest.raises(NotFound):
        store.read_json(tmp_path / "absent.json")
    default = {"entries": []}
    got = store.read_json(tmp_path / "absent.json", default)
    got["entries"].append(1)
    assert default == {"entries": []}, "the default is copied, never shared"


def test_corrupt_target_is_never_overwritten(tmp_path):
    target = tmp_path / "state.json"
    target.write_bytes(b'{"entries": [1, 2')
    with pytest.raises(CorruptFile) as caught:
        store.update_json(target, lambda data: {"replaced": True})
    assert str(target) in caught.value.message
    assert target.read_bytes() == b'{"entries": [1, 2'


def test_binary_target_is_corrupt_not_a_crash(tmp_path):
    target = tmp_path / "state.json"
    target.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CorruptFile):
        store.read_json(target)


def test_failed_change_writes_nothing(tmp_path):
    target = tmp_path / "state.json"
    store.write_json(target, {"n": 1})

    def explode(data):
        data["n"] = 2
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.update_json(target, explode)
    assert store.read_json(target) == {"n": 1}


def test_update_keeps_file_mode_and_leaves_no_temp_files(tmp_path):
    tmp_path = tmp_path / "shared"  # not a private (0700) folder, whose files become 0600
    tmp_path.mkdir()
    os.chmod(tmp_path, 0o755)
    target = tmp_path / "state.json"
    store.write_json(target, {"n": 0})
    os.chmod(target, 0o640)
    (tmp_path / ".state.json.dead.tmp").write_text("left by a killed writer")
    store.update_json(target, lambda d: {"n": d["n"] + 1})
    assert target.stat().st_mode & 0o777 == 0o640
    assert not list(tmp_path.glob("*.tmp")), (
        "stale temp files of the target are swept under the lock"
    )


def test_append_jsonl_closes_a_cut_last_line(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"id": 1}\n{"id": 2, "cut')
    store.append_jsonl(log, {"id": 3})
    lines = log.read_text().split("\n")
    assert lines[0] == '{"id": 1}'
    assert lines[1] == '{"id": 2, "cut'
    assert json.loads(lines[2]) == {"id": 3}
    assert lines[3] == ""


def test_remove_takes_the_lock_file_with_it(tmp_path):
    folder = tmp_path / "a" / "b"
    target = folder / "settings.json"
    store.write_text(target, "{}\n")
    assert store.lock_path(target).exists()
    assert store.remove(target, up_to=tmp_path) is True
    assert not target.exists()
    assert not store.lock_path(target).exists()
    assert list(tmp_path.iterdir()) == []  # emptied folders go too
    assert store.remove(target) is False


def test_an_update_that_returns_none_deletes_the_file_and_its_lock(tmp_path):
    target = tmp_path / "settings.json"
    beside = tmp_path / "other.json"
    store.write_text(target, '{"a": 1}\n')
    store.write_text(beside, "{}\n")
    seen = []
    assert store.update_text(target, lambda text: seen.append(text)) is None
    assert seen == ['{"a": 1}\n']
    assert not target.exists()
    assert not store.lock_path(target).exists()
    assert beside.read_text() == "{}\n"
    assert store.lock_path(beside).exists()
    assert store.update_text(target, lambda text: None) is None  # absent: nothing to delete
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.json", "other.json.lock"]


def test_move_never_replaces_an_existing_destination(tmp_path):
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("first")
    second.write_text("second")
    archive = tmp_path / "archive" / "x.md"
    assert store.move(first, archive) == archive
    moved = store.move(second, archive)
    assert moved == tmp_path / "archive" / "x-1.md"
    assert archive.read_text() == "first"
    assert moved.read_text() == "second"
    assert not first.exists()
    assert not second.exists()
    with pytest.raises(NotFound):
        store.move(first, archive)


_WORKER = """
import sys
from pathlib import Path
from purlin_resume.core import store
target, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    def change(data, i=i):
        data["counter"] += 1
        data["seen"].append(f"{name}:{i}")
    store.update_json(target, change, default={"counter": 0, "seen": []})
"""


def _together(script: str, target: Path, writers: int, *args: str) -> None:
    """Run ``script`` in ``writers`` processes at once (named w0, w1, …); all must succeed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(target), f"w{n}", *args], env=env)
        for n in range(writers)
    ]
    assert all(p.wait(timeout=300) == 0 for p in procs)


@pytest.mark.slow
def test_16_processes_times_25_updates_lose_nothing(tmp_path):
    target = tmp_path / "shared.json"
    _together(_WORKER, target, 16, "25")
    data = store.read_json(target)
    assert data["counter"] == 16 * 25
    assert sorted(data["seen"]) == sorted(f"w{n}:{i}" for n in range(16) for i in range(25))


_APPENDER = """
import sys
from pathlib import Path
from purlin_resume.core import store
for i in range(int(sys.argv[3])):
    store.append_jsonl(Path(sys.argv[1]), {"writer": sys.argv[2], "i": i, "pad": "x" * 3000})
"""


@pytest.mark.slow
def test_concurrent_jsonl_appends_never_interleave(tmp_path):
    log = tmp_path / "log.jsonl"
    _together(_APPENDER, log, 12, "40")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 12 * 40
    assert {(r["writer"], r["i"]) for r in records} == {
        (f"w{n}", i) for n in range(12) for i in range(40)
    }


def _state(n: int) -> dict:
    # Large enough that a write takes several syscalls, so kills land mid-write.
    return {"n": n, "body": [f"line {n}:{k}" for k in range(2000 + n % 500)]}


@pytest.mark.slow
def test_writer_killed_at_random_moments_always_leaves_a_state_that_existed(tmp_path):
    target = tmp_path / "state.json"
    store.write_json(target, _state(0))
    rng = random.Random(20261122)
    next_n = 1
    cut_mid_write = 0
    for _trial in range(200):
        start = next_n
        pid = os.fork()
        if pid == 0:  # the writer: writes states start, start+1, ... until it is killed
            try:
                n = start
                while True:
                    store.write_json(target, _state(n))
                    n += 1
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        cut_mid_write += bool(list(tmp_path.glob(".state.json.*.tmp")))
        data = store.read_json(target)
        assert data == _state(data["n"]), "the file equals one whole state"
        assert data["n"] == 0 or data["n"] < start + 10_000
        next_n = max(start, data["n"] + 1) + 10_000  # later trials write states not yet seen
    assert cut_mid_write > 0, "some kills must land while a temp file is being written"
    # The lock of a killed writer is released by the kernel: a normal write still goes through.
    store.update_json(target, lambda d: {"n": -1, "body": []})
    assert store.read_json(target) == {"n": -1, "body": []}


_HOLDER = """
import sys
from pathlib import Path
from purlin_resume.core import store
held = store.locked(Path(sys.argv[1]))
held.__enter__()
print("held", flush=True)
sys.stdin.readline()
"""


def test_a_lock_another_process_holds_is_waited_for_then_refused(tmp_path):
    """A lock another process holds is waited for and then refused in one line, the target
    untouched."""
    from filelock import FileLock, Timeout

    target = tmp_path / "state.json"
    store.write_json(target, {"n": 1})
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(target)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert process.stdout.readline() == "held\n"
        started = time.monotonic()
        with (
            pytest.raises(store.PurlinError, match="is locked by another process"),
            store.locked(target, timeout=0.3),
        ):
            store._replace(target, b'{"n": 2}')
        assert time.monotonic() - started >= 0.3
        with pytest.raises(Timeout):
            FileLock(str(store.lock_path(target)), timeout=0.1).acquire()
    finally:
        process.communicate("go\n", timeout=30)
    assert store.read_json(target) == {"n": 1}
    store.write_json(target, {"n": 3})  # free again once the holder is gone
    assert store.read_json(target) == {"n": 3}
    assert store.lock_path(target).is_file()  # left in place, as filelock leaves it


def test_a_lone_surrogate_is_written_as_a_replacement_character(tmp_path):
    """Half a character (JSON carries one; a tool output cut short leaves one) in what any file
    gets: U+FFFD, where it made the write fail."""
    half = "cut emoji \ud83d and \udc00 alone"
    shown = "cut emoji \ufffd and \ufffd alone"
    store.write_output(tmp_path / "out.md", half)
    store.write_text(tmp_path / "text.md", half)
    store.write_json(tmp_path / "data.json", {"note": half})
    store.append_jsonl(tmp_path / "log.jsonl", {"note": half})
    assert (tmp_path / "out.md").read_text() == shown == (tmp_path / "text.md").read_text()
    assert store.read_json(tmp_path / "data.json") == {"note": shown}
    assert json.loads((tmp_path / "log.jsonl").read_text()) == {"note": shown}
    assert store.encoded("plain é") == "plain é".encode()


def test_an_update_that_changes_nothing_leaves_the_file_as_it_is(tmp_path):
    target = tmp_path / "state.json"
    store.update_json(target, lambda d: {"n": 1}, default={})
    before = target.stat().st_ino
    assert store.update_json(target, lambda d: None) == {"n": 1}
    assert target.stat().st_ino == before  # not replaced
    store.update_json(target, lambda d: {"n": 2})
    assert target.stat().st_ino != before
    assert store.read_json(target) == {"n": 2}


def test_a_text_update_that_changes_nothing_leaves_the_file_as_it_is(tmp_path):
    target = tmp_path / ".gitignore"
    store.write_text(target, "build/\n")
    before = target.stat().st_ino
    assert store.update_text(target, lambda text: text) == "build/\n"
    assert target.stat().st_ino == before  # not replaced
    os.chmod(target, 0o644)
    store.update_text(target, lambda text: text, private=True)  # still made private
    assert target.stat().st_mode & 0o777 == 0o600
    assert target.read_text() == "build/\n"
    store.update_text(target, lambda text: f"{text}dist/\n")
    assert target.read_text() == "build/\ndist/\n"


_APPEND_PAST_THE_LIMIT = """
import resource, signal, sys
from pathlib import Path
from purlin_resume.core import store
from purlin_resume.core.errors import PurlinError
log = Path(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit: EFBIG, not death
limit = log.stat().st_size + 100  # room for part of the record only, as on a disk nearly full
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    store.append_jsonl(log, {"id": 3, "pad": "x" * 500})
except OSError as exc:
    print("failed", exc.errno)
else:
    print("appended")
"""


def test_an_append_the_disk_cannot_hold_fails_and_leaves_the_log_as_it_was(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"id": 1}\n{"id": 2}\n')
    before = log.read_bytes()
    done = subprocess.run(
        [sys.executable, "-c", _APPEND_PAST_THE_LIMIT, str(log)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.stdout.strip().startswith("failed"), done.stdout + done.stderr
    assert log.read_bytes() == before


def test_a_cli_file_is_opened_through_links_and_only_when_regular(tmp_path):
    """``open_regular``: a link to a file is read; a link to a FIFO is refused without waiting
    for a writer, a folder and a loop of links are refused, each saying why."""
    (tmp_path / "real.jsonl").write_text('{"a": 1}\n')
    (tmp_path / "linked.jsonl").symlink_to(tmp_path / "real.jsonl")
    with store.open_regular(tmp_path / "linked.jsonl") as handle:
        assert handle.read() == b'{"a": 1}\n'
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "to-fifo.jsonl").symlink_to(fifo)
    (tmp_path / "loop.jsonl").symlink_to(tmp_path / "loop.jsonl")
    (tmp_path / "folder.jsonl").mkdir()
    for name, why in [
        ("to-fifo.jsonl", "not a regular file"),
        ("folder.jsonl", "a folder, not a file"),
        ("loop.jsonl", "a loop of symbolic links"),
    ]:
        with pytest.raises(OSError) as refused:
            without_opening(fifo, lambda name=name: store.open_regular(tmp_path / name))
        assert refused.value.strerror == why
