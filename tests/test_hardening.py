"""Hostile input from a transcript, a branch or the file system: each way in, closed."""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

import pytest

from tests.claude.test_transcripts_cli import DOV_SESSION, run

# --- -o FILE and the overflow folder ---------------------------------------------------------


def test_output_to_dev_null_keeps_the_device(cli, fixtures_copy):
    result = run(cli, fixtures_copy, "transcript", DOV_SESSION, "-o", os.devnull)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_output_into_a_fifo_writes_into_it(cli, fixtures_copy, tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = run(cli, fixtures_copy, "export", DOV_SESSION, "-o", str(fifo))
    reader.join(10)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert b'"conversation"' in received[0]


def test_output_to_a_folder_is_refused(cli, fixtures_copy, tmp_path):
    result = run(cli, fixtures_copy, "export", DOV_SESSION, "-o", str(tmp_path))
    assert result.exit_code == 2
    assert "folder" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def temp_root(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _overflow(cli, fixtures_copy):
    return run(cli, fixtures_copy, "transcript", DOV_SESSION, "--max-chars", "2000")


def test_overflow_folder_is_created_private(cli, fixtures_copy, temp_root):
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 0, result.stderr
    folder = temp_root / f"purlin-resume-{os.getuid()}"
    assert stat.S_IMODE(folder.lstat().st_mode) == 0o700


def test_overflow_folder_planted_as_a_symlink_is_refused(cli, fixtures_copy, temp_root, tmp_path):
    elsewhere = tmp_path / "attacker"
    elsewhere.mkdir(mode=0o700)
    (temp_root / f"purlin-resume-{os.getuid()}").symlink_to(elsewhere)
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 1
    assert "symbolic link" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert list(elsewhere.iterdir()) == []


def test_overflow_folder_of_another_user_is_refused(cli, fixtures_copy, temp_root, monkeypatch):
    someone_else = os.getuid() + 1
    planted = temp_root / f"purlin-resume-{someone_else}"
    planted.mkdir(mode=0o700)  # ours on disk; we pose as the next user id, for whom it is foreign
    monkeypatch.setattr(os, "getuid", lambda: someone_else)
    monkeypatch.setattr(os, "geteuid", lambda: someone_else)
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 1
    assert "not to you" in result.stderr
    assert list(planted.iterdir()) == []


def test_overflow_folder_open_to_others_is_refused(cli, fixtures_copy, temp_root):
    planted = temp_root / f"purlin-resume-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)
    result = _overflow(cli, fixtures_copy)
    assert result.exit_code == 1
    assert "open to others (mode 777)" in result.stderr
    assert list(planted.iterdir()) == []


# --- hooks in a deleted working directory --------------------------------------------------


def _hook_in_deleted_cwd(event: str, payload: str, tmp_path: Path, **env: str):
    import json
    import subprocess

    from tests.integration.test_hooks import EXE

    gone = tmp_path / "removed-worktree"
    gone.mkdir()
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    environment.update(GONE=str(gone), **env)
    return subprocess.run(
        ["sh", "-c", f'cd "$GONE" && rmdir "$GONE" && exec "{EXE}" hook {event}'],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )


@pytest.mark.parametrize(
    ("event", "records"),
    [
        ("session-start", True),
        ("pre-tool-use", True),
        ("session-end", True),
        ("pre-compact", False),
        ("subagent-stop", False),
    ],
)
def test_a_hook_whose_cwd_was_deleted_uses_the_payloads_cwd(repo, tmp_path, event, records):
    import json

    payload = {
        "session_id": "s-1",
        "cwd": str(repo),
        "hook_event_name": event,
        "source": "compact",
        "tool_name": "Agent",
        "tool_use_id": "toolu_X",
        "tool_input": {"description": "write tests"},
        "trigger": "manual",
        "agent_id": "a1",
    }
    out = _hook_in_deleted_cwd(event, json.dumps(payload), tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    written = [p for p in (repo / ".purlin", repo / ".planning") if p.is_dir()]
    assert bool(written) == records, "the project named by the payload got no record"
    log = repo / ".purlin" / "cache" / "hook.log"
    assert not log.exists(), log.read_text()


@pytest.mark.parametrize("stdin", ["{not json", '{"cwd": "/no/such/folder"}', ""])
def test_a_hook_with_a_deleted_cwd_and_no_usable_payload_still_exits_zero(tmp_path, stdin):
    out = _hook_in_deleted_cwd("session-start", stdin, tmp_path)
    assert out.returncode == 0
    assert "Traceback" not in out.stderr


# --- text typed into tmux --------------------------------------------------------------------

BREAK_OUT = "findings\x1b[201~\r!touch {mark}\rmore\x1b]0;title\x07 \x9b201~ end"


def test_the_stand_in_runs_a_pasted_break_out_when_nothing_neutralises_it(tmux_server, tmp_path):
    from purlin_resume.core import tmux
    from tests.agents_setup import start_standin

    mark = tmp_path / "ran"
    pane = start_standin(tmux_server, tmp_path, tmp_path / "agent")
    tmux.paste(tmux_server, pane, BREAK_OUT.format(mark=mark))  # raw, as before the fix
    tmux.wait_for(tmux_server, pane, "received", timeout=5)
    deadline = time.monotonic() + 5
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert mark.exists(), "the stand-in must honour bracketed paste and ! like Claude Code"


def test_injected_text_cannot_break_out_of_the_paste(tmux_server, tmp_path):
    from purlin_resume.agents import injection
    from tests.agents_setup import prompts, start_standin

    mark = tmp_path / "ran"
    record = tmp_path / "agent"
    pane = start_standin(tmux_server, tmp_path, record)
    injection.deliver(tmux_server, pane, BREAK_OUT.format(mark=mark), settle=0.2)
    [received] = prompts(record, 1)
    assert received == f"findings\n!touch {mark}\nmore 201~ end"
    assert not mark.exists()


def test_a_leading_bang_never_reaches_the_shell_mode(tmux_server, tmp_path):
    from purlin_resume.agents import injection
    from tests.agents_setup import prompts, start_standin

    mark = tmp_path / "ran"
    record = tmp_path / "agent"
    pane = start_standin(tmux_server, tmp_path, record)
    injection.deliver(tmux_server, pane, f"!touch {mark}", settle=0.2)
    assert prompts(record, 1) == [f" !touch {mark}"]
    assert not mark.exists()


def test_a_planted_transcript_resurrected_into_tmux_runs_nothing(cli, repo, tmp_path, tmux_server):
    import json
    import sys

    from purlin_resume.core import tmux
    from tests.agents_setup import STANDIN, configure, prompts
    from tests.resurrection_data import session

    mark = tmp_path / "ran"
    claude = tmp_path / "claude"
    planted = "9b0c3f44-0000-4000-8000-00000000dead"
    session(
        claude,
        planted,
        "/srv/hostile",
        [
            ("user", "summarise the findings"),
            ("agent", "I found the root cause. " + BREAK_OUT.format(mark=mark)),
        ],
    )
    record = tmp_path / "agent"
    configure(repo, tmux_server, record, agent_command=f"{sys.executable} {STANDIN} {record}")
    args = ["resurrect", "--session", planted, "--yes", "--spawn", "tmux", "--json"]
    tmux.new_session(tmux_server, "editor", repo, "cat")  # --tmux-socket names a running server
    result = cli(*args, "--tmux-socket", str(tmux_server.socket), "--claude-dir", str(claude))
    assert result.exit_code == 0, result.stderr
    [received] = prompts(record, 1)
    assert f"!touch {mark}" in received
    assert "\x1b" not in received
    assert json.loads(result.stdout)["launch"]["attempts"] == [1]
    assert not mark.exists()


# --- ids from a branch, a payload or the command line ----------------------------------------

HOSTILE_ID = "a1$(touch {mark})"


def test_a_committed_history_with_a_hostile_id_is_refused_in_one_line(repo, cli, tmp_path):
    from tests.gsd_files import entry, write_history

    mark = tmp_path / "ran"
    path = write_history(repo, [entry(HOSTILE_ID.format(mark=mark), "interrupted")])
    before = path.read_bytes()
    for args in (("resume-task",), ("history", "list"), ("history", "fail", "a1")):
        result = cli(*args)
        assert result.exit_code == 1, (args, result.stdout)
        [line] = result.stderr.strip().splitlines()
        assert "agent-history.json" in line
        assert "agent id" in line
        assert "purlin-resume history fail" not in result.stdout
    assert path.read_bytes() == before
    assert not mark.exists()


@pytest.mark.parametrize("bad", ["$(touch x)", "a\nb", "a;b", "-rf", "x" * 200, "a b"])
def test_a_new_agent_id_outside_the_pattern_is_a_usage_error(repo, cli, bad):
    result = cli(
        "history", "spawn", "--agent-id", bad, "--task", "t", "--phase", "1", "--plan", "1"
    )
    assert result.exit_code == 2, result.stdout
    assert len(result.stderr.strip().splitlines()) == 1
    assert (
        not (repo / ".planning" / "agent-history.json").exists()
        or bad not in (repo / ".planning" / "agent-history.json").read_text()
    )


@pytest.mark.parametrize("field", ["session_id", "tool_use_id"])
def test_a_hook_payload_with_a_hostile_id_records_nothing(repo, field):
    from tests.integration.test_hooks import hook, log_lines

    payload = {
        "session_id": "s-1",
        "cwd": str(repo),
        "tool_name": "Agent",
        "tool_use_id": "toolu_01",
        "tool_input": {"description": "d"},
    }
    payload[field] = "x$(touch /tmp/purlin-pwned)\n"
    out = hook("pre-tool-use", payload, repo)
    assert out.returncode == 0
    assert not (repo / ".planning" / "agent-history.json").exists()
    [line] = log_lines(repo)
    assert "is not valid" in line["error"]


def test_a_hostile_resurrection_id_in_the_environment_is_logged(repo):
    from tests.integration.test_hooks import hook, log_lines

    out = hook(
        "session-start",
        {"session_id": "s-2", "cwd": str(repo), "source": "startup"},
        repo,
        PURLIN_RESURRECTION_ID="res-1$(id)",
    )
    assert out.returncode == 0
    [line] = log_lines(repo)
    assert "resurrection id" in line["error"]


@pytest.mark.parametrize("name", ["fine\n", "tab\there", "esc\x1b[31m", "$(id)"])
def test_bookmark_names_with_control_characters_are_refused(cli, repo, fixtures_copy, name):
    args = ["bookmark", "add", name, "--session", "4d56", "--claude-dir", str(fixtures_copy)]
    result = cli(*args)
    assert result.exit_code == 2, result.stdout
    [line] = result.stderr.strip().splitlines()
    assert "\x1b" not in line
    assert not (repo / ".purlin" / "bookmarks.jsonl").exists()


def test_values_in_printed_commands_are_quoted(tmp_path, cli, monkeypatch):
    import json
    import shlex

    from tests.agents_setup import agent_record, write_registry
    from tests.conftest import commit_file, git

    root = tmp_path / "my project $(id)"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "README.md", "# demo\n")
    monkeypatch.chdir(root)
    write_registry(root, {"dead-1": agent_record(root, ended_at="2026-02-12T21:10:00Z")})
    planned = json.loads(cli("revive", "dead-1", "--dry-run", "--json").stdout)
    line = next(
        x for x in planned["injections"][-1]["text"].splitlines() if "purlin-resume transcript" in x
    )
    argv = shlex.split(line.strip())
    assert argv[-1] == str(root.resolve() / ".purlin" / "cache" / "revival-dead-1.md")


# --- symbolic links at state paths -------------------------------------------------------------

SAVE = [
    "save",
    "--role",
    "architect",
    "--in-progress",
    "the design",
    "--spec-review",
    "none",
    "--next",
    "n",
]


def _outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "precious.txt").write_text("keep me\n")
    return folder


def _refused(result, code: int = 1) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr)
    [line] = [x for x in result.stderr.splitlines() if not x.startswith("[warn]")]
    assert "symbolic link" in line
    assert "outside" in line
    return line


