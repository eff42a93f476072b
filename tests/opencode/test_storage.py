"""opencode's sessions: its real database (1.18.33), the older JSON files, a damaged database."""

from __future__ import annotations

import json
import os

import pytest

from purlin_resume.agentcli.names import OPENCODE
from purlin_resume.claude import rendering
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.core.errors import PurlinError
from purlin_resume.crosscli import listing
from purlin_resume.opencode import storage
from tests.conftest import without_opening
from tests.other_cli_data import OPENCODE_CHILD, OPENCODE_PARENT, OPENCODE_SHELL, opencode_home


def _listed() -> list:
    """The sessions at opencode's default place, as the product lists them."""
    return listing.sessions(OPENCODE, None)


def _elsewhere(monkeypatch, tmp_path):
    """An empty opencode data folder of its own, at the default place."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return storage.root()


def test_real_sessions_with_the_child_by_parent_id():
    opencode_home()
    listed = {s.id: s for s in _listed()}
    assert len(listed) == 4
    parent, child = listed[OPENCODE_PARENT], listed[OPENCODE_CHILD]
    assert child.parent_id == OPENCODE_PARENT
    assert parent.subagents == 1
    assert child.agent_type == "general"
    assert parent.version == "1.18.33"
    task = next(storage.read(parent).transcript.tool_calls())
    assert (task.name, task.agent_id, task.summary) == ("task", OPENCODE_CHILD, "Count the files")


def test_a_shell_call_with_its_output():
    opencode_home()
    session = next(s for s in _listed() if s.id == OPENCODE_SHELL)
    transcript = storage.read(session, ReadOptions(tools=True)).transcript
    call = next(transcript.tool_calls())
    assert (call.name, call.summary) == ("bash", "git log --oneline")
    assert call.answered
    assert call.result.endswith("start\n")
    assert transcript.final_output == "The project has one commit: start."


def _put(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_the_older_json_file_layout(tmp_path, monkeypatch):
    storage_folder = _elsewhere(monkeypatch, tmp_path) / "storage"
    _put(
        storage_folder / "session/p1/ses_a.json",
        {
            "id": "ses_a",
            "directory": "/w",
            "title": "Old one",
            "version": "0.3.0",
            "time": {"created": 1750000000000, "updated": 1750000100000},
        },
    )
    _put(
        storage_folder / "session/p1/ses_b.json",
        {
            "id": "ses_b",
            "parentID": "ses_a",
            "directory": "/w",
            "title": "child",
            "version": "0.3.0",
            "time": {"created": 1750000050000, "updated": 1750000060000},
        },
    )
    _put(
        storage_folder / "message/ses_a/msg_1.json",
        {"id": "msg_1", "role": "user", "time": {"created": 1750000000000}},
    )
    _put(storage_folder / "part/msg_1/prt_1.json", {"id": "prt_1", "type": "text", "text": "hello"})
    _put(
        storage_folder / "message/ses_a/msg_2.json",
        {"id": "msg_2", "role": "assistant", "time": {"created": 1750000001000}, "summary": True},
    )
    _put(
        storage_folder / "part/msg_2/prt_2.json",
        {"id": "prt_2", "type": "text", "text": "summed up"},
    )
    _put(storage_folder / "part/msg_2/prt_3.json", {"id": "prt_3", "type": "hologram"})
    listed = {s.id: s for s in _listed()}
    assert listed["ses_a"].subagents == 1
    assert listed["ses_b"].parent_id == "ses_a"
    read = storage.read(listed["ses_a"])
    assert read.transcript.first_prompt == "hello"
    assert read.transcript.compactions[0].summary == "summed up"
    assert dict(read.session.stats.unknown_types) == {"part:hologram": 1}
    assert listed["ses_a"].started_at == "2025-06-15T15:06:40.000Z"


def test_a_damaged_database_lists_nothing(tmp_path, monkeypatch):
    folder = _elsewhere(monkeypatch, tmp_path / "data")
    folder.mkdir(parents=True)
    (folder / "opencode.db").write_bytes(b"SQLite format 3\x00" + b"\x00garbage" * 100)
    assert _listed() == []


@pytest.mark.parametrize("suffixes", [("-wal",), ("-shm",), ("-wal", "-shm")])
def test_fifos_beside_the_database_are_never_waited_on(suffixes):
    """SQLite opens the ``-wal`` and ``-shm`` files beside a database itself: FIFOs planted
    there make the read-only open fail (the immutable one then reads the database alone)."""
    folder = opencode_home()
    for suffix in suffixes:
        planted = folder / f"opencode.db{suffix}"
        planted.unlink(missing_ok=True)
        os.mkfifo(planted)
    listed = without_opening(planted, _listed)
    assert OPENCODE_SHELL in {s.id for s in listed}
    session = next(s for s in listed if s.id == OPENCODE_SHELL)
    read = without_opening(planted, lambda: storage.read(session, ReadOptions(tools=True)))
    assert read.transcript.final_output == "The project has one commit: start."


def test_parts_go_to_their_message_whatever_order_the_table_holds_them_in(tmp_path):
    """The real database, with the shell session's rows written again in reverse (the part
    table's order no longer that of the messages) and a message whose JSON is damaged: every
    part still lands in its own turn, in order, and none in the turn before a damaged one."""
    import shutil
    import sqlite3

    shutil.copy(opencode_home() / "opencode.db", tmp_path / "opencode.db")
    with sqlite3.connect(tmp_path / "opencode.db") as db:
        for table in ("part", "message"):
            rows = db.execute(
                f"select * from {table} where session_id = ? order by rowid desc", (OPENCODE_SHELL,)
            ).fetchall()
            db.execute(f"delete from {table} where session_id = ?", (OPENCODE_SHELL,))
            marks = ", ".join("?" * len(rows[0]))
            db.executemany(f"insert into {table} values ({marks})", rows)
    db.close()
    session = next(s for s in storage.listed(tmp_path) if s.id == OPENCODE_SHELL)
    before = storage.read(session, ReadOptions(tools=True)).transcript
    expected = next(s for s in storage.listed(opencode_home()) if s.id == OPENCODE_SHELL)
    original = storage.read(expected, ReadOptions(tools=True)).transcript
    shown = [(t.kind, t.text, [c.summary for c in t.tool_calls]) for t in before.turns]
    assert shown == [(t.kind, t.text, [c.summary for c in t.tool_calls]) for t in original.turns]

    with sqlite3.connect(tmp_path / "opencode.db") as db:
        (first,) = db.execute(
            "select id from message where session_id = ? and data like '%\"assistant\"%' "
            "order by time_created, id limit 1",
            (OPENCODE_SHELL,),
        ).fetchone()
        db.execute("update message set data = '{broken' where id = ?", (first,))
    db.close()
    damaged = storage.read(session, ReadOptions(tools=True))
    assert damaged.session.stats.malformed == 1
    prompt = damaged.transcript.turns[0]
    assert prompt.text.strip('"') == "FIELD-SHELL show the git log"
    assert prompt.tool_calls == []


def _repeated(folder, session_id: str, rounds: int):
    """The real database in ``folder`` with ``session_id``'s messages and parts written again
    ``rounds`` times (fresh ids, later times): a long session of real rows."""
    import shutil
    import sqlite3

    shutil.copy(opencode_home() / "opencode.db", folder / "opencode.db")
    with sqlite3.connect(folder / "opencode.db") as db:
        for table in ("message", "part"):
            db.execute(
                f"create temp table first_{table} as select * from {table} where session_id = ?",
                (session_id,),
            )
        for number in range(1, rounds + 1):
            tag = f"_{number:05d}"
            db.execute(
                "insert into message select id || ?1, session_id, time_created + ?2, "
                "time_updated, data from first_message",
                (tag, number),
            )
            db.execute(
                "insert into part select id || ?1, message_id || ?1, session_id, "
                "time_created + ?2, time_updated, data from first_part",
                (tag, number),
            )
    db.close()
    return next(s for s in storage.listed(folder) if s.id == session_id)


def _turns_alive() -> int:
    import gc

    from purlin_resume.claude.transcript import Turn

    return sum(1 for thing in gc.get_objects() if isinstance(thing, Turn))


def test_a_deferred_reading_holds_no_turn_and_reads_them_again_one_at_a_time(tmp_path):
    """A long session read deferred (as transcript, export, find and sessions read it): its
    turns counted as they are read, none kept; going through them reads them again from the
    database, each gone once the next comes; they are those a reading that keeps them gives."""
    session = _repeated(tmp_path, OPENCODE_SHELL, 200)
    kept = storage.read(session, ReadOptions(tools=True)).transcript
    expected = [(t.kind, t.text, [c.result for c in t.tool_calls]) for t in kept.turns]
    figures = (kept.turn_count, kept.tool_counts(), kept.first_prompt, kept.final_output)
    assert len(expected) > 600
    del kept
    before = _turns_alive()

    read = storage.read(session, ReadOptions(tools=True, deferred=True))
    transcript = read.transcript
    assert _turns_alive() == before  # counted, not kept
    assert read.session.turns == figures[0]
    assert (
        transcript.turn_count,
        transcript.tool_counts(),
        transcript.first_prompt,
        transcript.final_output,
    ) == figures

    seen, most = [], 0
    for number, turn in enumerate(transcript.turns):
        seen.append((turn.kind, turn.text, [c.result for c in turn.tool_calls]))
        if number % 50 == 0:
            most = max(most, _turns_alive() - before)
    assert seen == expected
    assert most <= 5  # the turn in hand and those of its message, never the session's


def test_a_deferred_session_is_redacted_turn_by_turn(cli, tmp_path, monkeypatch):
    """`transcript` and `export` of a long session read deferred: a secret in its first prompt
    (also its title and first prompt in the header) never leaves, and each place it was
    redacted in is counted once."""
    import sqlite3

    from tests.other_cli_data import aws_key

    secret = aws_key()
    folder = opencode_home()
    session = _repeated(tmp_path, OPENCODE_SHELL, 3)
    (folder / "opencode.db").unlink()
    (tmp_path / "opencode.db").rename(folder / "opencode.db")
    with sqlite3.connect(folder / "opencode.db") as db:
        db.execute(
            "update part set data = replace(data, 'FIELD-SHELL show the git log', ?) "
            "where session_id = ? and message_id not like '%\\_0000%' escape '\\'",
            (f"FIELD-SHELL show the git log {secret}", session.id),
        )
    db.close()
    for args in (
        ("transcript", session.id, "--max-chars", "0"),
        ("export", session.id, "--include-tools"),
        ("transcript", session.id, "--json"),
    ):
        result = cli(*args)
        assert result.exit_code == 0, result.output
        assert secret not in result.stdout
        written = result.stdout.count("[REDACTED:")
        assert written >= 1
        assert f"redacted {written} secret(s)" in result.stderr  # each place written, once


def _figures(read) -> tuple:
    transcript = read.transcript
    return (
        transcript.summed,
        [vars(c) for c in transcript.compactions],
        transcript.last_usage_tokens,
        vars(read.session.stats),
        read.session.turns,
        read.session.compactions,
    )


# messages and their parts with values of every JSON type where opencode writes one: what the
# turns add up to depends on each (a prompt with no text and a tool call, a synthetic text,
# interruptions, summaries, unknown types, tool names and file paths of every kind)
_ODD_ROWS = [
    ({"role": "user"}, [{"type": "text", "text": 123}, {"type": "text", "text": " \u3000\n\x1c"}]),
    ({"role": 5}, [{"type": "text", "text": "role five"}, {"type": "hologram"}]),
    ({"role": None}, [{"type": "compaction"}]),
    (
        {"role": "assistant", "tokens": {"total": True}},
        [{"type": "text", "text": "shown?", "synthetic": "yes"}, {"type": "text", "text": "kept"}],
    ),
    (
        {"role": "assistant", "tokens": {"total": 77}, "summary": ""},
        [
            {"type": "tool", "tool": None, "state": "x"},
            {"type": "tool", "tool": {"a": 1}, "state": {"input": ["l"]}},
            {"type": "tool", "tool": ["t"], "state": {"input": {"path": 5}}},
        ],
    ),
    (
        {"role": "assistant", "summary": [], "error": {"name": "MessageAbortedError"}},
        [
            {
                "type": "tool",
                "tool": "Edit",
                "state": {"status": "error", "input": {"filePath": "a"}},
            }
        ],
    ),
    (
        {"role": "assistant", "error": {"name": ["Abort"]}},
        [
            {
                "type": "tool",
                "tool": "Write",
                "state": {"status": "completed", "input": {"file_path": "", "path": "b"}},
            }
        ],
    ),
    ({"role": "user"}, [{"type": "tool", "tool": "read", "state": {"input": {"path": "c"}}}]),
    ({"role": "user", "error": {"name": "Aborted"}}, [{"type": "text", "text": "again"}]),
    ({"role": "assistant", "summary": {"x": 1}}, [{"type": "text", "text": "summed up"}]),
    ({"role": "user"}, [{"type": "compaction", "auto": 0}, {"type": "compaction"}]),
    ({"role": "assistant", "summary": True}, [{"type": "text", "text": "summed again"}]),
    ({"role": "assistant", "tokens": {"total": 10**30}}, [{"type": "text", "text": "last"}]),
    (
        {"role": "assistant", "tokens": {"total": 3.5}},
        [{"type": "text", "text": "x", "synthetic": 1}],
    ),
]


def _with_rows(folder, rows) -> None:
    import shutil
    import sqlite3

    shutil.copy(opencode_home() / "opencode.db", folder / "opencode.db")
    with sqlite3.connect(folder / "opencode.db") as db:
        for number, (message, parts) in enumerate(rows):
            ident, at = f"msg_odd{number:03d}", 1900000000000 + number
            data = message if isinstance(message, str) else json.dumps(message)
            db.execute(
                "insert into message values (?, ?, ?, ?, ?)", (ident, OPENCODE_SHELL, at, at, data)
            )
            for index, part in enumerate(parts):
                data = part if isinstance(part, str) else json.dumps(part)
                row = (f"prt_odd{number:03d}{index}", ident, OPENCODE_SHELL, at, at, data)
                db.execute("insert into part values (?, ?, ?, ?, ?, ?)", row)
    db.close()


@pytest.mark.parametrize("rows", ["none", "odd", "odd and damaged"])
def test_what_a_deferred_reading_counts_is_what_the_turns_add_up_to(tmp_path, rows):
    """A deferred reading counts the turns without making them (SQLite reads the rows): its
    counts, first prompt, final output, files, compactions, usage and skipped records are those
    of the turns a reading that keeps them makes, whatever type each JSON value has, and with
    rows that are no JSON (or no object) among them."""
    from tests.other_cli_data import compaction_home

    damaged = [("{broken", [{"type": "text", "text": "lost"}]), ({"role": "user"}, ["[1]"])]
    added = {"none": [], "odd": _ODD_ROWS, "odd and damaged": _ODD_ROWS + damaged}[rows]
    _with_rows(tmp_path, added)
    listed = storage.listed(tmp_path) + storage.listed(compaction_home("opencode"))
    for session in listed:
        kept = _figures(storage.read(session, ReadOptions()))
        assert _figures(storage.read(session, ReadOptions(deferred=True))) == kept
    shell = _figures(storage.read(next(s for s in listed if s.id == OPENCODE_SHELL)))
    if rows != "none":
        assert shell[0].tools["{'a': 1}"] == 1
        assert "read" not in shell[0].tools  # a prompt that says nothing is no turn
        assert list(shell[0].touched) == ["a", "b"]
        assert list(shell[0].modified) == ["b"]
        assert [c["summary"] for c in shell[1]] == ["summed up", "summed again", None]
        assert shell[2] == 10**30


def test_a_hostile_database_says_so_in_one_line(cli, tmp_path):
    """A part whose tool name or type is an object, then a database without its part table:
    `transcript` and `export` answer without a traceback (the second: one line, exit 1)."""
    import sqlite3

    folder = opencode_home()
    odd = [({"role": "assistant"}, [{"type": "tool", "tool": {"a": 1}}, {"type": {"b": 2}}])]
    _with_rows(tmp_path, odd)
    (tmp_path / "opencode.db").replace(folder / "opencode.db")
    for args in (("transcript", OPENCODE_SHELL, "--max-chars", "0"), ("export", OPENCODE_SHELL)):
        result = cli(*args)
        assert result.exit_code == 0, result.output
        assert "{'a': 1}" in result.stdout
    with sqlite3.connect(folder / "opencode.db") as db:
        db.execute("drop table part")
    db.close()
    result = cli("transcript", OPENCODE_SHELL, "--max-chars", "0")
    assert (result.exit_code, result.stderr.count("\n")) == (1, 1), result.output
    assert result.stderr.endswith("could not be read to the end: no such table: part\n")


def test_a_long_title_is_cut_where_no_secret_is_cut_in_two(tmp_path):
    import sqlite3

    from tests.other_cli_data import aws_key

    secret = aws_key()
    folder = opencode_home()
    with sqlite3.connect(folder / "opencode.db") as db:
        db.execute(
            "update session set title = ? where id = ?",
            ("Fix the deploy with the key " + "x" * 44 + f" {secret} and more", OPENCODE_SHELL),
        )
    db.close()
    title = next(s for s in _listed() if s.id == OPENCODE_SHELL).title
    assert title is not None
    assert title.startswith("Fix the deploy")
    assert secret[:4] not in title


def test_a_database_that_fails_between_counting_and_reading_again_says_so(tmp_path):
    """The turns are counted, then the database loses its part table before they are read
    again: one line naming the database, not a conversation cut short without a word."""
    import sqlite3

    session = _repeated(tmp_path, OPENCODE_SHELL, 20)
    read = storage.read(session, ReadOptions(tools=True, deferred=True))
    assert read.session.stats.unreadable is None
    with sqlite3.connect(session.path) as db:
        db.execute("drop table part")
    db.close()
    with pytest.raises(PurlinError, match="could not be read to the end"):
        list(read.transcript.turns)


def test_a_database_read_only_in_part_says_so_in_the_transcript(tmp_path):
    """What was read is shown, with the line saying why the rest is not."""
    session = _repeated(tmp_path, OPENCODE_SHELL, 2)
    read = storage.read(session, ReadOptions())
    read.session.stats.unreadable = "the opencode database could not be read to the end: locked"
    shown = rendering.header(read.transcript)
    assert "- Read in part: the opencode database could not be read to the end: locked" in shown
    assert "- Turns: " in shown
