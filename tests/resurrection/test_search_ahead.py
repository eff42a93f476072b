"""The walk over the transcripts' files and the index reads that ``find`` has done ahead, in a
child on the other core (``resurrection/search_reads``): what the child hands over is what the
search would walk and read itself, used only for that folder, that index and those words."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from purlin_resume.claude import signatures
from purlin_resume.core import cache_home
from purlin_resume.resurrection import search_index, search_reads
from tests.conftest import no_children_left

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")
QUERIES = [
    "tmux module test setup",
    "tmxu modle",  # typos: spelled again from the index's vocabulary, here
    "transcript rendering yesterday",
    "last week",  # no words
    "spotter-dov",
    'a "quoted" word',
    "zzzz nowhere",
    "it is a tmux",  # stop words and a short word
    # hostile text: shell and terminal syntax, FTS5 syntax, a line break, a NUL, other scripts
    "$(touch pwned) `id` \x1b[31mtmux\x1b[0m",
    'tmux OR NOT (module* AND "setup',
    "tmux\nmodule\x00setup",
    "ünïcödé тмукс 模块 tmux",
]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """The cache folder the child finds too (``$XDG_CACHE_HOME``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return Path(cache_home.folder())


def _walking_here_fails(monkeypatch) -> None:
    """From now on this process may not walk: an answer must come from the child (forked
    before, with the real walk)."""
    parent = os.getpid()
    walk = signatures._walk

    def walk_in_a_child(root):
        if os.getpid() == parent:
            raise AssertionError(f"walked {root} in this process")
        return walk(root)

    monkeypatch.setattr(signatures, "_walk", walk_in_a_child)


def _reading_here_fails(monkeypatch) -> None:
    """From now on this process may not make the reads the child makes."""
    for name in ("rowids", "best", "distinct"):

        def fails(*args, name=name):
            raise AssertionError(f"{name} read in this process")

        monkeypatch.setattr(search_reads, name, fails)


def _found(root: Path, cache: Path, text: str) -> list:
    return [hit.to_dict() for hit in search_index.search(root, cache, text, limit=50)]


def test_the_walk_ahead_gives_what_a_walk_gives(fixtures_copy, tmp_path, monkeypatch):
    link = tmp_path / "link-to-claude"
    link.symlink_to(fixtures_copy)
    monkeypatch.chdir(tmp_path)
    expected = signatures.of(fixtures_copy.resolve())
    assert len(expected) >= 6
    search_reads.start(Path("link-to-claude"), "tmux")  # another spelling of the same folder
    _walking_here_fails(monkeypatch)
    assert search_reads.taken(fixtures_copy)[0] == expected
    assert no_children_left()


def test_a_walk_of_another_folder_is_not_used(fixtures_copy, tmp_path):
    empty = tmp_path / "other"
    (empty / "projects").mkdir(parents=True)
    search_reads.start(empty, "tmux")
    assert search_reads.taken(fixtures_copy) is None
    assert no_children_left()


def test_the_work_ahead_answers_once(fixtures_copy):
    search_reads.start(fixtures_copy, "tmux")
    assert search_reads.taken(fixtures_copy) is not None
    assert search_reads.taken(fixtures_copy) is None


def test_a_second_start_keeps_the_first(fixtures_copy, tmp_path):
    """The command line's child is kept when ``find`` asks again (it may have read more)."""
    search_reads.start(fixtures_copy, "tmux")
    search_reads.start(tmp_path / "elsewhere", "tmux")
    assert search_reads.taken(fixtures_copy) is not None
    assert no_children_left()


def test_a_walk_of_a_missing_folder_is_empty(tmp_path):
    gone = tmp_path / "deleted"
    search_reads.start(gone, "tmux")
    assert search_reads.taken(gone) == ({}, None)


@pytest.mark.parametrize("text", QUERIES)
def test_a_search_with_the_reads_made_ahead_finds_what_it_finds_alone(
    fixtures_copy, cache, tmp_path, monkeypatch, text
):
    monkeypatch.chdir(tmp_path)
    alone = _found(fixtures_copy, cache, text)  # (builds the index)
    assert _found(fixtures_copy, cache, text) == alone
    search_reads.start(fixtures_copy, text)
    with monkeypatch.context() as here:
        _walking_here_fails(here)
        assert _found(fixtures_copy, cache, text) == alone
    assert no_children_left()
    assert not (tmp_path / "pwned").exists()


def test_the_reads_are_made_in_the_child_when_the_index_holds_the_walk(
    fixtures_copy, cache, monkeypatch
):
    alone = _found(fixtures_copy, cache, "tmux module test setup")
    assert alone
    search_reads.start(fixtures_copy, "tmux module test setup")
    _walking_here_fails(monkeypatch)
    _reading_here_fails(monkeypatch)
    assert _found(fixtures_copy, cache, "tmux module test setup") == alone


def test_no_reads_from_an_index_behind_the_transcripts(fixtures_copy, cache):
    """A session written after the index was built: the child reads nothing, the search
    brings the index up to date and finds the new session."""
    _found(fixtures_copy, cache, "tmux")
    folder = next(p for p in (fixtures_copy / "projects").iterdir() if p.is_dir())
    session = folder / "99999999-9999-4999-8999-999999999999.jsonl"
    record = (
        '{"type":"user","uuid":"u1","sessionId":"99999999-9999-4999-8999-999999999999",'
        '"timestamp":"2026-02-11T10:00:00.000Z","message":{"role":"user",'
        '"content":"quixotic zebra tmux"}}\n'
    )
    session.write_text(record)
    search_reads.start(fixtures_copy, "tmux")  # words the index holds already
    ahead = search_reads.taken(fixtures_copy)
    assert ahead is not None and ahead[1] is None
    search_reads.start(fixtures_copy, "quixotic zebra")
    found = _found(fixtures_copy, cache, "quixotic zebra")
    assert [hit["session_id"] for hit in found] == ["99999999-9999-4999-8999-999999999999"]


def test_reads_for_other_words_are_not_used(fixtures_copy, cache):
    alone = _found(fixtures_copy, cache, "spotter-dov")
    search_reads.start(fixtures_copy, "tmux module test setup")
    assert _found(fixtures_copy, cache, "spotter-dov") == alone


def test_the_child_creates_no_index(fixtures_copy, cache):
    """It opens the index read-only: with none built yet, it makes none (the search does,
    private)."""
    search_reads.start(fixtures_copy, "tmux")
    assert search_reads.taken(fixtures_copy)[1] is None
    assert not cache.exists() or not list(cache.iterdir())


def test_a_cache_folder_with_uri_characters(fixtures_copy, tmp_path, monkeypatch):
    """The index is opened through an SQLite URI: ``?``, ``#`` and ``%`` in its path are
    escaped, not read as the URI's query, fragment or escapes."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "odd ?mode=rwc#x %41"))
    cache = Path(cache_home.folder())
    alone = _found(fixtures_copy, cache, "tmux module test setup")
    search_reads.start(fixtures_copy, "tmux module test setup")
    ahead = search_reads.taken(fixtures_copy)
    assert ahead is not None and ahead[1] is not None
    assert Path(ahead[1]["index"]) == search_index.index_path(fixtures_copy, cache)
    search_reads.start(fixtures_copy, "tmux module test setup")
    _reading_here_fails(monkeypatch)
    assert _found(fixtures_copy, cache, "tmux module test setup") == alone


def test_a_damaged_index_gives_no_reads(fixtures_copy, cache):
    alone = _found(fixtures_copy, cache, "tmux")
    index = search_index.index_path(fixtures_copy, cache)
    index.write_bytes(b"not a database" * 100)
    search_reads.start(fixtures_copy, "tmux")
    assert search_reads.taken(fixtures_copy)[1] is None
    assert _found(fixtures_copy, cache, "tmux") == alone  # rebuilt


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
    search_reads.start(root, "$(touch pwned) \x1b[31m")
    _walking_here_fails(monkeypatch)
    assert search_reads.taken(root)[0] == expected
    assert no_children_left()
    assert not (root / "pwned").exists() and not Path("pwned").exists()


def test_the_walk_knows_the_names_layout_knows():
    from purlin_resume.claude import layout

    assert (signatures.SUFFIX, signatures.AGENT_PREFIX) == (layout.SUFFIX, layout.AGENT_PREFIX)


# -- the index's generation: the search's check that the index is as the child read it -------


def _generation(root: Path, cache: Path) -> str | None:
    import sqlite3

    connection = sqlite3.connect(search_index.index_path(root, cache))
    try:
        return search_reads.generation(connection)
    finally:
        connection.close()


def _write_session(root: Path, words: str) -> str:
    folder = next(p for p in (root / "projects").iterdir() if p.is_dir())
    session = "99999999-9999-4999-8999-999999999999"
    (folder / f"{session}.jsonl").write_text(
        '{"type":"user","uuid":"u1","sessionId":"' + session + '",'
        '"timestamp":"2026-02-11T10:00:00.000Z","message":{"role":"user",'
        '"content":"' + words + '"}}\n'
    )
    return session


def test_every_build_and_only_a_build_gives_the_index_a_new_generation(fixtures_copy, cache):
    search_index.refresh(fixtures_copy, cache)
    first = _generation(fixtures_copy, cache)
    assert first
    search_index.refresh(fixtures_copy, cache)  # nothing changed
    assert _generation(fixtures_copy, cache) == first
    _write_session(fixtures_copy, "quixotic")
    search_index.refresh(fixtures_copy, cache)
    assert _generation(fixtures_copy, cache) not in (first, None)


def test_the_child_sends_no_walk_when_the_search_can_check_the_generation(fixtures_copy, cache):
    _found(fixtures_copy, cache, "tmux")
    search_reads.start(fixtures_copy, "tmux")
    current, reads = search_reads.taken(fixtures_copy)
    assert current is None and reads["generation"] == _generation(fixtures_copy, cache)


def test_reads_of_an_index_built_since_are_not_used(fixtures_copy, cache, monkeypatch):
    """Another process builds the index between the child's reads and the search (a session
    holding the words was written): the search walks and reads for itself, and finds it."""
    before = _found(fixtures_copy, cache, "tmux module")
    search_reads.start(fixtures_copy, "tmux module")
    made = search_reads.taken(fixtures_copy)  # the child's work, done before the session came
    assert made[1] is not None
    monkeypatch.setattr(search_reads, "taken", lambda root: made)
    session = _write_session(fixtures_copy, "tmux module")
    search_index.refresh(fixtures_copy, cache)  # the other process's build
    found = _found(fixtures_copy, cache, "tmux module")
    assert session not in [hit["session_id"] for hit in before]
    assert session in [hit["session_id"] for hit in found]
    monkeypatch.undo()
    assert found == _found(fixtures_copy, cache, "tmux module")
    assert no_children_left()


def test_an_index_without_a_generation_is_checked_against_the_walk(
    fixtures_copy, cache, monkeypatch
):
    """An index built before generations were kept: the child sends its walk, the search's
    refresh compares it, and the reads are used when it changed nothing."""
    import sqlite3

    alone = _found(fixtures_copy, cache, "tmux module test setup")
    connection = sqlite3.connect(search_index.index_path(fixtures_copy, cache))
    with connection:
        connection.execute("DELETE FROM meta WHERE key='generation'")
    connection.close()
    search_reads.start(fixtures_copy, "tmux module test setup")
    _walking_here_fails(monkeypatch)
    _reading_here_fails(monkeypatch)
    assert _found(fixtures_copy, cache, "tmux module test setup") == alone
