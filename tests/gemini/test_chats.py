"""Gemini CLI chats: the real ones (0.61.0), rewinds, rewrites, the legacy JSON form, bad input."""

from __future__ import annotations

import json
import os

import pytest

from purlin_resume.agentcli.names import GEMINI
from purlin_resume.claude.transcript import COMPACTION, ReadOptions
from purlin_resume.crosscli import listing, sources
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.gemini import chats
from tests.conftest import without_opening
from tests.other_cli_data import (
    GEMINI_CHILD,
    GEMINI_PARENT,
    GEMINI_SHELL,
    gemini_home,
    gemini_home_from,
)


def _listed():
    gemini_home()
    return {s.id: s for s in listing.sessions(GEMINI, None)}


def test_real_chats_with_the_subagent_nested_under_its_parent():
    listed = _listed()
    parent, child = listed[GEMINI_PARENT], listed[GEMINI_CHILD]
    assert child.parent_id == GEMINI_PARENT
    assert parent.subagents == 1
    assert child.path.parent.name == GEMINI_PARENT
    assert parent.project_path == "/tmp/purlin-field-record/gemini/project"
    assert all(s.stats.unknown == 0 and s.stats.malformed == 0 for s in listed.values())
    spawn = next(chats.read(chats.parts(parent.path)).transcript.tool_calls())
    assert (spawn.name, spawn.agent_id) == ("invoke_agent", GEMINI_CHILD)


def test_an_opened_chat_has_the_folder_its_listing_names(cli):
    listed = _listed()[GEMINI_PARENT]
    exported = cli("export", GEMINI_PARENT[:8])
    assert exported.exit_code == 0, exported.stderr
    assert json.loads(exported.stdout)["project_path"] == listed.project_path


def test_a_tool_call_written_again_counts_once_with_its_result():
    session = _listed()[GEMINI_SHELL]
    transcript = chats.read(chats.parts(session.path), options=ReadOptions(tools=True)).transcript
    calls = list(transcript.tool_calls())
    assert [(c.name, c.summary) for c in calls] == [("run_shell_command", "git log --oneline")]
    assert calls[0].answered
    assert "start" in calls[0].result
    assert transcript.final_output == "The project has one commit: start."
    assert session.tokens == 264


def _chat(tmp_path, records, name="session-2026-01-01T10-00-abcd1234.jsonl"):
    path = tmp_path / ".gemini/tmp/proj/chats" / name
    path.parent.mkdir(parents=True)
    text = (
        json.dumps(records)
        if name.endswith(".json")
        else "".join(json.dumps(r) + "\n" for r in records)
    )
    path.write_text(text)
    return path


def _message(ident, kind, text):
    return {
        "id": ident,
        "timestamp": "2026-01-01T10:00:00.000Z",
        "type": kind,
        "content": [{"text": text}],
    }


def test_a_rewind_drops_the_message_and_all_after_it(tmp_path):
    path = _chat(
        tmp_path,
        [
            {"sessionId": "s1", "projectHash": "h", "startTime": "2026-01-01T10:00:00.000Z"},
            _message("m1", "user", "first"),
            _message("m2", "gemini", "answer one"),
            _message("m3", "user", "second"),
            {"$rewindTo": "m2"},
            _message("m4", "gemini", "answer two"),
            {"$set": {"summary": "A chat"}},
        ],
    )
    read = chats.read([path])
    assert [t.text for t in read.transcript.turns] == ["first", "answer two"]
    assert read.session.id == "s1"
    assert read.session.title == "A chat"


def test_the_legacy_json_form(tmp_path):
    path = _chat(
        tmp_path,
        {
            "sessionId": "s2",
            "projectHash": "h",
            "startTime": "2026-01-01T10:00:00.000Z",
            "lastUpdated": "2026-01-01T10:05:00.000Z",
            "messages": [_message("m1", "user", "hello"), _message("m2", "gemini", "hi")],
        },
        name="session-2026-01-01T10-00-s2.json",
    )
    read = chats.read([path])
    assert [t.text for t in read.transcript.turns] == ["hello", "hi"]
    assert read.session.ended_at == "2026-01-01T10:05:00.000Z"


