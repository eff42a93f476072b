"""The walk over the transcripts' files that ``find`` starts ahead, on the other core: what it
hands over is what a walk of that folder gives, used only for that folder, and a command that
ends before it searches leaves no process behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from purlin_resume.claude import signatures
from purlin_resume.cli import find_run
from purlin_resume.core.errors import PurlinError
from tests.conftest import no_children_left

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


def _walking_here_fails(monkeypatch) -> None:
    """From now on this process may not walk: an answer must come from the child (forked
    before, with the real walk)."""

    def walk(root):
        raise AssertionError(f"walked {root} in this process")

    monkeypatch.setattr(signatures, "_walk", walk)


def test_the_walk_ahead_gives_what_a_walk_gives(fixtures_copy, tmp_path, monkeypatch):
    link = tmp_path / "link-to-claude"
    link.symlink_to(fixtures_copy)
    monkeypatch.chdir(tmp_path)
    expected = signatures.of(fixtures_copy.resolve())
    assert len(expected) >= 6
    signatures.walk_ahead(Path("link-to-claude"))  # another spelling of the same folder
    _walking_here_fails(monkeypatch)
    assert signatures.of(fixtures_copy.resolve()) == expected
    assert no_children_left()


def test_a_walk_of_another_folder_is_not_used(fixtures_copy, tmp_path):
    empty = tmp_path / "other"
    (empty / "projects").mkdir(parents=True)
    signatures.walk_ahead(empty)
    mine = signatures.of(fixtures_copy.resolve())
    assert mine and mine == signatures.of(fixtures_copy.resolve())
    assert no_children_left()


def test_the_walk_ahead_answers_once_and_the_next_call_walks_afresh(fixtures_copy, monkeypatch):
    """The child's answer serves one call; a session written after it is seen by the next."""
    root = fixtures_copy.resolve()
    signatures.walk_ahead(root)
    with monkeypatch.context() as here:
        _walking_here_fails(here)
        before = signatures.of(root)  # the child's answer
    folder = next(p for p in (root / "projects").iterdir() if p.is_dir())
    (folder / "99999999-9999-4999-8999-999999999999.jsonl").write_text("{}\n")
    after = signatures.of(root)  # walked here
    assert set(after) - set(before) == {f"{folder}/99999999-9999-4999-8999-999999999999.jsonl"}


def test_a_walk_of_a_missing_folder_is_empty(tmp_path):
    gone = tmp_path / "deleted"
    signatures.walk_ahead(gone)
    assert signatures.of(gone.resolve()) == {}


def test_find_that_fails_before_it_searches_leaves_no_child(fixtures_copy, tmp_path):
    with pytest.raises(PurlinError):
        find_run.find(
            ["tmux"], 5, fixtures_copy, tmp_path / "no such project", as_json=True, team=False
        )
    assert no_children_left()
    assert signatures.of(fixtures_copy.resolve())  # walks afresh: nothing was left pending


def test_hostile_names_come_back_as_the_walk_read_them(fixtures_copy, monkeypatch):
    """File and folder names with bytes that are no UTF-8, line breaks, `$(…)` and escape
    sequences travel through the child unchanged."""
    root = fixtures_copy.resolve()
    hostile = root / "projects" / "-srv-$(touch pwned)-\x1b[31m"
    hostile.mkdir()
    (hostile / "11111111-2222-4333-8444-555555555555.jsonl").write_text("{}\n")
    odd = os.fsdecode(b"odd-\xff\xfe-line\nbreak")
    (hostile / f"{odd}.jsonl").write_text("{}\n")
    (hostile / "11111111-2222-4333-8444-555555555555" / "subagents").mkdir(parents=True)
    (hostile / "11111111-2222-4333-8444-555555555555" / "subagents" / "agent-a1.jsonl").write_text(
        "{}\n"
    )
    expected = signatures.of(root)
    assert f"{hostile}/{odd}.jsonl" in expected
    signatures.walk_ahead(root)
    _walking_here_fails(monkeypatch)
    assert signatures.of(root) == expected
    assert no_children_left()
    assert not (root / "pwned").exists() and not Path("pwned").exists()


