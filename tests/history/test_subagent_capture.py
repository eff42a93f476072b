"""Subagents as the hooks see them in real Claude Code sessions: parallel spawns from one
assistant message, an agent the user interrupts, the whole task prompt, the files it changed.

Payloads follow Claude Code's hooks reference (PreToolUse ``tool_name``/``tool_input``/
``tool_use_id``, PostToolUse ``tool_response``, SubagentStop ``agent_id``/
``agent_transcript_path``/``last_assistant_message``); transcripts the 2.1 layout, with one API
message split over several lines sharing ``message.id``.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from purlin_resume.claude.hooks import HookPayload
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from purlin_resume.integration import capture
from tests.claude_records import Conversation, agent_transcript, text, tool, write_jsonl
from tests.integration.test_hooks import hook, log_lines

SESSION = "0b6f3c1e-9d2a-4e57-8c3b-5a1d2e3f4a5b"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def spawn_payload(root: Path, transcript: Path, call: dict, session: str = SESSION) -> dict:
    return {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": call["name"],
        "tool_input": call["input"],
        "tool_use_id": call["id"],
    }


def parallel_session(folder: Path, root: Path, tool_name: str = "Agent") -> tuple[Path, list]:
    """The orchestrator's transcript: one assistant message with two Agent calls, written as
    Claude Code writes it (a line per content block, the same message.id)."""
    talk = Conversation(SESSION, cwd=str(root))
    calls = [
        tool(
            f"toolu_01Par{n}",
            tool_name,
            description=f"Execute plan 05-0{n}",
            prompt=f"Execute plan 05-0{n} of .planning/phases/05.\nRun the tests when done.",
            subagent_type="general-purpose",
        )
        for n in (1, 2)
    ]
    records = [
        talk.user("Execute phase 5"),
        talk.assistant("msg_01PhaseFive", text("Running plans 05-01 and 05-02 in parallel.")),
        talk.assistant("msg_01PhaseFive", calls[0]),
        talk.assistant("msg_01PhaseFive", calls[1]),
    ]
    return write_jsonl(folder / f"{SESSION}.jsonl", records), calls


def entries(root: Path) -> dict[str, dict]:
    return {e.agent_id: e.data for e in history.load(Project(root)).latest()}


def test_parallel_spawns_of_one_message_share_a_group_and_resume_as_a_batch(repo, tmp_path, cli):
    transcript, calls = parallel_session(tmp_path, repo)
    base = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(repo)}
    hook("session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"}, repo)
    for call in calls:
        assert hook("pre-tool-use", spawn_payload(repo, transcript, call), repo).returncode == 0
    found = entries(repo)
    groups = {found[c["id"]]["parallel_group"] for c in calls}
    assert len(groups) == 1
    assert None not in groups
    group = groups.pop()
    assert group.startswith("phase-05-batch-")
    assert {found[c["id"]]["execution_mode"] for c in calls} == {"parallel"}

    # The session dies with both agents running; the next session finds them interrupted.
    hook("session-end", {**base, "hook_event_name": "SessionEnd", "reason": "other"}, repo)
    other = {**base, "session_id": "next-session"}
    hook("session-start", {**other, "hook_event_name": "SessionStart", "source": "startup"}, repo)
    assert {d["status"] for d in entries(repo).values()} == {"interrupted"}

    resumed = cli("resume-task", "--batch", "--json")
    assert resumed.exit_code == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["group"] == group
    assert sorted(a["agent_id"] for a in result["agents"]) == sorted(c["id"] for c in calls)
    assert "Run the tests when done." in result["briefing"]  # the whole prompt, not just the title
    assert log_lines(repo) == []


def test_a_sibling_recorded_before_the_message_was_complete_joins_the_group(repo, tmp_path):
    transcript, calls = parallel_session(tmp_path, repo, tool_name="Task")
    lines = transcript.read_text().splitlines(keepends=True)
    transcript.write_text("".join(lines[:-1]))  # the first PreToolUse sees only its own call
    hook("pre-tool-use", spawn_payload(repo, transcript, calls[0]), repo)
    assert entries(repo)[calls[0]["id"]]["parallel_group"] is None
    transcript.write_text("".join(lines))
    hook("pre-tool-use", spawn_payload(repo, transcript, calls[1]), repo)
    found = entries(repo)
    assert found[calls[0]["id"]]["parallel_group"] == found[calls[1]["id"]]["parallel_group"]
    assert found[calls[0]["id"]]["parallel_group"] is not None


def test_spawns_recorded_before_their_message_reached_the_transcript_are_grouped_on_return(
    repo, tmp_path
):
    """Claude Code may run PreToolUse before the assistant message is in the transcript; the
    PostToolUse of each agent, which comes after, puts the message's spawns in one group."""
    transcript, calls = parallel_session(tmp_path, repo)
    lines = transcript.read_text().splitlines(keepends=True)
    transcript.write_text(lines[0])  # only the user's request so far
    for call in calls:
        hook("pre-tool-use", spawn_payload(repo, transcript, call), repo)
    assert {entries(repo)[c["id"]]["parallel_group"] for c in calls} == {None}
    transcript.write_text("".join(lines))
    for number, call in enumerate(calls):
        returned = {
            **spawn_payload(repo, transcript, call),
            "hook_event_name": "PostToolUse",
            "tool_response": {"status": "completed", "agentId": f"agroup{number}"},
        }
        assert hook("post-tool-use", returned, repo).returncode == 0
    found = entries(repo)
    groups = {found[f"agroup{n}"]["parallel_group"] for n in (0, 1)}
    assert len(groups) == 1
    assert None not in groups
    assert groups.pop().startswith("phase-05-batch-")
    assert {found[f"agroup{n}"]["status"] for n in (0, 1)} == {"completed"}
    assert log_lines(repo) == []


