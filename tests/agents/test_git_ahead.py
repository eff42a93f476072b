"""``agents/git_ahead``: the work folder ``stall check`` would find, read from the registry with
``os`` and ``json`` alone, for registries and command lines of every kind (a hostile or damaged
one starts nothing); the git work it starts is what the detector would start (the same commits
and newest change), taken once; and nothing is left running."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from purlin_resume.agents import git_ahead, registry
from purlin_resume.agents.git_work import GitWork
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import locate
from tests.agents_setup import agent_record, write_registry
from tests.conftest import commit_file, git, no_children_left


def command_folder(agent: str, project: str | None) -> str | None:
    """The work folder the command finds (``stall.subject_of``), or None where it fails."""
    try:
        where = locate(Path(project) if project is not None else None)
        found = registry.resolve(registry.load(where), agent)
    except (PurlinError, OSError, ValueError):
        return None
    return str(registry.work_folder(where, found).resolve())


@pytest.fixture
def project(repo, tmp_path) -> Path:
    elsewhere = tmp_path / "elsewhere $(touch PWNED)\n"
    elsewhere.mkdir()
    link = tmp_path / "link"
    link.symlink_to(repo / "sub", target_is_directory=True)
    (repo / "sub").mkdir()
    write_registry(
        repo,
        {
            "agent-1": agent_record(repo),
            "agent-2": agent_record(repo, cwd=str(repo / "sub")),
            "agent-20": agent_record(repo, cwd=str(elsewhere)),
            "linked": agent_record(repo, cwd=str(link)),
            "gone": agent_record(repo, cwd=str(tmp_path / "deleted")),
            "nocwd": agent_record(repo, cwd=None),
            "oddcwd": agent_record(repo, cwd=["not", "a", "string"]),
            "emptycwd": agent_record(repo, cwd=""),
            "relative": agent_record(repo, cwd="sub"),
        },
    )
    return repo


QUERIES = [
    "agent-1",
    "agent-2",  # an id, and the prefix of agent-20: the id wins
    "agent-20",
    " agent-20 ",
    "agent",  # ambiguous
    "linked",
    "gone",
    "nocwd",
    "oddcwd",
    "emptycwd",
    "relative",
    "lin",
    "nobody",
    "",
    "  ",
    "$(touch PWNED)",
    "agent-1\n",
]


@pytest.mark.parametrize("query", QUERIES)
def test_the_folder_is_the_one_the_command_finds(project, tmp_path, query):
    for given in (None, str(project), "~/project"):
        os.environ["HOME"] = str(project.parent)
        expected = command_folder(query, given)
        assert git_ahead.work_folder(query, given) == expected, (query, given)
    assert not (project / "PWNED").exists() and not Path("PWNED").exists()


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[" * 100_000,
        '{"version": 1, "agents": []}',
        '{"version": 1, "agents": {"agent-1": "a string"}}',
        '"just a string"',
        "",
        "\xff\xfe",
    ],
)
def test_a_damaged_registry_starts_nothing(project, text):
    path = project / ".purlin" / "agents.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    git_ahead.start("agent-1", None)
    assert git_ahead.taken() == (None, None)
    assert path.read_bytes() == text.encode("utf-8", "surrogateescape")  # left as it was


def test_no_project_or_a_folder_that_is_not_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert git_ahead.work_folder("agent-1", None) is None  # not in a work tree
    assert git_ahead.work_folder("agent-1", str(tmp_path / "missing")) is None
    git_ahead.start("agent-1", str(tmp_path / "missing"))
    assert git_ahead.taken() == (None, None)


def test_git_dir_set_starts_nothing(project, monkeypatch):
    monkeypatch.setenv("GIT_DIR", str(project / ".git"))
    git_ahead.start("agent-1", str(project))
    assert git_ahead.taken() == (None, None)


def fresh_changes(project: Path) -> None:
    commit_file(project, "src/app.py", "x = 1\n", "add the app\n\nAgent-Id: agent-1")
    (project / "src" / "app.py").write_text("x = 2\n")
    (project / "new file\nwith $(x).py").write_text("new\n")


def test_the_work_started_ahead_is_what_the_detector_would_start(project):
    fresh_changes(project)
    git_ahead.start("agent-2", None)  # works in sub/: the changes outside it are not its own
    now, work = git_ahead.taken()
    assert git_ahead.taken() == (None, None)  # once

    assert work is not None and work.worktree == project / "sub" and work.now == now
    assert now.tzinfo is not None and now.microsecond == 0
    alone = GitWork.start(project / "sub", now)
    assert work.commits() == alone.commits() and work.newest() == alone.newest() is None

    git_ahead.start("agent-1", None)
    now, work = git_ahead.taken()
    alone = GitWork.start(project, now)
    assert [c.sha for c in work.commits()] == [c.sha for c in alone.commits()]
    assert work.commits()[0].message.endswith("Agent-Id: agent-1")
    assert work.newest() == alone.newest()
    assert work.newest()[0] in ("src/app.py", "new file\nwith $(x).py")


def test_a_repository_without_commits_has_none(tmp_path, monkeypatch):
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "first.py").write_text("x\n")
    write_registry(root, {"agent-1": agent_record(root)})
    monkeypatch.chdir(root)

    git_ahead.start("agent-1", None)
    now, work = git_ahead.taken()

    assert work.commits() == [] and work.newest()[0] == "first.py"


def test_work_never_taken_or_never_read_leaves_no_process(project):
    fresh_changes(project)
    assert no_children_left()
    git_ahead.start("agent-1", None)
    now, work = git_ahead.taken()
    del work  # read by no one
    git_ahead.start("agent-1", None)
    git_ahead._started.clear()  # the command failed before it took its work
    import gc

    gc.collect()
    assert no_children_left()


def test_the_registry_file_is_the_one_registry_reads(project):
    assert Path(project, *git_ahead.REGISTRY) == registry.path(locate(project))
    assert json.loads(registry.path(locate(project)).read_text())["version"] == registry.VERSION
