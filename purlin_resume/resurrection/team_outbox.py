"""The one call the domain makes after a bookmark change, for the team.

The log and the bookmark files are what ``team sync`` reads, so adding and changing need no
queue. A removal is the one change those files cannot show (a bookmark missing from a file
rolled back to an older copy was never removed), so ``bookmark rm`` records it in
``team/removed.jsonl``, which is only appended to, and drops the context shared with it. This
costs one ``stat`` when the Claude data folder has no team; a removal that cannot be recorded
costs one warning line on stderr, and the local change stands. Nothing here raises.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from purlin_resume.claude import layout
from purlin_resume.core import clock, store
from purlin_resume.resurrection import team_membership as membership


def _warn(text: str) -> None:
    try:
        sys.stderr.write(f"warning: team: {' '.join(text.split())}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def bookmark_history(path: Path) -> Path:
    """The history folder a bookmark file's changes belong to: the global file's own folder;
    for a project's file, the current Claude data folder's."""
    path = Path(path)
    if path.parent.name == "history":
        return path.parent

    return layout.history_dir(None)


def bookmark_changed(path: Path, op: str, record: dict[str, Any]) -> None:
    """Note a bookmark change made in the file ``path`` (only a removal needs noting)."""
    if op != "remove":
        return
    try:
        history = bookmark_history(path)
        if not membership.joined(history):
            return
        removed(history, record)
    except Exception as exc:  # noqa: BLE001 -- the local change stands whatever happens here
        _warn(f"could not record the removal of {record.get('name')!r} for the team: {exc}")


def removed(history: Path, record: dict[str, Any]) -> None:
    """Record the removal of the bookmark ``record`` and drop its shared context."""
    key = membership.bookmark_key(record)
    folder = membership.folder(history)
    store.append_jsonl(
        folder / membership.REMOVED,
        {"uuid": key, "bookmark_id": record.get("bookmark_id"), "removed_at": clock.iso()},
    )
    store.remove(folder / membership.CONTEXTS / f"{key}.json.z")
