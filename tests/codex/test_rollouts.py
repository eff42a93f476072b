"""Codex CLI rollouts: the real ones (0.171.0), compressed ones, the older format, bad input."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import zstandard

from purlin_resume.agentcli.names import CODEX
from purlin_resume.claude.transcript import COMPACTION, INTERRUPTION, NOTIFICATION, ReadOptions
from purlin_resume.codex import rollouts
from purlin_resume.crosscli import listing
from tests.conftest import without_opening
from tests.other_cli_data import (
    CODEX_CHILD,
    CODEX_PARENT,
    CODEX_SHELL,
    CODEX_STOPPED,
    codex_home,
    rollout,
)


def _listed() -> list:
    """The threads at ``$CODEX_HOME``'s default place (the fixtures), as the product lists them."""
    codex_home()
    return listing.sessions(CODEX, None)


def test_real_rollouts_list_with_children_linked_by_parent_thread_id():
    listed = {s.id: s for s in _listed()}
    assert set(listed) == {CODEX_PARENT, CODEX_CHILD, CODEX_SHELL, CODEX_STOPPED}
    parent, child = listed[CODEX_PARENT], listed[CODEX_CHILD]
    assert child.parent_id == CODEX_PARENT
    assert parent.subagents == 1
    assert parent.version == "0.171.0"
    assert parent.git_branch == "main"
    assert parent.project_path == "/tmp/purlin-field-record/codex/project"
    assert parent.tokens == 396
    assert parent.stats.unknown == 0
    assert parent.stats.malformed == 0
    assert parent.title == "FIELD-PARENT ask a child agent to count the files"


def test_a_shell_call_its_output_and_the_answer():
    read = rollouts.read(CODEX_SHELL, rollout(CODEX_SHELL), ReadOptions(tools=True))
    calls = list(read.transcript.tool_calls())
    assert [(c.name, c.summary) for c in calls] == [("exec_command", "git log --oneline")]
    assert calls[0].answered
    assert "start" in calls[0].result
    assert read.transcript.final_output == "The project has one commit: start."
    assert read.transcript.first_prompt == "FIELD-SHELL show the git log"
    # in the order they were written: the call (its result with it), then the answer
    agent = [t for t in read.transcript.turns if t.role == "agent"]
    assert [(bool(t.tool_calls), t.text) for t in agent] == [
        (True, ""),
        (False, "The project has one commit: start."),
    ]


def test_spawn_names_the_child_and_the_child_knows_its_session():
    parent = rollouts.read(CODEX_PARENT, rollout(CODEX_PARENT)).transcript
    spawn = next(c for c in parent.tool_calls() if c.name == "spawn_agent")
    assert spawn.agent_id == CODEX_CHILD
    assert NOTIFICATION in [t.kind for t in parent.turns]
    child = rollouts.read(CODEX_CHILD, rollout(CODEX_CHILD)).transcript
    assert child.session_id == CODEX_PARENT
    assert child.agent_id == CODEX_CHILD


def test_an_interrupted_turn_ends_with_an_interruption():
    turns = rollouts.read(CODEX_STOPPED, rollout(CODEX_STOPPED)).transcript.turns
    assert [t.kind for t in turns] == ["prompt", INTERRUPTION]


def test_a_cold_rollout_compressed_with_zstd_reads_as_the_plain_one():
    plain = rollout(CODEX_SHELL)
    expected = rollouts.read(CODEX_SHELL, plain).transcript.turns
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    assert [s.id for s in _listed()].count(CODEX_SHELL) == 1  # plain wins
    plain.unlink()
    listed = {s.id: s for s in _listed()}
    assert listed[CODEX_SHELL].path == packed
    assert rollouts.read(CODEX_SHELL, packed).transcript.turns == expected


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_older_format_without_envelopes(tmp_path):
    thread = "0b1c2d3e-0000-4000-8000-000000000001"
    path = _write(
        tmp_path / "sessions/2025/05/01" / f"rollout-2025-05-01T10-00-00-{thread}.jsonl",
        [
            {"id": thread, "timestamp": "2025-05-01T10:00:00.000Z", "instructions": None},
            {"record_type": "state"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["ls", "-la"]}),
            },
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": {"content": "total 0", "success": True},
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Empty."}],
            },
        ],
    )
    read = rollouts.read(thread, path, ReadOptions(tools=True))
    call = next(read.transcript.tool_calls())
    assert (call.name, call.summary, call.result) == ("shell", "ls -la", "total 0")
    assert read.transcript.final_output == "Empty."
    assert read.session.stats.unknown == 0