def test_spawns_in_separate_messages_are_sequential(repo, tmp_path):
    talk = Conversation(SESSION, cwd=str(repo))
    first = tool("toolu_01Seq1", "Agent", description="one", prompt="first task")
    second = tool("toolu_01Seq2", "Agent", description="two", prompt="second task")
    transcript = write_jsonl(
        tmp_path / f"{SESSION}.jsonl",
        [
            talk.assistant("msg_A", first),
            talk.result(first["id"], "ok"),
            talk.assistant("msg_B", second),
        ],
    )
    for call in (first, second):
        hook("pre-tool-use", spawn_payload(repo, transcript, call), repo)
    found = entries(repo)
    assert [found[c["id"]]["parallel_group"] for c in (first, second)] == [None, None]
    assert {found[c["id"]]["execution_mode"] for c in (first, second)} == {"sequential"}


def test_the_whole_prompt_is_kept_redacted(repo, tmp_path):
    talk = Conversation(SESSION, cwd=str(repo))
    prompt = (
        "Migrate the billing module.\n"
        f"Use the token {SECRET} for the staging API.\n"
        "Step 3: update docs/billing.md with the new endpoints."
    )
    call = tool("toolu_01Long", "Agent", description="Billing migration", prompt=prompt)
    transcript = write_jsonl(tmp_path / f"{SESSION}.jsonl", [talk.assistant("msg_L", call)])
    hook("pre-tool-use", spawn_payload(repo, transcript, call), repo)
    entry = entries(repo)[call["id"]]
    assert entry["task_description"] == "Billing migration"
    assert "Step 3: update docs/billing.md" in entry["prompt"]
    assert SECRET not in entry["prompt"]
    assert SECRET not in (repo / ".planning/agent-history.json").read_text()


def test_a_huge_prompt_is_cut(repo, tmp_path):
    call = tool("toolu_01Huge", "Agent", description="huge", prompt="x" * 200_000)
    transcript = write_jsonl(tmp_path / "s.jsonl", [])
    hook("pre-tool-use", spawn_payload(repo, transcript, call), repo)
    stored = entries(repo)[call["id"]]["prompt"]
    assert len(stored) <= 20_000
    assert stored.endswith("… (200000 characters)")


def _spawned(repo: Path, tmp_path: Path, tool_use_id: str = "toolu_01Int") -> dict:
    call = tool(tool_use_id, "Agent", description="Explore the parser", prompt="Read src/parse.py")
    transcript = write_jsonl(tmp_path / f"{SESSION}.jsonl", [])
    hook("pre-tool-use", spawn_payload(repo, transcript, call), repo)
    return call


def _parser_agent(repo: Path, tmp_path: Path, agent_id: str, answer: str | None) -> Path:
    """The transcript of an agent that edited src/parse.py, in its session's subagents/ folder,
    ending with ``answer`` (None: with the user's interruption)."""
    return agent_transcript(
        tmp_path / SESSION / "subagents" / f"agent-{agent_id}.jsonl",
        agent_id,
        "Read src/parse.py",
        [str(repo / "src" / "parse.py")],
        answer,
    )


