"""One hook call (``purlin-resume hook EVENT``): what Claude Code runs, around ``capture``.

It reads the payload from stdin, finds the project (``$CLAUDE_PROJECT_DIR``, else the payload's
``cwd``, else the working directory; then its git top-level), runs the event's handler and
prints what it returns. It never breaks Claude Code: any failure becomes one JSON line in
``.purlin/cache/hook.log`` (redacted) and the exit code is always 0 (2 would block the tool
call). It imports only what the event needs: no Typer.

``pre-tool-use`` runs on every subagent spawn while Claude Code waits, so it answers at once:
the process reads its payload, leaves it in the spool folder (``$XDG_CACHE_HOME`` or
``~/.cache``, then ``purlin-resume/hook-spool/``), forks, and exits; the forked child (its own
session, standard streams on /dev/null) records the spawn and deletes the spooled copy. A child
killed before it recorded leaves its payload behind, and the next child records it: a spawn is
never lost, and recording one twice changes nothing. The handlers that need that record
(PostToolUse, SubagentStop) wait for it briefly. ``PURLIN_HOOK_FOREGROUND=1`` records in the
process itself; so do systems without ``fork``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

LOG_NAME = "hook.log"
BACKGROUND = frozenset({"pre-tool-use"})
FOREGROUND_ENV = "PURLIN_HOOK_FOREGROUND"
PROJECT_ENV = "CLAUDE_PROJECT_DIR"
STALE_SECONDS = 60  # a spooled payload this old has no child working on it any more


def _process_cwd() -> str | None:
    """The process's working directory; None when it was deleted (a worktree removed under a
    live session)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def project_root(cwd: str | None, env: Mapping[str, str]) -> Path | None:
    """The project a hook call belongs to; the process's own working directory only when
    neither ``$CLAUDE_PROJECT_DIR`` nor the payload names a folder. None when none exists."""
    from pathlib import Path

    from purlin_resume.core import gitrepo

    named = [c for c in (env.get(PROJECT_ENV), cwd) if c and os.path.isabs(c)]
    for candidate in named or [_process_cwd()]:
        if candidate and Path(candidate).is_dir():
            folder = Path(candidate).resolve()
            return gitrepo.toplevel(folder) or folder
    return None


def log_failure(
    root: Path | None, event: str, payload_session: str | None, exc: BaseException
) -> None:
    """One redacted line in ``.purlin/cache/hook.log`` (none without a project); a failure to
    log is swallowed."""
    from contextlib import suppress
    from pathlib import Path

    if root is None:
        return
    with suppress(Exception):  # the hook must exit 0 whatever happens
        import traceback

        from purlin_resume.core import clock, redact, store

        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else None
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        record = {
            "time": clock.iso(),
            "event": event,
            "session_id": payload_session,
            "error": " ".join(str(message).split()),
            "where": where,
        }
        cache = store.private_folder(root / ".purlin" / "cache")
        store.append_jsonl(cache / LOG_NAME, redact.redact_data(record)[0])


def run(
    event: str,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Handle one hook call; always 0."""
    from contextlib import suppress

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    env = os.environ if env is None else env
    root: Path | None = None
    session = None
    try:
        from purlin_resume.claude import hooks
        from purlin_resume.core.project import Project
        from purlin_resume.integration import capture

        text = stdin.read()
        try:
            payload = hooks.parse(event, text)
        except hooks.BadPayload:
            root = project_root(None, env)
            raise
        session = payload.session_id
        root = project_root(payload.cwd, env)
        if root is None:
            raise FileNotFoundError(f"no project folder: the payload's cwd {payload.cwd!r} is gone")
        handler = capture.HANDLERS[payload.event]
        if payload.event == "SessionStart":
            outcome = handler(Project(root), payload, env)
        else:
            outcome = handler(Project(root), payload)
        if outcome.output:
            stdout.write(hooks.session_context(outcome.output) + "\n")
            stdout.flush()
    except Exception as exc:  # noqa: BLE001 -- logged, never raised into Claude Code
        log_failure(root, event, session, exc)
        with suppress(Exception):
            message = " ".join(str(getattr(exc, "message", None) or exc).split())
            sys.stderr.write(
                f"purlin-resume hook {event}: {message} (see .purlin/cache/{LOG_NAME})\n"
            )
    return 0


def _detached() -> bool:
    """Fork; True in the parent. The child leaves the parent's session and standard streams."""
    if os.fork() > 0:
        return True
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    return False


def spool_dir(env: Mapping[str, str] = os.environ) -> str:
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "purlin-resume", "hook-spool")


def _spool(event: str, payload: bytes) -> str | None:
    """Keep a payload on disk until a child has recorded it; None when it cannot be kept."""
    import time

    try:
        folder = spool_dir()
        os.makedirs(folder, mode=0o700, exist_ok=True)
        final = os.path.join(folder, f"{time.time_ns()}-{os.getpid()}.{event}.json")
        data = os.environ.get(PROJECT_ENV, "").encode("utf-8", "replace") + b"\n" + payload
        fd = os.open(final + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(final + ".tmp", final)
        return final
    except OSError:
        return None


def drain_spool(stale_seconds: float = STALE_SECONDS) -> int:
    """Record the payloads that children killed before recording left behind; how many."""
    import io
    import time
    from contextlib import suppress

    folder = spool_dir()
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return 0
    done = 0
    for name in names:
        path = os.path.join(folder, name)
        parts = name.split(".")
        if len(parts) < 3 or parts[-1] not in ("json", "claimed"):
            continue
        try:
            age = time.time() - os.stat(path).st_mtime
        except OSError:
            continue
        if age < (stale_seconds if parts[-1] == "json" else 10 * stale_seconds):
            continue
        claimed = os.path.join(folder, f"{parts[0]}.{parts[1]}.{os.getpid()}.claimed")
        try:
            os.rename(path, claimed)  # only one drainer wins a file
            with open(claimed, "rb") as spooled:
                project, _, payload = spooled.read().partition(b"\n")
        except OSError:
            continue
        env = {k: v for k, v in os.environ.items() if k != PROJECT_ENV}
        if project:
            env[PROJECT_ENV] = project.decode("utf-8", "replace")
        run(parts[1], stdin=io.StringIO(payload.decode("utf-8", "replace")), env=env)
        with suppress(OSError):
            os.unlink(claimed)
        done += 1
    return done


def handle(event: str) -> None:
    """The console script's ``hook EVENT``: a background event answers at once (spool, fork,
    exit) and records in the child; the others run in this process. Always exits 0."""
    if event in BACKGROUND and not os.environ.get(FOREGROUND_ENV) and hasattr(os, "fork"):
        payload = sys.stdin.buffer.read()
        spooled = _spool(event, payload)
        if _detached():
            os._exit(0)
        import io
        from contextlib import suppress

        code = run(event, stdin=io.StringIO(payload.decode("utf-8", "replace")))
        if spooled:
            with suppress(OSError):
                os.unlink(spooled)
        drain_spool()
        sys.exit(code)
    sys.exit(run(event))
