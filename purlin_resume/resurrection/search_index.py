"""Finding agents: an SQLite FTS5 index of every session and subagent, and ranked search over it.

The index lives in the user cache folder (``$XDG_CACHE_HOME/purlin-resume`` or
``~/.cache/purlin-resume``), one database per Claude data folder, and holds the conversations of
Codex CLI, Gemini CLI and opencode too (each a row with its CLI). It is derived from the
transcripts only, so deleting it at any time is safe: the next search rebuilds it. It is kept
up to date incrementally: a session is read again only when the (path, size, mtime) of one of its
files changed (its own file, its ``subagents/`` folder, the ``agent-*.jsonl`` files beside the
sessions of its project folder; another CLI's conversation: ``crosscli.sources``); sessions
whose files are gone are dropped.

Indexed per conversation (a session's main thread, each subagent): the words of the prompts, the
answers, the tool inputs and the file paths, redacted before they are stored; the title (a
session's as ``sessions`` gives it, read again for a whole Claude data folder whenever one of its
sessions changed; a subagent's description), the project path, the time span.

A query is split into time words (``today``, ``yesterday``, ``this/last week``, ``this/last
month``, ``N days ago``, ``last N days``, a date ``YYYY-MM-DD``), which restrict the results to
conversations active then, and words. Words are matched by FTS5 (bm25), typo-tolerantly
against the index's own vocabulary (a word found only under another spelling counts for less)
and against titles, project names and bookmark names with rapidfuzz; a word naming a subagent's
type finds it. A conversation a resurrection started (its first prompt is the resurrection's)
ranks below its original. Every result carries its score (0-100) and the reasons it matched.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from purlin_resume.agentcli.names import CLAUDE, OTHERS
from purlin_resume.claude import signatures
from purlin_resume.claude.catalog import Catalog
from purlin_resume.claude.layout import SessionFile
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.core import cache_home, redact, store
from purlin_resume.core.cache_home import index_path
from purlin_resume.core.errors import PurlinError
from purlin_resume.crosscli.sources import read_source, sources
from purlin_resume.resurrection.query import Query
from purlin_resume.resurrection.query import parse as parse_query

BODY_LIMIT = 2_000_000
BODY_BATCH = 4096  # values redacted at once
FUZZY_MIN = 80
PART_RATIO = 90  # the most a query word naming one part of a bookmark's name counts
TYPO_MIN = 75  # a query word and an index word this close (rapidfuzz ratio) are one word
# a word this short is a typo only of another one edit or one swap away (helm~help, tmxu~tmux;
# not todo~tool, which the ratio alone takes)
SHORT_WORD = 4
# A word found only under another spelling (helm~help) counts this share of a word found as
# typed, times how close the spelling is: a likely typo, not evidence.
TYPO_WEIGHT = 0.5
TYPE_BONUS = 10  # a query word naming the subagent's type: "the agent who explored …"
RESURRECTION_FACTOR = 0.8  # a conversation started from a resurrection ranks below its original
# The first line of a resurrection's prompt (templates/prompts/resurrection.md.j2)
_RESURRECTION = re.compile(
    r"\s*You are a resurrection of (?:agent (\S+)|the main agent of session (\S+)) from "
)


SCHEMA_VERSION = "7"  # 2: the files of each conversation; 3: bodies redacted value by value;
# 4: the conversation a resurrection started from; 5: the agent CLI of each conversation;
# 6: a renamed session file by its recorded id; 7: a session titled as ``sessions`` titles it
COLUMNS = (
    "rowid, kind, id, session_id, agent_id, project, title, agent_type, started_at, ended_at,"
    " turns, resurrects, cli"
)
DOCS_COLUMNS = ", ".join("d." + column for column in COLUMNS.split(", "))  # docs joined as d
# where a row's title and agent CLI stand in the rows a session's reading gives (``COLUMNS``
# without the rowid)
_TITLE, _CLI = (COLUMNS.split(", ").index(name) - 1 for name in ("title", "cli"))
BEST = 500  # the conversations the words' bm25 ranks


# ---------------------------------------------------------------------------------------------
# what a search reads from the index before it scores


def phrase(term: str) -> str:
    """``term`` as one FTS5 phrase."""
    return '"' + term.replace('"', '""') + '"'


def match(terms: Iterable[str]) -> str:
    """An FTS5 query for any of ``terms``."""
    return " OR ".join(phrase(term) for term in terms)


def rowids(connection: sqlite3.Connection, terms: list[str]) -> list[int]:
    """The conversations holding any of ``terms``."""
    found = connection.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?", (match(terms),))
    return [rowid for (rowid,) in found]


def best(connection: sqlite3.Connection, terms: list[str]) -> list[tuple]:
    """The ``COLUMNS`` of the ``BEST`` conversations holding any of ``terms`` by bm25, best first,
    each with its bm25 last. The best are chosen before their rows are read: a join before the
    sort would read the row of every match."""
    return connection.execute(
        f"SELECT {DOCS_COLUMNS}, s.score FROM"
        " (SELECT rowid, bm25(docs_fts, 4.0, 2.0, 1.0) AS score FROM docs_fts"
        f"  WHERE docs_fts MATCH ? ORDER BY score, rowid LIMIT {BEST}) AS s"
        " JOIN docs d ON d.rowid = s.rowid ORDER BY s.score, s.rowid",
        (match(terms),),
    ).fetchall()


def distinct(connection: sqlite3.Connection, column: str) -> list[str]:
    """The different non-empty values of a column of ``docs`` (titles, projects)."""
    query = f"SELECT DISTINCT {column} FROM docs WHERE {column} IS NOT NULL AND {column} != ''"
    return [value for (value,) in connection.execute(query)]


def read(
    connection: sqlite3.Connection,
    words: list[str],
    spellings: Callable[[str], list[str]] | None = None,
) -> dict[str, Any] | None:
    """The reads of a search for ``words``: each word and the index words it stands for
    (``expanded``), the conversations holding any of them (``holding``), the best of those by
    bm25 (``best``), the titles and the projects (none without words).

    A word (of three letters or more) the index does not hold stands for its ``spellings``;
    without that function there are no reads (None)."""
    expanded: dict[str, list[str]] = {}
    holding: dict[str, list[int]] = {}
    for word in words:
        found = rowids(connection, [word])
        if found or len(word) < 3:
            expanded[word], holding[word] = [word], found
            continue
        if spellings is None:
            return None
        terms = spellings(word)
        expanded[word] = terms or [word]
        holding[word] = rowids(connection, terms) if terms else []
    terms = [term for each in expanded.values() for term in each]
    return {
        "expanded": expanded,
        "holding": holding,
        "best": best(connection, terms) if terms else [],
        "titles": distinct(connection, "title") if words else [],
        "projects": distinct(connection, "project") if words else [],
    }


# ---------------------------------------------------------------------------------------------
# the index


@dataclass
class Hit:
    """One conversation a search found, with its score and why."""

    kind: str  # "session" or "agent"
    id: str
    session_id: str
    agent_id: str | None
    project: str | None
    title: str | None
    agent_type: str | None
    started_at: str | None
    ended_at: str | None
    turns: int
    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    snippet: str | None = None
    bookmark: str | None = None
    resurrects: str | None = None  # started from a resurrection of this agent or session
    cli: str = CLAUDE

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS sessions(path TEXT PRIMARY KEY, signature TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
    rowid INTEGER PRIMARY KEY, session_path TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL,
    session_id TEXT NOT NULL, agent_id TEXT, project TEXT, title TEXT, agent_type TEXT,
    started_at TEXT, ended_at TEXT, turns INTEGER, resurrects TEXT, cli TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS docs_session ON docs(session_path);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    title, project, body, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(docs_fts, 'row');
CREATE TABLE IF NOT EXISTS doc_files(doc INTEGER NOT NULL, path TEXT NOT NULL, edited INTEGER);
CREATE INDEX IF NOT EXISTS doc_files_path ON doc_files(path);
CREATE INDEX IF NOT EXISTS doc_files_doc ON doc_files(doc);
"""


