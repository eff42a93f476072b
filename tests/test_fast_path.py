"""Commands run without Typer (``cli/fast_path``): the same bytes, exit codes and files as when
Typer parses the command line, for plain lines and for every kind of line it hands to Typer.

Each case runs the console script's code and, separately, the Typer application itself, in
fresh interpreters, and compares everything they leave behind."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from purlin_resume.cli import fast_path
from tests.agents_setup import agent_record, write_registry
from tests.conftest import git
from tests.secret_corpus import SESSION, SESSION_FILE, corpus, planted_session, spread

ROOT = Path(__file__).resolve().parents[1]
# The console script's way in; says on the last line of stderr whether Typer was imported.
CONSOLE = (
    "import sys\n"
    "sys.argv = ['purlin-resume', *sys.argv[1:]]\n"
    "from purlin_resume.cli.entry import main\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    print('TYPER' if 'typer' in sys.modules else 'NO-TYPER', file=sys.stderr)\n"
)
# Typer parsing the same line, whatever it is.
TYPER = (
    "import sys\n"
    "sys.argv = ['purlin-resume', *sys.argv[1:]]\n"
    "from purlin_resume.cli.commands import app\n"
    "app()\n"
)
SECRETS = corpus(19)[:6]


def _run(code: str, args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **env},
        capture_output=True,
    )


def both(
    args: list[str],
    cwd: Path,
    output: Path | None = None,
    env: dict | None = None,
    state: Path | None = None,
):
    """Run ``args`` both ways; assert they leave the same (output, exit code, and the file
    ``output``); True when Typer was not imported. ``state``: a file each run starts from as it
    was, and is compared after (its "at" times aside)."""
    env = {"XDG_CACHE_HOME": str(cwd / "cache"), **(env or {})}
    before = state.read_bytes() if state is not None else None
    left = []
    for code in (CONSOLE, TYPER):
        if output is not None:
            output.unlink(missing_ok=True)
        if state is not None:
            state.write_bytes(before)
        done = _run(code, args, cwd, env)
        written = output.read_bytes() if output is not None and output.exists() else None
        after = _timeless(state.read_text()) if state is not None else None
        left.append((done.returncode, done.stdout, done.stderr, written, after))
    (code, out, err, written, after), typer_left = left
    *err_lines, typer_line = err.decode().splitlines() or [""]
    err = "".join(f"{line}\n" for line in err_lines).encode()
    assert (code, out, err, written, after) == typer_left
    return typer_line == "NO-TYPER"


def _timeless(text: str) -> str:
    return re.sub(r'"(\w*_at|timestamp)": "[^"]*"', r'"\1": "-"', text)


@pytest.fixture
def claude(fixtures_copy) -> Path:
    planted_session(fixtures_copy, spread(SECRETS), escaped=True)
    return fixtures_copy


def test_the_plans_are_what_typer_makes_of_the_commands():
    with open(fast_path.PLANS_FILE, encoding="utf-8") as kept:
        plans = json.load(kept)
    assert plans == fast_path.plans_from_typer(), (
        "the commands changed: run `python -m purlin_resume.cli.fast_path`"
    )
    assert {"transcript", "export"} <= set(plans)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--max-chars", "400"],
        ["--max-chars=400", "--include-tools", "--include-thinking"],
        ["--json", "--include-tools"],
        ["--max-chars", "1_000"],
        ["--max-chars", "0"],
    ],
)
def test_a_plain_transcript_line_runs_without_typer_and_prints_the_same(tmp_path, claude, args):
    line = ["transcript", SESSION, "--claude-dir", str(claude), *args]
    assert both(line, tmp_path)


def test_secrets_are_redacted_and_counted_the_same_way(tmp_path, claude):
    line = ["transcript", SESSION, "--claude-dir", str(claude), "--include-tools", "--json"]
    done = _run(CONSOLE, line, tmp_path, {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0 and b"redacted " in done.stderr
    assert not any(item.secret.encode() in done.stdout for item in SECRETS)
    assert both(line, tmp_path)
    assert both(["--no-redact", *line], tmp_path)  # the top-level flag, before the command


def test_writing_to_a_file_leaves_the_same_file(tmp_path, claude):
    out = tmp_path / "out.md"
    line = ["transcript", SESSION, "--claude-dir", str(claude), "--include-tools"]
    assert both([*line, "-o", str(out)], tmp_path, out)
    assert not any(item.secret in out.read_text() for item in SECRETS)
    assert both([*line, f"--output={out}"], tmp_path, out)
    assert both([*line, "--json", "-o", str(out)], tmp_path, out)
    assert not any(item.secret in out.read_text() for item in SECRETS)
    export = ["export", SESSION, "--claude-dir", str(claude)]
    assert both([*export, "-o", str(out)], tmp_path, out)
    assert both([*export, "--format", "md", "--include-thinking", "-o", str(out)], tmp_path, out)
    assert both([*export, "--no-redact", "-o", str(out)], tmp_path, out)


@pytest.mark.parametrize(
    "identifier",
    ["no-such-id", "$(touch pwned)", "line\nbreak", "\x1b[31mred\x1b]0;title\x07", "-", ""],
)
def test_unknown_and_hostile_ids_fail_the_same_way(tmp_path, claude, identifier):
    line = ["transcript", identifier, "--claude-dir", str(claude)]
    assert both(line, tmp_path)
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--max-chars", "-1"],  # out of range
        ["--max-chars", "many"],
        ["--max-chars="],
        ["--json", "--json"],  # given twice
        ["--output"],  # no value
        ["-o", "-"],  # a value that starts with "-"
        ["extra"],  # one argument too many
        ["--no-redact"],  # a top-level flag after the command
        ["--help"],
        ["--", "more"],
        ["--include-tools=yes"],
        ["--unknown"],
    ],
)
def test_what_the_plan_does_not_read_goes_to_typer(tmp_path, claude, args):
    line = ["transcript", SESSION, "--claude-dir", str(claude), *args]
    assert not both(line, tmp_path)


def test_a_missing_argument_or_a_choice_not_offered_goes_to_typer(tmp_path, claude):
    assert not both(["transcript", "--claude-dir", str(claude)], tmp_path)
    assert not both(["export", SESSION, "--format", "MD", "--claude-dir", str(claude)], tmp_path)
    assert not both(["export"], tmp_path)


def test_an_output_that_is_a_folder_fails_the_same_way(tmp_path, claude):
    line = ["transcript", SESSION, "--claude-dir", str(claude), "-o", str(tmp_path)]
    assert both(line, tmp_path)  # the work's own usage error: no Typer needed


def test_a_stream_that_is_not_utf8_goes_to_typer(tmp_path, claude):
    line = ["transcript", "no-such-id", "--claude-dir", str(claude)]
    assert not both(line, tmp_path, env={"PYTHONIOENCODING": "latin-1"})


def test_a_missing_or_corrupt_plans_file_means_typer(tmp_path, monkeypatch, capsys):
    for text in (None, "{not json", "[]"):
        kept = tmp_path / "plans.json"
        kept.unlink(missing_ok=True)
        if text is not None:
            kept.write_text(text)
        monkeypatch.setattr(fast_path, "PLANS_FILE", str(kept))
        assert fast_path.run(["transcript", "x"]) is False
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        ([], True),
        (["--json"], True),
        (["--lookback", "30"], True),
        (["--lookback=0.5", "--json"], True),
        (["--lookback", "0"], True),  # the work's own usage error
        (["--lookback", "soon"], False),
        (["--lookback", "-5"], False),
    ],
)
def test_stall_check_runs_without_typer_and_answers_the_same(tmp_path, claude, args, plain):
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    (project / "work.py").write_text("x = 1\n")
    transcript = claude / SESSION_FILE
    long_ago = 1_700_000_000
    for path in (project / "work.py", transcript):
        os.utime(path, (long_ago, long_ago))
    record = agent_record(project, transcript_path=str(transcript))
    write_registry(project, {"agent-1": record})
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}  # (not in the work tree it watches)
    assert both(["stall", "check", "agent-1", *args], project, env=env) is plain
    assert both(["stall", "check", "no-such-agent\x1b[2J", *args], project, env=env) is plain


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        (["--outcome", "success"], True),
        (["--outcome=failure", "--reason", "tests", "--duration-ms", "1200", "--json"], True),
        (["--outcome", "partial", "--notes", "$(touch pwned)\nsecond line", "--tool-calls", "3"],
         True),
        (["--outcome", "won"], False),
        (["--duration-ms", "5"], False),  # --outcome is required
        (["--outcome", "success", "--tool-calls", "-1"], False),
    ],
)  # fmt: skip
def test_resurrect_done_runs_without_typer_and_records_the_same(
    cli, tmp_path, repo, fixtures_copy, args, plain
):
    claude = ["--claude-dir", str(fixtures_copy)]
    made = cli("resurrect", "--session", "short", "--yes", "--json", *claude)
    assert made.exit_code == 0, made.stderr
    rid = json.loads(made.stdout)["resurrection"]["resurrection_id"]
    log = fixtures_copy / "history" / "resurrection-log.jsonl"
    assert both(["resurrect", "done", rid, *args, *claude], repo, state=log) is plain
    assert both(["resurrect", "done", "res-2026-01-01-999", *args, *claude], repo) is plain
    assert both(["resurrect", "done", "not-an-id", *args, *claude], repo) is plain
    assert not (repo / "pwned").exists()


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        (["tmux", "tests"], True),
        (["tmux", "--limit", "2", "tests", "--json"], True),  # options between the words
        (["--limit=1", "tmux tests yesterday"], True),
        (["$(touch pwned)", "\x1b[31mred\x1b]0;title\x07", "line\nbreak", "-"], True),
        ([""], True),  # the work's own usage error
        ([], False),  # the words are required: Typer says so
        (["tmux", "--limit", "0"], False),
        (["tmux", "--", "--limit"], False),
        (["tmux", "--json", "--json"], False),
    ],
)
def test_find_runs_without_typer_and_answers_the_same(tmp_path, claude, args, plain):
    twice_in_a_project(tmp_path, ["find", *args, "--claude-dir", str(claude)], plain)


def twice_in_a_project(tmp_path: Path, line: list[str], plain: bool) -> None:
    """``both`` twice in a git project (the second time with what the first kept: the index,
    the listing): without Typer when ``plain``; nothing the line holds is run."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    assert both(line, project) is plain
    assert both(line, project) is plain
    assert not (project / "pwned").exists()


