"""Pieces rendered ahead on the other core (``claude/prerendering``): a transcript written with
the helper is byte for byte the one written without it, on real transcripts and hostile ones,
with the same redactions reported, whatever the helper does (fails, dies, is never started); it
leaves no process and no file behind."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from purlin_resume.claude import prerendering
from purlin_resume.cli import transcript_run
from tests.claude.test_transcript_streaming import DOV_SESSION, conversations
from tests.claude_records import Conversation, text, tool, write_jsonl
from tests.conftest import FIXTURES, no_children_left
from tests.secret_corpus import corpus

SESSION = "a4ead000-0000-4000-8000-000000000001"
FIXTURES_SESSION = FIXTURES / "projects" / "-home-marco-projects-spotter" / "short.jsonl"
MODES = {
    "tools": ("--include-tools",),
    "thinking": ("--include-thinking",),
    "both": ("--include-tools", "--include-thinking"),
}


@pytest.fixture
def served(monkeypatch):
    """Render ahead whatever the size; count the turns whose pieces the helper gave."""
    monkeypatch.setattr(prerendering, "AHEAD_BYTES", 0)
    monkeypatch.setattr(prerendering, "CHUNK_BYTES", 1 << 16)  # many chunks on small sessions
    given = {"turns": 0, "helpers": 0}
    original_turn, original_start = prerendering.Ahead.turn, prerendering.start

    def turn(self, value):
        pieces = original_turn(self, value)
        given["turns"] += pieces is not None
        return pieces

    def start(*args, **kwargs):
        ahead = original_start(*args, **kwargs)
        given["helpers"] += ahead is not None
        return ahead

    monkeypatch.setattr(prerendering.Ahead, "turn", turn)
    monkeypatch.setattr(prerendering, "start", start)
    return given


@pytest.fixture
def private_temp(tmp_path, monkeypatch):
    """The temporary folder the helper's spool files and long transcripts go to."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


def both_ways(cli, monkeypatch, root: Path, args: tuple[str, ...], out: Path | None = None):
    """(stdout, stderr, file) of ``args`` run alone, then with the helper (the caller's
    ``served`` fixture makes it start)."""
    results = []
    for ahead in (False, True):
        with monkeypatch.context() as patch:
            if not ahead:
                patch.setattr(prerendering, "AHEAD_BYTES", 1 << 62)
            extra = ("-o", str(out)) if out is not None else ()
            result = cli(*args, "--claude-dir", str(root), *extra)
            assert result.exit_code == 0, result.stderr
            written = out.read_bytes() if out is not None else b""
            results.append((result.stdout_bytes, result.stderr, written))
    return results


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_fixture_conversation_is_written_the_same_with_the_helper(
    cli, monkeypatch, fixtures_copy, served, private_temp, mode
):
    identifiers = conversations(fixtures_copy)
    assert DOV_SESSION in identifiers
    for identifier in identifiers:
        alone, ahead = both_ways(
            cli,
            monkeypatch,
            fixtures_copy,
            ("transcript", identifier, *MODES[mode], "--max-chars", "0"),
        )
        assert ahead == alone, identifier
    assert served["helpers"] >= len(identifiers) and served["turns"] > 100
    assert no_children_left()
    assert [p for p in private_temp.rglob("*") if not p.is_dir()] == []  # no spool file stays


@pytest.mark.parametrize(
    "args",
    [
        ("transcript", DOV_SESSION, "--include-tools", "--include-thinking"),  # digest + file
        ("transcript", DOV_SESSION, "--include-tools", "--include-thinking", "--max-chars", "0"),
        ("export", DOV_SESSION, "--format", "md", "--include-tools", "--include-thinking"),
        ("export", DOV_SESSION, "--format", "md", "--include-tools", "--no-redact"),
    ],
    ids=["digest", "whole", "export-md", "export-md-no-redact"],
)
def test_every_way_of_writing_is_the_same_with_the_helper(
    cli, monkeypatch, fixtures_copy, served, private_temp, args
):
    alone, ahead = both_ways(cli, monkeypatch, fixtures_copy, args)
    assert ahead[:2] == alone[:2]
    out = private_temp / "out.md"
    alone, ahead = both_ways(cli, monkeypatch, fixtures_copy, args, out)
    assert ahead == alone
    assert served["turns"] > 0
    overflow = [p for p in private_temp.rglob("*") if p.is_file()]
    assert all(p.name.startswith("transcript-") or p == out for p in overflow)