def _private_file(path: Path) -> None:
    """The index file as every file of the cache is (``cache_home.refusal``), else a
    PurlinError saying why not."""
    refused = cache_home.refusal(path)
    if refused:
        raise PurlinError(
            f"cannot create the search index: {refused} (or set XDG_CACHE_HOME to a folder "
            "of yours that others cannot write)"
        )


def _connect(path: Path) -> sqlite3.Connection:
    for attempt in (1, 2):
        _private_file(path)
        try:
            connection = sqlite3.connect(path, timeout=30, isolation_level=None)
            version = None
            try:
                row = connection.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                version = row[0] if row else None
            except sqlite3.OperationalError:
                pass
            # what the index holds was redacted by the rules in use when it was written: under
            # other rules (a new release's, a pattern added since) it is built again
            current = f"{SCHEMA_VERSION} {redact.fingerprint()}"
            if version not in (None, current):
                raise sqlite3.DatabaseError("old schema or other redaction rules")
            if version is None:  # a new database: no write (and no fsync) on every search
                connection.executescript(_SCHEMA)
                connection.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (current,))
            return connection
        except sqlite3.DatabaseError:
            # a cache: a damaged or outdated one is simply rebuilt
            if attempt == 2:
                raise
            with contextlib.suppress(Exception):
                connection.close()
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(path) + suffix).unlink(missing_ok=True)
    raise AssertionError("unreachable")


@redact.remembering()  # a secret found in one value is hidden in the others
def _body(transcript) -> str:
    """The searchable text: each value redacted on its own (a batch at a time), then the whole
    once more; the turns past its first ``BODY_LIMIT`` characters are not gone through."""
    clean: list[str] = []
    parts: list[str] = []
    size = 0
    for turn in transcript.turns:
        if turn.text:
            parts.append(turn.text)
        for call in turn.tool_calls:
            parts.append(call.name)
            if call.input:
                parts.extend(
                    value for value in call.input.values() if isinstance(value, str) and value
                )
            if call.file_path:
                parts.append(call.file_path)
        if len(parts) >= BODY_BATCH:
            size += _cleaned(parts, clean)
            if size > BODY_LIMIT:
                break
    _cleaned(parts, clean)
    return redact.redact("\n".join(clean)[:BODY_LIMIT]).text


def _cleaned(parts: list[str], clean: list[str]) -> int:
    """``parts`` redacted value by value onto ``clean``, emptied; the characters they add."""
    done = redact.redact_data(parts)[0]
    clean.extend(done)
    parts.clear()
    return sum(len(part) + 1 for part in done)


