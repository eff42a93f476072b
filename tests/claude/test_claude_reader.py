"""The transcript reader against real Claude Code files and synthetic edge cases."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purlin_resume.claude import export, layout, rendering
from purlin_resume.claude.catalog import Catalog, open_target
from purlin_resume.claude.transcript import ReadOptions, read
from purlin_resume.core.errors import NotFound, PurlinError
from tests.claude_records import (
    Conversation,
    independent_counts,
    recorded_session_id,
    text,
    tool,
    write_jsonl,
)
from tests.conftest import FIXTURES, without_opening

DEMO = "projects/-path-to-Demo"
DOV = "projects/-home-USER-projects-spotter-worktrees-spotter-dov"
DOV_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
DEMO_SESSION = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"


def fixture_sessions() -> list[Path]:
    if not FIXTURES.is_dir():
        return []
    return sorted(
        path
        for path in (FIXTURES / "projects").glob("*/*.jsonl")
        if not path.name.startswith("agent-")
    )


def fixture_agents() -> list[Path]:
    if not FIXTURES.is_dir():
        return []
    return sorted((FIXTURES / "projects").glob("*/*/subagents/agent-*.jsonl"))


@pytest.mark.parametrize("path", fixture_sessions(), ids=lambda p: p.name)
def test_every_fixture_session_counts_match_an_independent_scan(path):
    expected = independent_counts(path)
    main = read(path, path.stem).main
    assert main.turn_count == expected["turns"]
    assert dict(main.tool_counts()) == expected["tools"]
    assert len(main.compactions) == expected["compactions"]
    assert main.stats.malformed == expected["malformed"]


@pytest.mark.parametrize("path", fixture_agents(), ids=lambda p: p.name)
def test_every_fixture_agent_file_counts_match_an_independent_scan(path):
    expected = independent_counts(path, sidechains=True)
    main = read(path, path.stem, split_sidechains=False).main
    assert main.turn_count == expected["turns"]
    assert dict(main.tool_counts()) == expected["tools"]


def test_fixture_sessions_list_their_subagents_and_compactions(fixtures_copy):
    sessions = {s.id: s for s in Catalog(fixtures_copy).sessions()}
    assert set(sessions) == {recorded_session_id(p) for p in fixture_sessions()}
    for session in sessions.values():
        folder = session.path.parent / session.id / "subagents"
        files = list(folder.glob("agent-*.jsonl")) if folder.is_dir() else []
        expected_agents = sum(1 for f in files if not f.name.startswith("agent-acompact"))
        roots = 0
        for line in session.path.read_bytes().splitlines():
            record = json.loads(line)
            roots += bool(record.get("isSidechain") and record.get("parentUuid") is None)
        assert session.subagents == expected_agents + roots, session.id
        assert session.turns == independent_counts(session.path)["turns"]


def test_demo_1_0_98_yields_its_five_inline_subagents_linked_by_prompt(fixtures_copy):
    catalog = Catalog(fixtures_copy)
    view = catalog.view(catalog.resolve(DEMO_SESSION).session)
    agents = list(view.all_subagents())
    assert len(agents) == 5
    tasks = {
        block["id"]: block["input"]
        for line in (fixtures_copy / DEMO / f"{DEMO_SESSION}.jsonl").read_bytes().splitlines()
        for block in (json.loads(line).get("message") or {}).get("content") or []
        if isinstance(block, dict) and block.get("name") == "Task"
    }
    for agent in agents:
        assert agent.layout == "inline"
        assert agent.linked_by == "prompt"
        assert agent.tool == "Task"
        assert agent.status == "completed"
        assert tasks[agent.tool_use_id]["prompt"].strip() == agent.prompt.strip()
        assert agent.description == tasks[agent.tool_use_id]["description"]
        assert agent.turns > 0
    assert sorted(a.description for a in agents) == sorted(t["description"] for t in tasks.values())


def test_2_1_39_subagent_a2898e3_is_linked_to_its_task_call(fixtures_copy):
    opened = open_target(Catalog(fixtures_copy), "a2898e3")
    agent = opened.subagent
    assert agent.id == "a2898e3"
    assert agent.tool == "Task"
    assert agent.tool_use_id == "toolu_017pLRuPHYTX5t99EnLyV53m"
    assert agent.agent_type == "Explore"
    assert agent.status == "completed"
    assert agent.tokens == 76365
    assert agent.layout == "subagents-folder"
    assert opened.transcript.turn_count == independent_counts(agent.path, sidechains=True)["turns"]


def test_2_1_39_compaction_has_its_summary_and_its_run(fixtures_copy):
    view = open_target(Catalog(fixtures_copy), DOV_SESSION).view
    (compaction,) = view.main.compactions
    assert compaction.trigger == "auto"
    assert compaction.pre_tokens == 170251
    assert compaction.summary.startswith("This session is being continued")
    assert compaction.agent_id == "acompact-e1f845"
    assert [n.id for n in view.all_subagents()] == ["a2898e3"]  # the run is not an agent


def test_split_assistant_records_are_one_turn_and_duplicates_are_dropped(tmp_path):
    c = Conversation("11111111-aaaa")
    first = c.assistant("msg_1", text("Looking."))
    records = [
        c.user("Do it"),
        first,
        c.assistant("msg_1", tool("t1", "Read", file_path="/a.py")),
        c.assistant("msg_1", tool("t2", "Grep", pattern="x")),
        first,  # the same uuid again
        c.result("t1", "contents"),
        c.result("t2", "matches"),
    ]
    main = read(write_jsonl(tmp_path / "s.jsonl", records), "s").main
    assert main.turn_count == 2
    assert [len(t.tool_calls) for t in main.turns] == [0, 2]
    assert main.turns[1].text == "Looking."
    assert main.stats.duplicates == 1
    assert main.files_touched() == ["/a.py"]


def test_truncated_last_line_is_counted_and_the_rest_read(tmp_path):
    c = Conversation("22222222-aaaa")
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [c.user("hello"), c.assistant("m1", text("hi"))],
        tail=b'{"type":"user","message":{"role":"user","content":"cut sh',
    )
    main = read(path, "s").main
    assert main.turn_count == 2
    assert main.stats.malformed == 1
    assert main.stats.truncated is True


def test_malformed_and_unknown_lines_are_counted_not_fatal(tmp_path):
    c = Conversation("33333333-aaaa")
    path = tmp_path / "s.jsonl"
    write_jsonl(
        path,
        [c.user("one"), {"type": "brand-new-kind", "uuid": "x"}, c.assistant("m", text("two"))],
    )
    with open(path, "ab") as handle:
        handle.write(b"not json at all\n[1, 2]\n\n")
    main = read(path, "s").main
    assert main.turn_count == 2
    assert main.stats.malformed == 2
    assert main.stats.unknown_types == {"brand-new-kind": 1}


@pytest.mark.parametrize("uuid", [["a", "b"], {"id": "x"}, 7])
def test_a_record_whose_id_is_no_string_is_malformed_not_fatal(tmp_path, uuid):
    c = Conversation("34343434-aaaa")
    path = tmp_path / "s.jsonl"
    odd = c.assistant("m2", tool("t1", "Write", file_path="odd.py"), uuid=uuid)
    write_jsonl(path, [c.user("one"), odd, c.assistant("m3", text("two"))])

    main = read(path, "s").main

    assert main.turn_count == 2
    assert main.stats.malformed == 1
    assert dict(main.tool_counts()) == {}
    markdown, _ = rendering.render(main, rendering.MarkdownOptions(True, True))
    assert "two" in markdown
    assert "odd.py" not in markdown


def test_empty_and_binary_files_yield_no_turns(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 64)
    assert read(empty, "empty").main.turns == []
    reading = read(binary, "binary")
    assert reading.main.turns == []
    assert reading.stats.binary is True


def test_tool_use_result_as_a_string_marks_the_call(tmp_path):
    c = Conversation("44444444-aaaa")
    records = [
        c.user("write it"),
        c.assistant("m1", tool("t1", "Write", file_path="/x", content="y")),
        c.result("t1", "denied", outcome="Error: permission denied", **{}),
    ]
    records[-1]["message"]["content"][0]["is_error"] = True
    main = read(write_jsonl(tmp_path / "s.jsonl", records), "s", ReadOptions(tools=True)).main
    (call,) = main.tool_calls()
    assert call.answered
    assert call.is_error
    assert call.result == "denied"


def _claude(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    (root / "projects").mkdir(parents=True)
    return root


@pytest.mark.parametrize("tool_name", ["Task", "Agent"])
def test_subagent_beside_sessions_2_0_layout_links_by_tool_use_result(tmp_path, tool_name):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    session_id = "55555555-aaaa-4000-8000-000000000001"
    c = Conversation(session_id, version="2.0.30")
    write_jsonl(
        folder / f"{session_id}.jsonl",
        [
            c.user("Investigate"),
            c.assistant(
                "m1",
                tool(
                    "call1",
                    tool_name,
                    subagent_type="Explore",
                    description="Look around",
                    prompt="Find it",
                ),
            ),
            c.result(
                "call1",
                "Found it.",
                outcome={"status": "completed", "agentId": "b1c2d3e", "totalTokens": 900},
            ),
            c.assistant("m2", text("Done.")),
        ],
    )
    a = Conversation(session_id, version="2.0.30")
    write_jsonl(
        folder / "agent-b1c2d3e.jsonl",
        [
            a.user("Find it", isSidechain=True, agentId="b1c2d3e"),
            a.assistant("m9", text("Found it."), isSidechain=True, agentId="b1c2d3e"),
        ],
    )
    catalog = Catalog(root)
    opened = open_target(catalog, "b1c")
    agent = opened.subagent
    assert agent.layout == "beside-sessions"
    assert agent.tool == tool_name
    assert agent.linked_by == "toolUseResult"
    assert agent.tokens == 900
    assert agent.agent_type == "Explore"
    assert opened.transcript.final_output == "Found it."
    (session,) = catalog.sessions()
    assert session.subagents == 1


def test_links_by_trailer_progress_and_meta_json(tmp_path):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    session_id = "66666666-aaaa-4000-8000-000000000001"
    c = Conversation(session_id)
    write_jsonl(
        folder / f"{session_id}.jsonl",
        [
            c.user("Go"),
            c.assistant(
                "m1",
                tool("c1", "Agent", subagent_type="Plan", description="Plan it", prompt="P1"),
                tool("c2", "Agent", subagent_type="Explore", description="Explore", prompt="P2"),
                tool("c3", "Agent", prompt="P3"),
            ),
            c.result("c1", "Planned.\nagentId: aaa1111 (for resuming)"),
            {
                "type": "progress",
                "uuid": "p-1",
                "parentToolUseID": "c2",
                "data": {"type": "agent_progress", "agentId": "bbb2222", "message": {}},
            },
        ],
    )
    sub = folder / session_id / "subagents"
    for agent_id, prompt in (("aaa1111", "P1"), ("bbb2222", "P2"), ("ccc3333", "P3")):
        a = Conversation(session_id)
        write_jsonl(
            sub / f"agent-{agent_id}.jsonl", [a.user(prompt, isSidechain=True, agentId=agent_id)]
        )
    (sub / "agent-ccc3333.meta.json").write_text(
        json.dumps({"agentType": "reviewer", "description": "Review"})
    )
    view = open_target(Catalog(root), session_id[:8]).view
    nodes = {n.id: n for n in view.all_subagents()}
    assert nodes["aaa1111"].linked_by == "result trailer"
    assert nodes["aaa1111"].status == "completed"
    assert nodes["bbb2222"].linked_by == "agent_progress"
    assert nodes["bbb2222"].status == "unfinished"
    assert nodes["ccc3333"].linked_by == "prompt"
    assert nodes["ccc3333"].agent_type == "reviewer"
    assert nodes["ccc3333"].description == "Review"


def test_subagent_whose_parent_file_is_gone_is_still_listed(tmp_path):
    root = _claude(tmp_path)
    session_id = "77777777-aaaa-4000-8000-000000000001"
    a = Conversation(session_id)
    write_jsonl(
        root / "projects" / "-work-demo" / session_id / "subagents" / "agent-ddd4444.jsonl",
        [
            a.user("Orphan task", isSidechain=True, agentId="ddd4444"),
            a.assistant("m", text("ok"), isSidechain=True),
        ],
    )
    catalog = Catalog(root)
    (session,) = catalog.sessions()
    assert session.id == session_id
    assert not session.exists
    assert session.subagents == 1
    assert session.project_path == "/srv/demo"
    opened = open_target(catalog, "ddd")
    assert opened.subagent.parent_missing is True
    assert opened.transcript.turn_count == 2


def test_title_comes_from_a_summary_record_even_alone_in_a_file(tmp_path):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    write_jsonl(
        folder / "88888888-only-title.jsonl",
        [{"type": "summary", "summary": "Fixing the login bug", "leafUuid": "gone"}],
    )
    (session,) = Catalog(root).sessions()
    assert session.title == "Fixing the login bug"
    assert session.turns == 0


def test_demo_summary_titles_the_session_that_holds_its_leaf(fixtures_copy):
    sessions = {s.id: s for s in Catalog(fixtures_copy).sessions(Path("/path/to/Demo"))}
    assert (
        sessions["1af7fc5e-8455-4414-9ccd-011d40f70b2a"].title
        == "Empty Repo Setup: CLAUDE.md Foundation Created"
    )
    assert sessions[DEMO_SESSION].title == "/orchestrator create TODO app by Next.js"


def test_ids_resolve_by_unique_prefix_and_refuse_ambiguity(fixtures_copy):
    catalog = Catalog(fixtures_copy)
    assert catalog.resolve("4d56").id == DOV_SESSION
    assert catalog.resolve("agent-a2898e3").kind == "agent"
    assert catalog.resolve("6690d1").kind == "inline"
    with pytest.raises(PurlinError, match="ambiguous.*acompact-e1f845.*acompact-f46190"):
        catalog.resolve("acompact")
    with pytest.raises(NotFound, match="no session or agent matches 'zzz'"):
        catalog.resolve("zzz")


def test_claude_dir_comes_from_option_then_environment(tmp_path, monkeypatch):
    root = _claude(tmp_path)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    assert layout.claude_dir() == root
    with pytest.raises(NotFound, match="no projects/ folder"):
        layout.claude_dir(tmp_path / "nowhere")


def test_a_rename_or_ai_title_wins_over_summary_and_first_prompt(tmp_path):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    c = Conversation("99999999-aaaa")
    write_jsonl(
        folder / "99999999-aaaa.jsonl",
        [
            c.user("the first prompt"),
            {"type": "ai-title", "aiTitle": "Generated title"},
            {"type": "custom-title", "customTitle": "Renamed by the user"},
        ],
    )
    d = Conversation("99999999-bbbb")
    write_jsonl(
        folder / "99999999-bbbb.jsonl",
        [d.user("another"), {"type": "ai-title", "aiTitle": "Only AI"}],
    )
    titles = {s.id: s.title for s in Catalog(root).sessions()}
    assert titles == {"99999999-aaaa": "Renamed by the user", "99999999-bbbb": "Only AI"}


def test_timestamps_are_utc_with_z_and_sort_as_text(tmp_path):
    c = Conversation("12121212-aaaa")
    early = c.user("first")
    early["timestamp"] = "2026-01-01T12:00:00+02:00"
    late = c.assistant("m", text("second"))
    late["timestamp"] = "2026-01-01T10:00:00.5Z"
    main = read(write_jsonl(tmp_path / "s.jsonl", [early, late]), "s").main
    assert [t.timestamp for t in main.turns] == [
        "2026-01-01T10:00:00.000Z",
        "2026-01-01T10:00:00.500Z",
    ]
    assert (main.started_at, main.ended_at) == (
        "2026-01-01T10:00:00.000Z",
        "2026-01-01T10:00:00.500Z",
    )


def test_an_unreadable_path_is_reported_not_raised(tmp_path):
    folder = tmp_path / "x.jsonl"
    folder.mkdir()
    reading = read(folder, "x")
    assert reading.main.turns == []
    assert reading.stats.unreadable


def test_a_subagent_spawned_by_a_subagent_is_nested_under_it(tmp_path):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    session_id = "13131313-aaaa-4000-8000-000000000001"
    c = Conversation(session_id)
    write_jsonl(
        folder / f"{session_id}.jsonl",
        [
            c.user("Go"),
            c.assistant("m1", tool("c1", "Agent", subagent_type="Plan", prompt="outer")),
            c.result("c1", "done", outcome={"status": "completed", "agentId": "out1111"}),
        ],
    )
    sub = folder / session_id / "subagents"
    a = Conversation(session_id)
    write_jsonl(
        sub / "agent-out1111.jsonl",
        [
            a.user("outer", isSidechain=True, agentId="out1111"),
            a.assistant(
                "m2", tool("c2", "Agent", subagent_type="Explore", prompt="inner"), isSidechain=True
            ),
            a.result(
                "c2",
                "found",
                outcome={"status": "completed", "agentId": "inn2222"},
                isSidechain=True,
            ),
        ],
    )
    b = Conversation(session_id)
    write_jsonl(sub / "agent-inn2222.jsonl", [b.user("inner", isSidechain=True, agentId="inn2222")])
    view = open_target(Catalog(root), session_id).view
    (outer,) = view.subagents
    assert outer.id == "out1111"
    assert [child.id for child in outer.children] == ["inn2222"]
    assert outer.children[0].agent_type == "Explore"


def test_an_agent_with_its_own_file_is_not_listed_twice(tmp_path):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    session_id = "14141414-aaaa-4000-8000-000000000001"
    c = Conversation(session_id, version="2.0.10")
    write_jsonl(
        folder / f"{session_id}.jsonl",
        [c.user("Go"), c.user("echoed task", isSidechain=True, agentId="eee5555")],
    )
    a = Conversation(session_id, version="2.0.10")
    write_jsonl(
        folder / "agent-eee5555.jsonl", [a.user("echoed task", isSidechain=True, agentId="eee5555")]
    )
    view = open_target(Catalog(root), session_id).view
    assert [(n.id, n.layout) for n in view.all_subagents()] == [("eee5555", "beside-sessions")]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("prompt"), st.text(min_size=0, max_size=20)),
            st.tuples(st.just("reply"), st.integers(0, 3), st.text(max_size=10)),
            st.tuples(
                st.just("call"),
                st.integers(0, 3),
                st.sampled_from(["Read", "Bash", "Task", "Agent"]),
            ),
            st.tuples(st.just("garbage"), st.binary(max_size=30)),
            st.tuples(
                st.just("repeat"),
            ),
        ),
        max_size=25,
    )
)
def test_any_mix_of_records_and_garbage_reads_without_error(tmp_path, steps):
    c = Conversation("15151515-aaaa")
    lines: list[bytes] = []
    last: bytes | None = None
    calls = 0
    for step in steps:
        if step[0] == "prompt":
            record = c.user(step[1])
        elif step[0] == "reply":
            record = c.assistant(f"msg_{step[1]}", text(step[2]))
        elif step[0] == "call":
            calls += 1
            record = c.assistant(f"msg_{step[1]}", tool(f"t{calls}", step[2], command="x"))
        elif step[0] == "garbage":
            lines.append(step[1].replace(b"\n", b" ") + b"\n")
            continue
        else:
            if last is not None:
                lines.append(last)
            continue
        last = json.dumps(record).encode() + b"\n"
        lines.append(last)
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"".join(lines))
    main = read(path, "fuzz", ReadOptions(tools=True, thinking=True)).main
    markdown, sections = rendering.render(main, rendering.MarkdownOptions(True, True))
    assert len(sections) == markdown.count("\n## ")
    json.dumps(export.document(main, tools=True, thinking=True))
    expected = independent_counts(path)
    if not main.stats.binary:
        assert main.turn_count == expected["turns"]
        assert dict(main.tool_counts()) == expected["tools"]
        assert main.stats.malformed == expected["malformed"]


def test_a_transcript_whose_end_a_crash_zeroed_is_still_read(tmp_path):
    c = Conversation("16161616-aaaa")
    path = write_jsonl(tmp_path / "s.jsonl", [c.user("before the crash")], tail=b"\x00" * 4096)
    main = read(path, "s").main
    assert main.stats.binary is False
    assert main.turn_count == 1
    assert main.stats.malformed == 1


def test_progress_lines_are_skipped_but_a_prompt_quoting_one_is_kept(tmp_path):
    c = Conversation("17171717-aaaa")
    quoted = '"type":"progress","data":{"type":"hook_progress"}'
    hook = {
        "type": "progress",
        "data": {"type": "hook_progress", "hookEvent": "Stop"},
        "uuid": "h1",
    }
    lines = [
        json.dumps(c.user(quoted), separators=(",", ":")),
        json.dumps({"parentUuid": None, **hook}, separators=(",", ":")),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    main = read(path, "s").main
    assert [turn.text for turn in main.turns] == [quoted]
    assert main.stats.records == 2
    assert main.stats.malformed == 0


def test_background_agents_end_by_notification_or_meta_and_book_keeping_is_known(tmp_path):
    """Claude Code 2.1.330: Agent runs in the background (its call says async_launched), its end
    comes as a <task-notification>; book-keeping records sit between the turns."""
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    session_id = "88888888-aaaa-4000-8000-000000000001"
    c = Conversation(session_id, version="2.1.330")
    launched = {"isAsync": True, "status": "async_launched"}
    notification = (
        "<task-notification>\n<task-id>a0123456789abcdef</task-id>\n"
        "<tool-use-id>c1</tool-use-id>\n<status>completed</status>\n"
        '<summary>Agent "Plan it" finished</summary>\n<result>Planned.</result>\n'
        "<usage><subagent_tokens>321</subagent_tokens><tool_uses>4</tool_uses>"
        "<duration_ms>1500</duration_ms></usage>\n</task-notification>"
    )
    write_jsonl(
        folder / f"{session_id}.jsonl",
        [
            {"type": "queue-operation", "operation": "enqueue", "sessionId": session_id},
            c.user("Go"),
            {**c._base("attachment"), "attachment": {"type": "date", "date": "2026-11-22"}},
            {"type": "api-request-blob", "sessionId": session_id, "message": {"role": "user"}},
            {"type": "api-request", "sessionId": session_id, "params": {}},
            c.assistant(
                "m1",
                tool("c1", "Agent", description="Plan it", prompt="P1"),
                tool("c2", "Agent", description="Explore", prompt="P2"),
                tool("c3", "Agent", description="Review", prompt="P3"),
                tool("c4", "Agent", description="Test", prompt="P4"),
            ),
            c.result("c1", "Async agent launched.", {**launched, "agentId": "a0123456789abcdef"}),
            c.result("c2", "Async agent launched.", {**launched, "agentId": "b0123456789abcdef"}),
            c.result("c3", "Async agent launched.", {**launched, "agentId": "c0123456789abcdef"}),
            c.result("c4", "Async agent launched.", {**launched, "agentId": "d0123456789abcdef"}),
            {"type": "tools-used", "tools": ["Agent"], "sessionId": session_id},
            {"type": "last-prompt", "lastPrompt": "Go", "sessionId": session_id},
            {"type": "atis-latch", "atis": "", "sessionId": session_id},
            c.user(notification),
            {"type": "cost-state", "sessionId": session_id, "totalCostUSD": 0.1},
            {"type": "mode", "mode": "normal", "sessionId": session_id},
        ],
    )
    sub = folder / session_id / "subagents"
    for agent_id, prompt, end in (
        ("a0123456789abcdef", "P1", {"finished": False}),
        ("b0123456789abcdef", "P2", {"finished": True}),
        ("c0123456789abcdef", "P3", {}),
        ("d0123456789abcdef", "P4", {"stoppedByUser": True}),
    ):
        a = Conversation(session_id, version="2.1.330")
        write_jsonl(
            sub / f"agent-{agent_id}.jsonl", [a.user(prompt, isSidechain=True, agentId=agent_id)]
        )
        meta = {"agentType": "general-purpose", "requestShape": "background", **end}
        (sub / f"agent-{agent_id}.meta.json").write_text(json.dumps(meta))
    catalog = Catalog(root)
    (session,) = catalog.sessions()
    assert session.stats.unknown == 0
    assert session.stats.malformed == 0
    view = open_target(catalog, session_id[:8]).view
    nodes = {n.id: n for n in view.all_subagents()}
    assert nodes["a0123456789abcdef"].status == "completed"  # the notification says so
    assert nodes["a0123456789abcdef"].tokens == 321
    assert nodes["a0123456789abcdef"].duration_ms == 1500
    assert nodes["b0123456789abcdef"].status == "completed"  # its meta.json says finished
    assert nodes["c0123456789abcdef"].status == "unfinished"  # no end was ever recorded
    assert nodes["d0123456789abcdef"].status == "interrupted"  # the user stopped it


def test_a_hostile_task_notification_changes_nothing_it_may_not(tmp_path):
    """A notification is text in the transcript: it may name another tool's call, carry escape
    sequences as its status or non-ASCII digits as its usage; none of it is taken."""
    root = _claude(tmp_path)
    session_id = "99999999-aaaa-4000-8000-000000000001"
    c = Conversation(session_id, version="2.1.330")
    launched = {"isAsync": True, "status": "async_launched", "agentId": "d0123456789abcdef"}

    def notify(tool_use_id: str, status: str, tokens: str = "5") -> dict:
        return c.user(
            f"<task-notification>\n<tool-use-id>{tool_use_id}</tool-use-id>\n"
            f"<status>{status}</status>\n<usage><subagent_tokens>{tokens}</subagent_tokens>"
            "</usage>\n</task-notification>"
        )

    write_jsonl(
        root / "projects" / "-work-demo" / f"{session_id}.jsonl",
        [
            c.user("Go"),
            c.assistant("m1", tool("b1", "Bash", command="ls"), tool("c1", "Agent", prompt="P")),
            c.result("b1", "README.md"),
            c.result("c1", "Async agent launched.", launched),
            notify("b1", "completed"),
            notify("c1", "\x1b]0;owned\x07completed"),
            notify("c1", "killed", tokens="\u00b2\u00b3"),
        ],
    )
    sub = root / "projects" / "-work-demo" / session_id / "subagents"
    write_jsonl(
        sub / "agent-d0123456789abcdef.jsonl",
        [Conversation(session_id).user("P", isSidechain=True)],
    )
    view = open_target(Catalog(root), session_id[:8]).view
    (node,) = view.all_subagents()
    assert node.status == "killed"
    assert node.tokens is None  # "²³" is no count


@pytest.mark.parametrize("kind", ["fifo", "deep"])
def test_a_meta_json_that_is_a_fifo_or_nested_too_deep_is_read_past(tmp_path, kind):
    root = _claude(tmp_path)
    folder = root / "projects" / "-work-demo"
    session_id = "67676767-aaaa-4000-8000-000000000001"
    c = Conversation(session_id)
    write_jsonl(
        folder / f"{session_id}.jsonl",
        [c.user("Go"), c.assistant("m1", tool("c1", "Agent", description="Look", prompt="P1"))],
    )
    sub = folder / session_id / "subagents"
    a = Conversation(session_id)
    write_jsonl(sub / "agent-aaa1111.jsonl", [a.user("P1", isSidechain=True, agentId="aaa1111")])
    meta = sub / "agent-aaa1111.meta.json"
    if kind == "fifo":
        os.mkfifo(meta)  # no writer comes: an open waits for one (without_opening fails it)
    else:
        meta.write_text("[" * 100_000 + "]" * 100_000)

    subagents = without_opening(
        meta, lambda: open_target(Catalog(root), session_id[:8]).view.all_subagents()
    )

    assert [(n.id, n.description) for n in subagents] == [("aaa1111", "Look")]


def test_a_call_only_quoted_in_the_session_is_not_made_there(tmp_path):
    """An older client's progress record carries a subagent's own call; a tool's output may
    quote an id. Neither is a call of the session's."""
    from purlin_resume.claude import subagents

    c = Conversation("68686868-bbbb")
    inner = {"type": "assistant", "message": {"content": [tool("toolu_2", "Agent", prompt="Q")]}}
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            c.assistant("m1", tool("toolu_1", "Bash", command="grep -r toolu_2")),
            c.result("toolu_1", "log.txt: toolu_2"),
            {**c._base("progress"), "data": {"type": "agent_progress", "message": inner}},
        ],
    )
    assert subagents.call_state(path, "toolu_2") == (False, None)
    assert subagents.call_state(path, "toolu_1").made


