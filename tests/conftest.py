from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

import pytest
from typer.testing import CliRunner

from purlin_resume.cli.commands import app
from purlin_resume.core import redact

T = TypeVar("T")
HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "claude"  # real transcripts: NOTICE.md
FIELD = HERE / "field"
# Tests sharing something costly or fixed run on one xdist worker, one after the other.
GROUPS = {
    FIELD: "claude-code",  # the real client: heavy, one at a time
    HERE / "team" / "test_team_mysql.py": "mariadb",  # one private MariaDB server per module
    HERE / "web" / "test_dashboard_browser.py": "chromium",  # one browser per module
    HERE / "integration" / "test_git_hooks.py": "pre-commit",  # one pre-commit home per session
}


def missing_binary(what: str, install: str) -> NoReturn:
    """A test needs a program that is not installed: skip naming what installs it; in CI
    (``CI=true``, where ``.ci/run`` installs everything) fail instead."""
    message = f"{what} is not installed: {install}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (.ci/run installs it)")
    pytest.skip(message)


def need_binary(name: str, install: str) -> str:
    """The path of program ``name`` on PATH; see ``missing_binary`` when it is not there."""
    import shutil

    return shutil.which(name) or missing_binary(name, install)


def give_away(path: Path) -> None:
    """Make ``path`` someone else's (uid and gid 4242), as a file another user planted."""
    assert os.geteuid() == 0, "giving a file away needs root: run the tests as root, as CI does"
    os.chown(path, 4242, 4242)


def pytest_addoption(parser):
    parser.addoption(
        "--field",
        action="store_true",
        help="also run the field tests: the real Claude Code, on every version of "
        "tests/field/CLAUDE_CODE_VERSIONS (.ci/run passes it)",
    )
    parser.addoption(
        "--slow",
        action="store_true",
        help="also run the tests marked slow: concurrency, crash, install and team-engine "
        "tests (.ci/run runs them)",
    )


def pytest_collection_modifyitems(config, items):
    """Group the tests that share a resource; leave the field tests out without ``--field`` and
    the slow ones without ``--slow``."""
    kept, left_out = [], []
    for item in items:
        path = Path(str(item.path))
        for where, group in GROUPS.items():
            if path == where or where in path.parents:
                item.add_marker(pytest.mark.xdist_group(group))
        is_field = FIELD in path.parents
        is_slow = item.get_closest_marker("slow") is not None
        wanted = (not is_field or config.getoption("--field")) and (
            not is_slow or config.getoption("--slow")
        )
        (kept if wanted else left_out).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(autouse=True)
def _rules_forgotten():
    """A command run in-process leaves its project's redaction rules in force in the process:
    not for the tests that run next in it."""
    yield
    redact.forget()


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No test sees the developer's home, git identity, agent session or temp folder (tests
    running at once in other workers write their own files into theirs)."""
    import tempfile

    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    temp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    for name, folder in (
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
    ):
        monkeypatch.setenv(name, str(home / folder))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Author")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "author@example.com")
    for name in (
        "CLAUDE_SESSION_ID",
        "CLAUDE_CODE_SESSION_ID",
        "PURLIN_SESSION_ID",
        "PURLIN_ROLE",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
        "CODEX_THREAD_ID",
        "CODEX_SANDBOX",
        "GEMINI_CLI",
        "OPENCODE",
        "TMUX",
        "TMUX_PANE",
    ):
        monkeypatch.delenv(name, raising=False)


def no_children_left() -> bool:
    """This process has no child, running or ended unreaped."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def ends_within(pid: int, seconds: float) -> bool:
    """Whether this process's child ``pid`` ends within ``seconds`` (reaped here when it does)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.waitpid(pid, os.WNOHANG)[0]:
            return True
        time.sleep(0.01)
    return False


def without_opening(fifo: Path, call: Callable[[], T], seconds: float = 20) -> T:
    """``call()``'s result, run in a thread: a call that opens ``fifo`` (and so waits for a
    writer) fails the test after ``seconds`` instead of hanging it; the FIFO is then opened
    for writing once, to let the thread go."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # noqa: BLE001 -- raised again in the test's thread
            outcome.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"still running after {seconds} s: it waits on the FIFO {fifo}")
    [(returned, value)] = outcome
    if not returned:
        raise value
    return value