def stop_payload(root: Path, tmp_path: Path, agent_id: str, **fields) -> dict:
    """SubagentStop as Claude Code sends it (2.1: with agent_id, agent_type and, when there is
    one, agent_transcript_path and last_assistant_message)."""
    return {
        "session_id": SESSION,
        "transcript_path": str(tmp_path / f"{SESSION}.jsonl"),
        "cwd": str(root),
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": agent_id,
        "agent_type": "general-purpose",
        **fields,
    }


def _stopped(repo: Path, tmp_path: Path, agent_id: str, agent_file: Path, said: str) -> dict:
    """The history entry of ``agent_id`` after its SubagentStop, whose transcript is
    ``agent_file`` and whose last message is ``said``."""
    stop = stop_payload(
        repo,
        tmp_path,
        agent_id,
        agent_transcript_path=str(agent_file),
        last_assistant_message=said,
    )
    hook("subagent-stop", stop, repo)
    return entries(repo)[agent_id]


def test_an_agent_stopped_by_the_user_is_interrupted_per_its_transcript(repo, tmp_path, cli):
    _spawned(repo, tmp_path)
    # ends with "[Request interrupted by user for tool use]"
    agent_file = _parser_agent(repo, tmp_path, "a1b2c3d4e5f6a7b8c", None)
    stop = stop_payload(repo, tmp_path, "a1b2c3d4e5f6a7b8c", agent_transcript_path=str(agent_file))
    hook("subagent-stop", stop, repo)
    entry = entries(repo)["a1b2c3d4e5f6a7b8c"]
    assert entry["status"] == "interrupted"
    assert entry["files_modified"] == ["src/parse.py"]
    assert cli("resume-task", "a1b2c3d4e5f6a7b8c").exit_code == 0


def test_subagent_stop_saying_interrupted_is_interrupted(repo, tmp_path):
    _spawned(repo, tmp_path)
    stop = stop_payload(
        repo, tmp_path, "a0000000000000001", last_assistant_message="[Request interrupted by user]"
    )
    hook("subagent-stop", stop, repo)
    assert entries(repo)["a0000000000000001"]["status"] == "interrupted"


def test_post_tool_use_with_an_interrupted_result_is_interrupted(repo, tmp_path):
    call = _spawned(repo, tmp_path)
    post = {
        "session_id": SESSION,
        "transcript_path": str(tmp_path / f"{SESSION}.jsonl"),
        "cwd": str(repo),
        "hook_event_name": "PostToolUse",
        "tool_name": "Agent",
        "tool_input": call["input"],
        "tool_use_id": call["id"],
        "tool_response": {
            "status": "completed",
            "agentId": "a0000000000000002",
            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
        },
    }
    hook("post-tool-use", post, repo)
    assert entries(repo)["a0000000000000002"]["status"] == "interrupted"


def test_a_completed_agent_keeps_only_project_files(repo, tmp_path):
    _spawned(repo, tmp_path)
    outside = tmp_path / "elsewhere.txt"
    agent_file = agent_transcript(
        tmp_path / "agent-a0000000000000003.jsonl",
        "a0000000000000003",
        "Read src/parse.py",
        ["/etc/hosts", str(repo / "src" / "parse.py"), str(outside), str(repo / ".." / "x.py")],
        "Done: parser fixed.",
    )
    entry = _stopped(repo, tmp_path, "a0000000000000003", agent_file, "Done: parser fixed.")
    assert (entry["status"], entry["files_modified"]) == ("completed", ["src/parse.py"])


def test_an_agent_line_with_bytes_that_are_not_utf8_keeps_its_edit(repo, tmp_path):
    """A byte of a tool's output cut inside a character does not lose the line it is in: the
    edit it records is the agent's all the same."""
    _spawned(repo, tmp_path)
    agent_file = _parser_agent(repo, tmp_path, "a0000000000000005", "Done: parser fixed.")
    lines = agent_file.read_bytes().splitlines(keepends=True)
    [edit] = [n for n, line in enumerate(lines) if b"parse.py" in line and b"tool_use" in line]
    lines[edit] = lines[edit].replace(b'"file_path"', b'"old_string": "caf\xc3", "file_path"')
    agent_file.write_bytes(b"".join(lines))
    entry = _stopped(repo, tmp_path, "a0000000000000005", agent_file, "Done: parser fixed.")
    assert entry["status"] == "completed"
    assert entry["files_modified"] == ["src/parse.py"]


