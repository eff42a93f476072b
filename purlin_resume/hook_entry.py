"""``purlin-resume hook EVENT``: the shell around ``capture`` that Claude Code calls.

It reads the payload from stdin, finds the project (``$CLAUDE_PROJECT_DIR``, else the payload's
``cwd``, else the working directory; then its git top-level), runs the event's handler and
prints what it returns. It never breaks Claude Code: any failure becomes one JSON line in
``.purlin/cache/hook.log`` (redacted) and the exit code is always 0 (2 would block the tool
call). It imports only what the event needs: no Typer, no GitPython unless the event uses git.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import TextIO

LOG_NAME = "hook.log"


def project_root(cwd: str | None, env: Mapping[str, str]) -> Path:
    """The project a hook call belongs to."""
    from purlin_resume import gitrepo

    for candidate in (env.get("CLAUDE_PROJECT_DIR"), cwd, os.getcwd()):
        if candidate and Path(candidate).is_dir():
            folder = Path(candidate).resolve()
            return gitrepo.work_tree_root(folder) or folder
    return Path.cwd()


def log_failure(root: Path, event: str, payload_session: str | None, exc: BaseException) -> None:
    """One redacted line in ``.purlin/cache/hook.log``; a failure to log is swallowed."""
    with suppress(Exception):  # the hook must exit 0 whatever happens
        import traceback

        from purlin_resume import clock, redact, store

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
        store.append_jsonl(root / ".purlin" / "cache" / LOG_NAME, redact.redact_data(record)[0])


def run(
    event: str,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Handle one hook call; always 0."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    env = os.environ if env is None else env
    root: Path | None = None
    session = None
    try:
        from purlin_resume import capture
        from purlin_resume.claude import hooks
        from purlin_resume.project import Project

        text = stdin.read()
        try:
            payload = hooks.parse(event, text)
        except hooks.BadPayload:
            root = project_root(None, env)
            raise
        session = payload.session_id
        root = project_root(payload.cwd, env)
        handler = capture.HANDLERS[payload.event]
        if payload.event == "SessionStart":
            outcome = handler(Project(root), payload, env)
        else:
            outcome = handler(Project(root), payload)
        if outcome.output:
            stdout.write(hooks.session_context(outcome.output) + "\n")
            stdout.flush()
    except Exception as exc:  # noqa: BLE001 -- logged, never raised into Claude Code
        log_failure(root or Path.cwd(), event, session, exc)
        with suppress(Exception):
            sys.stderr.write(f"purlin-resume hook {event}: {exc} (see .purlin/cache/{LOG_NAME})\n")
    return 0


def main() -> None:
    """The ``purlin-resume`` console script: hooks go straight to ``run``, the rest to Typer."""
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "hook" and not args[1].startswith("-"):
        sys.exit(run(args[1]))
    from purlin_resume.cli import main as cli_main

    cli_main()