def plant_kept(kept: Path, text: str, how: str, elsewhere: Path) -> None:
    """Put ``text`` in the kept file ``kept`` so that only its trust can reject it: ``linked``,
    a link to ``elsewhere`` holding it; ``shared``, the file itself, writable by others."""
    if how == "linked":
        elsewhere.write_text(text)
        kept.unlink()
        kept.symlink_to(elsewhere)
    else:
        kept.write_text(text)
        kept.chmod(0o666)


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def commit_file(root: Path, relative: str, text: str, message: str | None = None) -> str:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", relative)
    git(root, "commit", "-q", "-m", message or f"change {relative}")
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A real git repository with one commit on ``main``, as the working directory."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit_file(root, "README.md", "# demo\n", "initial commit")
    monkeypatch.chdir(root)
    return root


class Cli:
    """Runs ``purlin-resume`` in-process with separate stdout and stderr."""

    def __init__(self):
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, env: dict | None = None):
        return self.runner.invoke(app, list(args), input=input, env=env, catch_exceptions=False)


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture
def fixtures_copy(tmp_path) -> Path:
    """A private copy of the real Claude Code transcripts (the originals are never touched)."""
    import shutil

    target = tmp_path / "claude"
    shutil.copytree(FIXTURES, target)
    return target


def _need_tmux() -> None:
    need_binary("tmux", "apt-get install tmux")


def start_under_shell(server, shell: str) -> None:
    """Start the tmux ``server`` with ``shell`` (sh, fish, …) as the user's login shell: tmux
    runs the command of every window it opens with it."""
    path = need_binary(shell, f"apt-get install {shell}")
    subprocess.run(
        server.argv("new-session", "-d", "-s", "kept", "sleep 600"),
        env={**os.environ, "SHELL": path},
        check=True,
    )
    shown = subprocess.run(
        server.argv("show-options", "-gv", "default-shell"), capture_output=True, text=True
    )
    assert shown.stdout.strip() == path


@pytest.fixture
def tmux_server():
    """A private tmux server (own socket), killed after the test."""
    import shutil
    import tempfile

    from purlin_resume.core import tmux

    _need_tmux()
    folder = Path(tempfile.mkdtemp(prefix="prt-", dir="/tmp"))  # socket paths must stay short
    server = tmux.Server(folder / "sock")
    yield server
    tmux.kill_server(server)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tmux_named_server():
    """A private tmux server addressed by name (``tmux -L``), killed after the test."""
    import uuid

    from purlin_resume.core import tmux

    _need_tmux()
    server = tmux.Server(name=f"prt-{uuid.uuid4().hex[:10]}")
    yield server
    tmux.kill_server(server)


def not_listable(folder: Path, monkeypatch) -> None:
    """``folder`` refused to this user as a folder ``sudo claude`` made root's is (root, who
    may list any folder, gets the answer a user gets from ``os.access``)."""
    allowed = os.access

    def access(path, mode, *args, **kwargs):
        return os.fspath(path) != os.fspath(folder) and allowed(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)


def unreadable(path: Path, monkeypatch) -> None:
    """``path`` refused to this user as a file of another user is: its mode 0 (root, who reads
    any file, gets the kernel's refusal a user gets, at ``os.open``)."""
    if os.geteuid() != 0:
        path.chmod(0)
        return
    opened = os.open

    def refused(name, *args, **kwargs):
        if os.fspath(name) == os.fspath(path):
            raise PermissionError(13, "Permission denied", os.fspath(name))
        return opened(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refused)


def listings(monkeypatch) -> Counter[Path]:
    """How many times each folder is listed (``os.scandir``, which ``os.walk`` uses) from now
    on, by path."""
    listed: Counter[Path] = Counter()
    scandir = os.scandir

    def counted(path=".", *args, **kwargs):
        if not isinstance(path, int):
            listed[Path(os.fsdecode(path))] += 1
        return scandir(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", counted)
    return listed