def conversation_files(transcript, session_project: str | None = None) -> list[tuple[str, int]]:
    """The files a conversation edited (1) or only read (0), relative to its project when inside
    it, so that clones and worktrees of one repository compare, else as recorded. A subagent that
    moved into a sub-folder has its files relative to both (the session's project and its own)."""
    roots = [r for r in dict.fromkeys([session_project, transcript.project_path]) if r]
    rows: dict[str, int] = {}
    for edited, names in ((0, transcript.files_touched()), (1, transcript.files_modified())):
        for name in names:
            forms = [form for root in roots if (form := _inside(name, root)) is not None]
            for form in forms or [name]:
                rows[form] = max(rows.get(form, 0), edited)
    paths = list(rows)
    cleaned = redact.redact("\n".join(paths)).text.split("\n")  # one pass for all of them
    if len(cleaned) != len(paths):  # a path with a line break in it
        cleaned = [redact.redact(path).text for path in paths]
    return list(zip(cleaned, rows.values(), strict=True))


def _plain(path: str) -> bool:
    """An absolute path as ``Path`` writes it: no doubled slash, no ``.`` part, no slash at
    the end (so that comparing its text is comparing its parts)."""
    return (
        path.startswith("/")
        and path != "/"
        and "//" not in path
        and "/./" not in path
        and not path.endswith(("/", "/."))
    )


def _inside(name: str, root: str) -> str | None:
    """``name`` relative to ``root`` when it is an absolute path inside it, else None: what
    ``Path.relative_to`` says, read from the text when both are plain paths (most of them)."""
    if _plain(name) and _plain(root):
        if name == root:
            return "."
        return name[len(root) + 1 :] if name.startswith(root) and name[len(root)] == "/" else None
    path = Path(name)
    if path.is_absolute() and path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return None


def resurrected_from(first_prompt: str | None) -> str | None:
    """``agent ID`` or ``session ID``: the conversation whose resurrection prompt started this
    one (its first prompt), else None."""
    found = _RESURRECTION.match(first_prompt or "")
    if found is None:
        return None
    agent, session = found.groups()
    return f"agent {agent}" if agent else f"session {session.rstrip('.')}"


def _one_line(text: str | None, limit: int = 120) -> str | None:
    if not text:
        return None
    return redact.one_line(text, limit)


def _documents(view) -> Iterable[dict[str, Any]]:
    """A session's conversations; a session's title is the catalog's (``_titles``), set as
    its row is stored."""
    main, reading = view.main, view.reading
    if main is not None and reading is not None:
        yield {
            "kind": "session",
            "id": view.session_id,
            "agent_id": None,
            "transcript": main,
            "title": None,
            "agent_type": "main",
            "session_project": main.project_path,
        }
    for node in view.all_subagents():
        transcript = view.agents.get(node.id) if node.id else None
        if transcript is None:
            continue
        yield {
            "kind": "agent",
            "id": node.id,
            "agent_id": node.id,
            "transcript": transcript,
            "title": _one_line(
                redact.redact(node.description or transcript.first_prompt or "").text
            ),
            "agent_type": node.agent_type,
            "session_project": main.project_path if main is not None else None,
        }


def _session_rows(catalog, folder: Path, session_id: str) -> list[tuple[tuple, str, list]]:
    """What the index holds of one session: per conversation, its ``docs`` columns (from
    ``kind``), its searchable body and its files."""
    file = SessionFile(session_id, folder)  # named by its file; by its records when renamed
    file = next((s for s in catalog.session_files() if s.path == file.path), file)
    view = catalog.view(file, ReadOptions(tools=True))
    rows = []
    for doc in _documents(view):
        transcript = doc["transcript"]
        columns = (
            doc["kind"],
            doc["id"],
            file.id,
            doc["agent_id"],
            transcript.project_path,
            doc["title"],
            doc["agent_type"],
            transcript.started_at,
            transcript.ended_at,
            transcript.turn_count,
            resurrected_from(transcript.first_prompt),
            CLAUDE,
        )
        files = conversation_files(transcript, doc["session_project"])
        rows.append((columns, _body(transcript), files))
    return rows


def _other_rows(key: str, cli: str, reference: Any) -> list[tuple[tuple, str, list]]:
    """What the index holds of one conversation of another CLI: a session, or a child session
    (its ``agent``, under its parent's id)."""
    conversation = read_source(key, cli, reference, ReadOptions(tools=True, deferred=True))
    session, transcript = conversation.session, conversation.transcript
    child = session.parent_id is not None
    title = session.title or transcript.first_prompt
    columns = (
        "agent" if child else "session",
        session.id,
        session.parent_id or session.id,
        session.id if child else None,
        session.project_path,
        _one_line(redact.redact(title).text if title else None),
        session.agent_type or (None if child else "main"),
        session.started_at,
        session.ended_at,
        transcript.turn_count,
        resurrected_from(transcript.first_prompt),
        cli,
    )
    files = conversation_files(transcript, session.project_path)
    try:
        body = _body(transcript)
    except PurlinError:  # its database failed between the count and the reading: the rest is
        body = ""  # indexed, the words when the database changes again
    return [(columns, body, files)]


def _rows(catalog: Catalog | None, key: str, source: tuple) -> list[tuple[tuple, str, list]]:
    """The rows of one source of the index: a Claude Code session (its project folder, its id)
    or another CLI's conversation (its CLI, what its reader needs)."""
    if source[0] in OTHERS:
        return _other_rows(key, source[0], source[1])
    assert catalog is not None  # a Claude Code session was listed: its folder is there
    return _session_rows(catalog, Path(source[0]), source[1])


