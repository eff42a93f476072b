"""Joining a team, syncing with it, and what its status and history say.

Every use of the local team folder happens under ``team/team.lock``. ``init`` checks the
remote (or server), writes ``team.json`` last and then syncs, so a failed ``init`` leaves no
membership behind. ``sync`` reads the local log, bookmarks, removals and shared contexts, and
sends whatever the team lacks (``gitstore`` or ``server``); it never reads what it sent before
from anywhere but the team, so a lost or rolled-back local copy loses nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, store
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.resurrection import team_membership as membership
from purlin_resume.resurrection.team_membership import Membership
from purlin_resume.team import gitstore, index, members, refuse_secrets, rows
from purlin_resume.team.gitstore import silent
from purlin_resume.team.server import Server, shown_dsn

LOCK_SECONDS = 600
Warn = Callable[[str], None]


def where(m: Membership) -> str:
    if m.dsn:
        return shown_dsn(m.dsn)
    return gitstore.shown_url(m.remote)


def require(history: Path) -> Membership:
    found = membership.load(history)
    if found is None:
        raise NotFound(
            f"no team set up for {history}: run 'purlin-resume team init --remote GIT_URL' "
            "(or --dsn mysql://user@host/db)"
        )
    if found.remote:
        refuse_secrets(found.remote, f"the team remote in {found.folder / membership.CONFIG}")
    return found


@contextlib.contextmanager
def locked(m: Membership) -> Iterator[None]:
    store.private_folder(m.folder)
    with store.locked(m.lock, timeout=LOCK_SECONDS):
        yield


# ---------------------------------------------------------------------------------------------
# what the local files hold


def _removals(m: Membership) -> list[dict[str, Any]]:
    """The removal rows of ``removed.jsonl`` (lines cut short by a crash are skipped)."""
    try:
        text = store.read_text(m.removed)
    except NotFound:
        return []
    return [
        row
        for row in store.jsonl_rows(text)
        if isinstance(row.get("uuid"), str) and row.get("removed_at")
    ]


def local_rows(
    m: Membership, shelves: list[tuple[str, Path]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """This teammate's rows: the log's and the bookmarks', each followed by the tombstones of
    its removed or purged rows (a purged row the log still holds is left out)."""
    gone = _removals(m)
    keys = {row["uuid"] for row in gone}
    found = []
    for table, made in (
        ("resurrection_log", rows.log_rows(m.history, m.member)),
        ("bookmarks", rows.bookmark_rows(shelves, m.member)),
    ):
        ended = [r for r in gone if r.get("table", "bookmarks") == table]
        found.append([r for r in made if r["uuid"] not in keys] + ended)
    return found[0], found[1]


def _local_packs(m: Membership) -> dict[str, bytes]:
    if not m.contexts.is_dir():
        return {}
    return {
        f.name[: -len(members.PACK_SUFFIX)]: f.read_bytes()
        for f in m.contexts.glob("*" + members.PACK_SUFFIX)
    }


# ---------------------------------------------------------------------------------------------
# git


def _git_plan(m: Membership, local: tuple[list, list], counted: dict[str, int]):
    log_rows, mark_rows = local
    packs = _local_packs(m)

    def plan(tip: str | None) -> tuple[gitstore.Changes, str]:
        changes: gitstore.Changes = {}
        counted.update(resurrections=0, bookmarks=0, contexts=0)
        removed: set[str] = set()
        present = gitstore.blobs(m, tip)
        for name, local, what in (
            (members.LOG, log_rows, "resurrections"),
            (members.BOOKMARKS, mark_rows, "bookmarks"),
        ):
            held = dict(
                sorted(
                    gitstore.read_many(m, tip, members.segments(present, m.member, name)).items()
                )
            )
            team = members.fold(members.joined(held.values()))
            wanted = members.missing(team, local)
            removed |= team.removed
            made = members.written(held, m.member, name, team.removed, wanted)
            changes.update(made)
            counted[what] = len(wanted)
        for key, pack in packs.items():
            path = members.pack_path(m.member, key)
            if key not in removed and present.get(path) != gitstore.blob_id(pack):
                changes[path] = pack
                counted["contexts"] += 1
        for path in present:
            found = members.pack_owner(path)
            if found is not None and found[1] == m.member and found[0] in removed:
                changes[path] = None
        message = (
            f"{m.member}: {counted['resurrections']} resurrection row(s), "
            f"{counted['bookmarks']} bookmark row(s), {counted['contexts']} shared context(s)"
        )
        return changes, message

    return plan


def sync_git(
    m: Membership,
    shelves: list[tuple[str, Path]],
    warn: Warn,
    fetched: gitstore.Fetched | None = None,
) -> dict[str, Any]:
    counted: dict[str, int] = {}
    local = local_rows(m, shelves)
    result = gitstore.publish(m, _git_plan(m, local, counted), warn, fetched)
    with index.opened(m, warn) as db:
        index.refresh(m, db, lambda: local)
        totals = _counts(lambda sql: db.execute(sql).fetchone()[0])
    return {"sent": counted, **result, **totals}


def _counts(one: Callable[[str], Any]) -> dict[str, int]:
    return {
        "members": int(
            one(
                "SELECT COUNT(DISTINCT member) FROM ("
                "SELECT member FROM resurrection_log UNION "
                "SELECT member FROM bookmarks) AS everyone"
            )
            or 0
        ),
        "resurrections": int(one("SELECT COUNT(*) FROM resurrection_log") or 0),
        "bookmarks": int(one("SELECT COUNT(*) FROM bookmarks") or 0),
        "shared_contexts": int(
            one("SELECT COUNT(*) FROM context_packs p JOIN bookmarks b ON b.uuid = p.bookmark_uuid")
            or 0
        ),
    }


# ---------------------------------------------------------------------------------------------
# a SQL server


def connect(m: Membership):
    return Server(str(m.dsn), m.member)


def sync_server(m: Membership, shelves: list[tuple[str, Path]], warn: Warn) -> dict[str, Any]:
    log_rows, mark_rows = local_rows(m, shelves)
    db = connect(m)
    try:
        db.prepare()
        branch = db.on_own_branch()
        sent = db.sent()
        team = members.Folded(versions=set(sent))
        for table, found in (("bookmarks", mark_rows), ("resurrection_log", log_rows)):
            gone = [r for r in found if members.tombstone(r)]
            db.remove(
                table, [(r["uuid"], rows.version(r)) for r in gone if rows.version(r) not in sent]
            )
            team.removed |= {r["uuid"] for r in gone}
        marks = members.missing(team, [r for r in mark_rows if not members.tombstone(r)])
        logs = members.missing(team, [r for r in log_rows if not members.tombstone(r)])
        counted = {
            "bookmarks": db.write("bookmarks", marks, rows.version, warn),
            "resurrections": 0,
            "contexts": 0,
        }
        live = {r[0] for r in db.tuples("SELECT uuid FROM bookmarks")}
        versions = {row["uuid"]: rows.version(row) for row in logs}  # of the rows as they are
        logs = [  # a bookmark the server does not hold (any more) is not referred to
            row if row.get("bookmark_uuid") in live else {**row, "bookmark_uuid": None}
            for row in logs
        ]
        counted["resurrections"] = db.write(
            "resurrection_log", logs, lambda row: versions[row["uuid"]], warn
        )
        packs = [
            {
                "bookmark_uuid": key,
                "member": m.member,
                "pack": pack,
                "shared_at": _pack_time(pack),
                "method": "hybrid",
                "tokens": None,
            }
            for key, pack in _local_packs(m).items()
            if key in live
        ]
        counted["contexts"] = db.write(
            "context_packs", [p for p in packs if _pack_version(p) not in sent], _pack_version, warn
        )
        db.merge_into_main(
            branch,
            f"{m.member}: {counted['resurrections']} resurrection row(s), "
            f"{counted['bookmarks']} bookmark row(s)",
        )
        totals = _counts(lambda sql: db.tuples(sql)[0][0])
        return {"sent": counted, "attempts": 1, **totals}
    finally:
        db.close()


def _pack_version(pack: dict[str, Any]) -> str:
    return hashlib.sha1(pack["bookmark_uuid"].encode() + pack["pack"]).hexdigest()


def _pack_time(pack: bytes) -> str:
    with contextlib.suppress(Exception):
        return str(unpacked(pack)["shared_at"])
    return clock.iso()


# ---------------------------------------------------------------------------------------------
# the commands


def sync(history: Path, shelves: list[tuple[str, Path]], warn: Warn = silent) -> dict[str, Any]:
    """Send what the team lacks and bring the team's rows in; the figures of what happened."""
    m = require(history)
    with locked(m):
        found = sync_server(m, shelves, warn) if m.dsn else sync_git(m, shelves, warn)
    return {"member": m.member, "transport": m.transport, "remote": where(m), **found}