@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("Done: parser fixed.", "completed"),
        ("", "failed"),
        ("  \n", "failed"),
        (["Done: parser fixed."], "failed"),  # not text: no answer Claude Code sends
        ({"text": "$(touch pwned)"}, "failed"),
    ],
)
def test_an_answer_the_payload_carries_counts_before_its_record_is_written(
    repo, tmp_path, said, status
):
    """Claude Code may run SubagentStop before the agent's last record reaches its file: the
    answer in ``last_assistant_message`` is the agent's answer all the same."""
    _spawned(repo, tmp_path)
    agent_file = _parser_agent(repo, tmp_path, "a0000000000000004", "Done: parser fixed.")
    written = agent_file.read_text().splitlines(keepends=True)
    agent_file.write_text("".join(written[:-1]))  # the answer's record not written yet
    entry = _stopped(repo, tmp_path, "a0000000000000004", agent_file, said)
    assert (entry["status"], entry["files_modified"]) == (status, ["src/parse.py"])
    assert not (repo / "pwned").exists()


def _meta(tmp_path: Path, agent_id: str, **fields) -> None:
    """The ``.meta.json`` Claude Code writes beside an agent's transcript when it starts."""
    meta = tmp_path / SESSION / "subagents" / f"agent-{agent_id}.meta.json"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"agentType": "general-purpose", **fields}))


def _session_event(tmp_path: Path, root: Path, event: str, **fields) -> dict:
    return {
        "session_id": SESSION,
        "transcript_path": str(tmp_path / f"{SESSION}.jsonl"),
        "cwd": str(root),
        "hook_event_name": event,
        **fields,
    }


def test_subagent_start_names_the_spawn_its_meta_file_links(repo, tmp_path):
    _spawned(repo, tmp_path, "toolu_01Other")
    call = _spawned(repo, tmp_path)
    _meta(tmp_path, "a0000000000000010", toolUseId=call["id"])
    start = _session_event(tmp_path, repo, "SubagentStart", agent_id="a0000000000000010")
    assert hook("subagent-start", start, repo).returncode == 0
    found = entries(repo)
    assert found["a0000000000000010"]["tool_use_id"] == call["id"]
    assert found["a0000000000000010"]["status"] == "spawned"
    assert "toolu_01Other" in found  # the other spawn keeps waiting for its own agent
    assert not log_lines(repo)


def test_subagent_start_of_a_compaction_run_records_nothing(repo, tmp_path):
    _spawned(repo, tmp_path)
    before = entries(repo)
    start = _session_event(tmp_path, repo, "SubagentStart", agent_id="acompact-e1f845")
    assert hook("subagent-start", start, repo).returncode == 0
    assert entries(repo) == before


def _stopped_call(repo: Path, tmp_path: Path, agent_id: str) -> dict:
    """A spawn whose call the user stopped: its error result, then the interruption."""
    call = _spawned(repo, tmp_path)
    talk = Conversation(SESSION, cwd=str(repo))
    write_jsonl(
        tmp_path / f"{SESSION}.jsonl",
        [
            talk.user("Explore the parser"),
            talk.assistant("msg_01Stop", call),
            talk.user(
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": call["id"],
                        "content": "The user doesn't want to proceed with this tool use.",
                        "is_error": True,
                    }
                ],
                toolUseResult="User rejected tool use",
            ),
            talk.user([text("[Request interrupted by user for tool use]")]),
        ],
    )
    _parser_agent(repo, tmp_path, agent_id, None)
    _meta(tmp_path, agent_id, toolUseId=call["id"])
    return call


def test_the_next_prompt_records_a_subagent_the_user_stopped(repo, tmp_path, cli):
    call = _stopped_call(repo, tmp_path, "a0000000000000011")
    prompt = _session_event(tmp_path, repo, "UserPromptSubmit", prompt="carry on")
    assert hook("user-prompt-submit", prompt, repo).returncode == 0
    entry = entries(repo)["a0000000000000011"]
    assert entry["status"] == "interrupted"
    assert entry["tool_use_id"] == call["id"]
    assert entry["files_modified"] == ["src/parse.py"]
    resumed = cli("resume-task", "a0000000000000011", "--session", SESSION)
    assert resumed.exit_code == 0, resumed.stderr
    assert "SendMessage to `a0000000000000011`" in resumed.stdout


