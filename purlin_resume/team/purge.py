"""Taking a teammate's own rows back out of the team (``team purge``).

Some rows: a tombstone for each is recorded in ``team/removed.jsonl`` first (so no later sync
sends them again, whatever the local log still holds), the next sync clears them from the team's
current files, and on git the ref's whole history is rewritten without them. Everything: this
teammate's folder is deleted from the current tree and from the ref's history, their rows are
deleted from a server, and they leave the team. A rewritten history is force-pushed with a
lease, so no teammate's push is lost; a remote that refuses forced pushes keeps the history.
What git and Dolt still hold afterwards is said in ``docs/team.md``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from purlin_resume.core import clock, store
from purlin_resume.core.errors import NotFound
from purlin_resume.resurrection import team_membership as membership
from purlin_resume.resurrection.team_membership import Membership
from purlin_resume.team import gitstore, members, sync
from purlin_resume.team.gitstore import silent
from purlin_resume.team.sync import Warn


def purge(
    history: Path,
    shelves: list[tuple[str, Path]],
    keys: list[str],
    warn: Warn = silent,
) -> dict[str, Any]:
    """Purge the rows of this teammate that ``keys`` name (a uuid, a bookmark's name or id, a
    resurrection id; every row of theirs that matches), or all of them when ``keys`` is empty."""
    m = sync.require(history)
    with sync.locked(m):
        if not keys:
            return _everything(m)
        fetched = None if m.dsn else gitstore.Fetched(gitstore.fetch(m))
        found = _matching(m, shelves, keys, fetched)
        now = clock.iso()
        for table, key, label in found:
            named = "resurrection_id" if table == "resurrection_log" else "bookmark_id"
            store.append_jsonl(
                m.removed, {"uuid": key, named: label, "table": table, "removed_at": now}
            )
            store.remove(m.contexts / f"{key}{members.PACK_SUFFIX}")
        if m.dsn:
            sync.sync_server(m, shelves, warn)
            kept = _server_history(m)
        else:
            sync.sync_git(m, shelves, warn, fetched)
            kept = gitstore.rewrite(
                m, members.folder(m.member), _without(m, {k for _, k, _ in found})
            )
    listed = [{"table": table, "uuid": key, "id": label} for table, key, label in found]
    return {
        "member": m.member,
        "remote": sync.where(m),
        "purged": len(listed),
        "rows": listed,
        "left": False,
        **kept,
    }


def _matching(
    m: Membership, shelves, keys: list[str], fetched: gitstore.Fetched | None
) -> list[tuple[str, str, str]]:
    """(table, uuid, readable id) of every row of this teammate that one of ``keys`` names, in
    the local files and (``fetched``) at the team ref's tip."""
    log_rows, mark_rows = sync.local_rows(m, shelves)
    candidates = [("resurrection_log", r) for r in log_rows] + [("bookmarks", r) for r in mark_rows]
    if fetched is not None:
        held = members.read(m, fetched.tip, m.member)
        for name, table in members.TABLES.items():
            candidates += [(table, row) for row in members.lines(held[name])]
    found: dict[str, tuple[str, str, str]] = {}
    for key in keys:
        named = [
            (table, row["uuid"], str(row.get("resurrection_id") or row.get("bookmark_id") or ""))
            for table, row in candidates
            if key
            in (
                row.get("uuid"),
                row.get("name"),
                row.get("bookmark_id"),
                row.get("resurrection_id"),
            )
        ]
        if not named:
            raise NotFound(
                f"no row of yours is named {key!r} (give a uuid, a bookmark's name or id, or a "
                "resurrection id); only your own rows can be purged"
            )
        found.update((uuid, item) for item in named for uuid in [item[1]])
    return list(found.values())


def _without(m: Membership, purged: set[str]) -> gitstore.Keep:
    """The history rewrite's choice for each of this teammate's files: the file without the
    purged rows' lines (their tombstones kept), no shared context of a purged bookmark."""
    made: dict[str, str] = {}

    def keep(path: str, blob: str) -> str | None:
        name = path.rsplit("/", 1)[1]
        if name.endswith(members.PACK_SUFFIX):
            return None if name[: -len(members.PACK_SUFFIX)] in purged else blob
        if blob not in made:
            data = gitstore.blob(m, blob)
            kept = members.compact(data, purged)
            made[blob] = blob if kept == data else gitstore.store_blob(m, kept)
        return made[blob]

    return keep


def _server_history(m: Membership) -> dict[str, Any]:
    db = sync.connect(m)
    try:
        versioned = db.versioned
    finally:
        db.close()
    if versioned:
        return {"rewritten": False, "reason": "Dolt's commit history keeps every earlier version"}
    return {"rewritten": True, "commits": 0}


def _everything(m: Membership) -> dict[str, Any]:
    """Every row of this teammate out of the team, and this Claude data folder out of it."""
    if m.dsn:
        db = sync.connect(m)
        try:
            db.prepare()
            count = db.purge_member()
        finally:
            db.close()
        kept = _server_history(m)
    else:
        mine = members.folder(m.member) + "/"
        count = 0

        def plan(tip: str | None) -> tuple[gitstore.Changes, str]:
            nonlocal count  # the rows on the tip the purge is published on
            gone = [p for p in gitstore.blobs(m, tip) if p.startswith(mine)]
            held = members.read(m, tip, m.member)
            count = sum(len(members.fold(text).live()) for text in held.values())
            return dict.fromkeys(gone), f"{m.member}: every row purged"

        gitstore.publish(m, plan)
        kept = gitstore.rewrite(m, members.folder(m.member))
    _leave(m)
    return {"member": m.member, "remote": sync.where(m), "purged": count, "left": True, **kept}


def _leave(m: Membership) -> None:
    """Drop the local team folder but the teammate's id (kept for a later ``team init``)."""
    store.remove(m.folder / membership.CONFIG)
    shutil.rmtree(m.repo, ignore_errors=True)
    shutil.rmtree(m.contexts, ignore_errors=True)
    for name in (membership.INDEX, membership.REMOVED):
        store.remove(m.folder / name)