# -- the walk a `find` command line starts before it loads anything (cli/head_start) ---------


def test_the_walk_knows_the_names_layout_knows():
    from purlin_resume.claude import layout

    assert (signatures.SUFFIX, signatures.AGENT_PREFIX) == (layout.SUFFIX, layout.AGENT_PREFIX)


@pytest.mark.parametrize(
    "given", [None, "", "claude", "./claude/", "a//b/./../claude", "~/claude", "~", "/"]
)
@pytest.mark.parametrize("config_env", [None, "", "~/from-env"])
def test_the_head_start_reads_the_folder_as_layout_does(given, config_env, tmp_path, monkeypatch):
    from purlin_resume.claude import layout
    from purlin_resume.cli.head_start import claude_folder

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    if config_env is None:
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    else:
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", config_env)
    folder = layout.config_dir(None if given is None else Path(given))[0]
    assert signatures.walked(claude_folder(given))[0] == str(folder.resolve())


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["find", "tmux", "tests"], (None,)),
        (["--no-redact", "find", "--json", "tmux"], (None,)),
        (["find", "tmux", "--claude-dir", "/c", "--limit", "3", "--project", "/p"], ("/c",)),
        (["find", "--claude-dir=/c d", "tmux"], ("/c d",)),
        (["find", "--", "--claude-dir"], (None,)),  # a word after --
        (["find", "tmux", "--team"], None),  # searches the team's bookmarks only
        (["find", "tmux", "--help"], None),
        (["find", "--claude-dir", "/c"], None),  # no words: the command says so
        (["find", "tmux", "--claude-dir"], None),
        (["resurrect", "find", "tmux"], None),
        (["--version", "find", "tmux"], None),
    ],
)
def test_the_find_arguments_read_before_anything_loads(args, expected):
    from purlin_resume.cli.head_start import find_arguments

    assert find_arguments(args) == expected


# `purlin-resume ARGS...` in a fresh interpreter where only a child forked before the command
# loaded its modules may walk the folder
ONLY_A_CHILD_WALKS = (
    "import os, sys\n"
    "from purlin_resume.claude import signatures\n"
    "parent, walk = os.getpid(), signatures._walk\n"
    "def walk_in_a_child(root):\n"
    "    if os.getpid() == parent:\n"
    "        raise SystemExit('walked in the command itself')\n"
    "    if 'purlin_resume.cli.find_run' in sys.modules:\n"
    "        raise SystemExit('forked once the command was loaded')\n"
    "    return walk(root)\n"
    "signatures._walk = walk_in_a_child\n"
    "sys.argv = ['purlin-resume', *sys.argv[1:]]\n"
    "from purlin_resume.cli import main\n"
    "main()\n"
)


@pytest.mark.parametrize("how", ["--claude-dir", "--claude-dir=", "~", "CLAUDE_CONFIG_DIR"])
def test_find_takes_the_walk_its_command_line_started(fixtures_copy, tmp_path, how):
    import subprocess
    import sys

    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    named = {
        "--claude-dir": ["--claude-dir", str(fixtures_copy)],
        "--claude-dir=": [f"--claude-dir={fixtures_copy}"],
        "~": ["--claude-dir", "~/claude"],  # fixtures_copy is tmp_path/claude
        "CLAUDE_CONFIG_DIR": [],
    }[how]
    if how == "CLAUDE_CONFIG_DIR":
        env["CLAUDE_CONFIG_DIR"] = str(fixtures_copy)
    argv = ["find", "tmux", "tests", *named, "--json"]
    plain = subprocess.run(
        [sys.executable, "-m", "purlin_resume", *argv], env=env, capture_output=True, text=True
    )  # (builds the index)
    assert plain.returncode == 0 and '"results": [' in plain.stdout, plain.stderr
    ahead = subprocess.run(
        [sys.executable, "-c", ONLY_A_CHILD_WALKS, *argv], env=env, capture_output=True, text=True
    )
    assert (ahead.returncode, ahead.stdout, ahead.stderr) == (0, plain.stdout, plain.stderr)