def test_compaction_and_unknown_records_are_named(tmp_path):
    thread = "0b1c2d3e-0000-4000-8000-000000000002"
    stamp = "2026-11-01T10:00:00.000Z"
    path = _write(
        tmp_path / f"rollout-x-{thread}.jsonl",
        [
            {"timestamp": stamp, "type": "session_meta", "payload": {"id": thread, "cwd": "/p"}},
            {"timestamp": stamp, "type": "compacted", "payload": {"message": "the summary"}},
            {"timestamp": stamp, "type": "hologram", "payload": {}},
            {"timestamp": stamp, "type": "response_item", "payload": {"type": "telepathy"}},
        ],
    )
    read = rollouts.read(thread, path)
    assert [t.kind for t in read.transcript.turns] == [COMPACTION]
    assert read.transcript.compactions[0].summary == "the summary"
    assert dict(read.session.stats.unknown_types) == {"hologram": 1, "response_item:telepathy": 1}


def test_hostile_lines_are_counted_never_fatal(tmp_path):
    source = rollout(CODEX_SHELL)
    path = tmp_path / source.name
    lines = source.read_bytes().splitlines(keepends=True)
    bad = [
        b'{"timestamp": 5, "type": "response_item", "payload": [1, 2]}\n',
        b'{"timestamp": "x", "type": "response_item", "payload": {"type": "message", "content": 7}}\n',
        b"[1, 2, 3]\n",
        b'{"type": "event_msg", "payload": {"type": "token_count", "info": "many"}}\n',
        b'{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"'
        + b"y" * (4 << 20)
        + b'"}]}}\n',
    ]
    path.write_bytes(b"".join(lines[:5] + bad + lines[5:]) + b'{"type": "event_m')
    read = rollouts.read(CODEX_SHELL, path)
    stats = read.session.stats
    assert stats.malformed == 2
    assert stats.truncated
    assert stats.unknown_types["response_item"] == 1  # a payload that is no object
    assert read.transcript.final_output == "The project has one commit: start."
    assert any(len(t.text) == 4 << 20 for t in read.transcript.turns)


def test_a_fifo_is_not_read_and_a_link_out_is_followed(tmp_path):
    day = rollout(CODEX_SHELL).parent
    fifo = day / "rollout-2026-11-27T09-00-00-0b1c2d3e-0000-4000-8000-00000000000f.jsonl"
    os.mkfifo(fifo)
    outside = tmp_path / "elsewhere.jsonl"
    shutil.copy(rollout(CODEX_SHELL), outside)
    link = day / "rollout-2026-11-27T09-00-01-0b1c2d3e-0000-4000-8000-00000000000e.jsonl"
    link.symlink_to(outside)
    listed = {s.id: s for s in without_opening(fifo, _listed)}
    assert listed["0b1c2d3e-0000-4000-8000-00000000000f"].stats.unreadable == "not a regular file"
    linked = listed["0b1c2d3e-0000-4000-8000-00000000000e"]  # the id its name gives
    assert linked.stats.unreadable is None
    assert linked.turns == listed[CODEX_SHELL].turns > 0


def test_thread_names_from_the_session_index():
    home = codex_home()
    (home / "session_index.jsonl").write_text(
        json.dumps({"id": CODEX_SHELL, "thread_name": "Git log", "updated_at": "x"}) + "\n"
    )
    listed = {s.id: s for s in _listed()}
    assert listed[CODEX_SHELL].title == "Git log"


UPSTREAM = Path(__file__).resolve().parents[1] / "fixtures" / "codex-upstream"


@pytest.mark.parametrize(
    ("fixture", "said"),
    [
        ("rollout_copy_paste_local_image.json", "pasted image"),
        ("rollout_drag_drop_image.json", "dropped image"),
    ],
)
def test_codex_own_image_prompt_records(fixture, said):
    """The records Codex's own tests keep for a prompt with an image, as the next prompt of a
    real rollout: one prompt turn, its text and the image marked."""
    path = rollout(CODEX_SHELL)
    payload = json.loads((UPSTREAM / fixture).read_text())
    record = {"timestamp": "2026-11-27T09:00:00.000Z", "type": "response_item", "payload": payload}
    with path.open("a") as handle:
        handle.write(json.dumps(record) + "\n")
    read = rollouts.read(CODEX_SHELL, path)
    last = read.transcript.turns[-1]
    assert last.role == "user"
    assert said in last.text
    assert "[image]" in last.text
    assert read.session.stats.unknown == 0
    assert read.session.stats.malformed == 0