def _unchanged(folder: Path) -> None:
    assert sorted(p.name for p in folder.iterdir()) == ["precious.txt"]
    assert (folder / "precious.txt").read_text() == "keep me\n"


def test_a_checkpoints_folder_linked_outside_the_project_is_refused(repo, cli, tmp_path):
    outside = _outside(tmp_path)
    (repo / ".purlin" / "cache").mkdir(parents=True)
    (repo / ".purlin" / "cache" / "checkpoints").symlink_to(outside)
    _refused(cli(*SAVE, "--session", "s-1"))
    _unchanged(outside)


def test_a_cache_folder_linked_outside_the_project_is_refused(repo, cli, tmp_path):
    outside = _outside(tmp_path)
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "cache").symlink_to(outside)
    _refused(cli(*SAVE))
    _unchanged(outside)


def test_an_archive_linked_outside_keeps_the_checkpoint_in_place(repo, cli, tmp_path):
    outside = _outside(tmp_path)
    assert cli(*SAVE).exit_code == 0
    (repo / ".purlin" / "cache" / "archive").symlink_to(outside)
    _refused(cli("restore", "architect"))
    _unchanged(outside)
    assert (repo / ".purlin" / "cache" / "session_checkpoint.md").is_file()


def test_a_state_file_linked_outside_is_neither_read_nor_written(repo, cli, tmp_path):
    outside = _outside(tmp_path)
    (repo / ".planning").mkdir()
    (repo / ".planning" / "agent-history.json").symlink_to(outside / "precious.txt")
    _refused(cli("history", "list"))
    _refused(
        cli("history", "spawn", "--agent-id", "a1", "--task", "t", "--phase", "1", "--plan", "1")
    )
    _unchanged(outside)