def test_a_stopped_call_whose_result_is_written_after_the_prompt_is_recorded(repo, tmp_path):
    """Claude Code queues what it records and appends it to the transcript every 100 ms: the
    stopped call's result may reach the file only after UserPromptSubmit has read it."""
    _stopped_call(repo, tmp_path, "a0000000000000013")
    _parser_agent(repo, tmp_path, "a0000000000000013", "Parsed.")  # only the call's result says
    transcript = tmp_path / f"{SESSION}.jsonl"
    lines = transcript.read_bytes().splitlines(keepends=True)
    transcript.write_bytes(b"".join(lines[:2]))  # the result and the interruption still queued

    def drain() -> None:
        with transcript.open("ab") as handle:
            handle.write(b"".join(lines[2:]))

    prompt = _session_event(tmp_path, repo, "UserPromptSubmit", prompt="carry on")
    writer = threading.Timer(0.3, drain)
    writer.start()
    capture.prompt_submitted(Project(repo), HookPayload("UserPromptSubmit", prompt))
    writer.join()
    assert entries(repo)["a0000000000000013"]["status"] == "interrupted"


@pytest.mark.parametrize(("answer", "status"), [(None, "interrupted"), ("Parsed.", "spawned")])
def test_an_agent_spawned_inside_a_stopped_agent_is_recorded_at_the_next_prompt(
    repo, tmp_path, answer, status
):
    """The call of an agent another agent spawned is in that agent's transcript, not in the
    session's: when the user stops both, only the inner agent's own transcript says so (it
    ends with the interruption). One that does not end so is left running."""
    call = _spawned(repo, tmp_path)  # the session's transcript never holds this call
    _meta(tmp_path, "a0000000000000014", toolUseId=call["id"])
    start = _session_event(tmp_path, repo, "SubagentStart", agent_id="a0000000000000014")
    hook("subagent-start", start, repo)
    _parser_agent(repo, tmp_path, "a0000000000000014", answer)
    prompt = _session_event(tmp_path, repo, "UserPromptSubmit", prompt="carry on")
    assert hook("user-prompt-submit", prompt, repo).returncode == 0
    entry = entries(repo)["a0000000000000014"]
    assert entry["status"] == status
    assert entry["files_modified"] == (["src/parse.py"] if answer is None else None)


@pytest.mark.parametrize(("answered", "status"), [(False, "interrupted"), (True, "spawned")])
def test_an_agent_inside_a_stopped_agent_is_stopped_before_its_transcript_says_so(
    repo, tmp_path, answered, status
):
    """Esc stops an agent and the agents it is waiting for; their transcripts may get the
    interruption only after the next prompt's hook has read them. Each one's call, unanswered
    in the stopped agent's transcript, says enough, however deep. An answered call (the inner
    agent had finished) leaves it, and the agent inside it, as they were."""
    _stopped_call(repo, tmp_path, "a0000000000000015")
    talk = Conversation(SESSION, cwd=str(repo))
    session = tmp_path / f"{SESSION}.jsonl"
    for spawner, agent_id, number in (
        ("a0000000000000015", "a0000000000000016", 1),
        ("a0000000000000016", "a0000000000000017", 2),
    ):
        call = tool(f"toolu_0{number}Inner", "Agent", description=f"Level {number}", prompt="Go")
        rows = [talk.assistant(f"msg_0{number}Inner", call)]
        if answered and number == 1:
            rows.append(
                talk.user([{"type": "tool_result", "tool_use_id": call["id"], "content": "ok"}])
            )
        with (tmp_path / SESSION / "subagents" / f"agent-{spawner}.jsonl").open("a") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
        hook("pre-tool-use", spawn_payload(repo, session, call), repo)
        _meta(tmp_path, agent_id, toolUseId=call["id"])
        hook(
            "subagent-start",
            _session_event(tmp_path, repo, "SubagentStart", agent_id=agent_id),
            repo,
        )
    prompt = _session_event(tmp_path, repo, "UserPromptSubmit", prompt="carry on")
    assert hook("user-prompt-submit", prompt, repo).returncode == 0
    found = entries(repo)
    assert found["a0000000000000015"]["status"] == "interrupted"
    assert found["a0000000000000016"]["status"] == status
    assert found["a0000000000000017"]["status"] == status


