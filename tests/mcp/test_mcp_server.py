"""``purlin-resume mcp`` driven by the MCP SDK's own stdio client: the tools it lists, a call of
each on a real project and real transcripts, redaction, and bad arguments as MCP errors; and
driven line by line without the SDK installed, as the everyday install runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from purlin_resume.agents import registry
from purlin_resume.core.project import Project
from tests.claude_records import Conversation, text, write_jsonl
from tests.conftest import commit_file, git
from tests.resurrection_data import write_config

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "search_sessions",
    "get_transcript",
    "resurrection_context",
    "list_interrupted_subagents",
    "resume_task_briefing",
    "save_checkpoint",
    "agents_status",
}
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
SESSION = "7a7a7a7a-0000-4000-8000-000000000007"


def _call(project: Path, claude: Path, calls: list[tuple[str, dict]]):
    """Start the server over stdio, list its tools, make the calls; (tools, results)."""

    async def session():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", "from purlin_resume.cli.entry import main; main()", "mcp"],
            env={
                "PYTHONPATH": str(ROOT),
                "HOME": os.environ["HOME"],
                "CLAUDE_CONFIG_DIR": str(claude),
                "CLAUDE_PROJECT_DIR": str(project),
                "PATH": os.environ["PATH"],
            },
            cwd=str(project),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            listed = await client.list_tools()
            results = [await client.call_tool(name, arguments) for name, arguments in calls]
            return listed.tools, results

    return anyio.run(session)


def _data(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.fixture
def world(repo, tmp_path):
    claude = tmp_path / "claude-data"
    chat = Conversation(SESSION, cwd=str(repo))
    long_answer = " ".join(f"step{n}" for n in range(3000))
    write_jsonl(
        claude / "projects" / "-project" / f"{SESSION}.jsonl",
        [
            chat.user(f"wire the zanzibar exporter; the token is {SECRET}"),
            chat.assistant("m1", text(f"zanzibar exporter wired: {long_answer}")),
        ],
    )
    history = repo / ".planning" / "agent-history.json"
    history.parent.mkdir()
    history.write_text(
        json.dumps(
            {
                "version": "1.2",
                "max_entries": 50,
                "entries": [
                    {
                        "agent_id": "agent-cut-1",
                        "task_description": "port the exporter",
                        "phase": "01",
                        "plan": "02",
                        "segment": None,
                        "timestamp": "2026-01-15T14:00:00Z",
                        "status": "interrupted",
                        "completion_timestamp": None,
                        "execution_mode": "sequential",
                        "parallel_group": None,
                        "granularity": "plan",
                        "depends_on": [],
                        "files_modified": [],
                        "checkpoints_skipped": 0,
                        "task_results": None,
                        "spawn_commit": git(repo, "rev-parse", "HEAD").strip(),
                    }
                ],
            }
        )
    )
    commit_file(repo, ".planning/agent-history.json", history.read_text(), "history")
    write_config(repo, allowed_roots=[str(tmp_path)])
    return repo, claude


def test_lists_the_seven_tools_and_each_call_answers(world):
    repo, claude = world
    tools, results = _call(
        repo,
        claude,
        [
            ("search_sessions", {"query": "zanzibar exporter"}),
            ("get_transcript", {"id": SESSION[:8], "page_chars": 5000}),
            ("get_transcript", {"id": SESSION[:8], "page_chars": 5000, "page": 2}),
            ("resurrection_context", {"session_id": SESSION, "method": "summarized"}),
            ("list_interrupted_subagents", {}),
            (
                "save_checkpoint",
                {
                    "role": "builder",
                    "in_progress": "exporter",
                    "next": ["test"],
                    "fields": {"step": "2", "step_note": "tests written"},
                },
            ),
            ("agents_status", {}),
            ("resume_task_briefing", {"agent_id": "agent-cut-1"}),
        ],
    )

    assert {tool.name for tool in tools} == TOOLS
    assert all(tool.description for tool in tools)
    found, page1, page2, context, interrupted, saved, agents, briefing = map(_data, results)
    assert found["results"][0]["session_id"] == SESSION
    assert found["results"][0]["open"] == f"purlin-resume open {SESSION}"
    assert found["passed_over"] == []  # no folder this user may not list
    assert page1["pages"] > 2
    assert page1["page"] == 1
    assert len(page1["text"]) == 5000
    assert page2["text"]
    assert page2["text"] != page1["text"]
    assert "zanzibar" in context["prompt"]
    assert context["start_with"] == f"purlin-resume resurrect --session {SESSION}"
    assert context["candidate"]["project"]  # known from its transcript, as its end
    assert context["candidate"]["ended_at"]
    [exists] = [check for check in context["checks"] if check["name"] == "exists"]
    assert exists["message"] == f"session {SESSION}"
    assert [e["agent_id"] for e in interrupted["interrupted"]] == ["agent-cut-1"]
    assert Path(saved["path"]).is_file()
    assert Path(saved["path"]).is_relative_to(repo.resolve())
    assert saved["role"] == "builder"
    assert "tests written" in Path(saved["path"]).read_text()  # the Builder's step note
    assert agents["agents"] == []
    assert "port the exporter" in briefing["briefing"]
    # Every result is redacted: the planted token leaves in none of them.
    for result in results:
        assert SECRET not in result.content[0].text
    assert page1["redactions"]


def test_bad_arguments_are_mcp_errors_and_the_server_keeps_answering(world, tmp_path):
    repo, claude = world
    link = tmp_path / "elsewhere"
    link.symlink_to("/nonexistent-folder")
    _, results = _call(
        repo,
        claude,
        [
            ("get_transcript", {"id": "no-such-session"}),
            ("get_transcript", {"id": SESSION, "page": 99}),
            ("get_transcript", {"id": SESSION, "page_chars": 10}),
            ("search_sessions", {"query": ""}),
            ("search_sessions", {"query": "x" * 5000}),
            ("search_sessions", {"limit": "many"}),
            ("save_checkpoint", {"role": "wizard"}),
            ("save_checkpoint", {"role": "qa", "session_id": "../../etc/passwd"}),
            ("save_checkpoint", {"role": "qa", "fields": {"evil": "x"}}),
            ("agents_status", {"project": str(link)}),
            ("agents_status", {"project": "/tmp/x\x1b]0;t\x07"}),
            ("resurrection_context", {"session_id": "nope"}),
            ("no_such_tool", {}),
            ("agents_status", {}),  # still alive after all of the above
        ],
    )

    *failures, last = results
    for result in failures:
        assert result.is_error, result.content
        message = result.content[0].text
        assert "Traceback" not in message
        assert message.strip()
    assert not last.is_error
    assert "no session or agent matches" in failures[0].content[0].text
    assert "page(s)" in failures[1].content[0].text
    assert "unknown evil" in failures[8].content[0].text
    assert f"project {link}: no such folder" == failures[9].content[0].text
    assert "control characters" in failures[10].content[0].text
    assert not (repo / ".purlin" / "cache").exists()  # no failed save left anything


def _exchange(repo: Path, claude: Path, messages: list) -> list[dict]:
    """The server's replies to ``messages`` (a string is sent as it is), without the MCP SDK;
    the server must end cleanly when its input closes."""
    block = (
        "import sys; sys.modules['mcp'] = None; from purlin_resume.cli.entry import main; main()"
    )
    lines = [m if isinstance(m, str) else json.dumps(m) for m in messages]
    done = subprocess.run(
        [sys.executable, "-c", block, "mcp"],
        input="\n".join(lines) + "\n",
        env={**os.environ, "PYTHONPATH": str(ROOT), "CLAUDE_CONFIG_DIR": str(claude)},
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return list(map(json.loads, done.stdout.splitlines()))


def test_without_the_sdk_the_server_answers_at_once_and_keeps_answering(world):
    """The everyday install has no MCP SDK: the server needs none. Bad lines get JSON-RPC
    errors, notifications no answer, and the server goes on until its input closes."""
    repo, claude = world
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        "not json",
        {"jsonrpc": "2.0", "id": 2, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "agents_status"}},
        {"jsonrpc": "2.0", "id": 5, "method": "ping"},
        "[" * 100_000 + "]" * 100_000,
        {"jsonrpc": "2.0", "id": [[[[1]]]], "method": "ping"},  # an id is a string or number
        {"jsonrpc": "2.0", "id": 7},  # no method: its id is said back
        {"jsonrpc": "2.0", "id": 6, "method": "ping"},
    ]
    replies = _exchange(repo, claude, messages)
    initialized, unparsed, unknown, listed, called, pong, deep, odd, methodless, last = replies
    assert initialized["result"]["protocolVersion"] == "2025-06-18"
    assert initialized["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert unparsed["error"]["code"] == -32700
    assert unknown["error"]["code"] == -32601
    assert {tool["name"] for tool in listed["result"]["tools"]} == TOOLS
    status = json.loads(called["result"]["content"][0]["text"])
    assert not called["result"]["isError"]
    assert status["agents"] == []
    assert pong == {"jsonrpc": "2.0", "id": 5, "result": {}}
    assert deep["error"]["code"] == -32700
    assert (odd["id"], odd["error"]["code"]) == (None, -32600)
    assert (methodless["id"], methodless["error"]["code"]) == (7, -32600)
    assert last == {"jsonrpc": "2.0", "id": 6, "result": {}}


def test_the_user_s_own_redaction_rules_apply_to_every_tool(repo, tmp_path):
    from purlin_resume.core import store

    mine = store.user_settings()
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(json.dumps({"resume": {"redact": {"extra": [
        {"kind": "ticket", "pattern": r"ACME-[0-9]{6}"}]}}}))  # fmt: skip
    claude = tmp_path / "claude-data"
    chat = Conversation(SESSION, cwd=str(repo))
    write_jsonl(
        claude / "projects" / "-project" / f"{SESSION}.jsonl",
        [
            chat.user("zanzibar ticket ACME-123456 opened"),
            chat.assistant("m1", text("ACME-654321")),
        ],
    )
    calls = [
        ("get_transcript", {"id": SESSION}),
        ("search_sessions", {"query": "zanzibar ticket"}),
        ("resurrection_context", {"session_id": SESSION}),
    ]
    _, results = _call(repo, claude, calls)
    for (name, _), result in zip(calls, results, strict=True):
        shown = json.dumps(_data(result))
        assert "ACME-123456" not in shown, name
        assert "ACME-654321" not in shown, name
    assert "[REDACTED:ticket:" in json.dumps(_data(results[0]))


def test_every_tool_refuses_an_argument_its_schema_does_not_declare(world):
    """An undeclared argument is one error naming it and what the tool accepts, never dropped:
    a Builder's step given beside the arguments (not in ``fields``) saves nothing."""
    repo, claude = world
    builder = {"role": "builder", "in_progress": "exporter", "next": ["test"]}
    tools, results = _call(
        repo,
        claude,
        [
            *((name, {"bogus": 1}) for name in sorted(TOOLS)),
            ("save_checkpoint", {**builder, "step": "3"}),
            ("save_checkpoint", {**builder, "fields": {"step": "3"}, "bogus": 1}),
        ],
    )

    *each_tool, step_beside, bogus_beside = results
    declared = {tool.name: tool.input_schema for tool in tools}
    for name, result in zip(sorted(TOOLS), each_tool, strict=True):
        assert result.is_error, name
        accepts = ", ".join(declared[name]["properties"])
        assert result.content[0].text == (
            f'{name}: unknown argument "bogus" (it accepts: {accepts})'
        )
        assert declared[name]["additionalProperties"] is False
    assert step_beside.is_error
    assert step_beside.content[0].text.startswith('save_checkpoint: unknown argument "step" (')
    assert "fields" in step_beside.content[0].text
    assert bogus_beside.is_error
    assert 'unknown argument "bogus"' in bogus_beside.content[0].text
    assert not (repo / ".purlin" / "cache").exists()  # neither call saved anything


