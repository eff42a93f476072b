"""``written_paths.written``: the files a transcript's main thread wrote, kept in the user cache
folder between runs, only the lines appended since read again; its answer always the one a read
of the whole transcript gives, whatever the transcript, the kept file or the cache folder
became meanwhile, and no secret ever kept in clear."""

from __future__ import annotations

import json
import os
import random
import stat
import string
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.agents import activity, written_paths
from purlin_resume.claude import records
from tests.agents_setup import writing
from tests.conftest import plant_kept

ROOT = Path(__file__).resolve().parents[2]
NAMES = activity.WRITING_TOOLS
HOSTILE = "evil\nname $(touch PWNED) `touch PWNED2` \x1b]0;title\x07\x1b[31mred\r.py"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    """purlin-resume's cache folder, in this test's own temporary folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return tmp_path / "xdg-cache" / "purlin-resume"


def line(uuid: str, name: object, path: object, **extra) -> str:
    return json.dumps(writing(uuid, name, {"file_path": path, "content": "x\n"}, **extra)) + "\n"


def prompt(uuid: str, text: str = "go on") -> str:
    return json.dumps({"type": "user", "uuid": uuid, "message": {"role": "user", "content": text}})


def full_read(path: Path, names: frozenset[str] = NAMES) -> set[str]:
    """What a read of the whole transcript finds: the answer ``written`` must always give."""
    uses = records.main_tool_uses(path, names)
    return {p for p in (records.file_path_of(b.get("input")) for b in uses) if p}


def answer(path: Path, names: frozenset[str] = NAMES) -> set[str]:
    """``written``'s answer, checked against a read of the whole transcript."""
    got = written_paths.written(path, names)
    assert got == full_read(path, names)
    return got


def kept_of(transcript: Path) -> dict:
    return json.loads(written_paths.kept_path(transcript).read_bytes())


def append(path: Path, text: str | bytes) -> None:
    with open(path, "ab") as out:
        out.write(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)


def whole_lines_size(path: Path) -> int:
    data = path.read_bytes()
    return data.rfind(b"\n") + 1


def files_in(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]


def token(rng: random.Random) -> str:
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def aws_key(rng: random.Random) -> str:
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))


# -- real transcripts ------------------------------------------------------------------------------


def test_every_real_transcript_first_and_second_run_equal_a_full_read(fixtures_copy):
    paths = sorted(fixtures_copy.rglob("*.jsonl"))
    assert paths
    found = kept = 0
    for path in paths:
        expected = full_read(path)
        assert written_paths.written(path, NAMES) == expected, path
        kept += written_paths.kept_path(path).is_file()
        assert written_paths.written(path, NAMES) == expected, path  # from the kept file
        found += len(expected)
    assert found > 0  # the transcripts do write files: the sets compared are not all empty
    assert kept > 0


def test_real_transcripts_growing_in_pieces_equal_a_full_read_at_every_step(
    fixtures_copy, tmp_path
):
    rng = random.Random(7)
    for source in sorted(fixtures_copy.rglob("*.jsonl")):
        data = source.read_bytes()
        growing = tmp_path / "growing" / source.relative_to(fixtures_copy)
        growing.parent.mkdir(parents=True, exist_ok=True)
        growing.write_bytes(b"")
        cuts = sorted({*(rng.randrange(len(data)) for _ in range(4)), data.find(b"\n", 100) + 1})
        done = 0
        for cut in [*cuts, len(data)]:
            append(growing, data[done:cut])
            done = cut
            assert written_paths.written(growing, NAMES) == full_read(growing), (source, cut)
        assert written_paths.written(growing, NAMES) == full_read(source), source
        assert kept_of(growing)["offset"] == whole_lines_size(growing), source


# -- appended lines --------------------------------------------------------------------------------