def test_hostile_records_are_counted(tmp_path):
    path = _chat(
        tmp_path,
        [
            {"sessionId": "s3", "projectHash": "h"},
            {"id": "m1", "type": "hologram", "content": []},
            {"id": "m2", "type": "gemini", "content": 5, "toolCalls": "none", "tokens": []},
            {"weird": True},
            _message("m3", "user", "still read"),
        ],
    )
    path.write_bytes(path.read_bytes() + b'{"id": "m4", "typ')
    read = chats.read([path])
    assert dict(read.session.stats.unknown_types) == {"message:hologram": 1, "weird": 1}
    assert read.session.stats.truncated
    assert read.transcript.first_prompt == "still read"


def test_a_fifo_is_not_opened(tmp_path):
    folder = gemini_home() / "tmp/project/chats"
    fifo = folder / "session-2026-11-27T09-00-ffffffff.jsonl"
    os.mkfifo(fifo)
    listed = without_opening(fifo, lambda: listing.sessions(GEMINI, None))
    assert any(s.stats.unreadable == "not a regular file" for s in listed)


def test_a_compression_keeps_the_turns_before_it_and_marks_a_compaction(tmp_path):
    """The record /compress (or an automatic compression) leaves, as Gemini CLI 0.61.0 writes
    it: the chat started again through ``$set`` with the summary as a user message, the CLI's
    fixed answer, and the messages kept; resuming writes that list once more."""
    summary = _message("s1", "user", "<state_snapshot>the user counted files</state_snapshot>")
    answer = _message("s2", "gemini", chats.COMPRESSION_ACK)
    kept = _message("m4", "gemini", "answer two")
    after = [_message("m5", "user", "third"), _message("m6", "gemini", "answer three")]
    path = _chat(
        tmp_path,
        [
            {"sessionId": "s5", "projectHash": "h", "startTime": "2026-01-01T10:00:00.000Z"},
            _message("m1", "user", "first"),
            _message("m2", "gemini", "answer one"),
            _message("m3", "user", "second"),
            kept,
            {"$set": {"messages": [summary, answer, kept]}},
            *after,
            {"$set": {"messages": [summary, answer, kept, *after]}},  # a resume
        ],
    )
    read = chats.read([path])
    turns = read.transcript.turns
    assert [t.text for t in turns] == [
        "first",
        "answer one",
        "second",
        "<state_snapshot>the user counted files</state_snapshot>",
        "answer two",
        "third",
        "answer three",
    ]
    assert turns[3].kind == COMPACTION
    (compaction,) = read.transcript.compactions
    assert compaction.summary == "<state_snapshot>the user counted files</state_snapshot>"
    assert read.session.compactions == 1
    assert read.session.turns == 6


def test_records_with_fields_of_the_wrong_type_are_read_past(tmp_path):
    from purlin_resume.claude import export, rendering

    path = _chat(
        tmp_path,
        [
            {"sessionId": "s4", "projectHash": "h", "summary": ["not", "text"]},
            {"$rewindTo": ["m0"]},
            {"$rewindTo": {"id": "m0"}},
            _message("m1", "user", "first prompt"),
            {"id": "m2", "type": ["gemini"], "content": "odd"},
            {
                "id": "m3",
                "type": "gemini",
                "timestamp": "9999-12-31T23:59:59-01:00",
                "content": [{"text": "the answer"}],
                "toolCalls": [{"id": "c1", "name": ["invoke_agent"], "args": {}}],
            },
            _message("m4", "user", "second prompt"),
        ],
    )
    read = chats.read([path], options=ReadOptions(tools=True))
    assert read.session.stats.unknown_types == {"message:['gemini']": 1}
    markdown, _ = rendering.render(read.transcript, rendering.MarkdownOptions(tools=True))
    assert "the answer" in markdown
    assert export.document(read.transcript)["original_prompt"] == "first prompt"


