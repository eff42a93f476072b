"""What each command path imports, and the kept ``--help`` page: the same bytes as Typer's own,
replayed without Typer or Rich, and rendered again whenever anything it depends on changes.

Each test runs the console script's code in a fresh interpreter and looks at ``sys.modules``
when it is done: behaviour (what gets loaded), not timing (benchmarks/startup.py measures that).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents_setup import agent_record, write_registry
from tests.conftest import FIXTURES, plant_kept

ROOT = Path(__file__).resolve().parents[1]
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
SESSION_FILE = f"projects/-home-USER-projects-spotter-worktrees-spotter-dov/{SESSION}.jsonl"
# Run as `purlin-resume ARGS...`; the last line of stderr lists every module loaded.
PROBE = (
    "import sys, runpy\n"
    "sys.argv = ['purlin-resume', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('purlin_resume', run_name='__main__')\n"
    "finally:\n"
    "    print('MODULES ' + ' '.join(sorted(sys.modules)), file=sys.stderr)\n"
)
HEAVY = {"jinja2", "sqlite3", "rapidfuzz", "yaml", "git", "rich", "markdown_it", "pygments"}


def python(code: str, *args: str, cwd: Path, env: dict | None = None):
    """``python -c CODE ARGS...``, its output as text."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})},
        capture_output=True,
        text=True,
        encoding="utf-8",
    )


def run(*args: str, cwd: Path, env: dict | None = None) -> tuple[subprocess.CompletedProcess, set]:
    done = python(PROBE, *args, cwd=cwd, env=env)
    lines = done.stderr.splitlines()
    assert lines and lines[-1].startswith("MODULES "), done.stderr
    done.stderr = "\n".join(lines[:-1])
    return done, set(lines[-1].split()[1:])


def tops(modules: set) -> set:
    return {name.split(".")[0] for name in modules}


