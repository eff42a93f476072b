"""Setting up, filling and syncing a teammate's team database.

Every use of the local database happens under ``team/team.lock`` (two syncs, a sync and a
flush, never meet). ``init`` builds the database beside its final place and moves it in only
when it is complete, and writes ``team.json`` last: a failed ``init`` leaves nothing behind.
``sync`` commits what an interrupted run left uncommitted, commits the queued changes, pulls
(a merge when both sides moved), checks the schema it pulled (a newer one is undone with a hard
reset to the commit before the pull), and pushes; when the remote moved during the merge, the
push is refused and the pull and push are tried again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, store
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.resurrection import bookmarks
from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.resurrection import team_membership as membership
from purlin_resume.resurrection.team_membership import Membership
from purlin_resume.team import rows, schema
from purlin_resume.team.backends import Database, Embedded, Server, TeamError, shown_dsn

BATCH = 20  # more queued changes than this are committed together
RETRIES = 5
LOCK_SECONDS = 60


def author(member: str) -> str:
    return f"{member} <{member}@purlin-resume>"


def where(m: Membership) -> str:
    return shown_dsn(m.dsn) if m.dsn else str(m.remote)


def require(history: Path) -> Membership:
    found = membership.load(history)
    if found is None:
        raise NotFound(
            f"no team set up for {history}: run 'purlin-resume team init --remote URL' "
            "(or --dsn mysql://...)"
        )
    return found


def check_schema(db: Database, place: str) -> None:
    version = db.schema_version()
    if version is None:
        raise TeamError(f"{place} is not a purlin-resume team database (no {schema.META} table)")
    if version > schema.VERSION:
        raise TeamError(
            f"{place} uses team schema {version}, newer than this purlin-resume knows "
            f"({schema.VERSION}): upgrade purlin-resume"
        )


def _connect(m: Membership) -> Database:
    if m.dsn:
        db: Database = Server(m.dsn, author(m.member))
    else:
        if not m.database.is_file():
            raise TeamError(
                f"the team database {m.database} is missing: remove {m.folder / membership.CONFIG} "
                "and run 'purlin-resume team init' again"
            )
        db = Embedded(m.database, author(m.member))
    try:
        check_schema(db, where(m) if m.dsn else str(m.database))
    except BaseException:
        db.close()
        raise
    return db


@contextlib.contextmanager
def opened(m: Membership) -> Iterator[Database]:
    with store.locked(m.lock, timeout=LOCK_SECONDS):
        db = _connect(m)
        try:
            yield db
        finally:
            db.close()


# ---------------------------------------------------------------------------------------------
# the rows a change becomes


def _known_bookmarks(db: Database) -> set[str]:
    return {r["bookmark_id"] for r in db.query("SELECT bookmark_id FROM bookmarks")}


def _with_known_bookmark(row: dict[str, Any], known: set[str]) -> dict[str, Any]:
    """A row whose bookmark is not in the team table keeps its id in ``extra`` instead of
    breaking the foreign key."""
    if row.get("bookmark_id") and row["bookmark_id"] not in known:
        extra = json.loads(row["extra"]) if row.get("extra") else {}
        extra["bookmark_id"] = row["bookmark_id"]
        row = {**row, "bookmark_id": None, "extra": json.dumps(extra, sort_keys=True)}
    return row


def _change_rows(change: dict[str, Any], member: str) -> tuple[str, dict[str, Any]]:
    record = change.get("record") or {}
    if change.get("kind") == "resurrection":
        return "resurrection_log", rows.log_row(record, member)
    row = rows.bookmark_row(record, member, change.get("scope"))
    if change.get("op") == "remove":
        row["removed_at"] = change.get("at") or clock.iso()
    return "bookmarks", row


def message(change: dict[str, Any], member: str) -> str:
    """The Dolt commit message that names one change."""
    record = change.get("record") or {}
    op = change.get("op")
    if change.get("kind") == "resurrection":
        ident = rows.team_id(str(record.get("resurrection_id")), member)
        if op == "complete":
            return f"resurrect done {ident}: {record.get('outcome')}"
        source = record.get("resurrected_from_agent_id") or record.get(
            "resurrected_from_session_id"
        )
        return (
            f"resurrection {ident}: {source} as {record.get('resurrected_as_agent_id')} "
            f"({record.get('resurrection_mode')}, {record.get('outcome')})"
        )
    ident = rows.team_id(str(record.get("bookmark_id")), member)
    return f"bookmark {op} {record.get('name')} ({ident})"


def _write(db: Database, changes: list[dict[str, Any]], member: str) -> None:
    """The rows of ``changes``, in one transaction: bookmarks first (the log refers to them),
    each table in the order the changes came."""
    tables: dict[str, list[dict[str, Any]]] = {"bookmarks": [], "resurrection_log": []}
    for change in changes:
        table, row = _change_rows(change, member)
        tables[table].append(row)
    db.begin()
    try:
        known = _known_bookmarks(db) | {row["bookmark_id"] for row in tables["bookmarks"]}
        db.upsert("bookmarks", tables["bookmarks"])
        db.upsert(
            "resurrection_log",
            [_with_known_bookmark(row, known) for row in tables["resurrection_log"]],
        )
        db.end()
    except BaseException:
        db.rollback()
        raise


def _apply(db: Database, changes: list[dict[str, Any]], member: str) -> int:
    """Write and commit ``changes``: one commit each, or one for a long queue."""
    groups = [changes] if len(changes) > BATCH else [[c] for c in changes]
    commits = 0
    for group in groups:
        _write(db, group, member)
        if len(group) == 1:
            text = message(group[0], member)
        else:
            text = (
                f"mirror {len(group)} changes of {member}: "
                + "; ".join(message(c, member) for c in group[:3])
                + ("; …" if len(group) > 3 else "")
            )
        if db.commit(text):
            commits += 1
    return commits


def _queued(m: Membership) -> tuple[list[dict[str, Any]], int]:
    """The queued changes and the length of the text they came from."""
    try:
        text = store.read_text(m.outbox)
    except NotFound:
        return [], 0
    changes = []
    for line in text.splitlines():
        try:
            change = json.loads(line)
        except ValueError:
            continue  # a line cut short by a crash
        if isinstance(change, dict) and isinstance(change.get("record"), dict):
            changes.append(change)
    return changes, len(text)


def _drop_queued(m: Membership, length: int) -> None:
    store.update_text(m.outbox, lambda text: (text or "")[length:])


def flush_into(db: Database, m: Membership) -> int:
    """Commit the queued changes (the caller holds the lock); how many commits it made."""
    changes, length = _queued(m)
    if not changes:
        if length:
            _drop_queued(m, length)
        return 0
    commits = _apply(db, changes, m.member)
    _drop_queued(m, length)
    return commits


def flush(history: Path) -> int:
    m = membership.load(history)
    if m is None:
        return 0
    with opened(m) as db:
        return flush_into(db, m)


# ---------------------------------------------------------------------------------------------
# remotes


def _remote_error(exc: Exception, remote: str) -> TeamError:
    text = " ".join(str(exc).split())
    name = getattr(exc, "sqlite_errorname", "")
    if name == "SQLITE_NOTADB" or "clone failed" in text or "not a database" in text:
        return TeamError(f"{remote} is not a Dolt database; give the URL of a team database")
    if name == "SQLITE_CANTOPEN" or "connect" in text or "open remote" in text:
        return TeamError(f"cannot reach the remote {remote}: {text}; check the URL and the network")
    return TeamError(f"the remote {remote} refused: {text}")


# What a push says when another teammate pushed between our pull and our push
MOVED = ("fast-forward", "remote refs changed")


def _pull_push(db: Embedded, remote: str) -> dict[str, Any]:
    before = db.head()
    for attempt in range(1, RETRIES + 1):
        try:
            db.call("dolt_pull", "origin", "main")
        except db.errors.Error as exc:
            raise _remote_error(exc, remote) from None
        try:
            check_schema(db, remote)
        except TeamError:
            db.call("dolt_reset", "--hard", before)
            raise
        try:
            db.call("dolt_push", "origin", "main")
        except db.errors.Error as exc:
            moved = any(sign in str(exc) for sign in MOVED)
            if moved and attempt < RETRIES:
                continue  # the remote moved while we merged: pull it again
            raise _remote_error(exc, remote) from None
        return {"attempts": attempt, "before": before, "after": db.head()}
    raise TeamError(f"the remote {remote} kept moving; run 'purlin-resume team sync' again")


def sync(history: Path) -> dict[str, Any]:
    """Commit, pull, merge and push; the figures of what happened."""
    m = require(history)
    with opened(m) as db:
        leftover = db.commit("changes an interrupted run left uncommitted")
        commits = flush_into(db, m) + (1 if leftover else 0)
        result: dict[str, Any] = {"member": m.member, "committed": commits, "remote": where(m)}
        if isinstance(db, Embedded):
            result.update(_pull_push(db, str(m.remote)))
        result.update(counts(db))
        return result


def counts(db: Database) -> dict[str, int]:
    def one(sql: str) -> int:
        return int(next(iter(db.query(sql)[0].values())) or 0)

    return {
        "resurrections": one("SELECT COUNT(*) FROM resurrection_log"),
        "bookmarks": one("SELECT COUNT(*) FROM bookmarks WHERE removed_at IS NULL"),
        "shared_contexts": one("SELECT COUNT(*) FROM context_packs"),
    }


# ---------------------------------------------------------------------------------------------
# init


def _local_records(history: Path, shelves: list[tuple[str, Path]]) -> list[dict[str, Any]]:
    """The existing log and bookmarks as queued changes (bookmarks first: the log refers to
    them)."""
    changes: list[dict[str, Any]] = []
    for scope, path in shelves:
        for mark in bookmarks.load(path, scope):
            changes.append(
                {"kind": "bookmark", "op": "add", "scope": scope, "record": mark.to_dict()}
            )
    entries, _ = resurrection_log.read(history / resurrection_log.FILE_NAME)
    changes += [{"kind": "resurrection", "op": "append", "record": e} for e in entries]
    return changes


def _import(db: Database, changes: list[dict[str, Any]], member: str) -> None:
    if not changes:
        return
    _write(db, changes, member)
    marks = sum(1 for c in changes if c["kind"] == "bookmark")
    db.commit(f"import {len(changes) - marks} resurrections and {marks} bookmarks of {member}")


def _check_remote(remote: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in remote):
        raise UsageError("--remote: the URL holds control characters; give a plain URL")
    if remote.startswith("file://"):
        path = remote[len("file://") :]
        if not path.startswith("/"):
            raise UsageError(f"--remote {remote!r}: a file:// URL needs an absolute path")
        return remote
    if remote.startswith(("http://", "https://")):
        return remote
    raise UsageError(
        f"--remote {remote!r}: give file:///path/to/team.db or http://host:port/team.db"
    )


def init(
    history: Path,
    remote: str | None = None,
    dsn: str | None = None,
    shelves: list[tuple[str, Path]] | None = None,
) -> dict[str, Any]:
    """Join (or found) a team: the database set up, the local history imported and shared."""
    if bool(remote) == bool(dsn):
        raise UsageError("give either --remote URL or --dsn mysql://user@host:3306/db")
    history = Path(history)
    existing = membership.load(history)
    if existing is not None:
        raise PurlinError(
            f"this Claude data folder is already in a team ({where(existing)}); remove "
            f"{existing.folder / membership.CONFIG} first to join another"
        )
    member = membership.member_id(history)
    m = Membership(history, member, _check_remote(remote) if remote else None, dsn)
    changes = _local_records(history, shelves or [])
    with store.locked(m.lock, timeout=LOCK_SECONDS):
        result = _init_server(m, changes) if dsn else _init_embedded(m, changes)
        membership.save(m)
    return {"member": member, "remote": where(m), "backend": m.backend, **result}


def _init_server(m: Membership, changes: list[dict[str, Any]]) -> dict[str, Any]:
    db = Server(str(m.dsn), author(m.member))
    try:
        tables = db.tables()
        created = False
        if not tables & {schema.META, "resurrection_log", "bookmarks", "context_packs"}:
            for statement in schema.statements(mysql=True):
                db.execute(statement)
            db.upsert(schema.META, [{"name": "schema_version", "value": str(schema.VERSION)}])
            db.commit("create the purlin-resume team database")
            created = True
        check_schema(db, where(m))
        _import(db, changes, m.member)
        return {"created": created, "versioned": db.versioned, **counts(db)}
    finally:
        db.close()


def _init_embedded(m: Membership, changes: list[dict[str, Any]]) -> dict[str, Any]:
    """Build the database in a folder of its own (doltlite leaves a lock file beside a
    database even after it is closed), then move it into place."""
    import shutil

    remote = str(m.remote)
    workshop = m.folder / f".init-{os.getpid()}"
    shutil.rmtree(workshop, ignore_errors=True)
    workshop.mkdir(parents=True, mode=0o700)
    building = workshop / m.database.name
    db = Embedded(building, author(m.member))
    try:
        local_path = remote[len("file://") :] if remote.startswith("file://") else None
        created = local_path is not None and not os.path.exists(local_path)
        if created:
            if not os.path.isdir(os.path.dirname(local_path)):
                raise TeamError(f"cannot create the remote {remote}: its folder does not exist")
            db.create_schema()
            db.commit("create the purlin-resume team database")
            db.call("dolt_remote", "add", "origin", remote)
        else:
            try:
                db.call("dolt_clone", remote)
            except db.errors.Error as exc:
                raise _remote_error(exc, remote) from None
            check_schema(db, remote)
        _import(db, changes, m.member)
        try:
            db.call("dolt_push", "origin", "main", *(["--force"] if created else []))
        except db.errors.Error as exc:
            if "fast-forward" not in str(exc):
                raise _remote_error(exc, remote) from None
            _pull_push(db, remote)
        figures = counts(db)
        db.close()
        os.replace(building, m.database)
    finally:
        db.close()
        shutil.rmtree(workshop, ignore_errors=True)
    return {"created": created, **figures}


# ---------------------------------------------------------------------------------------------
# status and history


def status(history: Path) -> dict[str, Any]:
    m = require(history)
    queued, _ = _queued(m)
    failure = None
    with contextlib.suppress(NotFound, OSError):
        lines = store.read_text(m.folder / membership.FAILURES).strip().splitlines()
        failure = lines[-1] if lines else None
    result: dict[str, Any] = {
        "member": m.member,
        "backend": m.backend,
        "remote": where(m),
        "database": str(m.database) if not m.dsn else None,
        "queued": len(queued),
        "last_failure": failure,
    }
    with opened(m) as db:
        result.update(counts(db))
        if isinstance(db, Embedded):
            head = db.head()
            tracked = db.query(
                "SELECT hash FROM dolt_remote_branches WHERE name = 'remotes/origin/main'"
            )
            result["head"] = head
            result["pushed"] = bool(tracked) and tracked[0]["hash"] == head
        else:
            result["versioned"] = db.versioned
    return result


def commits(history: Path, limit: int = 20) -> list[dict[str, Any]]:
    """The latest Dolt commits of the team database (queued changes committed first)."""
    m = require(history)
    with opened(m) as db:
        flush_into(db, m)
        if not db.versioned:
            raise TeamError(
                f"{where(m)} keeps no Dolt history (it is not a Dolt SQL server); "
                "the tables are shared, the commits are not"
            )
        return db.log(limit)