def test_a_rewind_names_its_message_as_the_messages_are_kept(tmp_path):
    path = _chat(
        tmp_path,
        [
            {"sessionId": "s5", "projectHash": "h"},
            _message(1, "user", "kept"),
            _message(2, "user", "dropped"),
            {"$rewindTo": 2},
        ],
    )
    assert [t.text for t in chats.read([path]).transcript.turns] == ["kept"]


def test_a_legacy_json_file_that_is_compressed_or_damaged_is_one_line(tmp_path):
    import zstandard

    path = _chat(tmp_path, {"sessionId": "s6", "messages": []}, "session-2026-01-01T10-00-x.json")
    path.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    assert chats.read([path]).session.id == "s6"
    path.write_bytes(path.read_bytes()[:8] + b"damaged")
    assert chats.read([path]).session.stats.unreadable == "not readable: ZstdError"


def test_a_chat_without_its_id_up_front_is_found_by_the_id_inside_it():
    """A first line that is not the chat's metadata (cut short, or a message): the chat is read
    through for its id, never listed under its file name alone."""
    folder = gemini_home() / "tmp/project/chats"
    path = next(folder.glob(f"session-*-{GEMINI_SHELL[:8]}.jsonl"))
    path.write_text('{"broken\n' + path.read_text())
    assert crosscli.located(GEMINI_SHELL).path == path


def test_a_session_resumed_in_a_later_minute_is_one_session_of_two_files():
    """The real CLI resumed in a later minute: a second file with the metadata and context only,
    the conversation going on in the first."""
    folder = gemini_home_from("gemini-resumed") / "tmp/project/chats"
    files = sorted(folder.glob("session-*"))
    assert len(files) == 2
    assert files[0].name[-14:] == files[1].name[-14:]
    [session] = listing.sessions(GEMINI, None)
    assert session.size == sum(f.stat().st_size for f in files)
    assert session.compactions == 1
    assert crosscli.located(session.id).id == session.id
    text = [t.text for t in chats.read(chats.parts(files[1])).transcript.turns]
    assert sum("FIELD-AGAIN" in t for t in text) == 1
    assert sum("FIELD-SUMMARY" in t for t in text) == 1
    before = sources.sources((GEMINI,))
    with files[1].open("a") as chat:
        chat.write('{"$set":{"lastUpdated":"2026-12-01T00:00:00.000Z"}}\n')
    assert sources.sources((GEMINI,)) != before
    assert chats.read(chats.parts(files[0])).session.ended_at == "2026-12-01T00:00:00.000Z"


def test_a_later_file_that_repeats_the_conversation_is_read_alone(tmp_path, monkeypatch):
    first = [{"sessionId": "abcd1234-0000", "startTime": "2026-01-01T10:00:00.000Z"}]
    first += [_message("a", "user", "hello"), _message("b", "gemini", "hi")]
    again = {**_message("c", "user", "more"), "timestamp": "2026-01-01T10:01:30.000Z"}
    _chat(tmp_path, first)
    later = _chat(tmp_path / "x", [*first, again], "session-2026-01-01T10-01-abcd1234.jsonl")
    later.rename(tmp_path / ".gemini/tmp/proj/chats" / later.name)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    [session] = listing.sessions(GEMINI, None)
    turns = [t.text for t in chats.read(chats.parts(session.path)).transcript.turns]
    assert turns == ["hello", "hi", "more"]


def _resumed():
    """The real session resumed in a later minute (two files), its chats folder and files."""
    folder = gemini_home_from("gemini-resumed") / "tmp/project/chats"
    return folder, sorted(folder.glob("session-*"))


def test_a_second_file_cut_short_mid_line_is_reported(cli):
    """The merged read counts what it skipped in every file of the session, not only the one
    it resumes."""
    folder, files = _resumed()
    [clean] = listing.sessions(GEMINI, None)
    assert clean.path == files[0]  # the file holding the conversation is the one read out
    with files[1].open("a") as chat:
        chat.write('{"$set": {"summary": "cut')
    [session] = listing.sessions(GEMINI, None)
    assert session.stats.malformed == 1
    assert session.stats.truncated
    assert session.stats.lines == clean.stats.lines + 1
    assert session.turns == clean.turns
    shown = cli("sessions", "--all", "--cli", GEMINI)
    assert shown.exit_code == 0, shown.stderr
    assert "[1 line(s) skipped]" in shown.stdout
    assert "- Skipped: 1 malformed line(s)" in cli("transcript", session.id).stdout
    exported = json.loads(cli("export", session.id).stdout)
    assert exported["skipped"]["malformed_lines"] == 1