def test_a_line_of_the_wrong_shape_holding_a_call_id_is_read_past(tmp_path):
    from purlin_resume.claude import records, subagents

    c = Conversation("68686868-aaaa")
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [c.assistant("m1", tool("toolu_1", "Agent", prompt="P"))],
        tail=b'["toolu_1"]\n{"type": ["user"], "tool_use": "toolu_1"}\n',
    )
    assert subagents.call_state(path, "toolu_1") == (True, None)
    assert [b["id"] for b in records.main_tool_uses(path)] == ["toolu_1"]
    assert [r["type"] for r in records.last_records(path)] == ["assistant"]


def test_what_a_transcript_adds_up_to_is_counted_once(tmp_path, monkeypatch):
    from purlin_resume.claude import transcript

    c = Conversation("69696969-aaaa")
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [c.user("Go"), c.assistant("m1", text("Done."), tool("t1", "Write", file_path="a.py"))],
    )
    main = read(path, "s").main
    added = []
    monkeypatch.setattr(transcript.Facts, "add", lambda self, turn: added.append(turn))

    rendering.render(main)
    export.document(main)
    assert len(added) == 2  # each turn once, for every figure the header and document show

    main.turns.append(transcript.Turn("user", transcript.PROMPT, None, "More"))
    assert main.turn_count == 0  # counted again over the three turns (with ``add`` replaced)
    assert len(added) == 5