def hostile(root: Path) -> Path:
    """A session with what the helper could get wrong: escapes and ``$(…)`` in outputs, lone
    surrogates, a result for no call, a repeated record, a tool type spelled with escapes, a
    huge result, deep input, an input that is no object, empty thinking, planted secrets."""
    secrets = corpus(7)
    convo = Conversation(SESSION)
    nested: dict = {"leaf": "bottom"}
    for _ in range(300):
        nested = {"down": nested}
    repeated = convo.result("toolu_2", "first answer")
    records = [
        convo.user("start \x1b[31m $(touch /tmp/pwned) `id`"),
        convo.assistant(
            "msg_1",
            {"type": "thinking", "thinking": "the key is " + secrets[0].line},
            {"type": "thinking", "thinking": "   "},
            tool("toolu_1", "Bash", command="echo $(cat ~/.ssh/id_rsa)\n" + secrets[1].line),
            tool("toolu_2", "Write", file_path="/tmp/x", content="\ud800 half " + secrets[2].line),
        ),
        convo.result("toolu_1", "\x1b]52;c;ZXZpbA==\x07 out\r\n" + secrets[3].line),
        repeated,
        repeated,  # the same uuid again: skipped by the reading
        convo.result("toolu_unknown", "an answer to no call"),
        convo.assistant("msg_2", tool("toolu_3", "Query", tree=nested)),
        convo.result("toolu_3", "x" * 3_000_000),
        convo.assistant(
            "msg_3", {"type": "tool_use", "id": "toolu_4", "name": "Odd", "input": ["not", "dict"]}
        ),
        convo.result("toolu_4", [{"type": "text", "text": "list result"}, {"type": "image"}]),
        convo.assistant("msg_4", text("done " + secrets[4].line)),
    ]
    path = write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    escaped = convo.assistant("msg_5", tool("toolu_5", "Bash", command="spelled otherwise"))
    line = json.dumps(escaped).replace('"tool_use"', '"tool\\u005fuse"')
    with path.open("a") as out:
        out.write(line + "\n")
        out.write(json.dumps(convo.result("toolu_5", "answer to the escaped call")) + "\n")
    return path


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_hostile_transcript_is_written_the_same_with_the_helper(
    cli, monkeypatch, tmp_path, served, private_temp, mode
):
    root = tmp_path / "claude"
    hostile(root)
    args = ("transcript", SESSION, *MODES[mode], "--max-chars", "0")
    alone, ahead = both_ways(cli, monkeypatch, root, args)
    assert ahead == alone
    assert served["turns"] > 0
    shown = ahead[0].decode()
    for planted in corpus(7)[:5]:
        assert planted.secret not in shown
    if "tools" in mode or mode == "both":
        assert "answer to the escaped call" in shown and "\ufffd half" in shown
        assert shown.count('"down": {') == 300


def test_a_helper_that_dies_at_its_job_changes_nothing(
    cli, monkeypatch, fixtures_copy, served, private_temp
):
    parent = os.getpid()
    original = prerendering._piece
    made = {"pieces": 0}

    def dying(block, clean, kinds):
        made["pieces"] += 1
        if os.getpid() != parent and made["pieces"] > 50:
            os.kill(os.getpid(), signal.SIGKILL)
        return original(block, clean, kinds)

    monkeypatch.setattr(prerendering, "_piece", dying)
    args = ("transcript", DOV_SESSION, "--include-tools", "--include-thinking", "--max-chars", "0")
    alone, ahead = both_ways(cli, monkeypatch, fixtures_copy, args)
    assert ahead == alone
    assert served["turns"] > 0
    assert no_children_left()


def test_a_helper_that_fails_every_batch_changes_nothing(
    cli, monkeypatch, fixtures_copy, served, private_temp
):
    def failing(payload: bytes):
        raise RuntimeError("the helper cannot redact this")

    monkeypatch.setattr(transcript_run, "_checked_payload", failing)
    args = ("transcript", DOV_SESSION, "--include-tools", "--include-thinking", "--max-chars", "0")
    alone, ahead = both_ways(cli, monkeypatch, fixtures_copy, args)
    assert ahead == alone and served["turns"] > 0


def test_without_fork_the_transcript_is_written_alone(cli, monkeypatch, fixtures_copy, served):
    monkeypatch.delattr(os, "fork")
    args = ("transcript", DOV_SESSION, "--include-tools", "--max-chars", "0")
    alone, ahead = both_ways(cli, monkeypatch, fixtures_copy, args)
    assert ahead == alone and served["helpers"] == 0


def test_a_small_transcript_needs_no_helper(fixtures_copy):
    small = next(fixtures_copy.rglob("short.jsonl"))
    assert not prerendering.worth_it(small)
    assert not prerendering.worth_it(fixtures_copy / "missing.jsonl")
    assert not prerendering.worth_it(None)