def test_a_search_in_the_team_database_answers_the_same(tmp_path, claude):
    line = ["find", "tmux", "--team", "--claude-dir", str(claude)]
    assert both(line, tmp_path) is False  # the same answer; the team's commands load Typer


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        (["--all"], True),
        (["--all", "--json"], True),
        (["--project", "/path/to/Demo"], True),
        (["--project=/path/to/Demo", "--json"], True),
        (["--project", "$(touch pwned)\x1b[31m\nline"], True),  # hostile: nothing matches
        ([], True),  # the git project around (none of the fixtures' sessions)
        (["--all", "--project", "/path/to/Demo"], True),  # the work's own usage error
        (["--all", "--all"], False),
        (["--project"], False),
        (["--all=yes"], False),
    ],
)
def test_sessions_runs_without_typer_and_lists_the_same(tmp_path, claude, args, plain):
    twice_in_a_project(tmp_path, ["sessions", *args, "--claude-dir", str(claude)], plain)


def test_sessions_of_a_missing_data_folder_fail_the_same_way(tmp_path):
    line = ["sessions", "--all", "--claude-dir", str(tmp_path / "deleted")]
    assert both(line, tmp_path)


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        ([SESSION], True),
        ([SESSION[:8], "--json"], True),  # a unique prefix
        (["no-such-session"], True),  # the work's own error, one line
        (["$(touch pwned)\x1b[31m\nline"], True),
        ([], False),  # the session is required: Typer says so
        ([SESSION, "--json", "--json"], False),
    ],
)
def test_agents_runs_without_typer_and_shows_the_same(tmp_path, claude, args, plain):
    line = ["agents", *args, "--claude-dir", str(claude)]
    assert both(line, tmp_path) is plain
    assert not (tmp_path / "pwned").exists()


