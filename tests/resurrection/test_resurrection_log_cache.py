"""``resurrections`` and ``resurrections stats`` read the resurrection log through a cache in the
user cache folder: the same output as reading the log whole, whatever happened to the log or to
the cache in between, and no secret in the cache in clear."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest

from purlin_resume.resurrection import log as resurrection_log
from tests.core.test_redact import PLANTED
from tests.resurrection.test_resurrection_log_history import _big_log, _entry

READS = [
    ("resurrections",),
    ("resurrections", "stats"),
    ("resurrections", "stats", "--json"),
]


def _cache_folder() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "purlin-resume"


def _cache_file() -> Path:
    found = list(_cache_folder().glob("resurrections-*.cache"))
    assert len(found) == 1, found
    return found[0]


def _run(cli, claude: Path, *args: str) -> tuple[str, str]:
    result = cli(*args, "--claude-dir", str(claude))
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def _read_as_kept_and_whole(cli, claude: Path) -> list[tuple[str, str]]:
    """Every read through the cache, checked against the same read of the whole log (the
    reading without the cache, as before it: the reference)."""
    from purlin_resume.cli import resurrections

    shown = []
    for args in READS:
        kept = _run(cli, claude, *args)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(resurrections, "_kept", lambda *_: None)
            whole = _run(cli, claude, *args)
        assert kept == whole, args
        shown.append(kept)
    return shown


def _log_with_everything(claude: Path, lines: int = 1500) -> Path:
    """A real-writer log with revisions, corrupt lines, a revision whose entry is gone and a last
    line cut short."""
    log = _big_log(claude, lines)
    rows = log.read_bytes().splitlines()
    rows[20:20] = [b"{broken", b"", b"[1, 2]", b'{"not": "\xff utf-8"}']
    orphan = json.loads(rows[5]) | {"outcome": "failure", "outcome_reason": "gone", "revision": 3}
    orphan["resurrection_id"] = "res-2025-12-31-001"
    rows.insert(40, json.dumps(orphan).encode())
    log.write_bytes(b"\n".join(rows) + b'\n{"resurrection_id":"res-2026-02-01-001","outc')
    return log


def test_kept_reads_are_the_whole_reads_as_the_log_grows(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _log_with_everything(claude)
    first = _read_as_kept_and_whole(cli, claude)  # the cache is made
    assert "4 line(s)" in first[0][1] and len(first[0][0].splitlines()) == 1501
    assert _cache_file().stat().st_mode & 0o777 == 0o600
    assert _cache_folder().stat().st_mode & 0o777 == 0o700
    kept = _cache_file().read_bytes()
    assert _read_as_kept_and_whole(cli, claude) == first  # read from it
    assert _cache_file().read_bytes() == kept  # nothing new: not written again

    with open(log, "ab") as handle:  # the cut line is completed
        handle.write(b'ome":"success"}\n')
    rid = json.loads(log.read_bytes().splitlines()[700])["resurrection_id"]
    _run(cli, claude, "resurrect", "done", rid, "--outcome", "failure", "--reason", "crashed")
    added = resurrection_log.append(log, _entry(resurrection_mode="fuzzy"))["resurrection_id"]
    grown = _read_as_kept_and_whole(cli, claude)
    assert grown != first and grown[0][0].startswith(f"{added}  ")
    assert "failure (crashed)" in grown[0][0] and len(grown[0][0].splitlines()) == 1503
    assert "3 line(s)" in grown[0][1]  # the cut line, completed, parses
    assert _cache_file().read_bytes() != kept  # extended


def test_a_truncated_or_rewritten_log_is_read_again(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 800)
    _read_as_kept_and_whole(cli, claude)
    rows = log.read_bytes().splitlines(keepends=True)

    log.write_bytes(b"".join(rows[:300]))  # truncated (same inode)
    assert len(_read_as_kept_and_whole(cli, claude)[0][0].splitlines()) == 300

    shorter = [row.replace(b'"outcome":"success"', b'"outcome":"partial"') for row in rows]
    log.write_bytes(b"".join(shorter[:290]) + b"".join(rows[290:]))  # rewritten, then longer
    assert "partial" in _read_as_kept_and_whole(cli, claude)[0][0]

    kept = log.read_bytes()  # rewritten in place at the same size
    changed = kept.replace(b'"resurrection_mode":"fuzzy"', b'"resurrection_mode":"fuzzz"', 1)
    assert len(changed) == len(kept)
    stamp = log.stat().st_mtime_ns
    log.write_bytes(changed)
    os.utime(log, ns=(stamp + 10**9, stamp + 10**9))
    assert "fuzzz" in _read_as_kept_and_whole(cli, claude)[0][0]

    replaced = log.with_name("new.jsonl")  # another file under the same name
    replaced.write_bytes(b"".join(rows[:5]))
    replaced.replace(log)
    assert len(_read_as_kept_and_whole(cli, claude)[0][0].splitlines()) == 5

    log.unlink()
    assert _run(cli, claude, "resurrections")[0] == f"No resurrections in {log}.\n"


def _forge(cache: Path, old: bytes, new: bytes) -> None:
    """Change the kept lines (same length) and fix their checksum: a cache that would be
    believed."""
    head, _, body = cache.read_bytes().partition(b"\n")
    header = json.loads(head)
    length = header["sections"]["lines"][0]
    lines = body[:length].replace(old, new)
    assert len(lines) == length and lines != body[:length]
    header["sections"]["lines"][1] = zlib.crc32(lines)
    cache.write_bytes(json.dumps(header).encode() + b"\n" + lines + body[length:])


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: b"{not json",
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1],
        lambda data: data.replace(b" tokens", b" tokenz", 1),  # checksum no longer matches
        lambda data: data.replace(b'"count":', b'"count":1', 1),
        lambda data: data.replace(b'"places":{}', b'"places":{"3":[0,99999999]}', 1),
        lambda data: data + b"\x00" * 10,
    ],
)
def test_a_damaged_cache_is_never_fatal_and_is_rebuilt(cli, tmp_path, damage):
    claude = tmp_path / "claude"
    _big_log(claude, 300)
    first = _read_as_kept_and_whole(cli, claude)
    cache = _cache_file()
    cache.write_bytes(damage(cache.read_bytes()))
    assert _read_as_kept_and_whole(cli, claude) == first
    assert _read_as_kept_and_whole(cli, claude) == first  # from the rebuilt cache


def test_a_believable_cache_is_read_only_when_it_is_this_users_own_file(cli, tmp_path):
    claude = tmp_path / "claude"
    _big_log(claude, 200)
    [(shown, _), *_] = _read_as_kept_and_whole(cli, claude)
    cache = _cache_file()
    _forge(cache, b"direct", b"FORGED")
    assert "FORGED" in _run(cli, claude, "resurrections")[0]  # own file: believed

    if os.geteuid() == 0:  # another user's file in the folder: not read, replaced
        os.chown(cache, 4242, 4242)
        assert _run(cli, claude, "resurrections")[0] == shown
        assert cache.stat().st_uid == os.geteuid()
        _forge(cache, b"direct", b"FORGED")

    forged = tmp_path / "forged.cache"  # a symbolic link: not followed, replaced
    cache.replace(forged)
    cache.symlink_to(forged)
    before = forged.read_bytes()
    assert _run(cli, claude, "resurrections")[0] == shown
    assert not cache.is_symlink() and forged.read_bytes() == before

    cache.unlink()  # a FIFO where the cache was: not opened for reading
    os.mkfifo(cache)
    assert _run(cli, claude, "resurrections")[0] == shown


def test_no_secret_is_kept_in_clear_and_the_output_is_redacted_as_before(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 200)
    secrets = [PLANTED["github-token"], PLANTED["anthropic-key"], PLANTED["aws-access-key"]]
    planted = [
        _entry(outcome="failure", outcome_reason=f"the agent printed {secrets[0]}"),
        _entry(resurrected_from_agent_id=secrets[1], resurrected_as_agent_id=None),
        _entry(resurrection_mode="fuzzy", query=f"key {secrets[2]}", resurrected_as_agent_id=None),
        _entry(resurrected_from_agent_type=secrets[0]),
    ]
    for entry in planted:
        resurrection_log.append(log, entry)
    rid = resurrection_log.append(log, _entry())["resurrection_id"]
    resurrection_log.complete(log, rid, {"outcome": "failure", "outcome_reason": secrets[2]})
    for _ in range(2):  # made, then read
        shown = _read_as_kept_and_whole(cli, claude)
        kept = _cache_file().read_bytes()
        for secret in secrets:
            assert secret.encode() not in kept
            assert all(secret not in out and secret not in err for out, err in shown)
        assert "redacted" in shown[0][1] and "[REDACTED:" in shown[0][0]
    raw = cli("--no-redact", "resurrections", "--claude-dir", str(claude))
    assert secrets[0] in raw.stdout and secrets[2] in raw.stdout  # not from the cache


def test_the_projects_own_rules_are_honoured_over_the_cache(cli, tmp_path, repo):
    claude = tmp_path / "claude"
    log = _big_log(claude, 100)
    resurrection_log.append(log, _entry(outcome="failure", outcome_reason="ticket ACME-123456"))
    assert "ACME-123456" in _read_as_kept_and_whole(cli, claude)[0][0]
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "config.json").write_text(
        json.dumps(
            {"resume": {"redact": {"extra": [{"kind": "ticket", "pattern": "ACME-[0-9]+"}]}}}
        )
    )
    shown = _read_as_kept_and_whole(cli, claude)
    assert "ACME-123456" not in shown[0][0] and "[REDACTED:ticket:" in shown[0][0]
    assert b"ACME-123456" not in _cache_file().read_bytes()


def test_an_unwritable_cache_folder_only_means_the_log_is_read(cli, tmp_path):
    claude = tmp_path / "claude"
    _big_log(claude, 100)
    _cache_folder().parent.mkdir(parents=True, exist_ok=True)
    _cache_folder().write_text("a file where the folder would be")
    first = _read_as_kept_and_whole(cli, claude)
    assert len(first[0][0].splitlines()) == 100


def test_a_folder_where_the_log_should_be_is_one_clear_line(cli, tmp_path):
    claude = tmp_path / "claude"
    (claude / "history" / resurrection_log.FILE_NAME).mkdir(parents=True)
    for args in READS:
        result = cli(*args, "--claude-dir", str(claude))
        assert result.exit_code == 1 and "is a folder, not a file" in result.stderr
        assert "Traceback" not in result.stderr


def test_the_console_script_records_and_reads_through_the_cache(tmp_path):
    """As a hook or a user runs it: a process each (only the command that runs is built)."""
    import subprocess
    import sys

    claude = tmp_path / "claude"
    log = _big_log(claude, 300)
    rid = json.loads(log.read_bytes().splitlines()[-1])["resurrection_id"]
    script = Path(sys.executable).with_name("purlin-resume")

    def run(*args: str) -> str:
        done = subprocess.run(
            [str(script), *args, "--claude-dir", str(claude)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    before = run("resurrections", "stats", "--json")
    assert run("resurrect", "done", rid, "--outcome", "failure", "--reason", "oom") == (
        f"{rid}: failure\n"
    )
    listed = run("resurrections")
    assert listed.startswith(f"{rid}  ") and "failure (oom)" in listed.splitlines()[0]
    after = json.loads(run("resurrections", "stats", "--json"))
    assert after != json.loads(before)
    assert {"reason": "oom", "count": 1} in after["top_failure_reasons"]
    assert _cache_file().exists()


def test_revisions_appended_later_find_their_entry_whatever_its_id(cli, tmp_path):
    """An id written twice (logs merged by hand), ids with quotes, commas, backslashes and
    non-ASCII text: a revision appended after the cache was made belongs, as ``History`` has it,
    to the newest line that allocated its id."""
    claude = tmp_path / "claude"
    log = _big_log(claude, 120)
    odd = [
        'res-"quoted"',
        "res-b",
        'res-a","res-b',
        "res-back\\slash",
        "res-ünïcode-→",
        "res-2026-01-01-005",
    ]
    rows = [
        json.dumps(_entry(resurrection_id=rid, resurrected_at="2026-01-02T00:00:00Z"))
        for rid in odd
    ]
    with open(log, "a") as handle:
        handle.write("\n".join(rows) + "\n")
    _read_as_kept_and_whole(cli, claude)
    revised = [
        json.dumps(
            _entry(resurrection_id=rid, outcome="failure", outcome_reason=f"r{n}") | {"revision": 2}
        )
        for n, rid in enumerate([*odd, 'res-a"', "res-never-allocated"])
    ]
    with open(log, "a") as handle:
        handle.write("\n".join(revised) + "\n")
    [(shown, _), *_] = _read_as_kept_and_whole(cli, claude)
    for n in range(len(odd)):
        assert f"failure (r{n})" in shown
    assert shown.count("res-2026-01-01-005  ") == 2  # the older of the two is left as it was
    *_, newer, older = shown.splitlines()  # revisions of no entry stand last, newest first
    assert "failure (r7)" in newer and "failure (r6)" in older


def test_believable_facts_out_of_range_are_read_past_when_extending(cli, tmp_path):
    """A facts section whose checksum holds but whose codes point past its tables."""
    claude = tmp_path / "claude"
    log = _big_log(claude, 150)
    first = _read_as_kept_and_whole(cli, claude)
    cache = _cache_file()
    head, _, body = cache.read_bytes().partition(b"\n")
    header = json.loads(head)
    lines_length, facts_length = (header["sections"][name][0] for name in ("lines", "facts"))
    facts = body[lines_length : lines_length + facts_length]
    facts = facts[:-4] + b"\xff\xff\xff\x7f"  # the last code of the last column
    header["sections"]["facts"][1] = zlib.crc32(facts)
    rest = body[lines_length + facts_length :]
    cache.write_bytes(json.dumps(header).encode() + b"\n" + body[:lines_length] + facts + rest)
    resurrection_log.append(log, _entry(resurrection_mode="bookmark"))
    grown = _read_as_kept_and_whole(cli, claude)
    assert len(grown[0][0].splitlines()) == len(first[0][0].splitlines()) + 1
