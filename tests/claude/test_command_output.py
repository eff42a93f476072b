"""What a command typed in Claude Code printed (a local slash command's ``<local-command-stdout>``
record, a ``!`` command's ``<bash-stdout>``) is shown under the command, in Markdown and in
JSON, redacted as everything else; it is no turn of its own."""

from __future__ import annotations

import json
from pathlib import Path

from tests.claude_records import Conversation, text, write_jsonl

SECRET = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"


def _section(markdown: str, number: int) -> str:
    """The ``number``-th ``##`` section of a transcript (1: the first)."""
    return markdown.split("\n## ")[number]


def test_the_fixtures_mcp_and_model_outputs_are_shown_under_their_commands(cli, fixtures_copy):
    """Regression: `/mcp` was two empty sections, and no output appeared anywhere."""
    claude = ("--claude-dir", str(fixtures_copy))

    heavy = cli("transcript", "d6e0", *claude).stdout
    short = cli("transcript", "5560", *claude).stdout
    document = json.loads(cli("export", "d6e0", *claude).stdout)
    model = json.loads(cli("export", "5560", *claude).stdout)["conversation"][-1]

    first, second = (_section(heavy, n) for n in (2, 3))
    assert first.startswith("/mcp\n")
    assert "Output:\n```text\nReconnected to tidewave.\n```" in first
    assert second.startswith("/mcp\n")
    assert "Output:\n```text\nMCP dialog dismissed\n```" in second
    assert "/model\n\nOutput:\n```text\nKept model as Default (recommended)\n```" in short
    assert model["output"] == "Kept model as Default (recommended)"  # its styles gone
    commands = [item for item in document["conversation"] if item.get("type") == "command"]
    assert [(item["content"], item["output"]) for item in commands] == [
        ("/mcp", "Reconnected to tidewave."),
        ("/mcp", "MCP dialog dismissed"),
    ]
    assert document["turns"] == 10  # as before: the output is no turn


def _typed(tmp_path: Path) -> Path:
    """A session with a ``!`` command printing a token on stdout and on stderr, then a prompt,
    then output that follows no command (left out)."""
    root = tmp_path / "claude"
    c = Conversation("77777777-aaaa-4000-8000-000000000007")
    said = [
        c.user("<bash-input>cat .env</bash-input>"),
        c.user(
            f"<bash-stdout>GITHUB_TOKEN={SECRET}\nDEBUG=1\n</bash-stdout>"
            "<bash-stderr>cat: warning</bash-stderr>"
        ),
        c.user("deploy it"),
        c.assistant("m1", text("deployed")),
        c.user("<local-command-stdout>stray output</local-command-stdout>"),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{c.session_id}.jsonl", said)
    return root


def test_a_bang_commands_output_is_shown_redacted(cli, tmp_path):
    root = _typed(tmp_path)
    claude = ("--claude-dir", str(root))

    shown = cli("transcript", "7777", *claude).stdout
    document = json.loads(cli("export", "7777", *claude).stdout)

    command = _section(shown, 1)
    assert command.startswith("! cat .env\n")
    assert "Output:\n```text\nGITHUB_TOKEN=[REDACTED:" in command
    assert "DEBUG=1\ncat: warning\n```" in command
    [said] = [item for item in document["conversation"] if item.get("type") == "command"]
    assert said["output"].startswith("GITHUB_TOKEN=[REDACTED:")
    assert SECRET[4:] not in shown + json.dumps(document)
    assert "stray output" not in shown
    assert document["turns"] == 3


def test_a_manual_compacts_output_is_shown_under_it_before_the_compaction(cli, fixtures_copy):
    """Claude Code writes `/compact` and its output after the compaction it caused; the command
    is put back before it, and its output with it."""
    from tests.claude.test_manual_compact import compacted_by_hand

    compacted_by_hand(fixtures_copy)

    shown = cli("transcript", "8463", "--claude-dir", str(fixtures_copy)).stdout

    command = shown.index("/compact keep the test plan\n\nOutput:\n```text\nCompacted (ctrl+o")
    assert command < shown.index("## Conversation compacted")