def test_a_slow_reader_gets_the_whole_output_and_a_reader_gone_ends_it_with_1(tmp_path, claude):
    """A command run here ends without the interpreter's teardown once its output is flushed:
    a reader that takes its time still gets every byte, with the status Typer's path gives."""
    big = "4d5611e5-241a-462a-8d15-5122611a9569"  # the 3.2 MB real session
    args = ["transcript", big, "--claude-dir", str(claude), "--json", "--include-tools"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "XDG_CACHE_HOME": str(tmp_path / "c")}
    typer = _run(TYPER, args, tmp_path, {"XDG_CACHE_HOME": str(tmp_path / "c")})
    assert typer.returncode == 0 and len(typer.stdout) > 256 << 10  # more than a pipe holds

    slow = subprocess.Popen(
        [sys.executable, "-c", CONSOLE, *args], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    time.sleep(1)  # it waits on the full pipe meanwhile
    out, err = slow.communicate(timeout=120)
    assert (slow.returncode, out) == (0, typer.stdout)
    assert err.decode().splitlines()[-1] == "NO-TYPER"

    gone = subprocess.Popen(
        [sys.executable, "-c", CONSOLE, *args], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert gone.stdout.read(1000)
    gone.stdout.close()
    err = gone.stderr.read().decode()
    assert gone.wait(timeout=120) == 1 and "Traceback" not in err