def test_a_lock_file_linked_outside_is_not_truncated(repo, cli, tmp_path):
    outside = _outside(tmp_path)
    (repo / ".purlin" / "cache").mkdir(parents=True)
    (repo / ".purlin" / "cache" / "session_checkpoint.md.lock").symlink_to(outside / "precious.txt")
    _refused(cli(*SAVE))
    _unchanged(outside)


def test_a_hook_log_linked_outside_gets_nothing(repo, tmp_path):
    from tests.integration.test_hooks import hook

    outside = _outside(tmp_path)
    (repo / ".purlin" / "cache").mkdir(parents=True)
    (repo / ".purlin" / "cache" / "hook.log").symlink_to(outside / "precious.txt")
    out = hook("pre-tool-use", "{not json", repo)
    assert out.returncode == 0
    _unchanged(outside)


def test_the_resurrection_log_linked_outside_the_data_folder_is_refused(cli, repo, tmp_path):
    from tests.resurrection_data import session

    outside = _outside(tmp_path)
    claude = tmp_path / "claude"
    session(claude, "5e55-0001", "/srv/app", [("user", "hi"), ("agent", "I found the cause.")])
    (claude / "history").mkdir()
    (claude / "history" / "resurrection-log.jsonl").symlink_to(outside / "precious.txt")
    result = cli("resurrect", "--session", "5e55-0001", "--yes", "--claude-dir", str(claude))
    _refused(result)
    _unchanged(outside)


