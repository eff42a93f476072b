"""Bad input gets one plain line and the right exit code, on the real transcripts: a wrong tmux
socket, a reserved bookmark name, a broken global bookmarks file, a bad --since; no spec
jargon or inner command names in what the user reads."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from purlin_resume.cli.resurrect import resurrect as resurrect_group
from tests.resurrection.test_resurrect_cli import _fails, _ok

NO_SERVER = "no tmux server listens there"


@pytest.mark.parametrize(
    "args",
    [
        ("resurrect", "--session", "short", "--yes", "--spawn", "tmux"),
        ("open", "short", "--spawn", "tmux"),
    ],
)
def test_a_wrong_tmux_socket_path_is_one_line_and_starts_no_server(
    cli, fixtures_copy, repo, tmp_path, args
):
    """Regression: tmux started a new, hidden server at the path given."""
    socket = tmp_path / "no-such" / "socket"
    typo = tmp_path / "sockt"

    for path in (socket, typo):
        _fails(
            cli(*args, "--tmux-socket", str(path), "--claude-dir", str(fixtures_copy)),
            2,
            f"--tmux-socket {path}: {NO_SERVER}",
        )
        assert not path.exists()


def test_a_live_servers_socket_is_taken(cli, fixtures_copy, repo, tmux_server):
    from purlin_resume.core import tmux

    tmux.new_session(tmux_server, "editor", repo, "cat")
    args = ["resurrect", "--session", "short", "--yes", "--tmux-socket", str(tmux_server.socket)]

    _ok(cli(*args, "--claude-dir", str(fixtures_copy)))


COMMAND_WORDS = sorted({c.name for c in resurrect_group.registered_commands} | {"list", "show"})


@pytest.mark.parametrize("word", COMMAND_WORDS)
def test_every_word_resurrect_takes_as_a_command_is_refused_as_a_bookmark_name(
    cli, fixtures_copy, repo, word
):
    """Regression: ``name``, ``direct`` and ``recommended`` were taken, and a bookmark so named
    could never be resurrected by name."""
    args = ["bookmark", "add", word, "--session", "8463", "--claude-dir", str(fixtures_copy)]

    _fails(cli(*args), 2, f"bookmark name {word!r}")

    assert not (repo / ".purlin" / "bookmarks.jsonl").exists()


def test_a_broken_global_bookmarks_file_does_not_block_a_local_bookmark(cli, fixtures_copy, repo):
    """Regression: ``resurrect NAME`` of a local bookmark failed on the global file."""
    claude = ("--claude-dir", str(fixtures_copy))
    _ok(cli("bookmark", "add", "tmux-expert", "--session", "8463", "--agent", "a7be2f0", *claude))
    broken = fixtures_copy / "history" / "bookmarks.jsonl"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("{not json\n")

    local = cli("resurrect", "tmux-expert", "--yes", "--json", *claude)
    elsewhere = cli("resurrect", "nowhere", "--yes", *claude)

    assert local.exit_code == 0, local.stderr
    assert json.loads(local.stdout)["agent_id"] == "a7be2f0"
    _fails(elsewhere, 1, str(broken))  # a name only that file could hold: the file is named
    assert broken.read_text() == "{not json\n"


def test_user_text_speaks_no_spec_jargon(cli, fixtures_copy, repo):
    """Regression: "pre-flight exists: …" and "the TR-3 JSON document" were shown to users."""
    claude = ("--claude-dir", str(fixtures_copy))
    missing = _fails(cli("resurrect", "--session", "zzqx0000", "--yes", *claude), 1)
    shown = missing + _ok(cli("export", "--help")).stdout
    for word in ("pre-flight", "TR-3", "FR-", "SEC-"):
        assert word not in shown
    assert missing.startswith("error: session zzqx0000 not found")


def test_a_since_that_is_no_time_is_a_usage_error(cli, fixtures_copy, repo):
    """Regression: ``resurrections --since banana`` exited 1."""
    claude = ("--claude-dir", str(fixtures_copy))
    for stats in ([], ["stats"]):
        _fails(cli("resurrections", "--since", "banana", *stats, *claude), 2, "--since 'banana'")


def test_usage_lines_name_no_hidden_form(fixtures_copy, repo):
    """Regression: "Usage: purlin-resume resurrect name [OPTIONS] {NAME}"."""
    exe = [os.path.join(os.path.dirname(os.sys.executable), "purlin-resume")]
    claude = ["--claude-dir", str(fixtures_copy)]
    shown = ""
    for args in (
        ["resurrect", "tmux-expert", "--help"],
        ["resurrect", "--session", "8463", "--help"],
        ["resurrect", "tmux-expert", "--bogus"],
        ["resurrect", "--recommended", "many"],
    ):
        done = subprocess.run(
            [*exe, *args, *claude], capture_output=True, text=True, cwd=repo, check=False
        )
        shown += done.stdout + done.stderr
    assert "Usage: purlin-resume resurrect [OPTIONS]" in shown
    for inner in ("resurrect name", "resurrect direct", "resurrect recommended"):
        assert inner not in shown