@contextlib.contextmanager
def _undone_on_failure(history: Path) -> Iterator[None]:
    """Remove what a failed ``init`` made in the team folder (the member id, the local copy,
    the lock; the folder itself, and the history folder while empty, when they were not there),
    keeping what was there before and what other commands wrote meanwhile."""
    folder = membership.folder(history)
    made = [p for p in (history, folder) if not p.exists()]
    before = set(folder.iterdir()) if folder.exists() else set()
    try:
        yield
    except BaseException:
        if folder in made:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            for entry in set(folder.iterdir()) - before:
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
        if history in made:
            with contextlib.suppress(OSError):
                history.rmdir()  # only while empty: a log written meanwhile stays
        raise


def init(
    history: Path,
    shelves: list[tuple[str, Path]],
    remote: str | None = None,
    dsn: str | None = None,
    project: Path | None = None,
    ref: str | None = None,
    group: str | None = None,
    warn: Warn = silent,
) -> dict[str, Any]:
    """Join (or found) a team, and send it the local log and bookmarks."""
    if bool(remote) == bool(dsn):
        raise UsageError("give either --remote GIT_URL or --dsn mysql://user@host/db")
    history = Path(history)
    existing = membership.load(history)
    if existing is not None:
        raise PurlinError(
            f"this Claude data folder is already in a team ({where(existing)}); remove "
            f"{existing.folder / membership.CONFIG} first to join another"
        )
    with _undone_on_failure(history):
        member = membership.member_id(history)
        created = False
        if dsn:
            m = Membership(history, member, dsn=dsn)
            with locked(m):
                db = connect(m)
                try:
                    created = db.prepare()
                finally:
                    db.close()
        else:
            url = gitstore.remote_url(str(remote), project)
            if ref and not ref.startswith("refs/"):
                raise UsageError(f"--ref {ref!r}: give a full ref name, such as refs/purlin/team")
            m = Membership(
                history, member, remote=url, ref=ref or membership.DEFAULT_REF, group=group
            )
            if "://" not in url and ":" not in url.split("/")[0]:
                created = gitstore.create_on_disk(url, group)
            with locked(m):
                gitstore.fetch(m)
            other = gitstore.ref_in_the_way(m)
            if other is not None:
                raise UsageError(f"--ref: {gitstore.in_the_way(m, other)}; give another --ref")
        with locked(m):
            membership.save(m)
    return {"created": created, **sync(history, shelves, warn)}