def test_a_missing_checkpoint_field_is_named_as_the_caller_writes_it(world):
    repo, claude = world
    _, results = _call(
        repo,
        claude,
        [
            ("save_checkpoint", {"role": "builder", "in_progress": "exporter", "next": ["t"]}),
            ("save_checkpoint", {"role": "qa", "fields": {"in_progress": "exporter"}}),
            ("save_checkpoint", {"role": "qa"}),
        ],
    )

    no_step, in_progress_in_fields, bare_qa = (r.content[0].text for r in results)
    assert all(r.is_error for r in results)
    assert no_step == "missing required fields for a Builder checkpoint: fields.step"
    assert in_progress_in_fields.startswith("fields: unknown in_progress (known: ")
    assert bare_qa == (
        "missing required fields for a QA checkpoint: "
        "in_progress, fields.scenario_progress, fields.current_scenario, next"
    )
    assert not (repo / ".purlin" / "cache").exists()


def test_a_hostile_argument_name_comes_back_redacted_cut_and_quoted(world):
    repo, claude = world
    names = [f"token {SECRET}", "\x1b]0;owned\x07", "x" * 100_000, *(f"k{n}" for n in range(7))]
    _, results = _call(repo, claude, [("agents_status", dict.fromkeys(names, 1))])

    (refused,) = results
    line = refused.content[0].text
    assert refused.is_error
    assert SECRET not in line
    assert "\x1b" not in line
    assert "\x07" not in line
    assert '"\\u001b]0;owned\\u0007"' in line
    assert '"' + "x" * 40 + '"…' in line
    assert "and 5 more" in line
    assert len(line) < 400