def test_appended_lines_are_read_and_the_kept_offset_is_the_end_of_the_whole_lines(tmp_path, cache):
    path = tmp_path / "session.jsonl"
    path.write_text(
        prompt("p1")
        + "\n"
        + line("w1", "Write", "/repo/a.py")
        + line("w2", "Edit", "/repo/b.py")
        + line("w3", "Read", "/repo/only-read.py")
        + line("w4", "MultiEdit", "src/relative.py")
        + json.dumps(writing("w5", "NotebookEdit", {"notebook_path": "/repo/nb.ipynb"}))
        + "\n"
    )

    first = answer(path)

    assert first == {"/repo/a.py", "/repo/b.py", "src/relative.py", "/repo/nb.ipynb"}
    kept = written_paths.kept_path(path)
    assert kept.parent == cache and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert kept_of(path)["offset"] == path.stat().st_size

    append(
        path,
        line("w6", "Write", "/repo/new.py")
        + line("w1", "Edit", "/repo/repeated-uuid.py")  # a repeat of w1: not another record
        + line("w7", "Edit", "/repo/side.py", isSidechain=True)
        + line("w8", "Read", "/repo/read-later.py")
        + '{"type":"summary","summary":"done","leafUuid":"w6"}\n'
        + '{"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse"},'
        '"uuid":"g1"}\n'
        + '{"type":"last-prompt","lastPrompt":"tool_use\\" Write"}\n'
        + prompt("p2")
        + "\n",
    )

    second = answer(path)

    assert second == first | {"/repo/new.py"}
    assert kept_of(path)["offset"] == path.stat().st_size
    assert answer(path) == second  # nothing appended: the kept answer


def long_session(path: Path) -> None:
    """A transcript of some 27 KiB, ``/repo/middle-AAAA.py`` written near its middle."""
    lines = [line(f"w{i}", "Edit", f"/repo/file-{i:03}.py") for i in range(120)]
    lines[60] = line("w60", "Write", "/repo/middle-AAAA.py")
    path.write_text("".join(lines))
    assert path.stat().st_size > 3 * 4096


def change_the_middle(path: Path) -> None:
    """``middle-AAAA`` made ``middle-BBBB`` in place (past the first and before the last 4
    KiB: the same file, the same size, the same edges)."""
    inode = path.stat().st_ino
    with open(path, "r+b") as handle:
        at = handle.read().index(b"middle-AAAA")
        assert 4096 < at < path.stat().st_size - 4096
        handle.seek(at)
        handle.write(b"middle-BBBB")
    assert path.stat().st_ino == inode


def test_the_part_already_read_is_not_read_again(tmp_path):
    """A transcript is only appended to: a change in the middle of what an earlier run read
    (the same file, its edges the same, its size grown) is not seen. This is what tells the
    appended lines alone were read."""
    path = tmp_path / "session.jsonl"
    long_session(path)
    answer(path)
    change_the_middle(path)
    append(path, line("w200", "Write", "/repo/appended.py"))

    got = written_paths.written(path, NAMES)

    assert "/repo/middle-AAAA.py" in got and "/repo/middle-BBBB.py" not in got
    assert "/repo/appended.py" in got
    assert got - {"/repo/middle-AAAA.py"} == full_read(path) - {"/repo/middle-BBBB.py"}


def test_a_change_that_keeps_the_size_is_seen_by_the_modification_time(tmp_path):
    path = tmp_path / "session.jsonl"
    long_session(path)
    assert "/repo/middle-AAAA.py" in answer(path)
    before = path.stat()

    change_the_middle(path)
    later = before.st_mtime_ns + 2_000_000_000  # (whatever the clock's granularity)
    os.utime(path, ns=(before.st_atime_ns, later))

    got = answer(path)
    assert "/repo/middle-BBBB.py" in got and "/repo/middle-AAAA.py" not in got
    assert answer(path) == got


