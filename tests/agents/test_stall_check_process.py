"""``stall check`` as the console script runs it: the writing tool calls read straight from the
transcript, git status without optional locks; on real git
repositories, real transcripts, hostile file names and a working folder that is gone."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.agents import activity
from purlin_resume.core import gitrepo
from tests.agents_setup import agent_record, write_registry, writing
from tests.conftest import commit_file, git

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "evil\nname $(touch PWNED) `touch PWNED2` \x1b]0;title\x07\x1b[31mred\r.py"


def console(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``purlin-resume ARGS`` as its own process (``python -m purlin_resume``); its output
    decoded as it is (a carriage return stays one)."""
    done = subprocess.run(
        [sys.executable, "-m", "purlin_resume", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
    )
    done.stdout, done.stderr = done.stdout.decode(), done.stderr.decode()
    return done


def transcript_lines(records: list[dict]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def assembled_files_touched(path: Path, worktree: Path) -> set[str]:
    """What the agent's files were when the whole conversation was assembled to find them."""
    from purlin_resume.claude import transcript

    touched = set()
    for call in transcript.read(path, "agent").main.tool_calls():
        if not call.file_path or call.name not in activity.WRITING_TOOLS:
            continue
        where = Path(call.file_path)
        where = where if where.is_absolute() else worktree / where
        try:
            touched.add(where.resolve().relative_to(worktree.resolve()).as_posix())
        except ValueError:
            continue
    return touched


def subject(worktree: Path, transcript: Path) -> activity.Subject:
    return activity.Subject("agent", worktree, worktree, worktree / "ws", transcript)


@pytest.fixture
def project(repo) -> Path:
    """The repository with recent commits (one carries the agent's trailer), an uncommitted
    edit, a new file and a real transcript, registered as agent-1."""
    commit_file(repo, "src/app.py", "x = 1\n", "add the app")
    commit_file(repo, "src/lib.py", "y = 1\n", "add the lib\n\nAgent-Id: agent-1")
    (repo / "src" / "app.py").write_text("x = 2\n")
    (repo / "notes.md").write_text("new\n")
    transcript = repo.parent / "session.jsonl"
    transcript.write_text(
        transcript_lines([writing("w1", "Write", {"file_path": str(repo / "src" / "lib.py")})])
    )
    write_registry(repo, {"agent-1": agent_record(repo, transcript_path=str(transcript))})
    return repo


# -- the writing tool calls, read straight from the transcript ----------------------------------


def test_writing_calls_match_the_assembled_conversation_on_every_real_transcript(fixtures_copy):
    paths = sorted(fixtures_copy.rglob("*.jsonl"))
    assert paths
    found = 0
    for path in paths:
        expected = assembled_files_touched(path, Path("/"))
        assert activity.files_touched(subject(Path("/"), path)) == expected, path
        found += len(expected)
    assert found > 0  # the fixtures do write files: the comparison is not of empty sets


def test_writing_calls_of_the_main_thread_only_and_hostile_records(tmp_path):
    worktree = tmp_path / "wt"
    worktree.mkdir()
    path = tmp_path / "session.jsonl"
    records = [
        writing("w1", "Write", {"file_path": str(worktree / HOSTILE)}),
        writing("w2", "MultiEdit", {"file_path": "src/relative.py"}),
        writing("w3", "NotebookEdit", {"notebook_path": str(worktree / "nb.ipynb")}),
        writing("w4", "Edit", {"file_path": str(worktree / "side.py")}, isSidechain=True),
        writing("w1", "Edit", {"file_path": str(worktree / "repeated-uuid.py")}),
        writing("w5", "Read", {"file_path": str(worktree / "only-read.py")}),
        writing("w6", ["Write"], {"file_path": str(worktree / "odd-name.py")}),
        writing("w7", "Write", ["not", "an", "object"]),
        writing("w8", "Write", {"file_path": "/etc/passwd"}),
        writing("w9", "Edit", {"file_path": str(worktree / "../outside.py")}),
        writing("w10", "Write", {"file_path": "bad\x00byte"}),
        writing("w11", "Write", {"file_path": ""}),
        {"type": "assistant", "uuid": "w12", "message": {"content": "just text"}},
        {**writing("w15", "Write", {"file_path": str(worktree / "odd-id.py")}), "uuid": ["w15"]},
    ]
    # the block type spelled with escapes (still a tool call), and one quoted inside text (not)
    escaped = json.dumps(writing("w13", "Write", {"file_path": str(worktree / "escaped.py")}))
    escaped = escaped.replace('"tool_use"', '"\\u0074ool_use"')
    name_escaped = json.dumps(writing("w16", "MultiEdit", {"file_path": "named.py"}))
    name_escaped = name_escaped.replace('"MultiEdit"', '"\\u004DultiEdit"')
    quoted = writing("w14", "Write", {"file_path": "x"})["message"]["content"]
    quoted = {"type": "assistant", "uuid": "w14", "message": {"content": [
        {"type": "text", "text": json.dumps(quoted) + ' "tool_use" "file_path": "in-text.py"'}
    ]}}  # fmt: skip
    path.write_text(
        transcript_lines([*records, quoted])
        + f"{escaped}\n{name_escaped}\n"
        + "{not json\n"
        + '"a string"\n'
    )

    touched = activity.files_touched(subject(worktree, path))

    assert touched == {HOSTILE, "src/relative.py", "nb.ipynb", "escaped.py", "named.py"}
    assert touched == assembled_files_touched(path, worktree)
    assert not (worktree / "PWNED").exists()
    assert not Path("PWNED").exists()


# -- the console script: the same answers, whichever way the arguments come ----------------


def test_the_process_answers_as_the_command_does_in_process(project, cli):
    in_process = cli("stall", "check", "agent-1", "--json")
    assert in_process.exit_code == 0, in_process.stderr
    expected = json.loads(in_process.stdout)
    assert [s["source"] for s in expected["signals"]] == ["files", "git"]
    assert expected["signals"][1]["detail"].endswith("(trailer, files)")

    for args in (
        ("stall", "check", "agent-1", "--json"),
        ("--no-redact", "stall", "check", "--json", "agent-1"),
        ("stall", "check", "--project", str(project), "agent-1", "--json"),
        ("stall", "check", f"--project={project}", "--lookback=60", "--json", "--", "agent-1"),
        ("stall", "check", "agent", "--json"),  # a unique prefix
    ):
        done = console(*args, cwd=project)
        assert done.returncode == 0, (args, done.stderr)
        assert json.loads(done.stdout) == expected, args


def test_a_misread_or_bad_command_line_gets_the_commands_own_answer(project, tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    unknown = console("stall", "check", "nobody", "--json", cwd=project)
    bad_project = console("stall", "check", "agent-1", "--project", str(other / "no"), cwd=project)
    usage = console("stall", "check", "agent-1", "--lookback", cwd=project)
    two = console("stall", "check", "agent-1", "agent-2", cwd=project)

    registry = project / ".purlin" / "agents.json"
    registry.write_text("[" * 100_000)
    corrupt = console("stall", "check", "agent-1", "--json", cwd=project)

    assert unknown.returncode == 1
    assert "no registered agent 'nobody'" in unknown.stderr
    assert bad_project.returncode == 2
    assert "no such folder" in bad_project.stderr
    assert usage.returncode == 2
    assert two.returncode == 2
    assert corrupt.returncode == 1
    assert "agents.json is corrupt" in corrupt.stderr
    assert registry.read_text() == "[" * 100_000
    for done in (unknown, bad_project, usage, two, corrupt):
        assert "Traceback" not in done.stderr
        assert done.stdout == ""


def test_hostile_file_names_come_out_as_they_are_and_run_nothing(tmp_path, cli, monkeypatch):
    root = tmp_path / "pro\nject $(touch PWNED) \x1b[2J"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, HOSTILE, "old\n", "add a hostile name")
    (root / HOSTILE).write_text("edited\n")  # an uncommitted edit of a tracked hostile name
    write_registry(root, {"agent-1": agent_record(root)})
    monkeypatch.chdir(root)

    done = console("stall", "check", "agent-1", "--json", cwd=root)
    text = console("stall", "check", "agent-1", cwd=root)

    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["signals"][0]["detail"] == f"changed {HOSTILE}"
    assert data == json.loads(cli("stall", "check", "agent-1", "--json").stdout)
    # A pipe gets the text as the command prints it in-process (Click drops colour codes).
    assert text.stdout == cli("stall", "check", "agent-1").stdout
    assert (
        "changed evil\nname $(touch PWNED) `touch PWNED2` \x1b]0;title\x07red\r.py" in text.stdout
    )
    for name in ("PWNED", "PWNED2"):
        assert not (root / name).exists()
        assert not (tmp_path / name).exists()


def test_a_secret_in_a_file_name_is_redacted(project):
    rng = random.Random(19)
    token = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    (project / f"leak-{token}.txt").write_text("x\n")

    done = console("stall", "check", "agent-1", "--json", cwd=project)

    assert done.returncode == 0, done.stderr
    assert token not in done.stdout
    assert "leak-" in done.stdout
    assert "redacted 1 secret" in done.stderr


def from_a_folder_that_is_gone(folder: Path, *args: str) -> tuple[int, str, str]:
    """``purlin-resume ARGS`` started in ``folder``, which is removed before it starts."""
    folder.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    command = [sys.executable, "-m", "purlin_resume", *args]
    child = subprocess.Popen(
        ["sh", "-c", script, "sh", str(folder), *command],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = child.communicate(timeout=60)
    return child.returncode, out, err


def test_a_working_folder_that_is_gone(project, tmp_path):
    gone = tmp_path / "gone"
    code, out, err = from_a_folder_that_is_gone(gone, "stall", "check", "agent-1", "--json")
    assert code == 1
    assert out == ""
    assert (
        err == "error: the working folder no longer exists; run in the project or pass --project\n"
    )

    args = ("stall", "check", "agent-1", "--json", "--project", str(project))
    code, out, err = from_a_folder_that_is_gone(gone, *args)
    assert code == 0, err
    assert [s["source"] for s in json.loads(out)["signals"]] == ["files", "git"]
    assert not gone.exists()


# -- git: what it is asked, and what it leaves alone --------------------------------------------


def test_a_repository_without_commits_has_only_its_files_as_evidence(tmp_path):
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "first.py").write_text("x = 1\n")
    write_registry(root, {"agent-1": agent_record(root)})

    done = console("stall", "check", "agent-1", "--json", cwd=root)

    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [s["detail"] for s in data["signals"]] == ["changed first.py"]
    assert data["notes"] == []


def test_git_status_leaves_the_index_alone(project):
    index = project / ".git" / "index"
    (project / "src" / "lib.py").touch()  # same content, new time: the index is out of date
    before = index.stat().st_mtime_ns, index.read_bytes()
    (project / ".git" / "index.lock").write_text("")  # a commit of the user's under way

    paths = gitrepo.uncommitted_paths(project)

    assert paths == [".purlin/agents.json", "notes.md", "src/app.py"]
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before
    (project / ".git" / "index.lock").unlink()
    assert gitrepo.uncommitted_paths(project) == paths
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


@pytest.mark.parametrize(
    "state", ["unborn", "branch", "detached", "packed", "worktree", "dangling"]
)
def test_has_commits_agrees_with_git(tmp_path, state):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    where = root
    if state != "unborn":
        commit_file(root, "a.txt", "a\n")
    if state == "detached":
        git(root, "checkout", "-q", "--detach")
    elif state == "packed":
        git(root, "pack-refs", "--all")
        assert not (root / ".git" / "refs" / "heads" / "main").exists()
    elif state == "worktree":
        where = tmp_path / "linked"
        git(root, "worktree", "add", "-q", "-b", "side", str(where))
    elif state == "dangling":
        git(root, "symbolic-ref", "HEAD", "refs/heads/nowhere")
    says = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=where, capture_output=True
    )
    assert gitrepo.has_commits(where) is (says.returncode == 0)
    assert gitrepo.has_commits(where) is (state not in ("unborn", "dangling"))