def test_a_running_call_is_left_running_by_the_next_prompt(repo, tmp_path):
    _spawned(repo, tmp_path)
    prompt = _session_event(tmp_path, repo, "UserPromptSubmit", prompt="and then?")
    hook("user-prompt-submit", prompt, repo)
    assert entries(repo)["toolu_01Int"]["status"] == "spawned"


@pytest.mark.parametrize(("said", "status"), [("failed", "failed"), ("killed", "interrupted")])
def test_a_task_notification_records_the_background_agents_end(repo, tmp_path, said, status):
    call = _spawned(repo, tmp_path)
    _meta(tmp_path, "a0000000000000012", toolUseId=call["id"])
    hook(
        "subagent-start",
        _session_event(tmp_path, repo, "SubagentStart", agent_id="a0000000000000012"),
        repo,
    )
    notice = (
        "<task-notification>\n<task-id>a0000000000000012</task-id>\n"
        f"<tool-use-id>{call['id']}</tool-use-id>\n<status>{said}</status>\n"
        "<summary>Agent ended</summary>\n</task-notification>"
    )
    hook(
        "user-prompt-submit",
        _session_event(tmp_path, repo, "UserPromptSubmit", prompt=notice),
        repo,
    )
    assert entries(repo)["a0000000000000012"]["status"] == status


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ('API Error: 400 {"type":"error"}', "failed"),
        # Claude Code's own words for some errors, before the agent's transcript holds the
        # error record (a busy machine: the client writes that transcript later)
        ("Prompt is too long · the request is ~300000 tokens (limit 200000)", "failed"),
        ("Credit balance is too low", "failed"),
        ("Done: the report says the prompt is too long for the old model.", "completed"),
    ],
)
def test_an_agent_that_returned_an_api_error_is_failed(repo, tmp_path, answer, status):
    call = _spawned(repo, tmp_path)
    post = _session_event(
        tmp_path,
        repo,
        "PostToolUse",
        tool_name="Agent",
        tool_input=call["input"],
        tool_use_id=call["id"],
        tool_response={
            "status": "completed",
            "agentId": "a0000000000000013",
            "content": [{"type": "text", "text": answer}],
        },
    )
    hook("post-tool-use", post, repo)
    assert entries(repo)["a0000000000000013"]["status"] == status


def test_resume_task_never_offers_sendmessage_to_a_tool_call_id(repo, tmp_path, cli):
    _spawned(repo, tmp_path)
    cli("history", "interrupt", "toolu_01Int")
    resumed = cli("resume-task", "toolu_01Int", "--session", SESSION)
    assert resumed.exit_code == 0, resumed.stderr
    assert "SendMessage" not in resumed.stdout


@pytest.mark.parametrize(("marks", "offered"), [({}, True), ({"stoppedByUser": True}, False)])
def test_resume_task_offers_sendmessage_unless_the_client_marked_the_agent_stopped(
    repo, tmp_path, cli, marks, offered
):
    """Claude Code 2.1.330 marks a background agent stopped with Esc ``stoppedByUser`` in its
    ``.meta.json``, and its SendMessage refuses to resume such an agent; an agent spawned inside
    a stopped agent has no mark, and SendMessage resumes it. The session's transcript (where the
    agents' folder is) is the one its SessionStart registered."""
    hook("session-start", _session_event(tmp_path, repo, "SessionStart", source="startup"), repo)
    call = _spawned(repo, tmp_path)
    _meta(tmp_path, "a0000000000000015", toolUseId=call["id"], **marks)
    start = _session_event(tmp_path, repo, "SubagentStart", agent_id="a0000000000000015")
    hook("subagent-start", start, repo)
    _parser_agent(repo, tmp_path, "a0000000000000015", None)
    hook("user-prompt-submit", _session_event(tmp_path, repo, "UserPromptSubmit"), repo)
    assert entries(repo)["a0000000000000015"]["status"] == "interrupted"
    resumed = cli("resume-task", "a0000000000000015", "--session", SESSION)
    assert resumed.exit_code == 0, resumed.stderr
    assert ("SendMessage to `a0000000000000015`" in resumed.stdout) is offered
    assert ("was stopped by the user" in resumed.stdout) is not offered
