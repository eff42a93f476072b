"""``python -m purlin_resume.team flush HISTORY``: commit the queued changes of one Claude data
folder into its team database (what ``mirror`` starts after each change). A failure is one
line on stderr and in ``team/mirror.log``; the queue keeps the changes for the next run."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "flush":
        sys.stderr.write("usage: python -m purlin_resume.team flush HISTORY_FOLDER\n")
        return 2
    history = Path(argv[1])
    from purlin_resume.team import sync

    try:
        sync.flush(history)
    except Exception as exc:  # noqa: BLE001 -- reported in one line, kept for the next run
        from purlin_resume.core import clock, store
        from purlin_resume.resurrection import team_membership as membership

        text = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        line = f"{clock.iso()} the queued changes stay queued: {' '.join(str(text).split())}"
        with contextlib.suppress(Exception):
            store.append_jsonl(membership.folder(history) / membership.FAILURES, line)
        sys.stderr.write(line + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
