"""What a search reads from the index before it scores: each word's conversations, the best 500
by bm25, the titles and the projects; and how ``find`` has them read ahead, on the other core.

A warm ``find`` spends its time loading the modules that score and print, walking the
transcripts' folders (``claude/signatures``) and reading the index. So its command line starts a
child before anything is loaded (``cli/head_start``; ``find`` starts it itself otherwise): the
child walks, then, when the index holds exactly the sessions it walked (under the schema in
use), opens it read-only and makes these reads in one read transaction, with the index's
generation (a new random one with every build). The search takes them (``taken``) and uses them
when the index still has that generation and they are of its index file and its words: the
index is then exactly what the child found current, so the search neither refreshes it nor gets
the walk (on a long history the walk's answer is megabytes). Otherwise the child sends the walk
too, the search refreshes with it and uses the reads only if that changed nothing; else it reads
the index itself. Either way the answer is the same, and a child that fails or is not there only
costs the time.

The module loads nothing at its top but ``os`` and what the child's walk needs: the child starts
at once, and loads ``sqlite3`` and the query's parser once it has walked.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

from purlin_resume.claude import signatures
from purlin_resume.core import forked

SCHEMA_VERSION = "3"  # 2: the files of each conversation; 3: bodies redacted value by value
COLUMNS = (
    "rowid, kind, id, session_id, agent_id, project, title, agent_type, started_at, ended_at, turns"
)
DOCS_COLUMNS = ", ".join("d." + column for column in COLUMNS.split(", "))  # docs joined as d
BEST = 500  # the conversations the words' bm25 ranks
_AHEAD = "search reads"  # the name of the child's work (``core/forked``)


def index_file(folder: str, cache: str) -> str:
    """The index of the resolved Claude data folder ``folder`` in the cache folder ``cache``."""
    from hashlib import sha256

    return os.path.join(cache, f"search-{sha256(folder.encode()).hexdigest()[:12]}.sqlite")


# ---------------------------------------------------------------------------------------------
# the reads


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


def generation(connection: sqlite3.Connection) -> str | None:
    """The index's generation: a new random one with every build (None: built before this was
    kept)."""
    row = connection.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
    return row[0] if row else None


def new_generation(connection: sqlite3.Connection) -> None:
    """Give the index a new generation (in the transaction of a build)."""
    connection.execute(
        "INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (os.urandom(8).hex(),)
    )


# ---------------------------------------------------------------------------------------------
# read ahead


def start(root: str | os.PathLike, text: str) -> None:
    """Walk ``root`` and make the reads of a search for ``text`` in a child (one at a time: one
    under way already is kept)."""
    if not forked.started(_AHEAD):
        forked.ahead(_AHEAD, _walk_and_read, os.fspath(root), text)


def let_go() -> None:
    """Stop the child if no search took its work (the command ended before)."""
    forked.discard(_AHEAD)


def taken(root: str | os.PathLike) -> tuple[dict | None, dict[str, Any] | None] | None:
    """(the signatures of ``root``'s sessions, the reads) from the child, if it walked that
    folder; else None. Once. Either may be None: no reads; no signatures when the reads carry
    the index's generation (the search compares that instead)."""
    done = forked.taken(_AHEAD)
    if done is forked.MISSING or done[0] != os.path.realpath(root):
        return None
    return done[1], done[2]


def _walk_and_read(root: str, text: str) -> tuple[str, dict | None, dict[str, Any] | None]:
    folder, current = signatures.walked(root)
    try:
        reads = _read(folder, current, text)
    except Exception:  # noqa: BLE001 - a damaged index, a locked one...: the search reads itself
        reads = None
    if reads is not None and reads["generation"] is not None:
        return folder, None, reads  # the search compares the generation, not the walk
    return folder, current, reads


def _read(folder: str, current: dict, text: str) -> dict[str, Any] | None:
    """The reads of a search for ``text``, if the index holds exactly the ``current`` sessions
    and every word is in it as it is (a word it does not hold is spelled again from the index's
    vocabulary: the search does that)."""
    import sqlite3

    from purlin_resume.core import cache_home
    from purlin_resume.resurrection.query import parse

    words = parse(text).words
    path = index_file(folder, cache_home.folder())
    if not words or not os.path.isfile(path):
        return None
    escaped = path.replace("%", "%25").replace("?", "%3f").replace("#", "%23")
    connection = sqlite3.connect(f"file:{escaped}?mode=ro", uri=True, isolation_level=None)
    try:
        connection.execute("BEGIN")  # one snapshot: the check and the reads see the same index
        (schema,) = connection.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        held = generation(connection)
        known = dict(connection.execute("SELECT path, signature FROM sessions"))
        if schema != SCHEMA_VERSION or known != {key: sig for key, (_, _, sig) in current.items()}:
            return None
        reads = read(connection, words)
        return (
            None if reads is None else {**reads, "generation": held, "index": path, "words": words}
        )
    finally:
        connection.close()
