"""Claude Code hooks: the real fixture session replayed as hook calls, and each event's edges.

Hooks run as Claude Code runs them: the installed console script, through ``sh -c``, payload
on stdin, so the process tree (shell, then this test as the "Claude Code" process) is real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.agents import registry
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from tests.claude_records import agent_transcript
from tests.conftest import git
from tests.resurrection_data import session_with_command

EXE = Path(sys.executable).with_name("purlin-resume")
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
AGENT = "a2898e3"
TOOL_USE = "toolu_017pLRuPHYTX5t99EnLyV53m"
PROJECT_FOLDER = "-home-USER-projects-spotter-worktrees-spotter-dov"


def hook(event: str, payload: dict | str, root: Path, **env: str) -> subprocess.CompletedProcess:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    environment = {
        **os.environ,
        "CLAUDE_PROJECT_DIR": str(root),
        **env,
    }
    return subprocess.run(
        ["sh", "-c", f"'{EXE}' hook {event}"],
        input=text,
        capture_output=True,
        text=True,
        env=environment,
        cwd=root,
        check=False,
    )


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def log_lines(root: Path) -> list[dict]:
    log = root / ".purlin" / "cache" / "hook.log"
    return records(log) if log.exists() else []


@pytest.fixture
def session_files(fixtures_copy):
    folder = fixtures_copy / "projects" / PROJECT_FOLDER
    return folder / f"{SESSION}.jsonl", folder / SESSION / "subagents" / f"agent-{AGENT}.jsonl"


def test_replay_of_the_fixture_session_records_agent_registry_and_checkpoint(
    repo, session_files, tmp_path
):
    source, agent_file = session_files
    lines = source.read_text().splitlines(keepends=True)
    parsed = [json.loads(line) for line in lines]
    use_at = next(
        i
        for i, r in enumerate(parsed)
        if r.get("type") == "assistant"
        and any(
            b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent")
            for b in r["message"]["content"]
            if isinstance(b, dict)
        )
    )
    call = next(b for b in parsed[use_at]["message"]["content"] if b.get("type") == "tool_use")
    result_at = next(
        i
        for i, r in enumerate(parsed)
        if isinstance(r.get("toolUseResult"), dict)
        and any(
            isinstance(b, dict) and b.get("tool_use_id") == call["id"]
            for b in r["message"]["content"]
        )
    )
    boundary = next(i for i, r in enumerate(parsed) if r.get("subtype") == "compact_boundary")
    live = tmp_path / "live" / f"{SESSION}.jsonl"  # the transcript as it grows
    live.parent.mkdir()

    def grow(upto: int) -> None:
        live.write_text("".join(lines[:upto]))

    base = {"session_id": SESSION, "transcript_path": str(live), "cwd": str(repo)}
    env = {"TMUX_PANE": "%7", "PURLIN_ROLE": "builder", "PURLIN_PREVIOUS_AGENT_ID": "sess-0"}

    grow(use_at)
    out = hook(
        "session-start",
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        repo,
        **env,
    )
    assert (out.returncode, out.stdout) == (0, "")  # no checkpoint yet: nothing to brief
    grow(use_at + 1)
    tool = {
        **base,
        "tool_name": call["name"],
        "tool_input": call["input"],
        "tool_use_id": call["id"],
    }
    assert hook("pre-tool-use", {**tool, "hook_event_name": "PreToolUse"}, repo).returncode == 0
    entry = history.load(Project(repo)).find(TOOL_USE).data
    assert entry["status"] == "spawned"
    assert entry["task_description"] == "Explore transcript rendering codebase"
    assert (entry["phase"], entry["plan"], entry["session_id"]) == ("none", "none", SESSION)
    assert (repo / ".planning" / "current-agent-id.txt").read_text() == TOOL_USE + "\n"

    stop = {
        **base,
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": AGENT,
        "agent_type": "Explore",
        "agent_transcript_path": str(agent_file),
    }
    assert hook("subagent-stop", stop, repo).returncode == 0
    grow(result_at + 1)
    response = parsed[result_at]["toolUseResult"]
    assert (
        hook(
            "post-tool-use",
            {**tool, "hook_event_name": "PostToolUse", "tool_response": response},
            repo,
        ).returncode
        == 0
    )

    doc = history.load(Project(repo))
    assert len(doc.entries) == 1
    entry = doc.entries[0].data
    assert (entry["agent_id"], entry["tool_use_id"], entry["status"]) == (
        AGENT,
        TOOL_USE,
        "completed",
    )
    assert entry["completion_timestamp"]
    assert entry.get("files_modified") in (None, [])  # an Explore agent only reads
    assert (repo / ".planning" / "current-agent-id.txt").read_text() == AGENT + "\n"

    grow(boundary)
    compact = {
        **base,
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "custom_instructions": "",
    }
    assert hook("pre-compact", compact, repo).returncode == 0
    checkpoint = repo / ".purlin" / "cache" / "checkpoints" / f"{SESSION}.md"
    text = checkpoint.read_text()
    assert "**Source:** PreCompact hook (auto compaction)" in text
    assert "**Role:** builder" in text
    assert "**In Progress:** continue" in text
    assert "lib/spotter_web/live/session_live.ex" in text  # files it changed, made relative
    assert "/home/USER/projects" not in text
    assert "Now update the shared transcript component" in text  # last assistant message

    grow(len(lines))
    out = hook(
        "session-start",
        {**base, "hook_event_name": "SessionStart", "source": "compact"},
        repo,
        **env,
    )
    assert out.returncode == 0
    context = json.loads(out.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart"
    assert len(context["additionalContext"]) <= 10_000
    assert (
        "PreCompact hook" in context["additionalContext"]
        or "continue" in context["additionalContext"]
    )
    assert not checkpoint.exists()  # an automatic checkpoint is consumed once briefed...
    archived = list((repo / ".purlin" / "cache" / "archive").glob(f"{SESSION}-*.md"))
    assert len(archived) == 1
    assert "PreCompact hook" in archived[0].read_text()  # ...into the archive

    agent = registry.load(Project(repo))[SESSION]
    assert (agent.transcript_path, agent.tmux_pane, agent.role, agent.previous_agent_id) == (
        str(live),
        "%7",
        "builder",
        "sess-0",
    )
    assert agent.pid == os.getpid()  # the process above the hook's shell: "Claude Code"
    assert agent.ended_at is None
    assert (
        hook(
            "session-end", {**base, "hook_event_name": "SessionEnd", "reason": "other"}, repo
        ).returncode
        == 0
    )
    assert registry.load(Project(repo))[SESSION].ended_at
    assert log_lines(repo) == []
    assert git(repo, "status", "--porcelain", "--ignored=no").count(".purlin") == 0


def _spawn(
    root: Path, tool_use_id: str, session: str = "s-1", description: str = "Execute plan 03-02"
) -> None:
    payload = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Agent",
        "tool_use_id": tool_use_id,
        "tool_input": {"description": description, "prompt": f"prompt of {tool_use_id}"},
    }
    assert hook("pre-tool-use", payload, root).returncode == 0


def test_subagent_stop_records_the_files_the_agent_changed_and_post_tool_use_names_it(
    repo, tmp_path
):
    _spawn(repo, "toolu_A")
    agent_file = agent_transcript(
        tmp_path / "s-1" / "subagents" / "agent-abc1234.jsonl",
        "abc1234",
        "prompt of toolu_A",
        [str(repo / "src" / "a.py"), str(repo / "docs" / "b.md"), "/elsewhere/c.txt"],
        "done",
    )
    stop = {
        "session_id": "s-1",
        "cwd": str(repo),
        "agent_id": "abc1234",
        "agent_transcript_path": str(agent_file),
    }
    assert hook("subagent-stop", stop, repo).returncode == 0
    entry = history.load(Project(repo)).find("abc1234").data
    assert entry["status"] == "completed"
    assert entry["files_modified"] == ["src/a.py", "docs/b.md"]  # project files only
    assert (entry["phase"], entry["plan"]) == ("03", "02")
    post = {
        "session_id": "s-1",
        "cwd": str(repo),
        "tool_name": "Agent",
        "tool_use_id": "toolu_A",
        "tool_input": {},
        "tool_response": {"status": "completed", "agentId": "abc1234"},
        "transcript_path": str(tmp_path / "s-1.jsonl"),  # its agent file is found beside it
    }
    assert hook("post-tool-use", post, repo).returncode == 0
    doc = history.load(Project(repo))
    assert [e.data["status"] for e in doc.entries] == ["completed"]
    assert log_lines(repo) == []


def test_an_interrupted_subagent_is_recorded_interrupted_and_can_be_resumed(repo, tmp_path, cli):
    _spawn(repo, "toolu_B")
    agent_file = agent_transcript(tmp_path / "agent-b.jsonl", "bbb", "prompt of toolu_B", [], None)
    stop = {
        "session_id": "s-1",
        "cwd": str(repo),
        "agent_id": "bbb",
        "agent_transcript_path": str(agent_file),
    }
    hook("subagent-stop", stop, repo)
    assert history.load(Project(repo)).find("bbb").status == "interrupted"
    resumed = cli("resume-task", "bbb")
    assert resumed.exit_code == 0, resumed.stderr
    assert history.load(Project(repo)).find("bbb").status == "resumed"


def test_two_agents_stopping_are_told_apart_by_the_session_transcript(repo, tmp_path):
    _spawn(repo, "toolu_1", description="first")
    _spawn(repo, "toolu_2", description="second")
    session = tmp_path / "s-1.jsonl"
    calls = [
        {
            "type": "assistant",
            "uuid": "x",
            "message": {
                "id": "m",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{n}",
                        "name": "Agent",
                        "input": {"prompt": f"prompt of toolu_{n}"},
                    }
                    for n in (1, 2)
                ],
            },
        }
    ]
    session.write_text("".join(json.dumps(r) + "\n" for r in calls))
    second = agent_transcript(
        tmp_path / "a2.jsonl", "a2", "prompt of toolu_2", [str(repo / "two.py")], "ok"
    )
    payload = {
        "session_id": "s-1",
        "cwd": str(repo),
        "transcript_path": str(session),
        "agent_id": "a2",
        "agent_transcript_path": str(second),
    }
    hook("subagent-stop", payload, repo)
    doc = history.load(Project(repo))
    assert doc.find("a2").data["tool_use_id"] == "toolu_2"
    assert doc.find("a2").data["files_modified"] == ["two.py"]
    assert doc.find("toolu_1").status == "spawned"


def test_a_background_agent_stays_running_with_its_id(repo):
    _spawn(repo, "toolu_C")
    post = {
        "session_id": "s-1",
        "cwd": str(repo),
        "tool_name": "Task",
        "tool_use_id": "toolu_C",
        "tool_input": {},
        "tool_response": {"status": "async_launched", "agentId": "ccc"},
    }
    hook("post-tool-use", post, repo)
    entry = history.load(Project(repo)).find("ccc").data
    assert (entry["status"], entry["tool_use_id"]) == ("spawned", "toolu_C")
    assert (repo / ".planning" / "current-agent-id.txt").read_text() == "ccc\n"


def test_session_start_marks_agents_of_ended_sessions_interrupted(repo):
    _spawn(repo, "toolu_D", session="old")
    _spawn(repo, "toolu_E", session="alive")
    registry.record_end(Project(repo), "old")
    registry.record_start(Project(repo), "alive", pid=os.getpid())
    hook("session-start", {"session_id": "new", "cwd": str(repo), "source": "startup"}, repo)
    doc = history.load(Project(repo))
    assert doc.find("toolu_D").status == "interrupted"
    assert doc.find("toolu_E").status == "spawned"


def _transcript_with_todos(path: Path, root: Path) -> Path:
    rows = [
        {
            "type": "user",
            "uuid": "u1",
            "cwd": str(root),
            "message": {"role": "user", "content": "Add the login page"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "TodoWrite",
                        "input": {
                            "todos": [
                                {
                                    "content": "Write the form",
                                    "status": "completed",
                                    "activeForm": "Writing",
                                },
                                {
                                    "content": "Wire the API with token=ghp_" + "a" * 36,
                                    "status": "in_progress",
                                    "activeForm": "Wiring",
                                },
                                {
                                    "content": "Add tests",
                                    "status": "pending",
                                    "activeForm": "Adding",
                                },
                            ]
                        },
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Edit",
                        "input": {"file_path": str(root / "login.py")},
                    },
                ],
            },
        },
        {
            "type": "user",
            "uuid": "r2",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "text", "text": "Form done, wiring next."}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_pre_compact_checkpoint_holds_the_todo_list_redacted(repo, tmp_path):
    registry.record_start(Project(repo), "s-9", pid=None, role="qa")
    transcript = _transcript_with_todos(tmp_path / "s-9.jsonl", repo)
    assert (
        hook(
            "pre-compact",
            {
                "session_id": "s-9",
                "cwd": str(repo),
                "transcript_path": str(transcript),
                "trigger": "manual",
            },
            repo,
        ).returncode
        == 0
    )
    text = (repo / ".purlin" / "cache" / "checkpoints" / "s-9.md").read_text()
    assert "**Role:** qa" in text
    assert "**Source:** PreCompact hook (manual /compact)" in text
    assert "**In Progress:** Add the login page" in text
    assert "### Done\n- Write the form" in text
    assert "1. Wire the API with token=[REDACTED:" in text
    assert "2. Add tests" in text
    assert "ghp_" not in text
    assert "Files changed this session: login.py" in text


def test_pre_compact_hides_a_password_a_command_showed_where_the_answer_repeats_it(repo, tmp_path):
    password = "S3cr3tPassw0rdXyz"
    transcript = session_with_command(
        tmp_path / "claude",
        "s-10",
        str(repo),
        f"mysql -u root -p{password} app",
        f"Done: the password {password} works.",
    )
    payload = {"session_id": "s-10", "cwd": str(repo), "transcript_path": str(transcript)}
    assert hook("pre-compact", {**payload, "trigger": "auto"}, repo).returncode == 0
    text = (repo / ".purlin" / "cache" / "checkpoints" / "s-10.md").read_text()
    assert "Done: the password [REDACTED:assigned-secret:" in text
    assert password not in text


def test_every_compaction_keeps_the_checkpoints_out_of_git(tmp_path):
    """A checkpoint saved before the folder was a repository (set up for GSD already), or before
    a branch without the ignore line was checked out, never leaves the next ones visible to
    git."""
    project = tmp_path / "p"
    (project / ".planning").mkdir(parents=True)
    for session, before in (("s-1", None), ("s-2", "init"), ("s-3", "forget")):
        if before == "init":
            git(project, "init", "-q")
        if before == "forget":
            (project / ".gitignore").write_text("")
        transcript = _transcript_with_todos(tmp_path / f"{session}.jsonl", project)
        said = {"session_id": session, "cwd": str(project), "transcript_path": str(transcript)}
        assert hook("pre-compact", said, project).returncode == 0
        assert (project / ".purlin" / "cache" / "checkpoints" / f"{session}.md").exists()
    status = git(project, "status", "--porcelain", "--untracked-files=all")
    assert status.split() == ["??", ".gitignore"]  # .planning/ holds nothing yet
    assert (project / ".gitignore").read_text().count(".purlin/cache/") == 1


def test_pre_compact_never_overwrites_a_checkpoint_the_agent_saved(repo, tmp_path, cli):
    result = cli(
        "save",
        "--role",
        "builder",
        "--in-progress",
        "mine",
        "--next",
        "n",
        "--step",
        "2",
        "--session",
        "s-5",
    )
    assert result.exit_code == 0, result.stderr
    saved = repo / ".purlin" / "cache" / "checkpoints" / "s-5.md"
    before = saved.read_text()
    transcript = _transcript_with_todos(tmp_path / "s-5.jsonl", repo)
    hook(
        "pre-compact",
        {"session_id": "s-5", "cwd": str(repo), "transcript_path": str(transcript)},
        repo,
    )
    assert saved.read_text() == before
    out = hook("session-start", {"session_id": "s-5", "cwd": str(repo), "source": "compact"}, repo)
    assert "mine" in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert saved.read_text() == before  # a hand-saved checkpoint stays live for /pl-resume


def test_startup_briefs_only_when_a_checkpoint_is_live_and_clear_finds_the_role(repo, cli):
    assert (
        hook(
            "session-start", {"session_id": "old", "cwd": str(repo), "source": "startup"}, repo
        ).stdout
        == ""
    )
    cli(
        "save",
        "--role",
        "qa",
        "--in-progress",
        "verifying login",
        "--next",
        "n",
        "--scenario-progress",
        "1 of 2",
        "--current-scenario",
        "login",
        "--session",
        "old",
    )
    # /clear: a new session in the same process, which is still the QA agent
    out = hook("session-start", {"session_id": "new", "cwd": str(repo), "source": "clear"}, repo)
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "verifying login" in context
    assert "restoring the QA" in context
    assert len(context) <= 10_000


def test_a_long_briefing_is_cut_to_ten_thousand_characters(repo, cli):
    cli(
        "save",
        "--role",
        "builder",
        "--in-progress",
        "x",
        "--next",
        "n",
        "--step",
        "1",
        "--notes",
        "word " * 5000,
        "--session",
        "s-2",
    )
    out = hook("session-start", {"session_id": "s-2", "cwd": str(repo), "source": "resume"}, repo)
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 10_000
    assert "purlin-resume restore builder --keep" in context


@pytest.mark.parametrize(
    ("event", "stdin"),
    [
        ("pre-tool-use", "{not json"),
        ("pre-tool-use", "[1, 2]"),
        ("no-such-event", "{}"),
    ],
)
def test_bad_input_is_logged_and_exits_zero(repo, event, stdin):
    out = hook(event, stdin, repo)
    assert out.returncode == 0
    assert out.stdout == ""
    assert len(log_lines(repo)) == 1
    assert log_lines(repo)[0]["event"] == event


def test_a_corrupt_history_is_left_untouched_and_the_hook_still_exits_zero(repo):
    broken = repo / ".planning" / "agent-history.json"
    broken.parent.mkdir()
    broken.write_text('{"entries": "oops"')
    out = hook(
        "pre-tool-use",
        {
            "session_id": "s",
            "cwd": str(repo),
            "tool_name": "Task",
            "tool_use_id": "toolu_Z",
            "tool_input": {"description": "d"},
        },
        repo,
    )
    assert out.returncode == 0
    assert broken.read_text() == '{"entries": "oops"'
    [line] = log_lines(repo)
    assert "agent-history.json" in line["error"]
    assert line["event"] == "pre-tool-use"


def test_secrets_in_a_failure_never_reach_the_log(repo):
    secret = "ghp_" + "b" * 36
    told = hook("no-such-event-" + secret, "{}", repo)
    assert secret not in (repo / ".purlin" / "cache" / "hook.log").read_text()
    assert "no-such-event-" in told.stderr
    assert secret not in told.stderr


def test_hook_through_the_typer_command_behaves_the_same(repo, cli):
    payload = {
        "session_id": "s",
        "cwd": str(repo),
        "tool_name": "Task",
        "tool_use_id": "toolu_T",
        "tool_input": {"description": "typer"},
    }
    result = cli(
        "hook", "pre-tool-use", input=json.dumps(payload), env={"CLAUDE_PROJECT_DIR": str(repo)}
    )
    assert result.exit_code == 0
    assert history.load(Project(repo)).find("toolu_T").status == "spawned"


def test_the_spawn_is_on_disk_when_pre_tool_use_returns(repo):
    payload = {
        "session_id": "s-bg",
        "cwd": str(repo),
        "tool_name": "Agent",
        "tool_use_id": "toolu_BG",
        "tool_input": {"description": "at once"},
    }
    out = hook("pre-tool-use", payload, repo)
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    assert history.load(Project(repo)).find("toolu_BG").status == "spawned"
    post = {**payload, "tool_response": {"status": "completed", "agentId": "bg1"}}
    assert hook("post-tool-use", post, repo).returncode == 0
    entry = history.load(Project(repo)).find("bg1").data
    assert (entry["tool_use_id"], entry["status"]) == ("toolu_BG", "completed")
    assert log_lines(repo) == []


def test_one_subagents_life_in_the_clients_order_is_one_entry(repo):
    """PreToolUse, then SubagentStop (before the tool returns), then PostToolUse: the spawn is
    named by SubagentStop and completed; PostToolUse finds it done and changes nothing."""
    spawn = _spawn_payload(repo, "toolu_LIFE")
    hook("pre-tool-use", spawn, repo)
    stop = {**spawn, "agent_id": "alife01", "last_assistant_message": "Done: plan 03-02."}
    assert hook("subagent-stop", stop, repo).returncode == 0
    after_stop = history.path(Project(repo)).read_bytes()
    post = {**spawn, "tool_response": {"status": "completed", "agentId": "alife01"}}
    assert hook("post-tool-use", post, repo).returncode == 0
    assert history.path(Project(repo)).read_bytes() == after_stop
    [entry] = [e.data for e in history.load(Project(repo)).entries if e.agent_id == "alife01"]
    assert (entry["tool_use_id"], entry["status"]) == ("toolu_LIFE", "completed")
    assert (entry["phase"], entry["plan"]) == ("03", "02")
    assert history.read_current_id(Project(repo)) == "alife01"
    assert log_lines(repo) == []


def test_a_compaction_runs_subagent_stop_answers_at_once_and_records_nothing(repo):
    import time

    hook("pre-tool-use", _spawn_payload(repo, "toolu_RUNNING"), repo)
    before = history.path(Project(repo)).read_bytes()
    stop = {"session_id": "s-spawn", "cwd": str(repo), "agent_id": "acompact-e1f845"}
    started = time.monotonic()
    assert hook("subagent-stop", stop, repo).returncode == 0
    assert time.monotonic() - started < 30  # (no timing budget: only that it returns)
    assert history.path(Project(repo)).read_bytes() == before
    assert history.load(Project(repo)).find("toolu_RUNNING").status == "spawned"
    assert log_lines(repo) == []


def test_a_running_agents_checkpoint_is_not_briefed_to_a_new_session(repo, cli):
    cli(
        "save",
        "--role",
        "builder",
        "--in-progress",
        "agent A's work",
        "--next",
        "n",
        "--step",
        "2",
        "--session",
        "A",
    )
    with subprocess.Popen(["sleep", "60"]) as agent_a:  # A's own Claude Code process
        registry.record_start(Project(repo), "A", pid=agent_a.pid)
        out = hook(
            "session-start", {"session_id": "B", "cwd": str(repo), "source": "startup"}, repo
        )
        agent_a.kill()
    assert out.stdout == ""
    registry.record_end(Project(repo), "A")
    start = {"session_id": "B", "cwd": str(repo), "source": "startup"}
    assert hook("session-start", start, repo).stdout == ""  # B has no role: not A's work
    out = hook("session-start", start, repo, PURLIN_ROLE="builder")
    assert "agent A's work" in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_resurrected_agents_first_session_start_completes_its_log_entry(repo, tmp_path):
    from purlin_resume.resurrection import log as resurrection_log

    claude = tmp_path / "claude"
    log = claude / "history" / resurrection_log.FILE_NAME
    entry = resurrection_log.append(
        log,
        {
            "resurrected_from_session_id": "old",
            "resurrected_as_agent_id": "generated-id",
            "resurrection_mode": "direct",
            "context_extraction_method": "hybrid",
            "outcome": "success",
        },
    )
    done = hook(
        "session-start",
        {"session_id": "the-new-session", "cwd": str(repo), "source": "startup"},
        repo,
        PURLIN_RESURRECTION_ID=entry["resurrection_id"],
        CLAUDE_CONFIG_DIR=str(claude),
    )
    assert done.returncode == 0
    assert log_lines(repo) == []
    [written] = resurrection_log.read(log)[0]
    assert written["resurrected_as_agent_id"] == "the-new-session"
    assert written["resurrected_from_session_id"] == "old", "nothing else changes"


def test_an_unknown_resurrection_id_is_logged_and_the_session_still_starts(repo, tmp_path):
    claude = tmp_path / "claude"
    done = hook(
        "session-start",
        {"session_id": "s-9", "cwd": str(repo), "source": "startup"},
        repo,
        PURLIN_RESURRECTION_ID="res-2026-01-01-999",
        CLAUDE_CONFIG_DIR=str(claude),
    )
    assert done.returncode == 0
    [line] = log_lines(repo)
    assert "res-2026-01-01-999" in line["error"]
    assert registry.load(Project(repo))["s-9"].session_id == "s-9", "registered before the failure"


def _spawn_payload(repo: Path, tool_use_id: str) -> dict:
    return {
        "session_id": "s-spawn",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Agent",
        "tool_use_id": tool_use_id,
        "tool_input": {"description": "Execute plan 03-02", "prompt": "do it"},
    }


def test_a_spawn_recorded_twice_is_one_entry(repo):
    payload = _spawn_payload(repo, "toolu_TWICE")
    hook("pre-tool-use", payload, repo)
    hook("pre-tool-use", payload, repo)
    entries = [e for e in history.load(Project(repo)).entries if e.agent_id == "toolu_TWICE"]
    assert len(entries) == 1


def test_tests_never_see_the_developers_xdg_folders():
    """conftest points HOME and every XDG folder into a temporary home: a developer's
    XDG_CACHE_HOME (where the cache lives) never leaks into a test."""
    home = Path(os.environ["HOME"])
    for name in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        assert Path(os.environ[name]).is_relative_to(home), name
    assert "CLAUDE_CODE_SESSION_ID" not in os.environ


def _reads(event: str, payload: dict, root: Path, name: str) -> int:
    """How many times the hook opens files named ``name`` (an audit hook counts the opens)."""
    counting = (
        "import sys\n"
        "opened = []\n"
        "def audit(name, args):\n"
        f"    if name == 'open' and str(args[0]).endswith('/' + {name!r}):\n"
        "        opened.append(args[0])\n"
        "sys.addaudithook(audit)\n"
        "from purlin_resume.integration import hook_call\n"
        f"hook_call.run({event!r})\n"
        "print(len(opened), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", counting],
        input=json.dumps(payload), capture_output=True, text=True, cwd=root, check=True,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(root)},
    )  # fmt: skip
    return int(done.stderr.splitlines()[-1])


@pytest.mark.parametrize("stopped_first", [False, True])
def test_post_tool_use_reads_the_history_once_under_its_lock(repo, stopped_first):
    spawn = _spawn_payload(repo, "toolu_ONCE")
    hook("pre-tool-use", spawn, repo)
    if stopped_first:  # the client's usual order: SubagentStop has said how it ended
        stop = {**spawn, "agent_id": "aonce01", "last_assistant_message": "Done."}
        assert hook("subagent-stop", stop, repo).returncode == 0
    post = {**spawn, "tool_response": {"status": "completed", "agentId": "aonce01"}}
    assert _reads("post-tool-use", post, repo, "agent-history.json") == 1
    [entry] = [e.data for e in history.load(Project(repo)).entries]
    assert (entry["agent_id"], entry["status"]) == ("aonce01", "completed")
    assert log_lines(repo) == []


def test_session_start_looks_for_the_sessions_own_checkpoint_once(repo):
    """The role of a session without one of its own comes from its own checkpoint, looked for
    once: the briefing uses what the hook found."""
    session = "5e55a0b1-0000-4000-8000-000000000001"
    start = {"session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart",
             "source": "clear"}  # fmt: skip
    assert _reads("session-start", start, repo, f"{session}.md") == 1


def test_session_start_and_compaction_read_the_registry_once(repo, tmp_path):
    """SessionStart registers the session, marks the agents of sessions that are over and
    finds the checkpoints another running session owns from its one locked update of the
    registry; PreCompact reads it once for the role and the plan the session carries."""
    registry.record_start(Project(repo), "earlier", pid=None, role="qa")
    _spawn(repo, "toolu_S")  # a history to look through
    session = "5e55a0b1-0000-4000-8000-000000000002"
    start = {"session_id": session, "cwd": str(repo), "hook_event_name": "SessionStart",
             "source": "startup"}  # fmt: skip
    assert _reads("session-start", start, repo, "agents.json") == 1
    assert set(registry.load(Project(repo))) == {"earlier", session}
    transcript = _transcript_with_todos(tmp_path / f"{session}.jsonl", repo)
    compact = {"session_id": session, "cwd": str(repo), "transcript_path": str(transcript),
               "hook_event_name": "PreCompact", "trigger": "auto"}  # fmt: skip
    assert _reads("pre-compact", compact, repo, "agents.json") == 1
    assert (repo / ".purlin" / "cache" / "checkpoints" / f"{session}.md").exists()
    assert log_lines(repo) == []


def test_a_compaction_keeps_the_sessions_start(repo):
    """SessionStart(compact) comes from the process that already runs the session (this test
    stands for Claude Code): the start stays, so the stall check's evidence before the
    compaction is still the agent's own; the same session started by another process starts
    anew."""
    project = Project(repo)
    hour_ago = "2026-01-15T14:00:00Z"
    registry.record_start(project, "s-c", pid=os.getpid(), cwd=str(repo))
    data = json.loads(registry.path(project).read_text())
    data["agents"]["s-c"]["started_at"] = hour_ago
    registry.path(project).write_text(json.dumps(data))

    out = hook("session-start", {"session_id": "s-c", "cwd": str(repo), "source": "compact"}, repo)

    assert out.returncode == 0, out.stderr
    assert registry.load(project)["s-c"].started_at == hour_ago
    data["agents"]["s-c"]["pid"] = os.getpid() + 10**6  # another process ran it
    registry.path(project).write_text(json.dumps(data))
    hook("session-start", {"session_id": "s-c", "cwd": str(repo), "source": "resume"}, repo)
    assert registry.load(project)["s-c"].started_at != hour_ago


@pytest.mark.parametrize("set_up", [None, ".purlin", ".planning"])
def test_a_folder_outside_git_is_a_project_only_once_set_up(tmp_path, set_up):
    """A plugin enabled for every folder runs the hooks in ``$HOME`` too: a folder that is no
    repository and was never set up (``install``, ``save``) gets nothing; one that was is
    recorded as before."""
    home = tmp_path / "home"
    home.mkdir()
    if set_up:
        (home / set_up).mkdir()
    transcript = _transcript_with_todos(tmp_path / "s-1.jsonl", home)
    said = {"session_id": "s-1", "cwd": str(home), "transcript_path": str(transcript)}
    tool = {"tool_name": "Agent", "tool_use_id": "toolu_01", "tool_input": {"prompt": "look"}}
    for event, payload in (
        ("session-start", {**said, "source": "startup"}),
        ("pre-tool-use", {**said, **tool}),
        ("pre-compact", {**said, "trigger": "auto"}),
        ("session-end", "{not json"),
    ):
        done = hook(event, payload, home)
        assert done.returncode == 0
        assert done.stdout == ""
    made = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    if set_up is None:
        assert made == []
    else:
        assert ".planning/agent-history.json" in made
        assert ".purlin/cache/checkpoints/s-1.md" in made
        assert ".purlin/agents.json" in made
