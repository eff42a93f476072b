"""The one cache of purlin-resume: ``cache.sqlite`` in ``$XDG_CACHE_HOME/purlin-resume`` (or
``~/.cache/purlin-resume`` when the variable is unset or empty), holding what is derived from
other files and kept between runs.

Every kept row names the files it came from by their signature (size, mtime_ns and inode of
each): a row whose signature differs from the files' now is read again from them. The file is
0600 in a 0700 folder. A folder or file that is a symbolic link, or not this user's alone, is
refused: nothing is kept and every answer comes from the sources. A file that is damaged, is
not ours (another application id) or has another schema version is deleted and built again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from purlin_resume.core import store
from purlin_resume.core.errors import PurlinError, system_refusal

if TYPE_CHECKING:
    import sqlite3

FILE_NAME = "cache.sqlite"
APPLICATION_ID = 0x50524331  # "PRC1": a SQLite file of someone else's is not read as ours
SCHEMA_VERSION = 1
BUSY_MS = 10_000
SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    folder TEXT NOT NULL,      -- the Claude data folder, resolved
    file TEXT NOT NULL,        -- the session's transcript
    entry TEXT NOT NULL,       -- JSON: its figures (redacted) and "sig", its files' signature
    PRIMARY KEY (folder, file)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS contexts (
    key TEXT PRIMARY KEY,      -- the transcript files' signatures, the agent, the method
    created REAL NOT NULL,     -- seconds since the epoch
    entry TEXT NOT NULL        -- JSON: the extracted context (redacted)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS recommendations (
    project TEXT PRIMARY KEY,  -- the project's root ('-' for none)
    made TEXT NOT NULL         -- JSON: the last list made (redacted)
) WITHOUT ROWID;
"""
SUFFIXES = ("", "-wal", "-shm", "-journal")


def index_path(claude_root: Path, cache: Path) -> Path:
    """The search index of the Claude data folder ``claude_root`` in the cache folder ``cache``
    (a SQLite file of its own, beside ``cache.sqlite``)."""
    data = os.path.realpath(claude_root)  # a loop of links stays as it is
    return Path(cache) / f"search-{hashlib.sha256(data.encode()).hexdigest()[:12]}.sqlite"


def folder() -> str:
    """The user's cache folder of purlin-resume (it may not exist yet)."""
    return str(store.user_folder("cache"))


def signature(path: str | os.PathLike) -> str | None:
    """Size, mtime_ns and inode of ``path``: what a row kept from it is checked against; None
    when it is gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"


def _private(info: os.stat_result) -> bool:
    return info.st_uid == os.geteuid() and not info.st_mode & 0o077


def _folder_refusal(where: str) -> str | None:
    """Why ``where`` cannot hold the cache (made 0700 or checked as ``store.private_folder``
    does); None: it can."""
    try:
        store.private_folder(Path(where))
    except PurlinError as exc:
        return exc.message
    except OSError as exc:
        return system_refusal(exc, path=Path(where))
    return None


def _file_refusal(path: str) -> str | None:
    """Why ``path`` is not a regular file of this user's, 0600 (created so when absent); None:
    it is one."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        return system_refusal(exc, path=Path(path))
    try:
        info = os.lstat(path)
    except OSError as exc:
        return system_refusal(exc, path=Path(path))
    if stat.S_ISREG(info.st_mode) and _private(info):
        return None
    return f"refusing {path}: it is not a file of yours alone; remove it and run the command again"


def refusal(path: str | os.PathLike) -> str | None:
    """Why ``path`` (created when absent) is not a file of the cache to use, in a line naming it;
    None when it is one: a regular file of this user's alone, 0600, in a folder of this user's
    that no one else may write into."""
    path = os.fspath(path)
    return _folder_refusal(os.path.dirname(path)) or _file_refusal(path)


def private_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` (created when absent) is a file of the cache to use (``refusal``)."""
    return refusal(path) is None


def discard(path: str) -> None:
    """Delete the cache file at ``path`` (and SQLite's files beside it): it is built again."""
    for suffix in SUFFIXES:
        with contextlib.suppress(OSError):
            os.unlink(path + suffix)


def _connect(path: str) -> sqlite3.Connection:
    """The file at ``path`` opened, checked as ours and of this schema (sqlite3.DatabaseError
    when it is not)."""
    import sqlite3  # (here: the hook path loads this module, through redaction, and no SQLite)

    connection = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        # one statement, so one snapshot: read apart, another process's commit could fall
        # between them and a file half seen as made would be taken for someone else's
        found, version, tables = connection.execute(
            "SELECT a.application_id, u.user_version, (SELECT count(*) FROM sqlite_schema)"
            " FROM pragma_application_id AS a, pragma_user_version AS u"
        ).fetchone()
        if (found, version, tables) == (0, 0, 0):
            connection.execute("PRAGMA journal_mode = WAL")
            connection.executescript(
                f"BEGIN IMMEDIATE; {SCHEMA}"
                f"PRAGMA application_id = {APPLICATION_ID};"
                f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            )
        elif (found, version) != (APPLICATION_ID, SCHEMA_VERSION):
            raise sqlite3.DatabaseError(f"not this cache: {found:#x} version {version}")
    except BaseException:
        connection.close()
        raise
    return connection


@contextlib.contextmanager
def opened(where: str | os.PathLike | None = None) -> Iterator[sqlite3.Connection | None]:
    """The cache file of the folder ``where`` (else ``folder()``), open for the block; None
    when it is refused (see the module's description). A damaged or foreign file is deleted and
    made again; one that still cannot be opened is None too."""
    import sqlite3

    path = os.fspath(path_of(where))
    connection = None
    for _ in range(2):
        if not private_file(path):
            break
        try:
            connection = _connect(path)
            break
        except sqlite3.Error as exc:
            if not damaged(exc, where):
                break
    try:
        yield connection
    finally:
        if connection is not None:
            connection.close()


def damaged(exc: sqlite3.Error, where: str | os.PathLike | None = None) -> bool:
    """Whether ``exc`` says the cache file of ``where`` is damaged or not ours: then it is
    deleted, to be built again. A busy or read-only file is left as it is (False)."""
    import sqlite3

    if isinstance(exc, sqlite3.OperationalError) or not isinstance(exc, sqlite3.DatabaseError):
        return False
    discard(os.fspath(path_of(where)))
    return True


def read(
    sql: str, parameters: Sequence[Any] = (), where: str | os.PathLike | None = None
) -> list[tuple] | None:
    """The rows ``sql`` selects from the cache of ``where`` (else ``folder()``); None when
    there is no cache to read (refused, busy, damaged: a damaged one is built again later)."""
    import sqlite3

    with opened(where) as connection:
        if connection is None:
            return None
        try:
            return connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            damaged(exc, where)
            return None


def write(
    changes: Iterable[tuple[str, Iterable[Sequence[Any]]]],
    where: str | os.PathLike | None = None,
) -> bool:
    """Run each statement of ``changes`` over its rows of parameters, in one transaction of
    the cache of ``where`` (else ``folder()``); False when nothing was written (a cache that
    cannot be written only costs the next run its time)."""
    import sqlite3

    with opened(where) as connection:
        if connection is None:
            return False
        try:
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                for sql, rows in changes:
                    connection.executemany(sql, rows)
        except sqlite3.Error as exc:
            damaged(exc, where)
            return False
    return True


def path_of(where: str | os.PathLike | None = None) -> Path:
    """Where the cache file of ``where`` (else ``folder()``) is."""
    return Path(where if where is not None else folder()) / FILE_NAME