def test_links_that_stay_inside_the_project_and_a_linked_project_are_fine(repo, cli, tmp_path):
    (repo / "state").mkdir()
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "cache").symlink_to(repo / "state")
    link = tmp_path / "project-link"
    link.symlink_to(repo)
    assert cli(*SAVE, "--project", str(link)).exit_code == 0
    assert (repo / "state" / "session_checkpoint.md").is_file()


# --- a project's status command runs only once the project is trusted ------------------------


@pytest.fixture
def planted_status(repo, tmp_path, monkeypatch) -> Path:
    """A cloned Purlin repository (it has instructions/) whose status script would run code;
    trust kept in a private folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (repo / "instructions").mkdir()
    (repo / "instructions" / "HOW_WE_WORK_BASE.md").write_text("# How we work\n")
    mark = tmp_path / "status-ran"
    script = repo / "tools" / "cdd" / "status.sh"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!/bin/sh\necho ran >> '{mark}'\n")
    script.chmod(0o755)
    return mark


def _compact(repo: Path):
    import json

    from tests.integration.test_hooks import hook

    out = hook("session-start", {"session_id": "s-1", "cwd": str(repo), "source": "compact"}, repo)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def test_session_start_never_runs_an_untrusted_status_command(repo, planted_status):
    context = _compact(repo)
    assert not planted_status.exists()
    assert "the user allows it by running 'purlin-resume trust'" in context


def test_a_trusted_status_command_runs_until_it_changes(repo, cli, planted_status, tmp_path):
    result = cli("trust")
    assert result.exit_code == 0, result.stderr
    assert "trusted" in result.stdout
    assert (tmp_path / "data" / "purlin-resume" / "trust.json").is_file()
    assert not list(repo.rglob("trust.json")), "trust is kept outside the repository"
    assert "Ran tools/cdd/status.sh" in _compact(repo)
    assert planted_status.read_text() == "ran\n"

    script = repo / "tools" / "cdd" / "status.sh"
    script.write_text(script.read_text() + "echo 'a branch changed me'\n")
    assert "not trusted yet" in _compact(repo)
    assert planted_status.read_text() == "ran\n", "a changed script is not run"


def test_a_status_command_changed_in_the_config_needs_trust_again(repo, cli, planted_status):
    import json

    assert cli("trust").exit_code == 0
    (repo / ".purlin").mkdir(exist_ok=True)
    (repo / ".purlin" / "config.json").write_text(
        json.dumps({"resume": {"status_command": f"touch {planted_status}"}})
    )
    assert "not trusted yet" in _compact(repo)
    assert not planted_status.exists()


def test_trust_can_be_revoked(repo, cli, planted_status):
    assert cli("trust").exit_code == 0
    result = cli("trust", "--revoke")
    assert result.exit_code == 0
    assert "no longer trusted" in result.stdout
    _compact(repo)
    assert not planted_status.exists()


def test_restore_by_hand_without_a_terminal_says_how_to_trust(repo, cli, planted_status):
    result = cli("restore", "qa")
    assert result.exit_code == 0, result.stderr
    assert "running 'purlin-resume trust' in the project" in result.stdout
    assert not planted_status.exists()


@pytest.mark.parametrize(("answer", "runs"), [("n", False), ("y", True)])
def test_restore_at_a_terminal_asks_before_running_it(repo, planted_status, answer, runs):
    import sys

    import pexpect

    root = Path(__file__).resolve().parents[1]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "purlin_resume", "restore", "qa", "--keep"],
        cwd=str(repo),
        env={**os.environ, "PYTHONPATH": str(root), "TERM": "dumb"},
        encoding="utf-8",
        timeout=60,
    )
    child.expect(r"Run this project's status command 'tools/cdd/status.sh'\?.*\[y/N\]")
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert planted_status.exists() == runs


# --- smaller ways in ------------------------------------------------------------------------


def test_a_pane_dying_after_its_liveness_check_is_gone_not_an_error(
    tmux_server, tmp_path, monkeypatch
):
    from purlin_resume.agents import injection
    from purlin_resume.core import tmux

    pane = tmux.new_session(tmux_server, "short-lived", tmp_path, "sleep 30")
    real = tmux.pane_alive
    calls = []

    def dies_right_after_the_first_check(server, which):
        calls.append(which)
        if len(calls) == 1:
            alive = real(server, which)
            tmux.kill_pane(server, which)  # the agent exits between the check and the capture
            return alive
        return real(server, which)

    monkeypatch.setattr(tmux, "pane_alive", dies_right_after_the_first_check)
    assert tmux.wait_quiet(tmux_server, pane, "never", timeout=2, settle=0.1) is False
    calls.clear()
    with pytest.raises(Exception, match="is gone; nothing was sent"):
        injection.deliver(tmux_server, pane, "hello", settle=0.1)


def test_save_over_an_unparseable_checkpoint_archives_it_first(repo, cli):
    broken = repo / ".purlin" / "cache" / "session_checkpoint.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("notes I typed by hand, not a checkpoint\n")
    result = cli(*SAVE)
    assert result.exit_code == 0, result.stderr
    [kept] = (repo / ".purlin" / "cache" / "archive").glob("session_checkpoint-unreadable-*.md")
    assert kept.read_text() == "notes I typed by hand, not a checkpoint\n"
    assert str(kept.relative_to(repo)) in result.stderr
    assert "**Role:** architect" in broken.read_text()


NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("relative", "args"),
    [
        (".planning/agent-history.json", ("history", "list")),
        (".purlin/agents.json", ("agents-status",)),
        (".purlin/config.json", ("restore", "qa")),
    ],
)
def test_deeply_nested_json_state_is_one_clear_line(repo, cli, relative, args):
    path = repo / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(NESTED)
    result = cli(*args)
    assert result.exit_code == 1, result.stdout
    [line] = result.stderr.strip().splitlines()
    assert "nested too deeply" in line
    assert relative in line
    assert path.read_text() == NESTED


def test_a_deeply_nested_hook_payload_is_logged_and_exits_zero(repo):
    from tests.integration.test_hooks import hook, log_lines

    out = hook("session-start", '{"a": ' + NESTED + "}", repo)
    assert out.returncode == 0
    assert "Traceback" not in out.stderr
    assert "nested too deeply" in log_lines(repo)[0]["error"]


def test_error_messages_are_one_line_whatever_the_input(repo, cli, tmp_path):
    result = cli("history", "list", "--project", str(tmp_path / "no\nsuch\x1b[2J\rfolder"))
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert "\x1b" not in line
    assert line.startswith("error: ")


def test_resurrections_counts_the_lines_it_could_not_read(cli, tmp_path):
    import json

    claude = tmp_path / "claude"
    log = claude / "history" / "resurrection-log.jsonl"
    log.parent.mkdir(parents=True)
    good = {"resurrection_id": "res-2026-01-01-001", "resurrected_at": "2026-01-01T00:00:00Z"}
    log.write_text(json.dumps(good) + "\n{broken\n" + NESTED + "\n[1]\n")
    result = cli("resurrections", "--claude-dir", str(claude))
    assert result.exit_code == 0, result.stderr
    assert "res-2026-01-01-001" in result.stdout
    assert "3 line(s)" in result.stderr
    assert "skipped" in result.stderr
    data = json.loads(cli("resurrections", "--json", "--claude-dir", str(claude)).stdout)
    assert data["skipped_lines"] == 3
    stats = json.loads(cli("resurrections", "stats", "--json", "--claude-dir", str(claude)).stdout)
    assert stats["skipped_lines"] == 3


def test_a_committed_bookmark_file_with_a_hostile_name_is_refused(cli, repo, tmp_path):
    import json

    planted = {
        "bookmark_id": "bmk-2026-01-01-001",
        "name": "x\x1b]0;owned\x07",
        "session_id": "s-1",
    }
    path = repo / ".purlin" / "bookmarks.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps(planted) + "\n")
    result = cli("bookmark", "list", "--claude-dir", str(tmp_path / "claude"))
    assert result.exit_code == 1, result.stdout
    [line] = result.stderr.strip().splitlines()
    assert "bookmark name" in line
    assert "\x1b" not in line
    assert "\x07" not in line


def test_output_through_a_symbolic_link_keeps_the_link(cli, fixtures_copy, tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    result = run(cli, fixtures_copy, "export", DOV_SESSION, "-o", str(link))
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert '"conversation"' in real.read_text()


def test_an_agent_cannot_trust_a_project_for_the_user(repo, cli, planted_status, monkeypatch):
    monkeypatch.setenv("CLAUDECODE", "1")  # what Claude Code sets in its agent's shell
    result = cli("trust")
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert "your own terminal" in line
    _compact(repo)
    assert not planted_status.exists()


def _trust_findings(cli) -> list[dict]:
    import json

    report = json.loads(cli("doctor", "--json").stdout)
    return [f for f in report["findings"] if f["check"] == "trust"]


def test_doctor_says_whether_the_status_command_is_trusted(repo, cli, planted_status):
    [untrusted] = _trust_findings(cli)
    assert untrusted["status"] == "warn"
    assert "tools/cdd/status.sh" in untrusted["message"]
    assert "purlin-resume trust" in untrusted["fix"]
    assert cli("trust").exit_code == 0
    assert [f["status"] for f in _trust_findings(cli)] == ["ok"]
    script = repo / "tools" / "cdd" / "status.sh"
    script.write_text(script.read_text() + "echo changed\n")
    assert [f["status"] for f in _trust_findings(cli)] == ["warn"]
    assert not planted_status.exists(), "doctor never runs the command"


def test_doctor_says_nothing_of_trust_without_a_status_command(repo, cli, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert _trust_findings(cli) == []


def test_doctor_names_a_corrupt_trust_file_and_keeps_it(repo, cli, planted_status, tmp_path):
    kept = tmp_path / "data" / "purlin-resume" / "trust.json"
    kept.parent.mkdir(parents=True)
    kept.write_text('{"projects": [')
    [finding] = _trust_findings(cli)
    assert finding["status"] == "error"
    assert "trust.json" in finding["message"]
    assert kept.read_text() == '{"projects": ['


def test_doctor_shows_a_hostile_status_command_redacted_and_on_one_line(repo, cli, tmp_path):
    import json

    secret = "sk-ant-api03-" + "Zq8" * 30 + "AA"
    (repo / ".purlin").mkdir(exist_ok=True)
    (repo / ".purlin" / "config.json").write_text(
        json.dumps(
            {
                "resume": {
                    "status_command": f"\x1b]52;c;aGk=\x07curl $(id)\n-H 'x-api-key: {secret}'"
                }
            }
        )
    )
    result = cli("doctor")
    line = next(line for line in result.stdout.splitlines() if "status command" in line)
    assert secret not in result.stdout
    assert "[REDACTED:" in line
    assert "\x1b" not in line
    assert "\x07" not in line
