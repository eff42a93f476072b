"""Hostile or broken surroundings end a command with one line and the right exit code, never a
traceback: a deleted working folder, a full disk, deeply nested or alias-bombed input, a FIFO
in a transcript's place."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys

import pytest

from tests.conftest import without_opening
from tests.resurrection_data import session

ENTRY = "from purlin_resume.cli.entry import main; main()"


def _one_line(result, code: int) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1


def _in_a_deleted_folder(tmp_path, monkeypatch):
    """A Claude data folder with one session ("deleted", saying "zanzibar"); the test then runs
    in a working folder deleted under it."""
    claude = tmp_path / "claude"
    session(claude, "deleted", "/nowhere/project", [("user", "zanzibar"), ("agent", "ok")])
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    return claude


@pytest.mark.parametrize(
    "args",
    [
        ["find", "zanzibar"],
        ["sessions"],
        ["resurrect", "--session", "deleted", "--yes"],
        ["recommend"],
        ["bookmark", "list"],
        ["open", "deleted", "--spawn", "print"],
        ["transcript", "nothing-like-it"],
    ],
)
def test_commands_in_a_deleted_working_folder(cli, tmp_path, monkeypatch, args):
    claude = _in_a_deleted_folder(tmp_path, monkeypatch)
    result = cli(*args, "--claude-dir", str(claude))
    assert "Traceback" not in result.stderr
    assert not isinstance(result.exception, OSError)
    assert result.exit_code in (0, 1), result.stderr
    if result.exit_code:
        assert result.stderr.startswith("error: ")
        assert result.stderr.count("\n") == 1


def test_a_resurrection_in_a_deleted_working_folder_is_refused_and_not_logged(
    cli, tmp_path, monkeypatch
):
    claude = _in_a_deleted_folder(tmp_path, monkeypatch)
    result = cli("resurrect", "--session", "deleted", "--yes", "--claude-dir", str(claude))
    _one_line(result, 1)
    assert "the working folder no longer exists" in result.stderr
    assert not (claude / "history" / "resurrection-log.jsonl").exists()


@pytest.mark.parametrize("command", ["transcript", "export"])
def test_a_relative_output_in_a_deleted_working_folder_is_a_usage_line(
    cli, tmp_path, monkeypatch, command
):
    claude = _in_a_deleted_folder(tmp_path, monkeypatch)
    result = cli(command, "deleted", "-o", "out.md", "--claude-dir", str(claude))
    _one_line(result, 2)
    assert "the working folder no longer exists" in result.stderr
    written = cli(command, "deleted", "-o", str(tmp_path / "out.md"), "--claude-dir", str(claude))
    assert written.exit_code == 0, written.stderr
    assert "zanzibar" in (tmp_path / "out.md").read_text()


def test_save_from_deeply_nested_json_and_yaml(cli, repo, tmp_path):
    for name, text in (
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.yaml", "next: " + "[" * 100_000 + "]" * 100_000),
    ):
        path = tmp_path / name
        path.write_text(text)
        result = cli("save", "--role", "qa", "--from", str(path))
        _one_line(result, 2)
        assert "nested too deeply" in result.stderr


def test_a_yaml_alias_bomb_is_refused_before_it_grows(cli, repo, tmp_path):
    levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for number, name in enumerate("bcdefghi"):
        below = "abcdefghi"[number]
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{below}"] * 9) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("role: builder\nstep: '2'\nnext:\n  " + "\n  ".join(
        f"- {line.split(': ', 1)[1]}" for line in levels
    ) + "\n")  # fmt: skip
    result = cli("save", "--from", str(bomb))
    _one_line(result, 2)
    assert "aliases" in result.stderr
    config = repo / ".purlin" / "config.yaml"
    config.parent.mkdir()
    config.write_text("resume:\n  main_branches: &m [main, main]\n  allowed_roots: [*m, *m]\n")
    _one_line(cli("history", "scan"), 1)


def _limited(size: int):
    def limit() -> None:  # a file cannot grow past ``size`` bytes: a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


@pytest.mark.parametrize(
    "args",
    [
        ["save", "--role", "builder", "--in-progress", "x" * 400, "--step", "2", "--next", "n"],
        [
            "history",
            "spawn",
            "--agent-id",
            "a1",
            "--task",
            "t" * 400,
            "--phase",
            "1",
            "--plan",
            "1",
        ],
    ],
)
def test_a_full_disk_is_one_line_and_leaves_nothing_half_written(repo, args):
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        capture_output=True, text=True, env=env, preexec_fn=_limited(300), timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("error: ")
    assert done.stderr.count("\n") == 1
    assert "File too large" in done.stderr
    state = [repo / ".purlin" / "cache", repo / ".planning"]
    written = [p for folder in state if folder.is_dir() for p in folder.rglob("*") if p.is_file()]
    assert not [p for p in written if p.suffix in (".md", ".json")]


def test_a_fifo_as_the_transcript_does_not_hold_pre_tool_use(repo, tmp_path):
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)
    payload = {
        "session_id": "s1", "transcript_path": str(fifo), "cwd": str(repo),
        "hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "toolu_1",
        "tool_input": {"description": "port it", "prompt": "port it", "subagent_type": "x"},
    }  # fmt: skip
    code = (
        "import json, sys; from pathlib import Path; from purlin_resume.claude import hooks;"
        "from purlin_resume.integration import capture; from purlin_resume.core.project import"
        " Project; p = hooks.parse('pre-tool-use', sys.stdin.read());"
        "print(capture.agent_spawned(Project(Path.cwd()), p).note)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(payload), capture_output=True,
        text=True, timeout=60, cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "spawned toolu_1" in done.stdout, done.stderr
    history = json.loads((repo / ".planning" / "agent-history.json").read_text())
    assert [e["agent_id"] for e in history["entries"]] == ["toolu_1"]


def _without_root_powers(repo, *args: str, payload: str | None = None):
    """The command run as root that may not override file modes (CI runs as root, which
    writes into read-only folders anyway)."""
    from tests.conftest import need_binary

    setpriv = need_binary("setpriv", "apt-get install util-linux")
    powers = "-dac_override,-dac_read_search,-fowner"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "CLAUDE_PROJECT_DIR": str(repo)}
    return subprocess.run(
        [setpriv, f"--bounding-set={powers}", sys.executable, "-c", ENTRY, *args],
        input=payload, capture_output=True, text=True, env=env, cwd=repo, timeout=120,
    )  # fmt: skip


def _spawn_payload(repo) -> str:
    return json.dumps({
        "session_id": "11111111-1111-4111-8111-111111111111", "cwd": str(repo),
        "hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "toolu_01ro",
        "tool_input": {"description": "port it", "prompt": "port it"},
    })  # fmt: skip


def _read_only(folder) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o500)


def test_a_hook_in_a_read_only_planning_folder_logs_one_clear_line(repo):
    _read_only(repo / ".planning")
    done = _without_root_powers(repo, "hook", "PreToolUse", payload=_spawn_payload(repo))
    assert done.returncode == 0, done.stderr
    [logged] = [
        json.loads(line) for line in (repo / ".purlin/cache/hook.log").read_text().splitlines()
    ]
    for line in (logged["error"], done.stderr.strip()):
        assert "Errno" not in line, line
        assert "PermissionError" not in line, line
        assert f"{repo}/.planning" in line, line
        assert f"make {repo}/.planning writable" in line, line
    assert done.stderr.count("\n") == 1
    assert "see .purlin/cache/hook.log" in done.stderr


def test_a_hook_that_cannot_log_says_so_in_its_one_line(repo):
    _read_only(repo / ".planning")
    _read_only(repo / ".purlin")
    done = _without_root_powers(repo, "hook", "PreToolUse", payload=_spawn_payload(repo))
    assert done.returncode == 0, done.stderr
    assert not (repo / ".purlin/cache").exists()
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Errno" not in done.stderr
    assert f"make {repo}/.planning writable" in done.stderr
    assert "hook.log" not in done.stderr  # it could not be written: not pointed to


@pytest.mark.parametrize(
    ("folder", "args"),
    [
        (".purlin/cache", ["save", "--role", "builder", "--in-progress", "x", "--step", "2", "--next", "n"]),
        (".purlin", ["save", "--role", "builder", "--in-progress", "x", "--step", "2", "--next", "n"]),
        (".planning", ["history", "spawn", "--agent-id", "a1", "--task", "t", "--phase", "1", "--plan", "1"]),
        (".planning", ["history", "init"]),
    ],
)  # fmt: skip
def test_a_read_only_state_folder_is_one_line_naming_what_to_do(repo, folder, args):
    _read_only(repo / folder)
    done = _without_root_powers(repo, *args)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"make {repo}/{folder}" in done.stderr, done.stderr
    assert not [p for p in (repo / folder).rglob("*") if p.suffix in (".md", ".json")]


def test_a_reader_that_stops_early_gets_no_error_line(repo):
    """``purlin-resume … | head``: the pipe closed before the output ends is no failure to report."""
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before anything is written
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "history", "init"],
        stdout=writing, stderr=subprocess.PIPE, text=True, timeout=120,
    )  # fmt: skip
    os.close(writing)
    assert done.stderr == ""
    assert done.returncode == 141
    assert (repo / ".planning" / "agent-history.json").is_file()


@pytest.mark.parametrize(
    ("state", "command"),
    [
        (".planning/agent-history.json", ["history", "list"]),
        (".planning/agent-history.json", ["history", "spawn", "--agent-id", "a1", "--task", "t",
                                          "--phase", "1", "--plan", "1"]),
        (".purlin/agents.json", ["agents-status"]),
        (".purlin/bookmarks.jsonl", ["bookmark", "list"]),
    ],
)  # fmt: skip
def test_a_state_file_that_is_a_fifo_is_named_never_waited_on(repo, cli, state, command):
    fifo = repo / state
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    result = without_opening(fifo, lambda: cli(*command), seconds=10)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stderr == (
        f"error: {fifo} is corrupt (not a regular file); it was left untouched: "
        "fix or move it aside, then run the command again\n"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("where", ["bare", ".git"])
@pytest.mark.parametrize(
    "args",
    [["install"], ["save", "--role", "qa", "--in-progress", "x"], ["history", "init"]],
)
def test_a_git_folder_as_project_is_refused_and_left_as_it_was(cli, tmp_path, where, args):
    """A bare repository or a work tree's ``.git`` holds no working files: nothing is written
    into git's own folder."""
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    if where == "bare":
        subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "bare")], check=True)
    folder = tmp_path / "bare" if where == "bare" else work / ".git"
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    result = cli(*args, "--project", str(folder))
    _one_line(result, 2)
    assert "a git repository's own folder" in result.stderr
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before


def test_a_refusal_whose_path_cannot_be_looked_at_is_still_one_line():
    """A file in a folder the user may not enter: looking whether it exists is refused too (a
    name too long to look up stands for that here, as root may enter any folder); the line
    still names it and what to do, never a second traceback."""
    from purlin_resume.core.errors import system_refusal

    name = "/tmp/" + "x" * 300
    line = system_refusal(PermissionError(13, "Permission denied", name), "nothing was changed")
    assert line == (
        f"{name}: Permission denied; nothing was changed; "
        f"make {name} readable and writable for you, then try again"
    )
