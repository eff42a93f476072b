"""A line that is JSON but for bytes that are not UTF-8 (a tool's output cut inside a
character, a damaged disk) is read with those bytes as U+FFFD, by every reader of Claude Code
transcripts: its record, often a whole turn, is kept."""

from __future__ import annotations

import json
from pathlib import Path

from purlin_resume.claude import records, signatures, subagents
from purlin_resume.claude.catalog import Catalog, leading_summaries
from purlin_resume.claude.transcript import ReadOptions, read
from tests.claude_records import Conversation, independent_counts, text, tool
from tests.conftest import FIXTURES

SMALL = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"  # real, Claude Code 1.0.98
LAST_ANSWER = b"created a basic"  # in the session's last line only
BAD = b"\xff"
SHOWN = "created a \ufffd basic"


def _written(path: Path, said: list[dict]) -> Path:
    """``said`` as Claude Code writes it (compact JSON), each ``MARK`` a byte not UTF-8."""
    path.parent.mkdir(parents=True)
    lines = (json.dumps(r, separators=(",", ":")).encode().replace(b"MARK", BAD) for r in said)
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _damaged(tmp_path: Path) -> Path:
    """The real session alone in a Claude data folder, a byte that is not UTF-8 put in its last
    answer (as the trial did with sed)."""
    root = tmp_path / "claude"
    folder = root / "projects" / "-x"
    folder.mkdir(parents=True)
    source = FIXTURES / "projects" / "-path-to-Demo" / f"{SMALL}.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    assert LAST_ANSWER in lines[-1]
    assert not any(LAST_ANSWER in line for line in lines[:-1])
    lines[-1] = lines[-1].replace(LAST_ANSWER, b"created a " + BAD + b" basic")
    (folder / source.name).write_bytes(b"".join(lines))
    return root


def test_export_and_transcript_keep_the_turn(cli, tmp_path):
    """Regression: the line was malformed: 7 turns of 8, the one before as final output."""
    root = _damaged(tmp_path)
    turns = independent_counts(FIXTURES / "projects" / "-path-to-Demo" / f"{SMALL}.jsonl")

    document = json.loads(cli("export", "1af7", "--claude-dir", str(root)).stdout)
    markdown = cli("transcript", "1af7", "--claude-dir", str(root)).stdout

    assert document["turns"] == turns["turns"] == 8
    assert document["skipped"]["malformed_lines"] == 0
    assert document["final_output"].startswith(f"I've {SHOWN} CLAUDE.md file")
    assert SHOWN in markdown
    assert "Skipped" not in markdown


def test_sessions_find_and_resurrect_see_the_turn(cli, tmp_path):
    root = _damaged(tmp_path)
    claude = ("--claude-dir", str(root))

    [listed] = json.loads(cli("sessions", "--all", "--json", *claude).stdout)["sessions"]
    found = json.loads(cli("find", "placeholders", "--json", *claude).stdout)  # in it only
    prompt = cli("resurrect", "--session", "1af7", "--yes", *claude)

    assert (listed["turns"], listed["malformed_lines"]) == (8, 0)
    assert [hit["session_id"] for hit in found["results"]] == [SMALL]
    assert prompt.exit_code == 0, prompt.stderr
    assert SHOWN in prompt.stdout


def test_a_tool_input_read_back_from_the_file_keeps_its_line(cli, tmp_path):
    """``--include-tools`` reads inputs and results back from the file by offset (``Lines``)."""
    root = tmp_path / "claude"
    talk = Conversation("44444444-dddd-4000-8000-000000000004", cwd="/srv/demo")
    said = [
        talk.user("show the notes"),
        talk.assistant("msg_1", tool("toolu_1", "Bash", command="cat notes-MARK.txt")),
        talk.result("toolu_1", "caf MARK au lait"),
    ]
    _written(root / "projects" / "-srv-demo" / f"{talk.session_id}.jsonl", said)

    shown = cli("transcript", "4444", "--include-tools", "--claude-dir", str(root)).stdout

    assert "cat notes-\ufffd.txt" in shown
    assert "caf \ufffd au lait" in shown


def test_every_line_reader_parses_such_a_line(tmp_path):
    """The readers that parse lines of their own (the first record, the last ones, the main
    thread's tool calls, leading summaries, a call's state, 1.0.x inline roots) as ``read``."""
    talk = Conversation("55555555-eeee-4000-8000-000000000005", cwd="/srv/MARK", version="1.0.98")
    said = [
        {"type": "summary", "summary": "Notes MARK", "leafUuid": "gone"},
        talk.user("read the MARK notes"),
        talk.assistant("msg_1", tool("toolu_1", "Task", prompt="look MARK", description="d")),
        talk.user("look MARK", isSidechain=True, parentUuid=None),
        talk.result("toolu_1", "found MARK"),
        talk.assistant("msg_2", text("done MARK")),
    ]
    path = _written(tmp_path / "projects" / "-srv" / f"{talk.session_id}.jsonl", said)
    root = said[3]["uuid"]

    assert records.first_record(path)["cwd"] == "/srv/\ufffd"
    assert records.tail(path)[-1]["message"]["content"][0]["text"] == "done \ufffd"
    assert [c["id"] for c in records.main_tool_uses(path, ("Task",))] == ["toolu_1"]
    assert leading_summaries(path) == [("gone", "Notes \ufffd")]
    state = subagents.call_state(path, "toolu_1")
    assert state.made
    assert state.result is not None
    assert Catalog(tmp_path).resolve(root[:20]).id == root
    main = read(path, talk.session_id, ReadOptions()).main
    assert (main.stats.malformed, main.final_output) == (0, "done \ufffd")


def _as_an_older_release(monkeypatch) -> None:
    """Read as a release before this reading: such a line malformed, another ``READING``."""
    monkeypatch.setattr(records, "parsed", json.loads)
    monkeypatch.setattr(signatures, "READING", "reading 1")


def test_a_session_kept_by_an_older_reading_is_read_again(cli, tmp_path, monkeypatch):
    """The ``sessions`` listing an older release kept (7 turns, a malformed line) is not
    believed once the files are read otherwise, though they did not change."""
    root = _damaged(tmp_path)
    claude = ("--claude-dir", str(root))
    with monkeypatch.context() as older:
        _as_an_older_release(older)
        [kept] = json.loads(cli("sessions", "--all", "--json", *claude).stdout)["sessions"]
        assert (kept["turns"], kept["malformed_lines"]) == (7, 1)

    [listed] = json.loads(cli("sessions", "--all", "--json", *claude).stdout)["sessions"]

    assert (listed["turns"], listed["malformed_lines"]) == (8, 0)


def test_the_search_index_of_an_older_reading_is_brought_up_to_date(cli, tmp_path, monkeypatch):
    root = _damaged(tmp_path)
    claude = ("--claude-dir", str(root))
    with monkeypatch.context() as older:
        _as_an_older_release(older)
        assert json.loads(cli("find", "placeholders", "--json", *claude).stdout)["results"] == []

    found = json.loads(cli("find", "placeholders", "--json", *claude).stdout)

    assert [hit["session_id"] for hit in found["results"]] == [SMALL]