def test_lone_surrogates_are_written_as_replacement_characters(cli, tmp_path):
    root = tmp_path / "claude"
    convo = Conversation(SESSION)
    records = [
        convo.user("hello \ud800 there"),
        convo.assistant("msg_1", tool("toolu_1", "Bash", command="echo \udc00")),
        convo.result("toolu_1", "cut emoji \ud83d"),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    target = tmp_path / "out"
    for args in (
        ("transcript", SESSION, "--include-tools", "--max-chars", "0"),
        ("transcript", SESSION, "--include-tools", "--json"),
        ("export", SESSION, "--include-tools"),
        ("export", SESSION, "--format", "md", "--include-tools", "-o", str(target)),
    ):
        result = cli(*args, "--claude-dir", str(root))
        assert result.exit_code == 0, (args, result.stderr)
        written = target.read_bytes() if "-o" in args else result.stdout_bytes
        shown = written.decode("utf-8")  # valid UTF-8
        assert "hello \ufffd there" in shown and "cut emoji \ufffd" in shown


def big_session(root: Path, fixtures: Path, megabytes: int) -> str:
    """A session of ``megabytes`` MB: the real 3 MB one repeated, each copy with fresh ids (as
    the benchmarks make theirs), so that a whole process renders it ahead on its own."""
    import re

    source = next(fixtures.rglob(f"{DOV_SESSION}.jsonl")).read_bytes().splitlines(keepends=True)
    uuid = re.compile(rb"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{4}")
    api = re.compile(rb"\b((?:msg|toolu|req)_[A-Za-z0-9]{8,})")
    identifier = "b16b16b1-0000-4000-8000-00000000000b"
    target = root / "projects" / "-bench-big" / f"{identifier}.jsonl"
    target.parent.mkdir(parents=True)
    with target.open("wb") as out:
        copy = 0
        while out.tell() < megabytes << 20:
            tag = b"%04x" % copy
            for line in source:
                line = uuid.sub(lambda m, tag=tag: m.group(1) + tag, line)
                out.write(api.sub(lambda m, copy=copy: m.group(1) + b"r%d" % copy, line))
            copy += 1
    return identifier


def test_a_whole_process_on_a_big_session_writes_what_one_process_alone_writes(
    cli, monkeypatch, fixtures_copy, tmp_path
):
    import subprocess
    import sys

    root = tmp_path / "big"
    identifier = big_session(root, fixtures_copy, 9)
    assert prerendering.worth_it(next(root.rglob("*.jsonl")))
    flags = ("--include-tools", "--include-thinking")
    monkeypatch.setattr(prerendering, "AHEAD_BYTES", 1 << 62)
    alone = cli("transcript", identifier, *flags, "--max-chars", "0", "--claude-dir", str(root))
    assert alone.exit_code == 0, alone.stderr
    target = tmp_path / "out.md"
    command = [sys.executable, "-m", "purlin_resume", "transcript", identifier, *flags]
    command += ["--claude-dir", str(root)]
    to_file = subprocess.run([*command, "-o", str(target)], capture_output=True, timeout=300)
    assert to_file.returncode == 0, to_file.stderr.decode()
    assert target.read_bytes() == alone.stdout_bytes
    to_pipe = subprocess.run([*command, "--max-chars", "0"], capture_output=True, timeout=300)
    assert to_pipe.returncode == 0 and to_pipe.stdout == alone.stdout_bytes
    assert to_pipe.stderr.decode() == alone.stderr


@pytest.mark.parametrize("utf8", [False, True])
def test_batches_redacted_by_the_helper_are_the_batches_redacted_here(
    monkeypatch, private_temp, utf8
):
    """Secrets, lone surrogates and clean text in batches the helper redacts: the same text
    and counts as here (its answers are used: more than one batch is handed to it)."""
    from purlin_resume.cli.common import Redaction
    from purlin_resume.core.store import encoded

    secrets = corpus(11)
    pieces = []
    for number in range(300):
        body = "clean text, nothing to see\n" * 200
        if number % 3 == 0:
            body += secrets[number % len(secrets)].line + "\n"
        if number % 7 == 0:
            body += "half a character \ud83d here\n"
        pieces.append(body)
    monkeypatch.setattr(prerendering, "AHEAD_BYTES", 0)
    monkeypatch.setattr(prerendering.helpers, "MAX_OUTSTANDING", 10_000)  # it takes them all
    ahead = transcript_run._start_ahead(FIXTURES_SESSION, True, True)
    assert ahead is not None
    answered = []
    original = ahead.helper.answer

    def answer(ticket):
        got = original(ticket)
        answered.append(got is not None)
        return got

    ahead.helper.answer = answer
    try:
        while ahead.helper.job_running:
            ahead.helper.more(wait=True)
        here, there = Redaction(), Redaction()
        alone = [encoded(t) for t in transcript_run._redacted_batches(pieces, here)]
        helped = [
            t if isinstance(t, bytes) else encoded(t)
            for t in transcript_run._redacted_batches(pieces, there, ahead, utf8=utf8)
        ]
    finally:
        ahead.close()
    assert helped == alone and there.text == here.text and sum(here.text.values()) >= 10
    assert len(answered) == len(alone) > 5 and all(answered)
    assert no_children_left()