def test_save_checkpoint_says_which_older_checkpoint_of_its_agent_it_archived(world, tmp_path):
    """One process saved as A0, /clear made it A1: A1's save archives A0's and says where."""
    repo, claude = world
    project = Project(repo)
    registry.record_start(project, "A0", pid=999_999_03, source="startup")
    registry.record_start(project, "A1", pid=999_999_03, source="clear")
    fields = {"scenario_progress": "1 of 2", "current_scenario": "s"}
    qa = {"role": "qa", "next": ["n"], "fields": fields}
    _, results = _call(
        repo,
        claude,
        [
            ("save_checkpoint", {**qa, "session_id": "A0", "in_progress": "OLD-WORK"}),
            ("save_checkpoint", {**qa, "session_id": "A1", "in_progress": "NEW-WORK"}),
        ],
    )
    first, second = map(_data, results)
    assert "superseded" not in first
    (archived,) = second["superseded"]
    assert "A0-superseded-" in archived
    assert "OLD-WORK" in (repo / archived).read_text()


def test_a_tool_name_not_a_string_and_half_characters_get_answers_not_a_dead_server(world):
    """``"name": {...}`` is an unknown tool; a lone surrogate (a ``\\ud83d`` escape, from a
    caller or from a transcript cut mid-emoji) comes back as U+FFFD: the server keeps answering."""
    repo, claude = world
    cut = "8b8b8b8b-0000-4000-8000-00000000d83d"
    chat = Conversation(cut, cwd=str(repo))
    write_jsonl(
        claude / "projects" / "-project" / f"{cut}.jsonl",
        [chat.user("the rocket \ud83d was cut"), chat.assistant("m1", text("noted"))],
    )
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    replies = _exchange(
        repo,
        claude,
        [
            {**call, "id": 1, "params": {"name": {"a": 1}, "arguments": {}}},
            {**call, "id": 2, "params": {"name": "get_transcript", "arguments": {"id": cut}}},
            {**call, "id": 3, "params": {"name": "no\ud800such", "arguments": {}}},
            {"jsonrpc": "2.0", "id": 4, "method": "pi\udc00ng"},
            {"jsonrpc": "2.0", "id": 5, "method": "ping"},
        ],
    )
    unnamed, transcript, unknown, missing, pong = replies
    assert unnamed["result"]["isError"]
    assert "unknown tool (not a string)" in unnamed["result"]["content"][0]["text"]
    assert "the rocket \ufffd was cut" in _data_of(transcript)["text"]
    assert unknown["result"]["isError"]
    assert 'unknown tool "no\\ud800such"' in unknown["result"]["content"][0]["text"]
    assert missing["error"] == {"code": -32601, "message": "method not found: pi\ufffdng"}
    assert pong == {"jsonrpc": "2.0", "id": 5, "result": {}}


def _data_of(reply: dict) -> dict:
    assert not reply["result"]["isError"], reply
    return json.loads(reply["result"]["content"][0]["text"])
