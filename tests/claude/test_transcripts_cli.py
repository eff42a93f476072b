"""`sessions`, `agents`, `transcript` and `export` as a user runs them."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest

from tests.claude_records import (
    Conversation,
    independent_counts,
    recorded_session_id,
    text,
    tool,
    write_jsonl,
)
from tests.conftest import unreadable

GOLDEN = Path(__file__).parents[1] / "golden"
DOV_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
DEMO_SMALL = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"


@pytest.fixture
def overflow_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def run(cli, root: Path, *args: str):
    return cli(*args, "--claude-dir", str(root))


def test_sessions_json_lists_every_fixture_session_with_independent_counts(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "sessions", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    listed = {s["id"]: s for s in json.loads(result.stdout)["sessions"]}
    files = [
        p for p in (fixtures_copy / "projects").glob("*/*.jsonl") if not p.name.startswith("agent-")
    ]
    assert set(listed) == {recorded_session_id(p) for p in files}
    for path in files:
        expected = independent_counts(path)
        entry = listed[recorded_session_id(path)]
        assert entry["turns"] == expected["turns"]
        assert entry["compactions"] == expected["compactions"]
        assert entry["malformed_lines"] == expected["malformed"]
        assert entry["size"] == path.stat().st_size
        assert entry["start"].endswith("Z")
        assert entry["end"].endswith("Z")


def test_sessions_of_one_project_by_recorded_cwd(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "sessions", "--project", "/path/to/Demo")
    assert result.exit_code == 0, result.stderr
    assert DEMO_SMALL in result.stdout
    assert "Empty Repo Setup: CLAUDE.md Foundation Created" in result.stdout
    assert DOV_SESSION not in result.stdout


def test_sessions_default_to_the_current_project(cli, fixtures_copy, repo):
    result = run(cli, fixtures_copy, "sessions")
    assert result.exit_code == 0, result.stderr
    assert f"No sessions of claude, codex, gemini, opencode for {repo}" in result.stdout


def test_claude_config_dir_environment_is_used(cli, fixtures_copy, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(fixtures_copy))
    result = cli("sessions", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["sessions"]) == 6


def test_agents_shows_the_tree_with_type_status_and_tokens(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "agents", "4d56")
    assert result.exit_code == 0, result.stderr
    assert (
        "a2898e3  Explore  completed  76365 tokens  Explore transcript rendering codebase"
        in result.stdout
    )
    assert "compaction 2026-02-12T20:30:28.504Z auto by acompact-e1f845" in result.stdout
    data = json.loads(run(cli, fixtures_copy, "agents", "fe5e1c67", "--json").stdout)
    assert len(data["subagents"]) == 5
    assert {a["status"] for a in data["subagents"]} == {"completed"}
    # an agent's id: the tree of its session, said so
    by_agent = run(cli, fixtures_copy, "agents", "a2898e3")
    assert by_agent.exit_code == 0, by_agent.stderr
    assert by_agent.stdout == result.stdout
    assert by_agent.stderr.startswith("note: a2898e3 is an agent of session 4d5611e5-")


def test_transcript_of_a_small_session_matches_the_golden_markdown(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "transcript", DEMO_SMALL[:8])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (GOLDEN / "transcript-1af7fc5e.md").read_text()


def test_transcript_sections_follow_commands_and_label_turns(cli, fixtures_copy):
    out = run(cli, fixtures_copy, "transcript", "short").stdout
    assert "\n## mix phx.server doesnt seem to start\n" in out
    assert "\n## /model\n" in out
    assert "**User:** _2026-02-10T21:11:56.846Z_\nmix phx.server doesnt seem to start" in out
    assert "**Agent:** _2026-02-10T21:11:59.186Z_\nLet me check the project structure" in out
    assert "- `Bash`: mix phx.server 2>&1 | head -80 (error)" in out
    assert "Thinking" not in out
    thinking = run(cli, fixtures_copy, "transcript", "short", "--include-thinking").stdout
    assert "> _Thinking:_\n> The user is having trouble starting their Phoenix server." in thinking


def test_transcript_with_tools_shows_inputs_and_results(cli, fixtures_copy):
    out = run(cli, fixtures_copy, "transcript", DEMO_SMALL, "--include-tools").stdout
    assert '"pattern": "package.json"' in out
    assert "Result:\n```text\nNo files found\n```" in out
    assert (
        "Error:\n```text\nClaude requested permissions to write to /path/to/Demo/CLAUDE.md" in out
    )


def test_transcript_of_an_inline_subagent(cli, fixtures_copy):
    out = run(cli, fixtures_copy, "transcript", "6690d10e").stdout
    assert out.startswith(
        "# Agent 6690d10e-f521-4ac0-800d-e5eb7a2d8072 (general-purpose): Build TODO components"
    )
    assert "- Status: completed" in out
    assert "## Create React components for the TODO app" in out


def test_long_transcript_prints_a_bounded_digest_and_writes_the_whole(
    cli, fixtures_copy, overflow_dir, monkeypatch
):
    monkeypatch.setenv("CLAUDECODE", "1")  # Claude Code's agent reads it (its Bash tool)
    result = run(cli, fixtures_copy, "transcript", DOV_SESSION[:6])
    assert result.exit_code == 0, result.stderr
    assert "a digest of the transcript" in result.stderr
    assert "--max-chars 0" in result.stderr
    whole = overflow_dir / f"purlin-resume-{os.getuid()}" / f"transcript-{DOV_SESSION}.md"
    assert len(result.stdout) <= 25_000
    assert str(whole) in result.stdout
    full = whole.read_text()
    assert len(full) > 25_000
    assert full == run(cli, fixtures_copy, "transcript", DOV_SESSION, "--max-chars", "0").stdout
    assert "## Sections" in result.stdout
    assert "Conversation compacted" in result.stdout
    assert result.stdout.rstrip().endswith(full.rstrip()[-500:])  # the end of the conversation
    full_lines = full.splitlines()
    listed = re.findall(r"^\d+\. line (\d+) · ", result.stdout, re.M)
    assert len(listed) == 3
    assert all(full_lines[int(number) - 1].startswith("## ") for number in listed)
    small = run(cli, fixtures_copy, "transcript", DOV_SESSION, "--max-chars", "3000").stdout
    assert len(small) <= 3000
    assert small.rstrip().endswith(full.rstrip()[-200:])  # the end, not cut short at the limit
    # a limit the header alone passes: where the whole is, and nothing cut in two
    tiny = run(cli, fixtures_copy, "transcript", DOV_SESSION, "--max-chars", "200").stdout
    assert str(whole) in tiny
    assert "## Sections" not in tiny


def test_a_piped_transcript_is_whole_unless_less_is_asked_for(cli, fixtures_copy, overflow_dir):
    """Regression: past 25,000 characters a pipe got an index and the tail, so
    ``transcript 4d56 | grep -ci dialyzer`` found 13 of the 50 lines."""
    whole = run(cli, fixtures_copy, "transcript", DOV_SESSION, "-o", str(overflow_dir / "all.md"))
    assert whole.exit_code == 0, whole.stderr
    expected = (overflow_dir / "all.md").read_text()
    assert len(expected) > 25_000

    piped = run(cli, fixtures_copy, "transcript", DOV_SESSION[:4])

    assert piped.exit_code == 0
    assert piped.stderr == ""
    assert piped.stdout == expected
    dialyzer = [line for line in piped.stdout.splitlines() if "dialyzer" in line.lower()]
    assert len(dialyzer) == sum("dialyzer" in line.lower() for line in expected.splitlines())
    asked = run(cli, fixtures_copy, "transcript", DOV_SESSION[:4], "--max-chars", "3000")
    assert len(asked.stdout) <= 3000
    assert asked.stderr == ""


def test_transcript_to_a_file(cli, fixtures_copy, tmp_path):
    target = tmp_path / "out.md"
    result = run(cli, fixtures_copy, "transcript", DOV_SESSION, "-o", str(target))
    assert result.exit_code == 0, result.stderr
    assert f"wrote {target}" in result.stdout
    assert target.read_text().count("\n## ") >= 3


def test_transcript_json_to_a_file_writes_the_document_there(cli, fixtures_copy, tmp_path):
    target = tmp_path / "out.json"
    printed = run(cli, fixtures_copy, "transcript", DEMO_SMALL, "--json").stdout

    result = run(cli, fixtures_copy, "transcript", DEMO_SMALL, "--json", "-o", str(target))

    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"wrote {target} ({len(printed)} characters)\n"
    assert json.loads(target.read_text()) == json.loads(printed)
    assert target.stat().st_mode & 0o077 == 0  # as every file it writes: the user's alone


def test_no_history_says_so(cli, tmp_path):
    root = tmp_path / "claude"
    write_jsonl(root / "projects" / "-w" / "99999999-empty.jsonl", [])
    result = run(cli, root, "transcript", "99999999")
    assert result.exit_code == 0
    assert result.stdout == "No conversation history found for session 99999999-empty\n"
    (root / "projects" / "-w" / "aaaaaaaa-binary.jsonl").write_bytes(b"\x00\x01\x02" * 100)
    assert "No conversation history found" in run(cli, root, "transcript", "aaaa").stdout
    listed = json.loads(run(cli, root, "sessions", "--all", "--json").stdout)["sessions"]
    assert {s["id"]: s["binary"] for s in listed} == {
        "99999999-empty": False,
        "aaaaaaaa-binary": True,
    }


def test_a_transcript_the_user_may_not_read_is_an_error_not_an_empty_one(
    cli, fixtures_copy, monkeypatch
):
    """A session file without read permission is named with why (exit 1), not shown as a
    conversation without history; ``sessions`` says why too."""
    locked = next(fixtures_copy.rglob(f"{DEMO_SMALL}.jsonl"))
    unreadable(locked, monkeypatch)

    for command in ("transcript", "export"):
        result = run(cli, fixtures_copy, command, DEMO_SMALL)
        assert result.exit_code == 1, result.stdout
        assert result.stderr == f"error: cannot read {locked}: Permission denied\n"
    listed = run(cli, fixtures_copy, "sessions", "--all").stdout
    assert "[not readable: Permission denied]" in listed


def test_export_json_has_the_tr3_shape(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "export", "a2898e3")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    for key in (
        "agent_id",
        "session_id",
        "project_path",
        "started_at",
        "completed_at",
        "duration_ms",
        "agent_type",
        "original_prompt",
        "conversation",
        "final_output",
        "files_analyzed",
        "tool_calls_summary",
        "git_branch",
        "git_commit",
    ):
        assert key in data
    agent_file = next(fixtures_copy.glob("projects/*/*/subagents/agent-a2898e3.jsonl"))
    expected = independent_counts(agent_file, sidechains=True)["tools"]
    assert data["tool_calls_summary"] == {"total": sum(expected.values()), "by_tool": expected}
    assert (data["agent_id"], data["session_id"], data["agent_type"]) == (
        "a2898e3",
        DOV_SESSION,
        "Explore",
    )
    assert data["duration_ms"] == 141871
    assert data["git_branch"] == "spotter-dov"
    assert data["conversation"][0] == {
        "role": "user",
        "type": "prompt",
        "content": data["original_prompt"],
        "timestamp": data["started_at"],
    }
    assert any(p.endswith("lib/spotter_web/live/session_live.ex") for p in data["files_analyzed"])
    texts: dict[str, list[str]] = {}
    for line in agent_file.read_bytes().splitlines():
        record = json.loads(line)
        if record.get("type") == "assistant":
            blocks = record["message"]["content"]
            said = [b["text"] for b in blocks if b.get("type") == "text" and b["text"].strip()]
            texts.setdefault(record["message"]["id"], []).extend(said)
    last = [said for said in texts.values() if said][-1]
    assert data["final_output"] == "\n\n".join(last)


def test_export_takes_json_as_every_read_command_does(cli, fixtures_copy):
    as_json = run(cli, fixtures_copy, "export", "a2898e3", "--json")
    assert as_json.exit_code == 0, as_json.stderr
    assert as_json.stdout == run(cli, fixtures_copy, "export", "a2898e3").stdout
    both = run(cli, fixtures_copy, "export", "a2898e3", "--json", "--format", "md")
    assert both.exit_code == 2
    assert both.stdout == ""
    assert both.stderr == "error: --json and --format md exclude each other; give one of them\n"


def test_export_of_a_session_records_the_commit_it_made(cli, fixtures_copy):
    data = json.loads(run(cli, fixtures_copy, "export", DOV_SESSION, "--include-tools").stdout)
    assert data["git_commit"] == "64f1b9a"
    assert data["agent_type"] == "main"
    assert any(
        item["role"] == "system" and item["type"] == "compaction" for item in data["conversation"]
    )
    results = [
        b
        for item in data["conversation"]
        if item["role"] == "user" and isinstance(item["content"], list)
        for b in item["content"]
    ]
    assert results
    assert all(b["type"] == "tool_result" for b in results)


def test_export_md_to_a_file_matches_the_transcript(cli, fixtures_copy, tmp_path):
    target = tmp_path / "x.md"
    assert (
        run(cli, fixtures_copy, "export", DEMO_SMALL, "--format", "md", "-o", str(target)).exit_code
        == 0
    )
    assert target.read_text() == (GOLDEN / "transcript-1af7fc5e.md").read_text()


# bad input -----------------------------------------------------------------------------------

COMMANDS = [
    ("sessions", "--all"),
    ("agents", DOV_SESSION),
    ("transcript", DOV_SESSION),
    ("export", DOV_SESSION),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_missing_claude_dir_is_one_line_and_exit_1(cli, tmp_path, args):
    result = cli(*args, "--claude-dir", str(tmp_path / "nowhere"))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "no Claude Code transcripts in" in result.stderr
    assert "Traceback" not in result.stderr
    if args[0] in ("transcript", "export"):  # the other CLIs were looked in too: it says so
        assert "no session or agent matches" in result.stderr
        assert "codex, gemini, opencode" in result.stderr


@pytest.mark.parametrize("command", ["agents", "transcript", "export"])
def test_unknown_id_exits_1_with_a_clear_line(cli, fixtures_copy, command):
    result = run(cli, fixtures_copy, command, "ffffffff")
    assert result.exit_code == 1
    assert "no session" in result.stderr
    assert "'ffffffff'" in result.stderr
    assert f"in {fixtures_copy};" in result.stderr  # where Claude Code's sessions were looked for
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["transcript", "export"])
def test_ambiguous_prefix_lists_candidates(cli, fixtures_copy, command):
    result = run(cli, fixtures_copy, command, "acompact")
    assert result.exit_code == 1
    assert "ambiguous" in result.stderr
    assert "acompact-e1f845" in result.stderr
    assert "acompact-f46190" in result.stderr


def test_agents_with_an_ambiguous_session_prefix(cli, tmp_path):
    root = tmp_path / "claude"
    for session_id in ("abc11111-x", "abc22222-y"):
        write_jsonl(
            root / "projects" / "-w" / f"{session_id}.jsonl", [Conversation(session_id).user("hi")]
        )
    result = run(cli, root, "agents", "abc")
    assert result.exit_code == 1
    assert "abc11111-x" in result.stderr
    assert "abc22222-y" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("transcript", DOV_SESSION, "--max-chars", "-5"),
        ("transcript", DOV_SESSION, "--max-chars", "lots"),
        ("export", DOV_SESSION, "--format", "xml"),
        ("sessions", "--all", "--project", "/path/to/Demo"),
        ("transcript", ""),
    ],
    ids=["negative-max", "word-max", "format", "project-and-all", "empty-id"],
)
def test_invalid_option_values_are_usage_errors(cli, fixtures_copy, args):
    result = run(cli, fixtures_copy, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["transcript", "export"])
def test_output_into_a_missing_folder_is_refused(cli, fixtures_copy, tmp_path, command):
    target = tmp_path / "missing" / "out.md"
    result = run(cli, fixtures_copy, command, DEMO_SMALL, "-o", str(target))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr
    assert not target.parent.exists()


def test_every_read_command_prints_one_json_document(cli, fixtures_copy):
    for args in (("sessions", "--all"), ("agents", DOV_SESSION), ("transcript", DEMO_SMALL)):
        result = run(cli, fixtures_copy, *args, "--json")
        assert result.exit_code == 0, result.stderr
        json.loads(result.stdout)


def test_agent_text_keeps_brackets_and_its_headings_sit_below_the_sections(cli, tmp_path):
    root = tmp_path / "claude"
    c = Conversation("bbbbbbbb-1")
    reply = "Hi [there]\n## Summary\n```\n# not a heading\n```"
    write_jsonl(
        root / "projects" / "-w" / "bbbbbbbb-1.jsonl",
        [c.user("Hello"), c.assistant("m", text(reply))],
    )
    out = run(cli, root, "transcript", "bbbb").stdout
    expected = (
        "**Agent:** _2026-01-01T10:00:02.000Z_\nHi [there]\n#### Summary\n```\n# not a heading\n```"
    )
    assert expected in out
    assert [line for line in out.splitlines() if line.startswith("## ")] == ["## Hello"]


def test_the_bundled_example_renders_like_the_fixture(cli):
    examples = Path(__file__).resolve().parents[2] / "examples" / "claude"
    result = run(cli, examples, "transcript", "1af7")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (GOLDEN / "transcript-1af7fc5e.md").read_text()


def test_sessions_mark_skipped_lines_and_unreadable_files(cli, tmp_path):
    root = tmp_path / "claude"
    c = Conversation("cccccccc-1")
    path = write_jsonl(root / "projects" / "-w" / "cccccccc-1.jsonl", [c.user("Hello")])
    with open(path, "ab") as handle:
        handle.write(b"{broken\n")
    (root / "projects" / "-w" / "dddddddd-2.jsonl").write_bytes(b"\x00" * 64)
    out = run(cli, root, "sessions", "--all").stdout
    assert "[1 line(s) skipped]" in out
    assert "[not readable as JSONL]" in out


def test_an_unwritable_output_is_one_line_and_exit_1(cli, fixtures_copy, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    result = run(cli, fixtures_copy, "export", DEMO_SMALL, "-o", str(folder))
    assert result.exit_code == 2
    assert result.stderr == f"error: -o {folder}: is a folder; give a file name\n"
    inside_a_file = tmp_path / "plain.txt"
    inside_a_file.write_text("x")
    result = run(cli, fixtures_copy, "export", DEMO_SMALL, "-o", str(inside_a_file / "x.json"))
    assert result.exit_code == 2
    assert "the folder" in result.stderr
    assert "does not exist" in result.stderr
    # A folder that exists but takes no files (procfs refuses even root): the write itself fails.
    result = run(cli, fixtures_copy, "export", DEMO_SMALL, "-o", "/proc/purlin-resume-test.json")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot write /proc/purlin-resume-test.json: ")
    assert result.stderr.count("\n") == 1
    assert not list(tmp_path.glob("**/*.lock")), "an output file leaves no lock file"


def test_unknown_record_types_are_named_so_drift_shows(cli, tmp_path):
    root = tmp_path / "claude"
    c = Conversation("eeeeeeee-1")
    odd = {"type": "permission-mode", "permissionMode": "default", "sessionId": "eeeeeeee-1"}
    write_jsonl(root / "projects" / "-w" / "eeeeeeee-1.jsonl", [odd, c.user("Hello"), odd])
    for _ in range(2):  # read fresh, then from what the listing kept
        out = run(cli, root, "sessions", "--all").stdout
        assert "[unknown record types: permission-mode ×2]" in out
        listed = json.loads(run(cli, root, "sessions", "--all", "--json").stdout)["sessions"]
        assert listed[0]["unknown_types"] == {"permission-mode": 2}
    shown = run(cli, root, "transcript", "eeeeeeee-1").stdout
    assert "2 record(s) of unknown type (permission-mode ×2)" in shown


def test_an_unknown_record_type_too_long_to_show_is_named_by_its_length(cli, tmp_path):
    """(A name cut short could end inside a token that redaction no longer recognises.)"""
    root = tmp_path / "claude"
    c = Conversation("eeeeeeee-2")
    odd = {"type": "drift-" + "x" * 5000, "sessionId": "eeeeeeee-2"}
    write_jsonl(root / "projects" / "-w" / "eeeeeeee-2.jsonl", [odd, c.user("Hello")])
    listed = json.loads(run(cli, root, "sessions", "--all", "--json").stdout)["sessions"]
    assert listed[0]["unknown_types"] == {"(5006 characters)": 1}


def test_unknown_content_blocks_are_counted_as_unknown_types_so_drift_shows(cli, tmp_path):
    """Regression: a block of a new type inside a known record was dropped without a word."""
    root = tmp_path / "claude"
    c = Conversation("eeeeeeee-3")
    said = [
        c.user([text("Hello"), {"type": "voice_note", "seconds": 3}]),
        c.assistant(
            "m1",
            {"type": "thinking", "thinking": "hmm"},  # known, shown only when asked for
            {"type": "redacted_thinking", "data": "opaque"},  # known, nothing to show
            text("Hi"),
            {"type": "future_block", "body": "?"},
        ),
        c.assistant("m2", {"type": "future_block"}, {"type": "image", "source": {}}),
    ]
    write_jsonl(root / "projects" / "-w" / "eeeeeeee-3.jsonl", said)
    named = {"assistant:future_block": 2, "user:voice_note": 1}

    shown = run(cli, root, "transcript", "eeeeeeee-3").stdout
    document = json.loads(run(cli, root, "export", "eeeeeeee-3").stdout)
    for _ in range(2):  # read fresh, then from what the listing kept
        [listed] = json.loads(run(cli, root, "sessions", "--all", "--json").stdout)["sessions"]
        assert listed["unknown_types"] == named

    assert "3 record(s) of unknown type (assistant:future_block ×2, user:voice_note)" in shown
    assert document["skipped"]["unknown_records"] == 3
    assert "Hi" in shown


def test_a_search_call_shows_where_it_looked(cli, tmp_path):
    """Regression: two Glob calls with different paths showed the same line."""
    root = tmp_path / "claude"
    c = Conversation("eeeeeeee-4")
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    deep = "/srv/" + "d" * 90 + f"/{secret}/x"  # past the line's length: cut, never the secret
    said = [
        c.user("find the commands"),
        c.assistant(
            "m1",
            tool("t1", "Glob", pattern="**/*.md", path="./.claude/commands"),
            tool("t2", "Glob", pattern="**/*.md", path="~/.claude/commands"),
            tool("t3", "Glob", pattern="**/*.py"),
            tool("t4", "Grep", pattern="def main", path="src", output_mode="content"),
            tool("t5", "Glob", pattern="**/*.md", path=deep),
        ),
    ]
    write_jsonl(root / "projects" / "-w" / "eeeeeeee-4.jsonl", said)

    shown = run(cli, root, "transcript", "eeeeeeee-4").stdout
    document = json.loads(run(cli, root, "export", "eeeeeeee-4").stdout)

    lines = [line for line in shown.splitlines() if line.startswith("- `")]
    assert lines[:4] == [
        "- `Glob`: **/*.md in ./.claude/commands",
        "- `Glob`: **/*.md in ~/.claude/commands",
        "- `Glob`: **/*.py",
        "- `Grep`: def main in src",
    ]
    assert lines[4].startswith("- `Glob`: **/*.md in /srv/ddd")
    assert "ghp_" not in shown
    assert "Zq8r" not in shown
    summaries = [block["summary"] for block in document["conversation"][1]["content"]]
    assert summaries[0] == "**/*.md in ./.claude/commands"


_WRONG_TYPES = {
    "a content block whose type is a list": {
        "type": "assistant",
        "message": {"id": "m6", "content": [{"type": [1]}, {"type": {"a": 1}}]},
    },
    "a prompt block whose type is a list": {
        "type": "user",
        "message": {"content": [{"type": [1]}]},
    },
    "a type that is a list": {"type": [1]},
    "a type that is an object": {"type": {"user": 1}},
    "a message id that is a list": {"type": "assistant", "message": {"id": [1], "content": []}},
    "a text that is a number": {
        "type": "assistant",
        "message": {"id": "m9", "content": [{"type": "text", "text": 5}]},
    },
    "a thought that is a number": {
        "type": "assistant",
        "message": {"id": "m8", "content": [{"type": "thinking", "thinking": 5}]},
    },
    "a prompt block whose text is a number": {
        "type": "user",
        "message": {"content": [{"type": "text", "text": 5}]},
    },
    "compaction metadata that is text": {
        "type": "system",
        "subtype": "compact_boundary",
        "compactMetadata": "auto",
    },
    "a compaction trigger that is a list": {
        "type": "system",
        "subtype": "compact_boundary",
        "compactMetadata": {"trigger": ["auto"], "preTokens": "many"},
    },
    "a time out of range in UTC": {
        "type": "user",
        "timestamp": "0001-01-01T00:00:00+01:00",
        "message": {"content": "early"},
    },
    "folder, branch and version of the wrong type": {
        "type": "user",
        "cwd": 5,
        "gitBranch": [1],
        "version": {"v": 1},
        "sessionId": 7,
        "message": {"content": "odd fields"},
    },
    "a sidechain whose agent id is a list": {
        "type": "user",
        "isSidechain": True,
        "agentId": [1],
        "message": {"content": "side"},
    },
    "a sidechain whose parent is a list": {
        "type": "user",
        "isSidechain": True,
        "parentUuid": [1],
        "message": {"content": "side"},
    },
    "a summary whose leaf is a list": {"type": "summary", "summary": "s", "leafUuid": [1]},
    "a subagent call of the wrong types": {
        "type": "assistant",
        "message": {
            "id": "m7",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_odd",
                    "name": "Task",
                    "input": {"subagent_type": [1], "description": {"d": 1}, "prompt": 5},
                }
            ],
        },
    },
}


@pytest.mark.parametrize("odd", list(_WRONG_TYPES.values()), ids=list(_WRONG_TYPES))
def test_a_record_with_fields_of_the_wrong_type_is_read_past(cli, tmp_path, odd):
    session_id = "12121212-0000-4000-8000-000000000001"
    c = Conversation(session_id)
    records = [c.user("first prompt"), c.assistant("m1", text("first answer"))]
    records.append({**c.user("placeholder"), **odd, "uuid": "12121212-odd"})
    records.append(c.user("last prompt"))
    root = tmp_path / "claude"
    write_jsonl(root / "projects" / "-srv-demo" / f"{session_id}.jsonl", records)

    for args in (
        ("transcript", "12121212", "--include-tools", "--include-thinking"),
        ("export", "12121212", "--include-tools", "--include-thinking"),
        ("export", "12121212", "--format", "md"),
        ("agents", "12121212"),
        ("sessions", "--all"),
        ("sessions", "--project", "/srv/demo"),
    ):
        result = run(cli, root, *args)
        assert result.exit_code == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
        if args[0] in ("transcript", "export"):
            assert "first answer" in result.stdout
            assert "last prompt" in result.stdout
