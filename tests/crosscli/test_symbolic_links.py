"""Symbolic links in each agent CLI's data folder, one rule for the four readers: the data
folder, a folder in it and a session file may be links (followed); what a link leads to is read
only when it is a regular file (a FIFO is refused, never waited on); a loop of links is one
line, not a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, listings, not_listable, unreadable
from tests.other_cli_data import (
    CODEX_SHELL,
    GEMINI_SHELL,
    OPENCODE_SHELL,
    home,
)
from tests.other_cli_data import FIXTURES as OTHER_FIXTURES


@dataclass(frozen=True)
class Reader:
    cli: str
    fixtures: Path
    session: str  # a session of the fixtures
    file: str  # its file, in the data folder
    shown: str  # what its transcript shows
    folder: str | None  # a folder of the data folder that holds it
    fifo: str  # where a session file may sit
    fifo_id: str  # the id the reader gives a session at ``fifo``

    def place(self) -> Path:
        """The data folder's default place under the test's HOME."""
        if self.cli == "opencode":
            return Path(os.environ["XDG_DATA_HOME"]) / "opencode"
        return home() / f".{self.cli}"


READERS = [
    Reader(
        "claude",
        FIXTURES,
        "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
        "projects/-path-to-Demo/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "/path/to/Demo",
        "projects/-path-to-Demo",
        "projects/-path-to-Demo/aaaaaaaa-0000-4000-8000-000000000001.jsonl",
        "aaaaaaaa-0000-4000-8000-000000000001",
    ),
    Reader(
        "codex",
        OTHER_FIXTURES / "codex",
        CODEX_SHELL,
        f"sessions/2026/11/27/rollout-2026-11-27T08-35-31-{CODEX_SHELL}.jsonl",
        "git log",
        "sessions",
        "sessions/2026/11/27/rollout-2026-11-27T09-00-00-0b1c2d3e-0000-4000-8000-00000000000f.jsonl",
        "0b1c2d3e-0000-4000-8000-00000000000f",
    ),
    Reader(
        "gemini",
        OTHER_FIXTURES / "gemini",
        GEMINI_SHELL,
        "tmp/project/chats/session-2026-11-27T08-38-445d2a96.jsonl",
        "git log",
        "tmp/project",
        "tmp/project/chats/session-2026-11-27T09-00-ffffffff.jsonl",
        "session-2026-11-27T09-00-ffffffff",
    ),
    Reader(
        "opencode",
        OTHER_FIXTURES / "opencode",
        OPENCODE_SHELL,
        "opencode.db",
        "git log",
        None,  # the database sits at the top of the data folder
        "opencode.db",
        OPENCODE_SHELL,
    ),
]
BY_NAME = pytest.mark.parametrize("reader", READERS, ids=[r.cli for r in READERS])


def _copy(reader: Reader, where: Path) -> Path:
    shutil.copytree(reader.fixtures, where, ignore=shutil.ignore_patterns("NOTICE.md"))
    return where


def _moved_away(path: Path, elsewhere: Path) -> None:
    """``path`` moved to ``elsewhere`` and a link to it left in its place (an opencode
    database with the files SQLite keeps beside it)."""
    elsewhere.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(path, elsewhere)
    path.symlink_to(elsewhere)
    for suffix in ("-wal", "-shm"):
        beside = path.with_name(path.name + suffix)
        if beside.exists():
            shutil.move(beside, elsewhere.with_name(elsewhere.name + suffix))


def _listed_and_read(cli, reader: Reader) -> None:
    listed = cli("sessions", "--all", "--cli", reader.cli)
    assert listed.exit_code == 0, listed.stderr
    assert reader.session in listed.stdout
    for command in ("transcript", "export"):
        read = cli(command, reader.session)
        assert read.exit_code == 0, read.stderr
        assert reader.shown in read.stdout


@BY_NAME
def test_a_linked_data_folder_is_listed_and_read(cli, reader, tmp_path):
    place = reader.place()
    place.parent.mkdir(parents=True, exist_ok=True)
    place.symlink_to(_copy(reader, tmp_path / "elsewhere" / reader.cli))
    _listed_and_read(cli, reader)


@BY_NAME
def test_a_linked_session_file_is_read(cli, reader, tmp_path):
    place = _copy(reader, reader.place())
    _moved_away(place / reader.file, tmp_path / "elsewhere" / Path(reader.file).name)
    _listed_and_read(cli, reader)


@pytest.mark.parametrize("reader", [r for r in READERS if r.folder], ids=lambda r: r.cli)
def test_a_linked_folder_in_the_data_folder_is_read(cli, reader, tmp_path):
    place = _copy(reader, reader.place())
    _moved_away(place / reader.folder, tmp_path / "elsewhere" / Path(reader.folder).name)
    _listed_and_read(cli, reader)


def _run(*args: str) -> subprocess.CompletedProcess:
    """The command in a child with a time limit: a read that waits on a FIFO fails the test
    (``TimeoutExpired``) instead of hanging it."""
    return subprocess.run(
        [sys.executable, "-m", "purlin_resume", *args], capture_output=True, text=True, timeout=60
    )


@BY_NAME
def test_a_link_to_a_fifo_is_refused_without_waiting(reader, tmp_path):
    place = _copy(reader, reader.place())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer ever comes: an open that waits for one never returns
    planted = place / reader.fifo
    planted.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        planted.with_name(planted.name + suffix).unlink(missing_ok=True)
    planted.symlink_to(fifo)

    listed = _run("sessions", "--all", "--cli", reader.cli)
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    read = _run("transcript", reader.fifo_id)
    assert read.returncode == 1
    assert len(read.stderr.strip().splitlines()) == 1, read.stderr
    assert "Traceback" not in read.stderr


@BY_NAME
def test_a_loop_of_links_is_one_line(cli, reader, tmp_path):
    place = _copy(reader, reader.place())
    loop = place / reader.fifo
    loop.unlink(missing_ok=True)
    loop.symlink_to(loop.name)  # itself

    listed = cli("sessions", "--all", "--cli", reader.cli)
    assert listed.exit_code == 0, listed.stderr
    read = cli("transcript", reader.fifo_id)
    assert read.exit_code == 1
    assert len(read.stderr.strip().splitlines()) == 1, read.stderr


@BY_NAME
def test_a_data_folder_that_is_a_loop_of_links_lists_nothing(cli, reader):
    place = reader.place()
    place.parent.mkdir(parents=True, exist_ok=True)
    place.symlink_to(place.name)  # itself
    listed = cli("sessions", "--all", "--cli", reader.cli)
    assert listed.exit_code in (0, 1)
    assert reader.session not in listed.stdout
    assert len((listed.stdout + listed.stderr).strip().splitlines()) == 1


@pytest.mark.parametrize("reader", READERS[:3], ids=[r.cli for r in READERS[:3]])
def test_a_session_file_the_user_may_not_read_is_named_with_why(cli, reader, monkeypatch):
    """A session file without read permission (``sudo claude`` made it root's) is refused,
    named, exit 1: not shown as a conversation without history. (opencode's database is opened
    by SQLite, which root's permissions let through: tried as a user, not here.)"""
    place = _copy(reader, reader.place())
    locked = place / reader.file
    unreadable(locked, monkeypatch)
    listed = cli("sessions", "--all", "--cli", reader.cli)
    assert "[not readable: Permission denied]" in listed.stdout

    named = reader.session if reader.cli != "gemini" else locked.stem  # its id is inside it
    for command in ("transcript", "export"):
        read = cli(command, named)
        assert read.exit_code == 1, read.stdout
        assert read.stderr == f"error: cannot read {locked}: Permission denied\n"


@BY_NAME
def test_a_data_folder_the_user_may_not_read_is_a_warning_and_the_rest_is_listed(
    cli, reader, monkeypatch
):
    """``sudo codex`` leaves ``~/.codex`` root's: its sessions cannot be listed, which one line
    says; the other CLIs' are listed (opencode's stopped the listing with a traceback, Codex's
    and Gemini's were left out without a word, Claude Code's stopped it). Asked for alone, it
    is the error."""
    for each in READERS:
        _copy(each, each.place())
    not_listable(reader.place(), monkeypatch)
    line = f"{reader.place()}: Permission denied; its {reader.cli} sessions are not listed"

    listed = cli("sessions", "--all")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stderr == f"warning: {line}: make it readable for you\n"
    assert reader.session not in listed.stdout
    assert all(other.session in listed.stdout for other in READERS if other is not reader)
    alone = cli("sessions", "--all", "--cli", reader.cli)
    assert (alone.exit_code, alone.stderr) == (1, f"error: {line}: make it readable for you\n")


@pytest.mark.parametrize("reader", READERS[:3], ids=[r.cli for r in READERS[:3]])
def test_a_folder_inside_a_data_folder_the_user_may_not_read_is_a_warning(cli, reader, monkeypatch):
    """A day folder of Codex's, a project's chats of Gemini's (``sudo codex`` under umask 077
    makes them root's) were passed over without a word: one line names it, as for a project
    folder of Claude Code's."""
    for each in READERS:
        _copy(each, each.place())
    locked = reader.place() / Path(reader.file).parent
    not_listable(locked, monkeypatch)

    line = (
        f"warning: {locked}: Permission denied; the conversations there are not read: "
        "make it readable for you\n"
    )

    listed = cli("sessions", "--all")
    found = cli("find", "git", "log")

    assert listed.exit_code == 0, listed.stderr
    assert listed.stderr == line
    assert all(other.session in listed.stdout for other in READERS if other is not reader)
    assert (found.exit_code, found.stderr) == (0, line)


def test_a_folder_gemini_never_reads_is_no_warning(cli, monkeypatch):
    """The warnings name what the listing passes over and nothing else: a folder inside a
    session's folder of subagents (Gemini CLI keeps files there, read one level deep) is not
    read whether or not the user may list it, so it is no warning."""
    gemini = READERS[2]
    place = _copy(gemini, gemini.place())
    subagents = next(p for p in (place / "tmp" / "project" / "chats").iterdir() if p.is_dir())
    locked = subagents / "left-alone"
    locked.mkdir()
    not_listable(locked, monkeypatch)

    listed = cli("sessions", "--all", "--cli", "gemini")
    found = cli("find", "git", "log")

    assert (listed.exit_code, listed.stderr) == (0, "")
    assert gemini.session in listed.stdout
    assert (found.exit_code, found.stderr) == (0, "")


SEARCHES = (
    ("find", "tmux"),
    ("resurrect", "find", "tmux", "--preview"),
    ("recommend", "--task", "tmux"),
)


@pytest.mark.parametrize("search", SEARCHES, ids=["find", "resurrect find", "recommend"])
def test_a_search_walks_codex_and_gemini_once_as_sessions_does(cli, search, monkeypatch):
    """A search lists the folders of Codex's and Gemini's trees as ``sessions`` does: in the
    one walk that finds their sessions and notes the folders passed over (it walked them
    again for its warning, which still names the folder); both with what they read kept."""
    for each in READERS:
        _copy(each, each.place())
    locked = READERS[1].place() / Path(READERS[1].file).parent
    not_listable(locked, monkeypatch)
    line = f"warning: {locked}: Permission denied; the conversations there are not read"
    assert cli("sessions", "--all").stderr.startswith(line)
    assert cli(*search).stderr.startswith(line)  # the index built
    trees = [READERS[1].place(), READERS[2].place()]
    listed = listings(monkeypatch)

    def walked(run: tuple[str, ...]) -> dict[Path, int]:
        listed.clear()
        done = cli(*run)
        assert (done.exit_code, done.stderr.startswith(line)) == (0, True), done.stderr
        return {path: n for path, n in listed.items() if any(map(path.is_relative_to, trees))}

    by_listing = walked(("sessions", "--all"))
    assert len(by_listing) > 5
    assert walked(search) == by_listing


def test_the_warning_of_a_folder_not_read_is_redacted(cli, tmp_path, monkeypatch):
    """The warning names the folder; a secret in its path (``CODEX_HOME``) is not printed."""
    from tests.core.test_redact import PLANTED

    secret = PLANTED["github-token"]
    folder = tmp_path / secret
    _copy(READERS[1], folder)
    monkeypatch.setenv("CODEX_HOME", str(folder))
    allowed = os.access
    monkeypatch.setattr(
        os, "access", lambda path, mode, *a, **k: str(path) != str(folder) and allowed(path, mode)
    )

    listed = cli("sessions", "--all", "--cli", "codex,gemini")

    assert listed.exit_code == 0, listed.stderr
    assert "\nwarning: " in listed.stderr
    assert "[REDACTED:github-token:" in listed.stderr
    assert secret not in listed.stderr