@pytest.mark.parametrize("how", ["fifo", "link to a fifo"])
def test_a_fifo_named_like_a_second_file_stands_alone_unopened(cli, tmp_path, how):
    """Named like a later file of the session, a FIFO (or a link to one) is never merged into
    it nor opened: it is listed on its own line, marked not readable, as Codex's are."""
    folder, files = _resumed()
    [clean] = listing.sessions(GEMINI, None)
    planted = folder / files[0].name.replace("T02-32", "T02-40")
    fifo = tmp_path / "pipe" if how != "fifo" else planted
    os.mkfifo(fifo)
    if fifo != planted:
        planted.symlink_to(fifo)
    listed = {s.id: s for s in without_opening(fifo, lambda: listing.sessions(GEMINI, None))}
    session, alone = listed[clean.id], listed[planted.stem]
    assert (session.size, session.turns, session.stats) == (clean.size, clean.turns, clean.stats)
    assert alone.stats.unreadable == "not a regular file"
    assert alone.turns == 0
    lines = without_opening(fifo, lambda: cli("sessions", "--all", "--cli", GEMINI)).stdout
    assert "not readable" not in lines.split(clean.id)[1].split("\n")[0]
    assert "[not readable: not a regular file]" in lines.split(planted.stem)[1].split("\n")[0]
    shown = without_opening(fifo, lambda: cli("transcript", clean.id))
    assert shown.exit_code == 0, shown.stderr
    assert "FIELD-AGAIN" in shown.stdout


def test_a_link_leading_nowhere_named_like_a_second_file_stands_alone():
    folder, files = _resumed()
    [clean] = listing.sessions(GEMINI, None)
    planted = folder / files[0].name.replace("T02-32", "T02-40")
    planted.symlink_to("gone.jsonl")
    listed = {s.id: s for s in listing.sessions(GEMINI, None)}
    assert (listed[clean.id].exists, listed[clean.id].size) == (True, clean.size)
    assert not listed[planted.stem].exists


def test_a_folder_named_like_a_chat_file_is_no_part_of_the_session():
    folder, files = _resumed()
    (folder / files[0].name.replace("T02-32", "T02-40")).mkdir()
    [session] = listing.sessions(GEMINI, None)
    assert session.size == sum(f.stat().st_size for f in files)
    assert session.stats.unreadable is None
    assert chats.parts(files[0]) == files


def test_chat_files_in_a_subagents_folder_are_each_one_chat():
    """Gemini CLI writes a subagent's chat to ``chats/<parent id>/<its id>.jsonl``: every file
    there is a chat of its own, even named like a session's (never merged with another)."""
    folder = gemini_home() / "tmp/project/chats" / GEMINI_PARENT
    planted = []
    for minute, ident in (("40", "abcd1234-0000-a"), ("41", "abcd1234-0000-b")):
        path = folder / f"session-2026-11-27T08-{minute}-abcd1234.jsonl"
        records = [
            {"sessionId": ident, "kind": "subagent", "startTime": f"2026-11-27T08:{minute}:00Z"},
            _message(f"m{minute}", "user", f"task {minute}"),
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        planted.append(path)
    listed = {s.id: s for s in listing.sessions(GEMINI, None)}
    for path, ident in zip(planted, ("abcd1234-0000-a", "abcd1234-0000-b"), strict=True):
        child = listed[ident]
        assert child.parent_id == GEMINI_PARENT
        assert (child.path, child.size, child.turns) == (path, path.stat().st_size, 1)
        assert chats.parts(path, GEMINI_PARENT) == [path]
    assert listed[GEMINI_PARENT].subagents == 3
    opened = crosscli.open_conversation("abcd1234-0000-a")
    assert opened.conversation.transcript.first_prompt == "task 40"
