"""Git hooks: each check on its own, a real post-commit, and the real ``pre-commit try-repo``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.agents import commit_log, registry
from purlin_resume.core.project import Project
from tests.conftest import commit_file, git

EXE = Path(sys.executable).with_name("purlin-resume")
SOURCE = Path(__file__).resolve().parents[2]
TOKEN = "ghp_" + "c" * 36
VALID = {"version": "1.2", "max_entries": 50, "entries": [{"agent_id": "a1", "status": "spawned"}]}


def stage(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", "-f", relative)


def test_agent_history_check(repo, cli):
    stage(repo, ".planning/agent-history.json", json.dumps(VALID))
    assert cli("git-hook", "agent-history").exit_code == 0
    stage(
        repo,
        ".planning/agent-history.json",
        json.dumps({"entries": [{"agent_id": "a1", "status": "running"}]}),
    )
    result = cli("git-hook", "agent-history")
    assert result.exit_code == 1
    assert "unknown status 'running'" in result.stderr
    assert "before committing" in result.stderr
    assert cli("git-hook", "agent-history", "README.md").exit_code == 0  # not the history


def test_no_cache_check(repo, cli):
    assert cli("git-hook", "no-cache").exit_code == 0
    stage(repo, ".purlin/cache/checkpoints/s.md", "x")
    result = cli("git-hook", "no-cache")
    assert result.exit_code == 1
    assert ".purlin/cache/checkpoints/s.md" in result.stderr
    assert "git rm --cached" in result.stderr


def test_no_secrets_check_names_line_and_kind_never_the_secret(repo, cli):
    stage(repo, ".planning/notes.md", "fine\nkey: " + TOKEN + "\n")
    stage(repo, "src/app.py", TOKEN)  # outside .planning/ and checkpoints: not this hook's business
    result = cli("git-hook", "no-secrets")
    assert result.exit_code == 1
    assert ".planning/notes.md:2: looks like a secret (github" in result.stderr
    assert TOKEN not in result.stderr
    assert "src/app.py" not in result.stderr


@pytest.mark.parametrize(
    "encoded",
    [
        lambda text: text.encode() + b"end: r\xe9sum\xe9\n",  # one Latin-1 byte
        lambda text: text.encode("utf-16"),  # with its byte order mark
    ],
    ids=["a-stray-byte", "utf-16"],
)
@pytest.mark.parametrize("named", [False, True], ids=["staged", "named"])
def test_no_secrets_finds_a_secret_in_a_file_that_is_not_utf8(repo, cli, encoded, named):
    notes = repo / ".planning" / "notes.md"
    notes.parent.mkdir(parents=True, exist_ok=True)
    notes.write_bytes(encoded("fine\nkey: " + TOKEN + "\n"))
    git(repo, "add", "-f", ".planning/notes.md")
    result = cli("git-hook", "no-secrets", *([".planning/notes.md"] if named else []))
    assert result.exit_code == 1
    assert ".planning/notes.md:2: looks like a secret (github" in result.stderr
    assert TOKEN not in result.stderr


def test_a_file_name_with_an_escape_sequence_is_quoted_in_the_problem(repo, cli):
    name = ".planning/\x1b]0;TITLE\x07\x1b[31mred\nmd.md"
    stage(repo, name, "key: " + TOKEN + "\n")
    result = cli("git-hook", "no-secrets", name)
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("'.planning/\\x1b]0;TITLE")


def test_a_problem_line_redacts_a_secret_in_a_file_name_or_a_history_value(repo, cli):
    stage(repo, f".planning/{TOKEN}.md", "key: " + TOKEN + "\n")
    stage(
        repo,
        ".planning/agent-history.json",
        json.dumps({"entries": [{"agent_id": "a1", "status": TOKEN}]}),
    )
    for name in ("no-secrets", "agent-history"):
        result = cli("git-hook", name)
        assert result.exit_code == 1
        assert "[REDACTED:github-token:" in result.stderr
        assert TOKEN not in result.stderr


def test_unknown_git_hook_is_a_usage_error(repo, cli):
    result = cli("git-hook", "nope")
    assert result.exit_code == 2
    assert "known: agent-history" in result.stderr


def test_post_commit_records_the_agent_whose_process_made_the_commit(repo):
    project = Project(repo)
    registry.record_start(project, "sess-A", pid=os.getpid(), role="builder", tmux_pane="%4")
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.write_text(f"#!/bin/sh\nexec '{EXE}' git-hook post-commit\n")
    hook.chmod(0o755)
    (repo / "a.txt").write_text("a")
    git(repo, "add", "a.txt")
    subprocess.run(["sh", "-c", "git commit -q -m 'agent commit'"], cwd=repo, check=True)
    [record] = commit_log.read(project)
    assert record["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert (record["session_id"], record["role"], record["tmux_pane"]) == (
        "sess-A",
        "builder",
        "%4",
    )
    assert record["files"] == ["a.txt"]
    assert record["branch"] == "main"
    registry.record_end(project, "sess-A")
    commit_file(repo, "b.txt", "b", "a person's commit")
    assert commit_log.read(project)[-1]["session_id"] is None


def test_the_commit_record_stays_out_of_git_where_only_the_git_hooks_run(repo):
    """A repository that takes the git hooks without ``install`` never ignored
    ``.purlin/cache/``: the record and its lock must not show in ``git status``, nor be taken
    by the next ``git add -A``."""
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.write_text(f"#!/bin/sh\nexec '{EXE}' git-hook post-commit\n")
    hook.chmod(0o755)
    for name in ("a.txt", "b.txt"):
        (repo / name).write_text(name)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", name)
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["b.txt"]
    assert len(commit_log.read(Project(repo))) == 2


def test_post_commit_never_fails_the_commit(repo, cli):
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "agents.json").write_text("{corrupt")
    result = cli("git-hook", "post-commit")
    assert result.exit_code == 0
    assert "agents.json" in (repo / ".purlin" / "cache" / "hook.log").read_text()
    assert (repo / ".purlin" / "agents.json").read_text() == "{corrupt"


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or "pre-commit"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        [exe, "try-repo", str(SOURCE), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_pre_commit_try_repo_runs_our_hooks(repo, pre_commit_home):
    stage(repo, ".planning/agent-history.json", json.dumps(VALID))
    clean = try_repo(repo, pre_commit_home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert clean.stdout.count("Passed") == 2  # history and secrets; no cache file to check
    assert clean.stdout.count("Skipped") == 1

    stage(repo, ".planning/agent-history.json", '{"entries": 3}')
    stage(repo, ".planning/notes.md", "token = " + TOKEN + "\n")
    stage(repo, ".purlin/cache/session_checkpoint.md", "**Role:** builder\n")
    refused = try_repo(repo, pre_commit_home)
    assert refused.returncode == 1
    out = refused.stdout
    assert out.count("Failed") == 3
    assert "'entries' must be a list" in out
    assert ".planning/notes.md:1: looks like a secret" in out
    assert TOKEN not in out
    assert ".purlin/cache/session_checkpoint.md: .purlin/cache/ holds local state" in out

    git(repo, "reset", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    recorded = try_repo(
        repo, pre_commit_home, "purlin-record-commit", "--hook-stage", "post-commit"
    )
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    [record] = commit_log.read(Project(repo))
    assert record["commit"] == git(repo, "rev-parse", "HEAD").strip()


def test_without_files_the_checks_read_what_is_staged_not_the_work_tree(repo, cli):
    stage(repo, ".planning/notes.md", "key: " + TOKEN + "\n")
    (repo / ".planning" / "notes.md").write_text("cleaned, but not staged\n")
    result = cli("git-hook", "no-secrets")
    assert result.exit_code == 1
    assert ".planning/notes.md:1: looks like a secret" in result.stderr
    stage(repo, ".planning/agent-history.json", json.dumps({"entries": "broken"}))
    (repo / ".planning" / "agent-history.json").write_text(json.dumps(VALID))
    result = cli("git-hook", "agent-history")
    assert result.exit_code == 1
    assert "'entries' must be a list" in result.stderr
    stage(repo, ".planning/agent-history.json", "{not json")
    assert "invalid JSON" in cli("git-hook", "agent-history").stderr


def test_a_staged_history_that_is_not_utf8_fails_as_a_named_one_does(repo, cli):
    history = repo / ".planning" / "agent-history.json"
    history.parent.mkdir(parents=True, exist_ok=True)
    history.write_bytes(b'{"entries": [], "x": "\xff"}\n')
    git(repo, "add", "-f", ".planning/agent-history.json")
    staged = cli("git-hook", "agent-history")
    named = cli("git-hook", "agent-history", ".planning/agent-history.json")
    assert staged.exit_code == named.exit_code == 1
    assert "not UTF-8 text at byte" in staged.stderr
    assert staged.stderr == named.stderr
