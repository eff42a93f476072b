"""The `find` index build: the same index read by worker processes or one by one, one build at a
time when several start together, and a progress bar on a terminal only."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from purlin_resume.resurrection import search_index
from tests.terminal import on_a_terminal

SCRIPT = str(Path(sys.executable).with_name("purlin-resume"))
QUERIES = ["tmux module test setup", "phoenix server", "tmxu modle", "nextjs todo", "spotter"]


def _many(fixtures_copy: Path, copies: int) -> Path:
    """More sessions: each fixture session (and its subagents) again under other ids."""
    projects = fixtures_copy / "projects"
    for folder in list(projects.iterdir()):
        for number in range(1, copies):
            target = projects / f"{folder.name}-{number}"
            shutil.copytree(folder, target)
    return fixtures_copy


def _index(root: Path, cache: Path) -> tuple[list, list]:
    connection = sqlite3.connect(search_index.index_path(root, cache))
    try:
        docs = connection.execute("SELECT * FROM docs ORDER BY rowid").fetchall()
        bodies = connection.execute(
            "SELECT rowid, title, project, body FROM docs_fts ORDER BY rowid"
        ).fetchall()
        return docs, bodies
    finally:
        connection.close()


def _results(root: Path, cache: Path) -> list:
    return [
        [(h.id, h.score, h.reasons, h.snippet) for h in search_index.search(root, cache, q)]
        for q in QUERIES
    ]


def test_worker_processes_build_the_index_one_reader_builds(fixtures_copy, tmp_path, monkeypatch):
    root = _many(fixtures_copy, 3)
    monkeypatch.setattr(search_index, "PARALLEL_FROM", 10**9)
    alone = search_index.refresh(root, tmp_path / "alone")
    monkeypatch.setattr(search_index, "PARALLEL_FROM", 1)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    told: list[tuple[int, int]] = []
    shared = search_index.refresh(root, tmp_path / "shared", lambda d, t: told.append((d, t)))
    assert alone == shared == {"read": 18, "dropped": 0, "sessions": 18}
    assert _index(root, tmp_path / "alone") == _index(root, tmp_path / "shared")
    assert _results(root, tmp_path / "alone") == _results(root, tmp_path / "shared")
    assert told == [(n, 18) for n in range(1, 19)]
    # nothing changed: nothing read, nothing told
    told.clear()
    assert (
        search_index.refresh(root, tmp_path / "shared", lambda d, t: told.append((d, t)))["read"]
        == 0
    )
    assert told == []


def test_concurrent_finds_build_once_and_agree(fixtures_copy, tmp_path):
    root = _many(fixtures_copy, 2)
    argv = [SCRIPT, "find", "tmux module", "--claude-dir", str(root)]
    running = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)
    ]
    outputs = [process.communicate(timeout=300) for process in running]
    assert [p.returncode for p in running] == [0, 0, 0], outputs
    assert len({out for out, _ in outputs}) == 1
    assert b"tmux" in outputs[0][0].lower()
    assert all(err == b"" for _, err in outputs)
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "purlin-resume"
    docs, _ = _index(root.resolve(), cache)
    assert len({row[1] for row in docs}) == 12  # each session once


def test_a_progress_bar_while_the_index_builds_on_a_terminal_only(fixtures_copy, monkeypatch):
    root = _many(fixtures_copy, 3)
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "purlin-resume"
    argv = [SCRIPT, "find", "tmux module", "--claude-dir", str(root)]
    code, out, terminal = on_a_terminal(argv, "stderr")
    assert code == 0
    assert b"tmux" in out.lower()
    assert b"indexing transcripts [" in terminal
    assert b"/18 sessions" in terminal
    assert terminal.rstrip().endswith(b"\x1b[K")  # wiped when done
    assert b"indexing" not in out
    # on a pipe, and in --json, nothing but the results
    for extra in ([], ["--json"]):
        shutil.rmtree(cache)
        piped = subprocess.run(argv + extra, capture_output=True, check=True)
        assert b"indexing" not in piped.stderr + piped.stdout
    shutil.rmtree(cache)
    code, out, terminal = on_a_terminal(argv + ["--json"], "stderr")
    assert code == 0
    assert b"indexing" not in terminal + out
    # a warm find draws nothing
    code, out, terminal = on_a_terminal(argv, "stderr")
    assert code == 0
    assert terminal == b""


def _output(argv: list[str]) -> str:
    done = subprocess.run([SCRIPT, *argv], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_warm_find_and_sessions_answer_without_reading_a_transcript(fixtures_copy):
    """Once kept, what ``find`` and ``sessions`` show of an unchanged transcript comes from the
    cache: the files, overwritten with garbage of the same size and time, are not read again."""
    commands = [["find", "tmux module"], ["sessions", "--all"]]
    commands = [[*argv, "--claude-dir", str(fixtures_copy), "--json"] for argv in commands]
    first = [_output(argv) for argv in commands]
    assert all('"session_id"' in out or '"id"' in out for out in first)
    for path in fixtures_copy.rglob("*.jsonl"):
        seen = path.stat()
        path.write_bytes(b"x" * seen.st_size)
        os.utime(path, ns=(seen.st_atime_ns, seen.st_mtime_ns))
    assert [_output(argv) for argv in commands] == first


def test_an_index_lock_that_cannot_be_taken_is_one_line_and_exit_1(cli, fixtures_copy):
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "purlin-resume"
    lock = search_index.index_path(fixtures_copy, cache).with_suffix(".sqlite.lock")
    lock.mkdir(parents=True)  # where the lock file should be
    result = cli("find", "tmux", "--claude-dir", str(fixtures_copy))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot lock the search index in ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_the_same_folder_spelt_another_way_reuses_the_index(fixtures_copy, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    built = search_index.refresh(fixtures_copy, cache)
    assert built["read"] == built["sessions"] > 0
    monkeypatch.chdir(fixtures_copy.parent)
    link = tmp_path / "linked-claude"
    link.symlink_to(fixtures_copy)
    for spelling in (Path(fixtures_copy.name), Path(f"./{fixtures_copy.name}/."), link):
        assert search_index.refresh(spelling, cache) == {**built, "read": 0}
        assert _results(spelling, cache) == _results(fixtures_copy, cache)


def test_reading_only_the_rows_that_can_score_finds_what_reading_all_of_them_finds(
    fixtures_copy, tmp_path, monkeypatch
):
    """Rows are read by what can make them score (words, a close title or project, a
    bookmark); with more of those than a statement may carry, every row is read."""
    cache = tmp_path / "cache"
    search_index.refresh(fixtures_copy, cache)
    some = search_index.search(fixtures_copy, cache, "tmux", limit=50, update=False)
    marks = [
        search_index.BookmarkName("tmux helper", some[0].session_id, some[0].agent_id),
        search_index.BookmarkName("qqzx vvwy", some[-1].session_id, some[-1].agent_id),
        search_index.BookmarkName("gone agent", "no-such-session", None),
    ]
    queries = [*QUERIES, "tmux helper", "qqzx vvwy", "spotter last week", "2026-02-11", "xyz"]

    def everything() -> list:
        return [
            [
                (h.id, h.score, h.reasons, h.snippet, h.bookmark)
                for h in search_index.search(
                    fixtures_copy, cache, query, bookmarks=marks, limit=100, update=False
                )
            ]
            for query in queries
        ]

    chosen = everything()
    monkeypatch.setattr(search_index, "MAX_VARIABLES", 0)
    assert everything() == chosen
    only_bookmarked = chosen[queries.index("qqzx vvwy")]
    assert [h[2] for h in only_bookmarked] == [["bookmark qqzx vvwy"]]


PATHS = st.lists(st.sampled_from(["", "/", "a", "b", ".", "..", "é x", "a\nb"]), max_size=6).map(
    "/".join
)


@settings(max_examples=500, deadline=None)
@given(PATHS, PATHS)
def test_a_file_is_relative_to_its_project_as_pathlib_says(name, root):
    path = Path(name)
    expected = (
        path.relative_to(root).as_posix()
        if root and path.is_absolute() and path.is_relative_to(root)
        else None
    )
    assert (search_index._inside(name, root) if root else None) == expected


def test_a_secret_in_a_file_path_inside_the_project_never_reaches_the_index(tmp_path):
    from tests.claude_records import Conversation, text, tool, write_jsonl
    from tests.core.test_redact import PLANTED

    secret = PLANTED["github-token"]
    talk = Conversation("leaky", cwd="/srv/leaky")
    records = [
        talk.user("fix the settings"),
        talk.assistant(
            "msg_1",
            text("Editing."),
            tool("toolu_1", "Edit", file_path=f"/srv/leaky/conf/{secret}.env"),
            tool("toolu_2", "Read", file_path=f"/srv/leaky//conf/./{secret}.txt"),
        ),
        talk.result("toolu_1", "ok"),
        talk.result("toolu_2", "ok"),
    ]
    claude = tmp_path / "claude"
    write_jsonl(claude / "projects" / "-srv-leaky" / "leaky.jsonl", records)
    cache = tmp_path / "cache"
    search_index.refresh(claude, cache)
    assert secret.encode() not in search_index.index_path(claude, cache).read_bytes()
    connection = sqlite3.connect(search_index.index_path(claude, cache))
    try:
        files = dict(connection.execute("SELECT path, edited FROM doc_files"))
    finally:
        connection.close()
    assert len(files) == 2, files
    assert all(p.startswith("conf/[REDACTED:") for p in files), files
    assert sorted(files.values()) == [0, 1]


def test_half_a_character_in_a_transcript_is_indexed_and_found(cli, tmp_path):
    """A lone surrogate (a ``\\ud83d`` escape: a text cut mid-emoji) in a prompt, an answer and
    a file path has no UTF-8 form: it is stored as U+FFFD, and ``find`` finds the session."""
    from tests.claude_records import Conversation, text, tool, write_jsonl

    talk = Conversation("cut-emoji", cwd="/srv/cut")
    records = [
        talk.user("launch the quixotic rocket \ud83d"),
        talk.assistant(
            "msg_1", text("Done \udc80."), tool("t1", "Edit", file_path="/srv/cut/a\ud83d")
        ),
        talk.result("t1", "ok"),
    ]
    claude = tmp_path / "claude"
    write_jsonl(claude / "projects" / "-srv-cut" / "cut-emoji.jsonl", records)

    found = cli("find", "quixotic rocket", "--claude-dir", str(claude), "--json")

    assert found.exit_code == 0, found.stderr
    assert "Traceback" not in found.stderr
    assert '"session_id": "cut-emoji"' in found.stdout
