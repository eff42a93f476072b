"""``core/spawned``: a program started with ``os`` alone answers as ``subprocess`` would (output,
errors, exit status, its input, its signals), with hostile arguments, big outputs on both
streams, a program that is not there, a parent started with its standard streams closed, and
a program dropped unread (stopped and reaped: no zombie, no open pipe)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.core import pipes, plain_git
from purlin_resume.core.spawned import Started
from tests.conftest import ends_within

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["$(touch PWNED)", "`touch PWNED2`", "a\nb", "\x1b]0;title\x07\x1b[31m", "*", "; ls", ""]


def python(code: str, *args: str, env: dict | None = None) -> Started:
    return Started([sys.executable, "-c", code, *args], env or dict(os.environ))


def by_subprocess(code: str, *args: str) -> tuple[int, bytes, bytes]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], stdin=subprocess.DEVNULL, capture_output=True
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "code",
    [
        "import sys; sys.stdout.write(repr(sys.argv[1:])); sys.stderr.write('err\\n'); sys.exit(3)",
        "import sys; print(repr(sys.stdin.read()))",  # its input is /dev/null
        "import os, signal; os.kill(os.getpid(), signal.SIGTERM)",  # ended by a signal: -15
        "raise SystemExit(0)",
    ],
)
def test_it_answers_as_subprocess_does(code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    started = python(code, *HOSTILE)
    assert started.finish() == by_subprocess(code, *HOSTILE)
    assert started.finish() == started.finish()  # the same answer on every call
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "PWNED2").exists()


def test_signals_the_interpreter_ignores_are_back_to_their_default_in_the_program():
    """Python ignores SIGPIPE and SIGXFSZ; a program given that would not die of a closed pipe.
    (glibc's posix_spawn leaves its own two internal signals, 32 and 33, ignored: ``subprocess``
    takes that path too, where it can.)"""
    status, out, _ = Started(["grep", "SigIgn", "/proc/self/status"], dict(os.environ)).finish()
    by_python = subprocess.run(["grep", "SigIgn", "/proc/self/status"], capture_output=True)
    standard = (1 << 31) - 1  # signals 1-31

    def ignored(status_text: bytes) -> int:
        return int(status_text.split(b"SigIgn:")[1].split()[0], 16) & standard

    restored = (1 << (13 - 1)) | (1 << (25 - 1))  # SIGPIPE, SIGXFSZ
    assert ignored(Path("/proc/self/status").read_bytes()) & restored == restored  # here: ignored
    # what this process was started with ignoring (SIGINT in a background job) stays ignored
    assert status == 0 and ignored(out) == ignored(by_python.stdout)
    assert not ignored(out) & restored


def test_big_output_on_both_streams_at_once_does_not_block():
    code = (
        "import sys\n"
        "for i in range(200):\n"
        "    sys.stdout.write('o' * 10000 + '\\n'); sys.stderr.write('e' * 10000 + '\\n')\n"
    )
    status, out, err = python(code).finish()
    assert status == 0
    assert out == (b"o" * 10000 + b"\n") * 200 and err == (b"e" * 10000 + b"\n") * 200


def test_the_environment_is_the_one_given():
    env = {"PATH": os.environ["PATH"], "ONLY_THIS": "x\ny $(z)"}
    code = "import os, json; print(json.dumps(sorted((k, v) for k, v in os.environ.items() if k in ('ONLY_THIS', 'HOME'))))"
    assert python(code, env=env).finish()[1].strip() == b'[["ONLY_THIS", "x\\ny $(z)"]]'


def test_a_program_that_is_not_there_raises_as_subprocess_does(tmp_path):
    before = len(os.listdir("/proc/self/fd"))
    with pytest.raises(FileNotFoundError):
        Started(["purlin-no-such-program"], {"PATH": str(tmp_path)})
    with pytest.raises(FileNotFoundError):
        subprocess.run(["purlin-no-such-program"], env={"PATH": str(tmp_path)})
    assert len(os.listdir("/proc/self/fd")) == before  # no pipe left open


def test_output_waiting_in_a_widened_pipe_lets_the_program_end_first():
    started = python("import sys; sys.stdout.write('x' * 500_000)")
    # it ends without anyone reading (1 MiB pipe)
    assert ends_within(started.pid, 30), "the program is still blocked on its output"
    assert started.finish() == (0, b"x" * 500_000, b"")  # reaped already: its status counts 0


def test_a_program_dropped_unread_is_stopped_and_reaped():
    started = python("import time; print('up', flush=True); time.sleep(60)")
    pid = started.pid
    fds = len(os.listdir("/proc/self/fd"))
    del started
    assert len(os.listdir("/proc/self/fd")) == fds - 2  # both pipes closed
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # gone and reaped: not a zombie of ours


def test_a_parent_started_with_its_standard_streams_closed(tmp_path):
    """The pipes must not be numbered 0-2, or the program would lose them (``pipes.pipe``)."""
    code = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from purlin_resume.core.spawned import Started\n"
        "answer = Started([sys.executable, '-c', 'print(42)'], dict(os.environ)).finish()\n"
        f"open({str(tmp_path / 'answer')!r}, 'w').write(repr(answer))\n"
    )
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" <&- >&- 2>&-', "sh", sys.executable, "-c", code], timeout=60
    )
    assert done.returncode == 0
    assert (tmp_path / "answer").read_text() == repr((0, b"42\n", b""))


def test_pipe_ends_are_above_the_standard_streams_and_widened():
    read, write = pipes.pipe()
    try:
        assert read > 2 and write > 2
        import fcntl

        assert fcntl.fcntl(write, fcntl.F_GETPIPE_SZ) == pipes.SIZE
    finally:
        os.close(read)
        os.close(write)


# -- plain git: where a repository is, from its files, as git says ---------------------------


def git_says(where: Path, *args: str) -> str | None:
    done = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.mark.parametrize("layout", ["plain", "sub-folder", "linked worktree", "symlink", "none"])
def test_work_tree_root_is_what_git_says(tmp_path, layout, monkeypatch):
    monkeypatch.delenv("GIT_DIR", raising=False)
    repo = tmp_path / "re po $(x)"
    repo.mkdir()
    (repo / "sub" / "deeper").mkdir(parents=True)
    where = {"plain": repo, "sub-folder": repo / "sub" / "deeper"}.get(layout, repo)
    if layout != "none":
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    if layout == "linked worktree":
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
             "--allow-empty", "-m", "x"], cwd=repo, check=True,
        )  # fmt: skip
        where = tmp_path / "linked"
        subprocess.run(["git", "worktree", "add", "-q", str(where)], cwd=repo, check=True)
    if layout == "symlink":
        where = tmp_path / "link"
        where.symlink_to(repo / "sub")

    expected = git_says(where, "rev-parse", "--show-toplevel") if layout != "none" else None
    assert plain_git.work_tree_root(str(where)) == expected
    dirs = plain_git.git_dirs(expected) if expected else None
    if expected:
        absolute = git_says(where, "rev-parse", "--absolute-git-dir")
        common = git_says(where, "rev-parse", "--path-format=absolute", "--git-common-dir")
        assert dirs is not None
        assert (os.path.realpath(dirs[0]), os.path.realpath(dirs[1])) == (absolute, common)


def test_git_dir_set_means_no_plain_answer(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / ".git"))
    assert plain_git.work_tree_root(str(tmp_path)) is None


def test_a_damaged_git_file_is_no_work_tree(tmp_path):
    (tmp_path / ".git").write_bytes(b"\xff\xfe not a pointer")
    assert plain_git.work_tree_root(str(tmp_path)) != str(tmp_path)
    assert plain_git.git_dirs(str(tmp_path)) is None