def random_lines(rng: random.Random, count: int, big: bool) -> list[str]:
    """Lines of a transcript with repeats, sidechains, other tools, odd inputs and noise."""
    out = []
    for i in range(count):
        uuid = f"u{rng.randrange(count)}"
        name = rng.choice([*sorted(NAMES), "Read", "Bash", "Task"])
        roll = rng.random()
        if roll < 0.08:
            out.append(prompt(uuid) + "\n")
        elif roll < 0.12:
            out.append(rng.choice(["{not json\n", "\n", '"a string"\n', "[1, 2]\n"]))
        elif roll < 0.16:
            escaped = line(uuid, "Write", f"/repo/escaped-{i}.py")
            out.append(escaped.replace('"Write"', '"\\u0057rite"'))
        elif roll < 0.2:
            data = {"notebook_path": f"/repo/nb-{i}.ipynb", "file_path": rng.choice(["", None, 3])}
            out.append(json.dumps(writing(uuid, name, data)) + "\n")
        else:
            extra = {"isSidechain": True} if rng.random() < 0.1 else {}
            record = writing(uuid, name, {"file_path": f"/repo/{name}-{i}.py"}, **extra)
            if rng.random() < 0.1:
                del record["uuid"]
            out.append(json.dumps(record) + "\n")
    if big:  # a line longer than a read buffer (1 MiB)
        data = {"file_path": "/repo/big.py", "content": "y" * (3 << 19)}
        out.insert(count // 2, json.dumps(writing("big", "Write", data)) + "\n")
    return out


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_random_transcripts_appended_in_random_pieces_equal_a_full_read(tmp_path, seed):
    rng = random.Random(seed)
    text = "".join(random_lines(rng, 150, big=seed == 5)).encode()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    cuts = sorted(rng.randrange(len(text)) for _ in range(30))
    done = 0
    for cut in [*cuts, len(text)]:
        append(path, text[done:cut])
        done = cut
        assert written_paths.written(path, NAMES) == full_read(path), cut
        assert written_paths.written(path, NAMES) == full_read(path), cut
    assert kept_of(path)["offset"] == len(text)


# -- a last line still being written ---------------------------------------------------------------


def test_a_last_line_without_its_newline_is_answered_but_not_kept(tmp_path):
    path = tmp_path / "session.jsonl"
    head = line("w1", "Write", "/repo/a.py") + line("w2", "Edit", "/repo/b.py")
    last = line("w3", "Write", "/repo/being-written.py").rstrip("\n")
    path.write_text(head + last)

    assert answer(path) == {"/repo/a.py", "/repo/b.py", "/repo/being-written.py"}
    assert kept_of(path)["offset"] == len(head.encode())
    assert "/repo/being-written.py" not in kept_of(path)["paths"]
    assert answer(path) == {"/repo/a.py", "/repo/b.py", "/repo/being-written.py"}

    append(path, "\n" + line("w3", "Edit", "/repo/repeat-of-the-partial.py"))

    assert answer(path) == {"/repo/a.py", "/repo/b.py", "/repo/being-written.py"}
    assert kept_of(path)["offset"] == path.stat().st_size


def test_a_last_line_not_yet_json_then_completed(tmp_path):
    path = tmp_path / "session.jsonl"
    head = line("w1", "Write", "/repo/a.py")
    last = line("w2", "Write", "/repo/completed-later.py")
    cut = last.index("completed")
    path.write_text(head + last[:cut])

    assert answer(path) == {"/repo/a.py"}
    assert kept_of(path)["offset"] == len(head.encode())

    append(path, last[cut:-10])
    assert answer(path) == {"/repo/a.py"}

    append(path, last[-10:])
    assert answer(path) == {"/repo/a.py", "/repo/completed-later.py"}
    assert kept_of(path)["offset"] == path.stat().st_size


def test_a_last_line_that_parses_then_goes_on_into_one_that_does_not(tmp_path):
    path = tmp_path / "session.jsonl"
    head = line("w1", "Write", "/repo/a.py")
    path.write_text(head + line("w2", "Write", "/repo/looked-whole.py").rstrip("\n"))

    assert answer(path) == {"/repo/a.py", "/repo/looked-whole.py"}

    append(path, " trailing garbage\n" + line("w2", "Edit", "/repo/w2-after-all.py"))

    assert answer(path) == {"/repo/a.py", "/repo/w2-after-all.py"}
    assert answer(path) == {"/repo/a.py", "/repo/w2-after-all.py"}


# -- a transcript that is not the one kept ---------------------------------------------------------


def test_a_transcript_replaced_by_another_file(tmp_path):
    path = tmp_path / "session.jsonl"
    lines = [line(f"w{i}", "Edit", f"/repo/old-{i}.py") for i in range(40)]
    path.write_text("".join(lines))
    answer(path)

    # The same start and end, a path changed in the middle, longer: a new file renamed over it.
    replacement = tmp_path / "replacement.jsonl"
    changed = [*lines, line("w99", "Write", "/repo/added.py")]
    changed[20] = line("w20", "Edit", "/repo/NEW-20.py")
    replacement.write_text("".join(changed))
    os.replace(replacement, path)

    got = answer(path)
    assert "/repo/NEW-20.py" in got and "/repo/old-20.py" not in got

    # Removed, then another written in its place (the inode may well be the same).
    path.unlink()
    path.write_text(line("x1", "Write", "/repo/other-session.py") * 3)
    assert answer(path) == {"/repo/other-session.py"}


def test_a_transcript_truncated_then_grown_again(tmp_path):
    path = tmp_path / "session.jsonl"
    lines = [line(f"w{i}", "Edit", f"/repo/old-{i}.py") for i in range(5)]
    path.write_text("".join(lines))
    answer(path)

    os.truncate(path, len("".join(lines[:2]).encode()))
    assert answer(path) == {"/repo/old-0.py", "/repo/old-1.py"}

    append(
        path, "".join(line(f"n{i}", "Write", f"/repo/newer-and-longer-{i}.py") for i in range(4))
    )
    got = answer(path)
    assert got == {"/repo/old-0.py", "/repo/old-1.py"} | {
        f"/repo/newer-and-longer-{i}.py" for i in range(4)
    }

    os.truncate(path, 0)
    assert answer(path) == set()
    append(path, line("z1", "Write", "/repo/after-emptied.py"))
    assert answer(path) == {"/repo/after-emptied.py"}


def test_a_transcript_rewritten_in_place_with_the_same_size_and_time(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_text(line("w1", "Write", "/repo/one.py") + line("w2", "Edit", "/repo/two.py"))
    answer(path)
    before = path.stat()

    with open(path, "r+b") as handle:
        text = handle.read().replace(b"/repo/one.py", b"/repo/uno.py")
        handle.seek(0)
        handle.write(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_ino == before.st_ino

    assert answer(path) == {"/repo/uno.py", "/repo/two.py"}

    append(path, line("w3", "Write", "/repo/three.py"))
    assert answer(path) == {"/repo/uno.py", "/repo/two.py", "/repo/three.py"}
    assert answer(path) == {"/repo/uno.py", "/repo/two.py", "/repo/three.py"}


def test_a_transcript_named_by_a_link_that_is_pointed_elsewhere(tmp_path):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(line("w1", "Write", "/repo/first.py"))
    second.write_text(line("w1", "Write", "/repo/second.py"))
    link = tmp_path / "current.jsonl"
    link.symlink_to(first)
    assert answer(link) == {"/repo/first.py"}

    link.unlink()
    link.symlink_to(second)
    assert answer(link) == {"/repo/second.py"}
    assert answer(first) == {"/repo/first.py"}


# -- damaged or untrusted kept files ---------------------------------------------------------------


KEPT_KEYS = (
    "version", "device", "inode", "size", "mtime_ns", "offset", "edges", "tools", "rules",
    "paths", "seen",
)  # fmt: skip


def damaged(data: dict) -> dict[str, bytes]:
    """``data``, a kept file's, damaged in every way named."""

    def changed(**fields) -> bytes:
        return json.dumps({**data, **fields}).encode()

    return {
        **{
            f"without {key}": json.dumps({k: v for k, v in data.items() if k != key}).encode()
            for key in KEPT_KEYS
        },
        "empty": b"",
        "not json": b"{not json",
        "binary": b"\xff\xfe\x00\x81garbage",
        "a list": json.dumps([data]).encode(),
        "null": b"null",
        "a number": b"42",
        "a string": json.dumps(json.dumps(data)).encode(),
        "offset negative": changed(offset=-1),
        "offset beyond the size": changed(offset=data["size"] + 1000),
        "offset huge": changed(offset=10**400),
        "offset a float": changed(offset=float(data["offset"])),
        "offset a bool": changed(offset=True),
        "offset a string": changed(offset=str(data["offset"])),
        "offset not a number": changed(offset=float("nan")),
        "offset moved": changed(offset=data["offset"] // 2),
        "version other": changed(version=data["version"] + 1),
        "inode other": changed(inode=data["inode"] + 1),
        "device other": changed(device=data["device"] + 1),
        "edges other": changed(edges=["0" * 32, "0" * 32]),
        "edges null": changed(edges=None),
        "tools other": changed(tools=["Write"]),
        "tools not a list": changed(tools="Edit"),
        "rules other": changed(rules="0123456789abcdef"),
        "paths not strings": changed(paths=[1, None, ["x"]]),
        "paths a number": changed(paths=7),
        "paths a string": changed(paths="/planted.py"),
        "paths an object": changed(paths={"/planted.py": 1}),
        "seen not strings": changed(seen=[{"w": 1}]),
        "seen a string": changed(seen="wu"),  # (a record "u" is appended below)
        "nested deep": b"[" * 100_000 + b"]" * 100_000,
        "nested deep, unclosed": b'{"offset": ' + b"[" * 100_000,
    }


DAMAGE_KINDS = list(damaged({**dict.fromkeys(KEPT_KEYS, 0), "edges": [], "paths": [], "seen": []}))


@pytest.fixture
def kept_session(tmp_path) -> tuple[Path, dict]:
    """A transcript read once (its kept file written), and what was kept."""
    path = tmp_path / "session.jsonl"
    path.write_text(
        line("w1", "Write", "/repo/one.py")
        + line("w2", "Edit", "/repo/two.py")
        + line("w3", "Read", "/repo/read.py")
    )
    answer(path)
    return path, kept_of(path)


@pytest.mark.parametrize("kind", DAMAGE_KINDS)
def test_a_damaged_kept_file_means_a_full_read(kept_session, kind):
    path, data = kept_session
    kept = written_paths.kept_path(path)
    kept.write_bytes(damaged(data)[kind])
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # believed, were it sound

    assert answer(path) == {"/repo/one.py", "/repo/two.py"}
    assert kept_of(path)["offset"] == path.stat().st_size  # replaced by a sound one

    kept.write_bytes(damaged(data)[kind])
    append(path, line("w9", "Write", "/repo/nine.py") + line("u", "Edit", "/repo/u.py"))

    assert answer(path) == {"/repo/one.py", "/repo/two.py", "/repo/nine.py", "/repo/u.py"}
    assert answer(path) == {"/repo/one.py", "/repo/two.py", "/repo/nine.py", "/repo/u.py"}


def lying(data: dict) -> str:
    """``data``, the kept description of its transcript, with a path its transcript never
    named."""
    return json.dumps({**data, "paths": [*data["paths"], "/planted.py"]})


def test_a_sound_private_kept_file_is_believed(kept_session):
    """The control of the tests below: planted where it is trusted, the lie is believed (so
    only their untrusted place can be what rejects it there)."""
    path, data = kept_session
    written_paths.kept_path(path).write_text(lying(data))

    assert "/planted.py" in written_paths.written(path, NAMES)


@pytest.mark.parametrize("how", ["linked", "shared"])
def test_a_kept_file_linked_or_writable_by_others_is_not_believed(kept_session, tmp_path, how):
    path, data = kept_session
    kept = written_paths.kept_path(path)
    plant_kept(kept, lying(data), how, tmp_path / "elsewhere.json")

    assert answer(path) == {"/repo/one.py", "/repo/two.py"}
    assert answer(path) == {"/repo/one.py", "/repo/two.py"}
    assert not kept.is_symlink()
    if how == "linked":
        assert (tmp_path / "elsewhere.json").read_text() == lying(data)  # not written through


def test_a_cache_folder_others_may_write_into_is_not_believed(kept_session, cache):
    path, data = kept_session
    written_paths.kept_path(path).write_text(lying(data))
    cache.chmod(0o777)

    assert answer(path) == {"/repo/one.py", "/repo/two.py"}
    append(path, line("w4", "Write", "/repo/four.py"))
    assert answer(path) == {"/repo/one.py", "/repo/two.py", "/repo/four.py"}


def test_a_cache_folder_that_is_a_link_is_not_believed(kept_session, cache, tmp_path):
    path, data = kept_session
    elsewhere = tmp_path / "elsewhere-cache"
    cache.rename(elsewhere)
    (elsewhere / written_paths.kept_path(path).name).write_text(lying(data))
    cache.symlink_to(elsewhere)

    assert answer(path) == {"/repo/one.py", "/repo/two.py"}
    assert answer(path) == {"/repo/one.py", "/repo/two.py"}


@pytest.mark.parametrize("what", ["a fifo", "a folder", "a dangling link"])
def test_something_else_in_place_of_the_kept_file(kept_session, tmp_path, what):
    path, _ = kept_session
    kept = written_paths.kept_path(path)
    kept.unlink()
    if what == "a fifo":
        os.mkfifo(kept, 0o600)
    elif what == "a folder":
        kept.mkdir(0o700)
    else:
        kept.symlink_to(tmp_path / "nowhere.json")

    assert answer(path) == {"/repo/one.py", "/repo/two.py"}
    append(path, line("w4", "Write", "/repo/four.py"))
    assert answer(path) == {"/repo/one.py", "/repo/two.py", "/repo/four.py"}
    assert not (tmp_path / "nowhere.json").exists()


def test_a_file_in_place_of_the_cache_folder(tmp_path, cache):
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("not a folder")
    path = tmp_path / "session.jsonl"
    path.write_text(line("w1", "Write", "/repo/one.py"))

    assert answer(path) == {"/repo/one.py"}
    assert answer(path) == {"/repo/one.py"}
    assert cache.read_text() == "not a folder"


# -- secrets ---------------------------------------------------------------------------------------


def assert_nowhere_in(cache: Path, *secrets: str) -> None:
    for file in files_in(cache.parent):
        data = file.read_bytes()
        for secret in secrets:
            assert secret.encode() not in data, file


def test_a_secret_in_a_written_path_is_answered_but_never_kept(tmp_path, cache):
    rng = random.Random(23)
    github, aws = token(rng), aws_key(rng)
    path = tmp_path / "session.jsonl"
    path.write_text(
        line("w1", "Write", "/repo/plain.py")
        + line("w2", "Write", f"/repo/leak-{github}.txt")
        + line("w3", "Edit", f"/srv/{aws}/config.py")
    )

    for _ in range(2):
        got = answer(path)
        assert {f"/repo/leak-{github}.txt", f"/srv/{aws}/config.py"} <= got
        assert_nowhere_in(cache, github, aws)
    assert not written_paths.kept_path(path).exists()


def test_a_projects_own_secret_pattern_is_never_kept_either(tmp_path, cache):
    """The rules in use are the project's (``config.load`` adds its ``resume.redact`` patterns):
    what only they find is kept in clear under no rules, and a kept file under other rules is
    not believed."""
    from purlin_resume.core import redact

    path = tmp_path / "session.jsonl"
    path.write_text(line("w1", "Write", "/repo/plain.py") + line("w2", "Write", "/r/acme-7781"))
    try:
        assert answer(path) == {"/repo/plain.py", "/r/acme-7781"}  # built-in rules: kept
        assert written_paths.kept_path(path).exists()
        redact.configure([("acme-id", r"acme-[0-9]{4}")])
        assert answer(path) == {"/repo/plain.py", "/r/acme-7781"}
        assert_nowhere_in(cache, "acme-7781")
    finally:
        redact.configure()


def test_a_secret_appended_later_removes_what_was_kept(tmp_path, cache):
    rng = random.Random(29)
    github = token(rng)
    path = tmp_path / "session.jsonl"
    path.write_text(line("w1", "Write", "/repo/plain.py"))
    answer(path)
    kept = written_paths.kept_path(path)
    assert kept.is_file()

    append(path, line("w2", "Edit", f"/repo/leak-{github}.txt"))

    assert answer(path) == {"/repo/plain.py", f"/repo/leak-{github}.txt"}
    assert not kept.exists()
    assert_nowhere_in(cache, github)
    append(path, line("w3", "Write", "/repo/after.py"))
    assert answer(path) == {"/repo/plain.py", f"/repo/leak-{github}.txt", "/repo/after.py"}
    assert_nowhere_in(cache, github)


def test_a_secret_in_a_line_being_written_then_completed(tmp_path, cache):
    rng = random.Random(31)
    github = token(rng)
    path = tmp_path / "session.jsonl"
    leak = line("w2", "Write", f"/repo/leak-{github}.txt")
    path.write_text(line("w1", "Write", "/repo/plain.py") + leak.rstrip("\n"))

    assert answer(path) == {"/repo/plain.py", f"/repo/leak-{github}.txt"}
    assert_nowhere_in(cache, github)

    append(path, "\n")
    assert answer(path) == {"/repo/plain.py", f"/repo/leak-{github}.txt"}
    assert_nowhere_in(cache, github)


def test_a_secret_in_a_record_uuid_or_a_path_not_answered_is_never_kept(tmp_path, cache):
    rng = random.Random(37)
    in_uuid, in_side, in_read = token(rng), token(rng), aws_key(rng)
    path = tmp_path / "session.jsonl"
    path.write_text(
        line(f"uuid-{in_uuid}", "Write", "/repo/plain.py")
        + line("w2", "Write", f"/repo/{in_side}.py", isSidechain=True)
        + line("w3", "Read", f"/repo/{in_read}.py")
    )

    for _ in range(2):
        assert answer(path) == {"/repo/plain.py"}
        assert_nowhere_in(cache, in_uuid, in_side, in_read)


# -- hostile paths and records ---------------------------------------------------------------------


def test_hostile_paths_and_records_come_back_as_they_are_and_run_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = [
        HOSTILE,
        "/repo/`touch PWNED3`.py",
        "/repo/\x1b[31mred\x1b[0m\x07.py",
        "/repo/ünïcödé/日本語/🙂.py",
        "/repo/quote\"back\\slash'.py",
        "/repo/nul\x00byte.py",
        "/repo/line\u2028separator\u0085.py",
        "/repo/" + "long/" * 3000 + "end.py",
        "-rf --no-preserve-root",
    ]
    path = tmp_path / "session.jsonl"
    text = "".join(line(f"h{i}", "Write", name) for i, name in enumerate(names))
    # A lone surrogate (only an escape can spell one), an escaped tool name and block type.
    surrogate = line("s1", "Edit", "/repo/SURROGATE.py").replace("SURROGATE", "\\ud800")
    escaped = line("e1", "Write", "/repo/escaped.py").replace('"Write"', '"\\u0057rite"')
    block = line("e2", "Edit", "/repo/block.py").replace('"tool_use"', '"tool\\u005fuse"')
    odd = [
        json.dumps(writing("o1", "Write", {"file_path": "", "notebook_path": "/repo/nb.py"})),
        json.dumps(writing("o2", ["Write"], {"file_path": "/repo/odd-name.py"})),
        json.dumps(writing("o3", "Write", ["not", "an", "object"])),
        json.dumps({**writing("o4", "Write", {"file_path": "/repo/odd-id.py"}), "uuid": ["o4"]}),
    ]
    path.write_text(text + surrogate + escaped + block + "\n".join(odd) + "\n")

    first = answer(path)

    assert {*names, "/repo/\ud800.py", "/repo/escaped.py", "/repo/block.py"} <= first
    assert "/repo/nb.py" in first and "/repo/odd-name.py" not in first
    assert answer(path) == first
    append(path, surrogate.replace("s1", "s2").replace("\\ud800", "\\udfff").rstrip("\n"))
    assert answer(path) == first | {"/repo/\udfff.py"}
    append(path, "\n")
    assert answer(path) == first | {"/repo/\udfff.py"}
    for name in ("PWNED", "PWNED2", "PWNED3"):
        assert not (tmp_path / name).exists() and not (ROOT / name).exists()


# -- no transcript, or not one ---------------------------------------------------------------------


def test_no_transcript_a_folder_or_a_binary_file_answer_nothing(tmp_path):
    missing = tmp_path / "missing.jsonl"
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 64 + line("w1", "Write", "/repo/hidden.py").encode())
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")

    for path in (missing, folder, binary, empty):
        assert answer(path) == set(), path
        assert answer(path) == set(), path
    assert not written_paths.kept_path(missing).exists()


def test_a_transcript_whose_name_is_not_utf8(tmp_path):
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/session-\xff\xfe.jsonl"))
    path.write_text(line("w1", "Write", "/repo/one.py"))

    assert written_paths.written(path, NAMES) == full_read(path) == {"/repo/one.py"}
    append(path, line("w2", "Edit", "/repo/two.py"))
    assert written_paths.written(path, NAMES) == full_read(path) == {"/repo/one.py", "/repo/two.py"}


def test_a_fifo_in_place_of_the_transcript_answers_without_waiting(tmp_path):
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from purlin_resume.agents import activity, written_paths\n"
        "print(sorted(written_paths.written(Path(sys.argv[1]), activity.WRITING_TOOLS)))\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(fifo)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=15,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("written() waited on a FIFO for a writer that never comes")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"


# -- other tools asked -----------------------------------------------------------------------------


def test_the_tools_asked_change_between_runs(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_text(
        line("r1", "Read", "/repo/read.py")
        + line("r1", "Write", "/repo/write-repeating-read.py")  # a repeat only when Read is asked
        + line("w1", "Edit", "/repo/edit.py")
    )
    write_only = frozenset({"Write"})
    everything: frozenset[str] = frozenset()  # no names: every tool

    assert answer(path, write_only) == {"/repo/write-repeating-read.py"}
    assert answer(path, NAMES) == {"/repo/write-repeating-read.py", "/repo/edit.py"}
    assert answer(path, everything) == {"/repo/read.py", "/repo/edit.py"}
    assert answer(path, write_only) == {"/repo/write-repeating-read.py"}

    append(path, line("w2", "Write", "/repo/new.py") + line("r2", "Read", "/repo/read2.py"))

    for names in (everything, write_only, NAMES, frozenset({"Read"}), everything):
        assert answer(path, names) == full_read(path, names), names
    assert answer(path, frozenset({"Read"})) == {"/repo/read.py", "/repo/read2.py"}
