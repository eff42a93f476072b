"""The one call the domain makes after a change: queue it for the team database.

``changed`` costs one ``stat`` when this Claude data folder has no team. With a team it
appends the change to ``team/outbox.jsonl`` and starts ``python -m purlin_resume.team flush``
detached, which commits it into the team database (so the command that made the change never
waits for, nor loads, the database engine). ``PURLIN_TEAM_FOREGROUND=1`` waits for it instead.
A change that cannot be queued costs one warning line on stderr; the local change stands.
Nothing here raises.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from purlin_resume.resurrection import team_membership as membership

FOREGROUND_ENV = "PURLIN_TEAM_FOREGROUND"
KINDS = ("resurrection", "bookmark")


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
    from purlin_resume.claude import layout

    return layout.history_dir(None)


def bookmark_changed(path: Path, op: str, record: dict[str, Any]) -> None:
    """Queue a bookmark change made in the file ``path``."""
    try:
        history = bookmark_history(path)
    except Exception:  # noqa: BLE001 -- no Claude data folder: no team either
        return
    scope = "global" if Path(path).parent.name == "history" else "local"
    changed(history, "bookmark", op, record, scope=scope)


def changed(history: Path, kind: str, op: str, record: dict[str, Any], **more: Any) -> None:
    """Queue ``record`` (a log entry or a bookmark) for the team database of ``history``."""
    try:
        if not membership.joined(history):
            return
        from purlin_resume.core import clock, store

        outbox = membership.folder(history) / membership.OUTBOX
        store.append_jsonl(
            outbox, {"kind": kind, "op": op, "at": clock.iso(), "record": record, **more}
        )
    except Exception as exc:  # noqa: BLE001 -- the local change stands whatever happens here
        _warn(f"could not queue the {kind} change for the team database: {exc}")
        return
    _flush(Path(history))


def _command(history: Path) -> list[str]:
    return [sys.executable, "-m", "purlin_resume.team", "flush", str(history)]


def _flush(history: Path) -> None:
    import subprocess

    try:
        if os.environ.get(FOREGROUND_ENV) or not hasattr(os, "fork"):
            done = subprocess.run(
                _command(history),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
                check=False,
            )
            if done.returncode != 0:
                lines = (done.stderr or "").strip().splitlines()
                _warn(lines[-1] if lines else f"the team flush ended with {done.returncode}")
            return
        _spawn_detached(_command(history))
    except Exception as exc:  # noqa: BLE001
        _warn(f"the change is queued; 'purlin-resume team sync' will commit it ({exc})")


def _spawn_detached(argv: list[str]) -> None:
    """Start ``argv`` in its own session, parented to init (no zombie, no waiting)."""
    pid = os.fork()
    if pid == 0:  # the intermediate child: start the grandchild, then leave at once
        try:
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            os.posix_spawn(
                argv[0],
                argv,
                dict(os.environ),
                file_actions=[(os.POSIX_SPAWN_DUP2, null, fd) for fd in (0, 1, 2)],
            )
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