def _long_rollout(folder: Path, older: bool, thread: str, cwd: Path) -> Path:
    """A rollout of either record format with the working folder ``cwd``, a first prompt and
    5,000 more records after them."""
    stamp = "2025-08-01T10:00:00.000Z"
    context = {
        "type": "message",
        "role": "user",
        "content": [
            {
                "type": "input_text",
                "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>",
            }
        ],
    }
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
    answer = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "done"}],
    }
    if older:
        records = [{"id": thread, "timestamp": stamp, "instructions": None}, context, prompt]
        records += [answer] * 5000
    else:
        meta = {"id": thread, "cwd": str(cwd), "cli_version": "0.171.0"}
        records = [{"timestamp": stamp, "type": "session_meta", "payload": meta}]
        records += [
            {"timestamp": stamp, "type": "response_item", "payload": item}
            for item in [context, prompt] + [answer] * 5000
        ]
    name = f"rollout-2025-08-01T10-00-00-{thread}.jsonl"
    return _write(folder / "sessions/2025/08/01" / name, records)


@pytest.mark.parametrize("older", [True, False], ids=["older format", "newer format"])
def test_a_threads_head_tells_its_folder_and_title_from_its_first_records(tmp_path, older):
    thread = "0b1c2d3e-0000-4000-8000-00000000000" + ("a" if older else "b")
    project = tmp_path / ("older" if older else "newer")
    path = _long_rollout(tmp_path, older, thread, project)
    head = rollouts.head(thread, path, tmp_path)
    assert head.project_path == str(project)
    assert head.title == "go"
    assert head.stats.lines <= 4
    whole = rollouts.read(thread, path).session
    assert (whole.project_path, whole.title) == (head.project_path, head.title)
    assert whole.stats.lines > 5000
    (tmp_path / "session_index.jsonl").write_text(
        json.dumps({"id": thread, "thread_name": "named"}) + "\n"
    )
    assert rollouts.head(thread, path, tmp_path).title == "named"


_CALL = {"type": "function_call", "call_id": "c1", "arguments": "{}"}


@pytest.mark.parametrize(
    "odd",
    [
        {"type": [1], "payload": {}},
        {"type": "response_item", "payload": {"type": [1]}},
        {"type": "response_item", "payload": {**_CALL, "name": ["spawn_agent"]}},
        {"type": "response_item", "payload": {**_CALL, "name": {"n": 1}}},
        {"timestamp": "0001-01-01T00:00:00+01:00", "type": "event_msg", "payload": {}},
    ],
    ids=["type", "item type", "name list", "name object", "time"],
)
def test_a_record_with_fields_of_the_wrong_type_is_read_past(tmp_path, odd):
    from purlin_resume.claude import export, rendering

    source = rollout(CODEX_SHELL)
    path = tmp_path / source.name
    lines = source.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:5], json.dumps(odd).encode() + b"\n", *lines[5:]]))

    read = rollouts.read(CODEX_SHELL, path, ReadOptions(tools=True, thinking=True))

    assert read.transcript.final_output == "The project has one commit: start."
    markdown, _ = rendering.render(read.transcript, rendering.MarkdownOptions(True, True))
    assert "The project has one commit" in markdown
    assert export.document(read.transcript, tools=True)["turns"] == read.session.turns


def test_a_title_is_cut_where_no_secret_is_cut_in_two(tmp_path):
    token = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"  # a GitHub token's shape, 40 characters
    prompt = "x" * 60 + " " + token
    path = tmp_path / f"rollout-2026-01-01T00-00-00-{CODEX_SHELL}.jsonl"
    path.write_text(
        json.dumps({"type": "session_meta", "payload": {"id": CODEX_SHELL, "cwd": "/w"}})
        + "\n"
        + json.dumps(
            {
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": prompt},
            }
        )
        + "\n"
    )
    title = rollouts.read(CODEX_SHELL, path).session.title
    assert title is not None
    assert token[:12] not in title
    assert title.startswith("x" * 60)