def status(history: Path, shelves: list[tuple[str, Path]]) -> dict[str, Any]:
    """Who this teammate is, where the team is, and what it lacks of the local rows."""
    m = require(history)
    log_rows, mark_rows = local_rows(m, shelves)
    result: dict[str, Any] = {"member": m.member, "transport": m.transport, "remote": where(m)}
    with locked(m):
        if m.dsn:
            db = connect(m)
            try:
                team = members.Folded(versions=db.sent())
                result.update(_counts(lambda sql: db.tuples(sql)[0][0]), versioned=db.versioned)
            finally:
                db.close()
            unsent = len(members.missing(team, mark_rows)) + len(members.missing(team, log_rows))
        else:
            tip = gitstore.tip(m)
            held = members.read(m, tip, m.member)
            unsent = 0
            for name, local in ((members.LOG, log_rows), (members.BOOKMARKS, mark_rows)):
                unsent += len(members.missing(members.fold(held[name]), local))
            result["tip"] = tip
    result["unsent"] = unsent
    return result


def commits(history: Path, limit: int = 20) -> list[dict[str, Any]]:
    """The team's latest commits, newest first (as of the last sync)."""
    m = require(history)
    with locked(m):
        if m.dsn:
            db = connect(m)
            try:
                return db.history(limit)
            finally:
                db.close()
        return gitstore.history(m, limit)


def shared_pack(context: dict[str, Any], method: str, tokens: int, at: str) -> bytes:
    return zlib.compress(
        json.dumps(
            {"context": context, "method": method, "tokens": tokens, "shared_at": at},
            ensure_ascii=False,
        ).encode("utf-8"),
        9,
    )


PACK_LIMIT = 64 * 1024 * 1024  # bytes a shared context may unpack to


def unpacked(pack: bytes) -> Any:
    """A teammate's shared pack read back; ``ValueError`` when it unpacks to more than
    ``PACK_LIMIT`` bytes (a pack is theirs: it may be made to fill the memory)."""
    reader = zlib.decompressobj()
    text = reader.decompress(pack, PACK_LIMIT)
    if reader.unconsumed_tail:
        raise ValueError("the shared context is too large")
    return json.loads(text.decode("utf-8"))
