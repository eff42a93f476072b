"""gitrepo runs git in the work tree: what it returns and how its failures read."""

from __future__ import annotations

import pytest

from purlin_resume.core import gitrepo
from purlin_resume.core.errors import PurlinError
from tests.conftest import commit_file, git


def test_output_and_paths_come_back_as_git_prints_them(repo):
    first = git(repo, "rev-parse", "HEAD").strip()
    second = commit_file(repo, "src/ünïcode name.py", "x = 1\n", "second: ünïcode")
    (repo / "notes.txt").write_text("draft\n")

    assert gitrepo.head_commit(repo) == second
    assert gitrepo.changed_between(repo, first) == ["src/ünïcode name.py"]
    assert gitrepo.untracked_paths(repo) == ["notes.txt"]
    [commit, initial] = gitrepo.commits_since(repo, 0)
    assert commit.message == "second: ünïcode"
    assert commit.files == ("src/ünïcode name.py",)
    assert initial.sha == first, "since the epoch means every commit, however old"
    assert gitrepo.is_ignored(repo, "notes.txt") is False
    (repo / ".gitignore").write_text("notes.txt\n")
    assert gitrepo.is_ignored(repo, "notes.txt") is True


def test_a_failing_git_command_is_one_line_with_gits_reason(repo):
    with pytest.raises(PurlinError) as caught:
        gitrepo.changed_between(repo, "no-such-branch")
    message = caught.value.message
    assert "\n" not in message
    assert message.startswith("git diff")
    assert "no-such-branch" in message
    assert "fatal:" in message


def test_recent_commits_newest_first_and_none_before_the_first(repo, tmp_path):
    sha = commit_file(repo, "a.txt", "a\n", "second")
    [newest, _initial] = gitrepo.recent_commits(repo, 5)
    short, subject = newest.split(" ", 1)
    assert sha.startswith(short)
    assert subject == "second"
    assert len(gitrepo.recent_commits(repo, 1)) == 1
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    assert gitrepo.recent_commits(empty) == []
    with pytest.raises(PurlinError, match="is not a git repository"):
        gitrepo.recent_commits(tmp_path / "nowhere")


def test_a_folder_outside_git_is_named(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    with pytest.raises(PurlinError, match="elsewhere is not a git repository; run inside one"):
        gitrepo.branch(folder)
    assert gitrepo.toplevel(folder) is None


def test_a_folder_inside_a_repository_names_the_top_to_pass_instead(repo, cli):
    folder = repo / "src"
    folder.mkdir()
    with pytest.raises(PurlinError) as raised:
        gitrepo.branch(folder)
    top = repo.resolve()
    assert str(raised.value) == (
        f"{folder} is a folder inside the git repository {top}, not its top; "
        f"run there or pass --project {top}"
    )
    qa = ("--role", "qa", "--scenario-progress", "1 of 2", "--current-scenario", "s", "--next", "n")
    saved = cli("save", *qa, "--project", str(folder))
    assert saved.exit_code == 1
    assert f"pass --project {top}" in saved.stderr
    assert not (folder / ".purlin").exists()


def test_commits_since_a_moment_keeps_only_later_commits(repo):
    import os
    import subprocess

    env = {
        **os.environ,
        "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z",
        "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
    }
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "old"], cwd=repo, env=env, check=True
    )
    newest = commit_file(repo, "new.txt", "x\n", "new")
    jan_2020 = 1577836800
    assert [c.message for c in gitrepo.commits_since(repo, jan_2020 - 60)][:2] == ["new", "old"]
    assert [c.sha for c in gitrepo.commits_since(repo, jan_2020 + 60)] == [newest]
    assert "old" in [c.message for c in gitrepo.commits_since(repo, 0)], "the epoch is not 'now'"


def test_a_folder_holding_a_git_file_git_refuses_is_not_a_top_level(repo):
    """A worktree removed behind git's back leaves its ``.git`` file pointing nowhere: git
    says it is no repository, and so does ``toplevel``."""
    folder = repo / "stale-worktree"
    folder.mkdir()
    (folder / ".git").write_text("gitdir: /nowhere/.git/worktrees/stale\n")
    assert gitrepo.toplevel(folder) is None
    assert gitrepo.toplevel(repo) == repo.resolve()


def test_a_commit_message_holding_the_log_separators_is_read_as_one_commit(repo):
    """A message is anyone's text: git's separators in it must not end the commit early."""
    message = "fix\x1eX\x1fY\x1fZ\x1fW\x1fV\x1fU\nmore\x1fand more"
    sha = commit_file(repo, "a.txt", "a\n", message)
    [commit, _initial] = gitrepo.commits_since(repo, 0)
    assert (commit.sha, commit.message, commit.files) == (sha, message, ("a.txt",))
    assert gitrepo.commits_in(repo, "HEAD~1") == [commit]


@pytest.mark.parametrize("where", ["top", "sub-folder", "stale-worktree", "outside"])
def test_a_hooks_project_is_the_work_tree_top_of_its_folder(repo, tmp_path, where):
    folder = {
        "top": repo,
        "sub-folder": repo / "src",
        "stale-worktree": repo / "stale-worktree",
        "outside": tmp_path / "elsewhere",
    }[where]
    folder.mkdir(exist_ok=True)
    if where == "stale-worktree":  # git refuses it: the folder stands for itself
        (folder / ".git").write_text("gitdir: /nowhere/.git/worktrees/stale\n")
    expected = {"top": repo.resolve(), "sub-folder": repo.resolve(), "outside": None}
    assert gitrepo.work_tree_of(folder) == expected.get(where, folder.resolve())


def test_with_git_dir_set_a_hooks_project_is_the_work_tree_git_names(repo, tmp_path, monkeypatch):
    """``$GIT_DIR`` may name another repository than the folder's own ``.git``: git is asked."""
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    git(other, "config", "core.worktree", str(other))
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    assert gitrepo.work_tree_of(repo) == other.resolve()


def test_an_ignored_state_file_with_a_quote_or_a_tab_in_its_name_is_not_excluded_again(repo):
    """git quotes such names in its line output: they must still be found ignored."""
    names = ['say "hi".json', "tab\there.json"]
    (repo / ".gitignore").write_text("/.purlin/cache/*.json\n")
    gitrepo.exclude_state_files(repo / ".purlin" / "cache", *names)
    exclude = repo / ".git" / "info" / "exclude"
    assert not exclude.exists() or ".json" not in exclude.read_text()


def test_state_files_are_kept_out_of_git_status_each_once(repo, tmp_path):
    (repo / ".gitignore").write_text("/.purlin/cache/already.json\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore one")
    cache = repo / ".purlin" / "cache"  # not made yet
    gitrepo.exclude_state_files(cache, "already.json", "samples.json", "samples.json.lock")
    exclude = (repo / ".git" / "info" / "exclude").read_text().splitlines()
    assert exclude[-2:] == ["/.purlin/cache/samples.json", "/.purlin/cache/samples.json.lock"]
    assert "/.purlin/cache/already.json" not in exclude  # .gitignore has it
    cache.mkdir(parents=True)
    for name in ("already.json", "samples.json", "samples.json.lock"):
        (cache / name).write_text("{}\n")
    assert git(repo, "status", "--porcelain") == ""
    outside = tmp_path / "no-repository"
    gitrepo.exclude_state_files(outside, "samples.json")  # nothing to do, no error
    assert not outside.exists()