def test_version_is_answered_without_typer(tmp_path):
    done, modules = run("--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "purlin-resume 0.1.0\n"
    assert not tops(modules) & ({"typer", "click", "typing"} | HEAVY)
    both, modules = run("--version", "--no-redact", cwd=tmp_path)  # Typer's eager option
    assert both.stdout == done.stdout and "typer" in tops(modules)


@pytest.fixture
def claude_dir(tmp_path) -> Path:
    target = tmp_path / "claude"
    (target / SESSION_FILE).parent.mkdir(parents=True)
    shutil.copy(FIXTURES / SESSION_FILE, target / SESSION_FILE)
    return target


def test_transcript_loads_the_reader_and_nothing_it_does_not_use(tmp_path, claude_dir):
    out = tmp_path / "out.md"
    done, modules = run(
        "transcript", SESSION, "--claude-dir", str(claude_dir), "-o", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("#")
    assert {"purlin_resume.claude.transcript", "purlin_resume.core.redact"} <= modules
    assert not tops(modules) & (HEAVY | {"typer"})  # a plain command line: cli/fast_path
    assert not {m for m in modules if m.startswith("purlin_resume.cli.")} - {
        "purlin_resume.cli.entry",
        "purlin_resume.cli.fast_path",
        "purlin_resume.cli.common",
        "purlin_resume.cli.transcript_run",
    }


@pytest.mark.parametrize("parsed_by", ["fast_path", "typer"])
def test_the_command_runs_with_the_cyclic_collector_on(tmp_path, claude_dir, parsed_by):
    """Start-up runs without the cyclic collector (it makes no garbage); the command itself,
    which may run for hours (``watch``, ``dashboard``, ``mcp``), gets it back, whether Typer
    parsed its command line or ``cli/fast_path`` did."""
    probe = (
        "import functools, gc, sys\n"
        "from purlin_resume.cli import transcript_run\n"
        "work = transcript_run.transcript\n"
        "def seen(**values):\n"
        "    print('COLLECTOR', gc.isenabled(), file=sys.stderr)\n"
        "    return work(**values)\n"
        "transcript_run.transcript = seen\n"
        "from purlin_resume.cli import transcripts\n"
        "command = transcripts.transcript_command\n"
        "commands = transcripts.app.registered_commands\n"
        "commands[[i.callback for i in commands].index(command)].callback = "
        "functools.wraps(command)(lambda **values: seen(**values))\n"
    ) + PROBE
    out = tmp_path / "out.md"
    argv = ["transcript", SESSION, "--claude-dir", str(claude_dir), "-o", str(out)]
    if parsed_by == "typer":
        argv += ["--include-tools", "--include-tools"]  # given twice: only Typer reads that
    done = python(probe, *argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines().count("COLLECTOR True") == 1
    assert out.read_text().startswith("#")


def test_stall_check_loads_no_index_templates_or_rich(tmp_path, claude_dir):
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True)
    (project / "work.py").write_text("x = 1\n")  # an uncommitted change
    transcript = claude_dir / SESSION_FILE
    write_registry(project, {"agent-1": agent_record(project, transcript_path=str(transcript))})
    done, modules = run("stall", "check", "agent-1", "--json", cwd=project)
    assert done.returncode in (0, 3), done.stderr  # active or stalled: both are answers
    assert '"agent_id": "agent-1"' in done.stdout and "changed work.py" in done.stdout
    assert "purlin_resume.agents.stall" in modules
    assert not tops(modules) & HEAVY


def test_recommend_loads_the_index_but_no_checkpoint_machinery(tmp_path, claude_dir):
    done, modules = run(
        "recommend", "--task", "transcript renderer", "--claude-dir", str(claude_dir), "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "purlin_resume.resurrection.search_index" in modules and "sqlite3" in tops(modules)
    assert not {"purlin_resume.checkpoints.lifecycle", "purlin_resume.checkpoints.format"} & modules
    assert not tops(modules) & {"jinja2", "yaml", "git", "rich", "markdown_it"}


def test_find_with_its_index_built_reads_no_transcript_and_builds_no_catalog(tmp_path, claude_dir):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = ["find", "transcript renderer", "--claude-dir", str(claude_dir), "--json"]
    first, _ = run(*argv, cwd=tmp_path, env=env)  # builds the index
    again, modules = run(*argv, cwd=tmp_path, env=env)
    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    assert again.stdout == first.stdout and '"results": [' in again.stdout
    assert "purlin_resume.resurrection.search_index" in modules
    assert not {"purlin_resume.claude.catalog", "purlin_resume.claude.transcript"} & modules
    # nor the rest of the resurrection flow: opening, checks, the log
    flow = {"flow", "preflight", "log", "compress"}
    assert not {f"purlin_resume.resurrection.{name}" for name in flow} & modules


# -- the kept --help page -------------------------------------------------------------------


def typer_help(cwd: Path, env: dict, *command: str) -> str:
    """The page as Typer renders it with every command loaded, without the console script (no
    page kept or replayed)."""
    code = (
        "import sys\n"
        "sys.argv = ['purlin-resume', *sys.argv[1:], '--help']\n"
        "from purlin_resume.cli.commands import app\n"
        "app(prog_name='purlin-resume')\n"
    )
    done = python(code, *command, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def help_page(cwd: Path, env: dict, *command: str) -> tuple[str, bool]:
    """(the page, whether Typer was loaded to render it) through the console script."""
    exe = Path(sys.executable).with_name("purlin-resume")
    code = (
        "import runpy, sys\n"
        f"sys.argv = [{str(exe)!r}, *sys.argv[1:], '--help']\n"
        "try:\n"
        f"    runpy.run_path({str(exe)!r}, run_name='__main__')\n"
        "finally:\n"
        "    print('TYPER' if 'typer' in sys.modules else 'NO-TYPER', file=sys.stderr)\n"
    )
    done = python(code, *command, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr.splitlines()[-1] == "TYPER"


def test_help_is_kept_and_replayed_byte_for_byte_without_typer(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "100"}
    first, rendered = help_page(tmp_path, env)
    again, rendered_again = help_page(tmp_path, env)
    assert rendered and not rendered_again
    assert again == first == typer_help(tmp_path, env)
    assert "recommend" in first and "Usage: purlin-resume" in first
    kept = tmp_path / "cache" / "purlin-resume" / "help.txt"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert os.environ.get("PATH", "") not in kept.read_text(), "the key is a digest"

    narrow = {**env, "COLUMNS": "60"}  # the environment is part of the key
    page, rendered = help_page(tmp_path, narrow)
    assert rendered and page == typer_help(tmp_path, narrow) and page != first


def test_a_changed_command_module_renders_the_page_again(tmp_path):
    package = tmp_path / "pkg"
    shutil.copytree(ROOT / "purlin_resume", package / "purlin_resume")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(package)}
    first, _ = help_page(tmp_path, env)
    assert help_page(tmp_path, env) == (first, False)

    app_module = package / "purlin_resume" / "cli" / "app.py"
    text = app_module.read_text()
    assert "Print the version and exit." in text
    app_module.write_text(text.replace("Print the version and exit.", "Say the version."))
    page, rendered = help_page(tmp_path, env)
    assert rendered and "Say the version." in page and "Print the version" not in page
    assert page == typer_help(tmp_path, env)


@pytest.mark.parametrize("damage", ["garbage", "folder", "other key", "linked", "shared"])
def test_a_damaged_kept_page_is_rendered_again(tmp_path, damage):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first, _ = help_page(tmp_path, env)
    kept = tmp_path / "cache" / "purlin-resume" / "help.txt"
    key = kept.read_text().splitlines()[0]
    planted = f"{key}\n\x1b[31mplanted\n"  # the right key: only the file's trust rejects it
    elsewhere = tmp_path / "elsewhere.txt"
    if damage == "garbage":
        kept.write_bytes(b"\xff\xfe\x00\x1b[31m not a page\n")
    elif damage == "folder":
        kept.unlink()
        kept.mkdir()
    elif damage == "other key":
        kept.write_text("0" * 64 + "\n\x1b[31mplanted\n")
    else:
        plant_kept(kept, planted, damage, elsewhere)
    page, rendered = help_page(tmp_path, env)
    assert rendered and page == first and "planted" not in page
    if damage == "linked":
        assert elsewhere.read_text() == planted  # the link was replaced, not written through


@pytest.mark.parametrize(
    "command",
    [
        ("recommend",),
        ("bookmark",),
        ("bookmark", "add"),
        ("resurrections",),
        ("resurrections", "stats"),
        ("resurrect",),
        ("resurrect", "done"),
        ("install",),
    ],
)
def test_a_command_built_alone_helps_as_in_the_whole_command_line(tmp_path, command):
    """The console script builds only the command that runs; what it prints is unchanged."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "100"}
    page, _ = help_page(tmp_path, env, *command)
    assert page == typer_help(tmp_path, env, *command)
    assert f"Usage: purlin-resume {' '.join(command)}" in page


def test_a_page_cut_short_is_never_kept(tmp_path, monkeypatch, capsys):
    from purlin_resume.cli import rendered_help

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def interrupted():
        print(" Usage: purlin-resume [OPTIONS] COMMAND")
        raise KeyboardInterrupt

    def failed():
        print(" Usage: purlin-resume [OPTIONS] COMMAND")
        raise SystemExit(1)

    def whole():
        print(" Usage: purlin-resume [OPTIONS] COMMAND\n the page")
        raise SystemExit(0)

    with pytest.raises(KeyboardInterrupt):
        rendered_help.render(["--help"], interrupted)
    with pytest.raises(SystemExit):
        rendered_help.render(["--help"], failed)
    assert not Path(rendered_help.cache_file()).exists()
    with pytest.raises(SystemExit):
        rendered_help.render(["--help"], whole)
    capsys.readouterr()
    rendered_help.render(["--help"], lambda: pytest.fail("rendered although kept"))
    assert capsys.readouterr().out == " Usage: purlin-resume [OPTIONS] COMMAND\n the page\n"