def _catalog(root: Path) -> Catalog | None:
    """The catalog of the Claude data folder ``root``; None when it has no ``projects/``."""
    return Catalog(root) if (Path(root) / "projects").is_dir() else None


_CATALOG = None  # the catalog a build's worker process reads


def _rows_in_worker(task: tuple[str, tuple]) -> list[tuple[tuple, str, list]]:
    return _rows(_CATALOG, *task)


def _start_worker(root: Path) -> None:
    global _CATALOG
    _CATALOG = _catalog(root)


PARALLEL_FROM = 8  # sessions to read before worker processes pay for their start


def _all_rows(root: Path, tasks: list[tuple[str, tuple]]) -> Iterator[list]:
    """The rows of each session of ``tasks``, in order: read by worker processes (one per core,
    forked so that they share the redaction rules in use) when there are enough of them."""
    workers = min(os.cpu_count() or 1, 8)
    if (
        workers < 2
        or len(tasks) < PARALLEL_FROM
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        catalog = _catalog(root)
        for task in tasks:
            yield _rows(catalog, *task)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_start_worker, initargs=(root,)) as pool:
        # up to eight sessions a message: fewer hand-offs through the pool's threads and pipes
        # in this process, which also writes the index; fewer for a small build, whose
        # progress would otherwise move in big steps and whose last message would run alone
        chunk = max(1, min(8, len(tasks) // (workers * 8)))
        yield from pool.imap(_rows_in_worker, tasks, chunksize=chunk)


def refresh(
    root: Path,
    cache: Path,
    progress: Callable[[int, int], None] | None = None,
    refused: dict[str, list[Path]] | None = None,
) -> dict[str, int]:
    """Bring the index of ``root`` up to date; returns how many sessions were read and dropped.

    ``progress(done, total)`` is told after each session read (when there is something to
    read). One build at a time: a second one waits for the first, then finds its work done.
    The folders of another CLI's tree this user may not list go to ``refused`` (``sources``)."""
    path = index_path(root, cache)
    root = Path(root).resolve()  # the sessions are keyed by path: one spelling of the folder
    connection = _connect(path)
    try:
        current = {**signatures.of(root), **sources(refused=refused)}
        known = dict(connection.execute("SELECT path, signature FROM sessions"))
        if not any(_outdated(known, current)):
            return {"read": 0, "dropped": 0, "sessions": len(current)}
        with contextlib.ExitStack() as stack:
            _build_lock(stack, path)
            known = dict(connection.execute("SELECT path, signature FROM sessions"))
            stale, changed = _outdated(known, current)
            if not stale and not changed:
                return {"read": 0, "dropped": 0, "sessions": len(current)}
            titles = _titles(root, cache) if _claude_changed(current, stale + changed) else {}
            _build(connection, root, current, stale, changed, progress, titles)
        return {"read": len(changed), "dropped": len(stale), "sessions": len(current)}
    finally:
        connection.close()


BUILD_WAIT_SECONDS = 600.0


def _build_lock(stack: contextlib.ExitStack, path: Path) -> None:
    """One build at a time: hold the index's lock (waiting up to ``BUILD_WAIT_SECONDS``)."""
    try:
        stack.enter_context(store.locked(path, timeout=BUILD_WAIT_SECONDS))
    except OSError as exc:
        raise PurlinError(
            f"cannot lock the search index in {path.parent}: {exc.strerror or exc}; "
            "set XDG_CACHE_HOME to a writable folder"
        ) from None


def _outdated(known: dict[str, str], current: dict[str, tuple[Any, Any, str]]):
    """(sessions gone, sessions new or changed)."""
    stale = [key for key in known if key not in current]
    changed = [key for key, (_, _, sig) in current.items() if known.get(key) != sig]
    return stale, changed


def _claude_changed(current: dict[str, tuple], keys: list[str]) -> bool:
    """Whether any of ``keys`` is a Claude Code session (a summary in one session's file can
    title another session of its folder: their titles are read again)."""
    return any(key not in current or current[key][0] not in OTHERS for key in keys)


def _titles(root: Path, cache: Path) -> dict[str, str | None]:
    """Each Claude Code session file's title as ``sessions`` gives it, redacted and storable
    (``_storable``) for the index."""
    catalog = _catalog(root)
    listed = catalog.sessions(cache=cache) if catalog is not None else []
    return {
        str(s.path): store.whole_characters(redact.one_line(redact.redact(s.title).text, 120))
        if s.title
        else None
        for s in listed
    }


def _retitle(connection: sqlite3.Connection, titles: dict[str, str | None]) -> None:
    """The Claude Code sessions already indexed whose title changed, titled anew."""
    rows = connection.execute(
        "SELECT rowid, session_path, title FROM docs WHERE kind='session' AND cli=?", (CLAUDE,)
    ).fetchall()
    for rowid, key, title in rows:
        if key in titles and titles[key] != title:
            connection.execute("UPDATE docs SET title=? WHERE rowid=?", (titles[key], rowid))
            connection.execute(
                "UPDATE docs_fts SET title=? WHERE rowid=?", (titles[key] or "", rowid)
            )


def _build(connection, root, current, stale, changed, progress, titles) -> None:
    connection.execute("BEGIN IMMEDIATE")
    try:
        for key in stale + changed:
            rows = [
                r[0]
                for r in connection.execute("SELECT rowid FROM docs WHERE session_path=?", (key,))
            ]
            connection.executemany("DELETE FROM docs_fts WHERE rowid=?", [(r,) for r in rows])
            connection.executemany("DELETE FROM doc_files WHERE doc=?", [(r,) for r in rows])
            connection.execute("DELETE FROM docs WHERE session_path=?", (key,))
            connection.execute("DELETE FROM sessions WHERE path=?", (key,))
        tasks = [(key, current[key]) for key in changed]
        for done, (key, rows) in enumerate(zip(changed, _all_rows(root, tasks), strict=True), 1):
            for columns, body, files in _storable(rows):
                if columns[0] == "session" and columns[_CLI] == CLAUDE:
                    columns = (*columns[:_TITLE], titles.get(key), *columns[_TITLE + 1 :])
                cursor = connection.execute(
                    "INSERT INTO docs(session_path, kind, id, session_id, agent_id, project,"
                    " title, agent_type, started_at, ended_at, turns, resurrects, cli)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (key, *columns),
                )
                doc = cursor.lastrowid
                connection.execute(
                    "INSERT INTO docs_fts(rowid, title, project, body) VALUES (?,?,?,?)",
                    (doc, columns[5] or "", columns[4] or "", body),
                )
                connection.executemany(
                    "INSERT INTO doc_files(doc, path, edited) VALUES (?,?,?)",
                    [(doc, file_path, edited) for file_path, edited in files],
                )
            connection.execute("INSERT INTO sessions VALUES (?,?)", (key, current[key][2]))
            if progress is not None:
                progress(done, len(changed))
        _retitle(connection, titles)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _storable(rows: list[tuple[tuple, str, list]]) -> list[tuple[tuple, str, list]]:
    """``rows`` as SQLite can store them: a lone surrogate (half a character, from a transcript
    cut mid-emoji) has no UTF-8 form and becomes U+FFFD."""
    whole = store.whole_characters
    return [
        (
            tuple(whole(c) if isinstance(c, str) else c for c in columns),
            whole(body),
            [(whole(name), edited) for name, edited in files],
        )
        for columns, body, files in rows
    ]


# ---------------------------------------------------------------------------------------------
# searching


@dataclass(frozen=True)
class BookmarkName:
    """A bookmark as a search needs it: its name and the conversation it names."""

    name: str
    session_id: str
    agent_id: str | None
    description: str | None = None


def _hit(row) -> tuple[int, Hit]:
    rowid, kind, ident, session_id, agent_id, project, title, agent_type, start, end = row[:10]
    hit = Hit(
        kind, ident, session_id, agent_id, project, title, agent_type, start, end, row[10] or 0
    )
    hit.resurrects, hit.cli = row[11], row[12]  # COLUMNS
    return rowid, hit


def _spellings(connection: sqlite3.Connection, word: str) -> list[str]:
    """The index words close to ``word`` (a word the index does not hold: a typo, most likely),
    at most three."""
    # close spellings that share the first letter: a typo rarely hits it, and the range keeps the
    # vocabulary read small
    first = word[0]
    vocabulary = [
        row[0]
        for row in connection.execute(
            "SELECT term FROM vocab WHERE term >= ? AND term < ?", (first, chr(ord(first) + 1))
        )
    ]
    close = process.extract(word, vocabulary, scorer=fuzz.ratio, limit=3, score_cutoff=TYPO_MIN)
    return [term for term, _, _ in close if len(word) > SHORT_WORD or OSA.distance(word, term) <= 1]


class Matches(list):
    """Search results, best first, and how many more matched the words but lay outside the
    query's time words (``outside_time``, ``time_label``): "3 matches outside 'last week'"."""

    def __init__(self, items=(), outside_time: int = 0, time_label: str | None = None):
        super().__init__(items)
        self.outside_time = outside_time
        self.time_label = time_label

    def like(self, items) -> Matches:
        """Other items with the same account of what the time words left out."""
        return Matches(items, self.outside_time, self.time_label)

    def outside_note(self) -> str | None:
        if not self.outside_time:
            return None
        plural = "es" if self.outside_time != 1 else ""
        return f"{self.outside_time} match{plural} outside {self.time_label!r}"


def _window(query: Query) -> tuple[str, str] | None:
    """The query's time window as the index writes times (ISO, UTC, milliseconds), or None."""
    if query.start is None or query.end is None:
        return None
    iso = "%Y-%m-%dT%H:%M:%S.000Z"
    return query.start.strftime(iso), query.end.strftime(iso)


def _overlaps(started_at: str | None, ended_at: str | None, window: tuple[str, str]) -> bool:
    start = started_at or ended_at
    end = ended_at or started_at
    if not (start and end):
        return False
    return start < window[1] and end >= window[0]


def _close_titles(phrase: str, titles: Iterable[str]) -> dict[str, float]:
    """Each title the phrase matches partially (``fuzz.partial_ratio`` of its lowercase form, at
    least ``FUZZY_MIN``) and how well: searched in one call, each close one scored alone."""
    if len(phrase) < 4:
        return {}
    titles = list(titles)
    lowered = [title.lower() for title in titles]
    close = process.extract(
        phrase, lowered, scorer=fuzz.partial_ratio, score_cutoff=FUZZY_MIN, limit=None
    )
    return {titles[at]: fuzz.partial_ratio(phrase, lowered[at]) for _, _, at in close}


def _project_ratio(project: str, phrase: str, words: list[str]) -> tuple[str, float]:
    """The project folder's name and how close the query's words (or all of them) come to it."""
    name = os.path.basename(project.rstrip("/"))
    lowered = name.lower()
    ratio = max((fuzz.ratio(word, lowered) for word in words), default=0)
    return name, max(ratio, fuzz.ratio(phrase, lowered))


def bookmark_ratio(name: str, query: str) -> float:
    """How close ``query`` (its words, or all of them) comes to a bookmark's name or to one of
    its parts (``parser`` finds ``parser-fixer``)."""
    words = parse_query(query).words
    return _bookmark_ratio(name, " ".join(words), words)


def _bookmark_ratio(name: str, phrase: str, words: list[str]) -> float:
    name = name.lower()
    parts = [part for part in re.split(r"[\W_]+", name) if part]
    whole = max(fuzz.ratio(phrase, name), fuzz.ratio(phrase, " ".join(parts))) if phrase else 0
    named = max((fuzz.ratio(word, name) for word in words), default=0)
    part = max((fuzz.ratio(word, p) for word in words for p in parts), default=0)
    return max(whole, named, min(part, PART_RATIO))


MAX_VARIABLES = 30_000  # under SQLite's limit on the values one statement may be given


def _candidates(connection, hits, scoring: _Scoring) -> list[tuple]:
    """The ``docs`` rows that can score: those holding the words (``hits``, read already, each
    as its ``Hit``), those whose title or project is close to the query, those bookmarked, and
    all of them when the query has time words (each one then scores, or counts as a match
    outside the time)."""
    close = [t for t, ratio in scoring.titles.items() if ratio >= FUZZY_MIN]
    near = [p for p, (_, ratio) in scoring.projects.items() if ratio >= FUZZY_MIN]
    marks = scoring.marks
    values = [*close, *near, *(v for key in marks for v in key)]
    if scoring.window is not None or len(values) > MAX_VARIABLES:
        return connection.execute(f"SELECT {COLUMNS} FROM docs").fetchall()
    rows = [_row(rowid, hit) for rowid, hit in hits.items()]
    if not values:
        return rows
    where = [
        f"title IN ({','.join('?' * len(close))})",
        f"project IN ({','.join('?' * len(near))})",
        *["(session_id = ? AND agent_id IS ?)"] * len(marks),
    ]
    more = connection.execute(f"SELECT {COLUMNS} FROM docs WHERE {' OR '.join(where)}", values)
    return rows + [row for row in more if row[0] not in hits]


def _row(rowid: int, hit: Hit) -> tuple:
    """The ``docs`` row (``COLUMNS``) a hit was read from."""
    return (
        rowid, hit.kind, hit.id, hit.session_id, hit.agent_id, hit.project, hit.title,
        hit.agent_type, hit.started_at, hit.ended_at, hit.turns, hit.resurrects, hit.cli,
    )  # fmt: skip


def _text_hits(rows: list[tuple], expanded: dict[str, list[str]], holding: dict[str, list[int]]):
    """The conversations holding the query's words (``rows``: the best by bm25), each with the
    words it holds as reasons, its bm25 relative to the best one (0..1), and the query words it
    holds."""
    hits: dict[int, Hit] = {}
    text_score: dict[int, float] = {}
    held: dict[int, list[str]] = {}
    best = min((row[-1] for row in rows), default=-1.0) or -1.0
    for row in rows:
        rowid, hit = _hit(row[:-1])
        hits[rowid] = hit
        text_score[rowid] = row[-1] / best if best < 0 else 0.0
    # which query words each hit contains (the "why")
    for word, terms in expanded.items():
        shown = word if terms == [word] else f"{word}~{'/'.join(terms)}"
        for rowid in holding[word]:
            if rowid in hits:
                hits[rowid].reasons.append(f"word {shown}")
                held.setdefault(rowid, []).append(word)
    return hits, text_score, held


def _word_weights(expanded: dict[str, list[str]]) -> dict[str, float]:
    """How much each query word counts when a conversation holds it: 1 as typed, less under
    another spelling (``TYPO_WEIGHT`` times how close the closest one is)."""
    weights = {}
    for word, terms in expanded.items():
        if word in terms:
            weights[word] = 1.0
        else:
            closest = max((fuzz.ratio(word, term) for term in terms), default=0)
            weights[word] = TYPO_WEIGHT * closest / 100
    return weights


def _words_part(counted: dict[str, float], words: int, relative_bm25: float) -> float:
    """The words' part of a score (up to 50): the share of the query's ``words`` the
    conversation holds (each ``counted`` as much as it weighs), raised by its bm25 relative to
    the best match."""
    coverage = sum(counted.values()) / max(words, 1)
    return 50 * coverage * (0.6 + 0.4 * relative_bm25)


def _names_type(word: str, agent_type: str | None) -> bool:
    """``word`` is a form of the subagent type ``agent_type`` (explored, exploring: Explore)."""
    if not agent_type or agent_type in ("main", "general-purpose"):
        return False
    stem = agent_type.lower()
    stem = stem[:-1] if stem.endswith("e") else stem
    return len(stem) >= 4 and word.startswith(stem)


def _snippets(connection, expanded: dict[str, list[str]], rowids: list[int]) -> dict[int, str]:
    """The words' context in each of these conversations' text, on one line."""
    if not rowids:
        return {}
    found = connection.execute(
        "SELECT rowid, snippet(docs_fts, 2, '[', ']', '…', 16) FROM docs_fts"
        f" WHERE docs_fts MATCH ? AND rowid IN ({','.join('?' * len(rowids))})",
        (match(t for ts in expanded.values() for t in ts), *rowids),
    )
    return {rowid: " ".join(text.split()) for rowid, text in found if text is not None}


@dataclass
class _Scoring:
    """What each row of a search is scored against: the query, and what the index holds of its
    words, its titles, its projects and the bookmarks."""

    query: Query
    weights: dict[str, float]  # how much each query word counts (``_word_weights``)
    text_score: dict[int, float]  # bm25 relative to the best match, by rowid
    held: dict[int, list[str]]  # the query words each row holds
    titles: dict[str, float]
    projects: dict[str, tuple[str, float]]
    marks: dict[tuple[str, str | None], list[BookmarkName]]
    window: tuple[str, str] | None

    @property
    def words(self) -> list[str]:
        return self.query.words

    @property
    def phrase(self) -> str:
        return " ".join(self.query.words)


def search(
    root: Path,
    cache: Path,
    text: str,
    *,
    bookmarks: Iterable[BookmarkName] = (),
    limit: int = 10,
    now: datetime | None = None,
    update: bool = True,
    progress: Callable[[int, int], None] | None = None,
    refused: dict[str, list[Path]] | None = None,
) -> Matches:
    """The conversations of ``root`` that best match ``text``, best first (``progress``: told
    how the index build goes; ``refused``: the folders its walk passed over; see ``refresh``).

    Each conversation is scored from its row alone: the words it holds (bm25 and how many of
    the query's words), how close its title, its project's name and its bookmarks' names come to
    the query, and whether it lies in the query's time window. Only the rows that can score are
    read (``_candidates``)."""
    query = parse_query(text, now)
    path = index_path(root, cache)
    connection = _connect(path)
    try:
        if update:
            refresh(root, cache, progress, refused)
        reads = read(connection, query.words, lambda word: _spellings(connection, word))
        assert reads is not None  # with spellings a search always reads
        expanded = reads["expanded"]
        hits, text_score, held = _text_hits(reads["best"], expanded, reads["holding"])
        scoring = _scoring(query, reads, text_score, held, bookmarks)
        rows = _candidates(connection, hits, scoring)
        scores, outside = _scores(rows, hits, scoring)
        ranked = sorted(
            scores, key=lambda r: (-scores[r], -(hits[r].turns), hits[r].ended_at or "", r)
        )[:limit]
        worded = [
            r for r in ranked if query.words and any(w.startswith("word ") for w in hits[r].reasons)
        ]
        for rowid, snippet in _snippets(connection, expanded, worded).items():
            hits[rowid].snippet = snippet
        return Matches([hits[rowid] for rowid in ranked], outside, query.time_label)
    finally:
        connection.close()


def _scoring(
    query: Query,
    reads: dict[str, Any],
    text_score: dict[int, float],
    held: dict[int, list[str]],
    bookmarks: Iterable[BookmarkName],
) -> _Scoring:
    """What the rows of ``query`` are scored against, from what the index ``reads`` gave."""
    words = query.words
    phrase = " ".join(words)
    marks: dict[tuple[str, str | None], list[BookmarkName]] = {}
    for mark in bookmarks:
        marks.setdefault((mark.session_id, mark.agent_id), []).append(mark)
    titles = _close_titles(phrase, reads["titles"]) if phrase else {}
    projects = {p: _project_ratio(p, phrase, words) for p in reads["projects"]} if phrase else {}
    weights = _word_weights(reads["expanded"])
    return _Scoring(query, weights, text_score, held, titles, projects, marks, _window(query))


def _scores(
    rows: list[tuple], hits: dict[int, Hit], scoring: _Scoring
) -> tuple[dict[int, float], int]:
    """The score of each row that scores, by rowid (its hit made, scored and given its reasons
    in ``hits``), and how many rows would have scored but lie outside the time window."""
    outside = 0
    scores: dict[int, float] = {}
    for row in rows:
        rowid = row[0]
        hit = hits.get(rowid)
        reasons = hit.reasons if hit is not None else []
        score, bookmark = _row_score(row, reasons, scoring)
        if scoring.window is not None:
            if not _overlaps(row[8], row[9], scoring.window):
                outside += score > 0
                continue
            score += 10 if scoring.words else 50
            reasons.append(f"time {scoring.query.time_label}")
        if score > 0 and row[11]:
            score *= RESURRECTION_FACTOR
            reasons.append(f"resurrection of {row[11]}")
        if score > 0:
            if hit is None:
                hit = hits[rowid] = _hit(row)[1]
                hit.reasons = reasons
            if bookmark is not None:
                hit.bookmark = bookmark
            hit.score = round(min(score, 100.0), 1)
            scores[rowid] = score
    return scores, outside


def _row_score(row: tuple, reasons: list[str], scoring: _Scoring) -> tuple[float, str | None]:
    """A row's score from its words, its agent type, its title, its project and its bookmarks
    (the time window aside), its reasons added to ``reasons``; and the bookmark it matched."""
    rowid, session_id, agent_id, project, title = row[0], row[3], row[4], row[5], row[6]
    words, phrase = scoring.words, scoring.phrase
    bookmark = None
    score = 0.0
    naming_type = [word for word in words if _names_type(word, row[7])]
    if naming_type:
        score += TYPE_BONUS
        reasons.append(f"type {row[7]}")
    if rowid in scoring.text_score or naming_type:
        counted = {word: scoring.weights[word] for word in scoring.held.get(rowid, [])}
        counted.update(dict.fromkeys(naming_type, 1.0))
        score += _words_part(counted, len(words), scoring.text_score.get(rowid, 0.0))
    ratio = scoring.titles.get(title, 0) if title else 0
    if ratio >= FUZZY_MIN:
        score += 20 * ratio / 100
        reasons.append(f"title ~{ratio:.0f}%")
    if phrase and project:
        name, ratio = scoring.projects[project]
        if ratio >= FUZZY_MIN:
            score += 15 * ratio / 100
            reasons.append(f"project {name}")
    for mark in scoring.marks.get((session_id, agent_id), ()):
        ratio = _bookmark_ratio(mark.name, phrase, words)
        if ratio >= FUZZY_MIN:
            score += 60 * ratio / 100
            reasons.append(f"bookmark {mark.name}")
            bookmark = mark.name
    return score, bookmark


# ---------------------------------------------------------------------------------------------
# related work (what ``recommend`` ranks)


_ENDINGS = ("s", "es", "ed", "ing", "er", "ers", "ion", "ions")


def _forms(connection: sqlite3.Connection, word: str) -> list[str]:
    """``word`` and those of its plain inflections (overflows, rendering) the index holds."""
    stem = word[:-1] if word.endswith("s") and len(word) > 4 else word
    wanted = {word, stem, *(stem + ending for ending in _ENDINGS)}
    if len(word) < 4:
        return [word]
    marks = ",".join("?" * len(wanted))
    held = {
        row[0]
        for row in connection.execute(
            f"SELECT term FROM vocab WHERE term IN ({marks})", tuple(wanted)
        )
    }
    return [word, *sorted(held - {word})]


@dataclass
class Related:
    """A conversation related to a task: by its words, by the files it edited or read, or both."""

    hit: Hit
    text: float = 0.0  # bm25, relative to the best match of the task's words (0..1)
    words: list[str] = field(default_factory=list)  # the task's words it contains
    edited: list[str] = field(default_factory=list)  # the task's files it edited
    read: list[str] = field(default_factory=list)  # the task's files it only read


def related(
    root: Path,
    cache: Path,
    words: list[str],
    files: list[str],
    *,
    exclude_session: str | None = None,
    pool: int = 200,
    update: bool = True,
    refused: dict[str, list[Path]] | None = None,
) -> list[Related]:
    """The conversations that share words or files with a task (unranked, at most ``pool`` by
    words plus every one that touched one of ``files``), those of ``exclude_session`` left
    out. A word matches its plain inflections too (overflow: overflows). ``update=False`` reads the index as it
    is, without looking at the transcripts (and finds nothing when there is no index yet).
    ``refused``: as ``refresh`` takes it."""
    path = index_path(root, cache)
    if update:
        refresh(root, cache, refused=refused)
    elif not path.exists():
        return []
    connection = _connect(path)
    try:
        found: dict[int, Related] = {}
        words = [w for w in dict.fromkeys(words) if w]
        if words:
            _related_by_words(connection, found, words, exclude_session, pool)
        _related_by_files(connection, found, files, exclude_session)
        return list(found.values())
    finally:
        connection.close()


def _related_by_words(
    connection: sqlite3.Connection,
    found: dict[int, Related],
    words: list[str],
    exclude_session: str | None,
    pool: int,
) -> None:
    """Add to ``found`` the ``pool`` conversations best matching ``words`` (or their
    inflections) by bm25, each with the words it holds."""
    terms = {w: " OR ".join(phrase(t) for t in _forms(connection, w)) for w in words}
    rows = connection.execute(
        f"SELECT {DOCS_COLUMNS}, bm25(docs_fts, 4.0, 2.0, 1.0)"
        " FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid"
        " WHERE docs_fts MATCH ? AND d.session_id IS NOT ?"
        " ORDER BY bm25(docs_fts, 4.0, 2.0, 1.0) LIMIT ?",
        (" OR ".join(terms.values()), exclude_session, pool),
    ).fetchall()
    best = min((row[-1] for row in rows), default=-1.0) or -1.0
    for row in rows:
        rowid, hit = _hit(row[:-1])
        found[rowid] = Related(hit, text=row[-1] / best if best < 0 else 0.0)
    for word in words if found else ():
        # every match of the word, kept where found: far cheaper for the engine than a match
        # limited to the found rows
        for (rowid,) in connection.execute(
            "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?", (terms[word],)
        ):
            entry = found.get(rowid)
            if entry is not None:
                entry.words.append(word)


def _related_by_files(
    connection: sqlite3.Connection,
    found: dict[int, Related],
    files: list[str],
    exclude_session: str | None,
) -> None:
    """Add to ``found`` every conversation that edited or read one of ``files``, each with the
    files it edited and those it only read."""
    for chunk in range(0, len(files), 500):
        part = files[chunk : chunk + 500]
        rows = connection.execute(
            f"SELECT f.path, f.edited, {DOCS_COLUMNS}"
            " FROM doc_files f JOIN docs d ON d.rowid = f.doc"
            f" WHERE f.path IN ({','.join('?' * len(part))}) AND d.session_id IS NOT ?",
            (*part, exclude_session),
        ).fetchall()
        for file_path, edited, *columns in rows:
            rowid, hit = _hit(columns)
            entry = found.setdefault(rowid, Related(hit))
            (entry.edited if edited else entry.read).append(file_path)
