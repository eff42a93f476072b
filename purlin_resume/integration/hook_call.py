"""One hook call (``purlin-resume hook EVENT``): what Claude Code runs, around ``capture``.

It reads the payload from stdin, finds the project (``$CLAUDE_PROJECT_DIR``, else the payload's
``cwd``, else the working directory; then its git top-level), runs the event's handler and
prints what it returns. It never breaks Claude Code: any failure becomes one JSON line in
``.purlin/cache/hook.log`` (redacted) and the exit code is always 0 (2 would block the tool
call). It imports only what the event needs: no Typer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from purlin_resume.agentcli.names import OTHERS
from purlin_resume.claude.hooks import AGENT_CLI_ENV

LOG_NAME = "hook.log"
PROJECT_ENV = "CLAUDE_PROJECT_DIR"


def _process_cwd() -> str | None:
    """The process's working directory; None when it was deleted (a worktree removed under a
    live session)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def project_root(cwd: str | None, env: Mapping[str, str]) -> Path | None:
    """The project a hook call belongs to: the git work tree of its folder, or the folder itself
    when it is set up already (its ``.purlin/`` or ``.planning/``, from ``install`` or ``save``);
    None when the folder is no project (a session in ``$HOME`` under a plugin enabled for every
    folder leaves nothing there). The folder is ``$CLAUDE_PROJECT_DIR``, else the payload's
    ``cwd``, else the process's own working directory; FileNotFoundError when none exists."""
    from pathlib import Path

    from purlin_resume.core import gitrepo

    named: list[str | None] = [c for c in (env.get(PROJECT_ENV), cwd) if c and os.path.isabs(c)]
    folders = [Path(c).resolve() for c in named or [_process_cwd()] if c and Path(c).is_dir()]
    if not folders:
        raise FileNotFoundError(f"no project folder: the payload's cwd {cwd!r} is gone")
    folder = folders[0]
    if (top := gitrepo.work_tree_of(folder)) is not None:
        return top
    return folder if any((folder / name).is_dir() for name in (".purlin", ".planning")) else None


def failure_line(exc: BaseException) -> str:
    """The one line a hook failure is told in, redacted: a ``PurlinError``'s message, an
    operating system's refusal with the file and what to do, else the exception."""
    from purlin_resume.core import redact
    from purlin_resume.core.errors import system_refusal

    if isinstance(exc, OSError):
        line = system_refusal(exc, "the event was not recorded")
    else:
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        line = " ".join(str(message).split())
    return redact.redact(line).text


def log_failure(
    root: Path | None, event: str, payload_session: str | None, line: str, exc: BaseException
) -> bool:
    """``line`` (``failure_line``'s) in ``.purlin/cache/hook.log``, with the event (both
    redacted already) and the payload's session (redacted here): whether it was written (not
    without a project, nor when the log cannot be written)."""
    if root is None:
        return False
    try:
        import traceback

        from purlin_resume.core import clock, redact, store

        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else None
        session = redact.redact_data(payload_session)[0]
        record = {"time": clock.iso(), "event": event, "session_id": session, "error": line}
        record["where"] = where
        cache = store.private_folder(root / ".purlin" / "cache")
        store.append_jsonl(cache / LOG_NAME, record)
    except Exception:  # noqa: BLE001 -- the hook must exit 0 whatever happens
        return False
    return True


def failures(log: Path) -> tuple[int, dict[str, object] | None]:
    """How many failures ``log`` (a hook log) holds, and the latest one that parses (None when
    none does): only the last lines are parsed, a line cut short or hostile is passed over."""
    from purlin_resume.core import store  # as in log_failure: a hook that works needs none

    lines = [line for line in log.read_bytes().split(b"\n") if line.strip()]
    rows = (store.jsonl_rows(line.decode("utf-8", errors="replace")) for line in reversed(lines))
    return len(lines), next((row for found in rows for row in found), None)


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

        text = stdin.read()
        try:
            payload = hooks.parse(event, text)
        except hooks.BadPayload:
            with suppress(FileNotFoundError):
                root = project_root(None, env)
            raise
        session = payload.session_id
        if payload.compaction_run:  # /compact: nothing to record, nothing to load
            return 0
        root = project_root(payload.cwd, env)
        if root is None:  # nothing to record outside a project
            return 0
        from purlin_resume.core import store
        from purlin_resume.core.project import Project
        from purlin_resume.integration import capture

        project = Project(root)
        if project.settings_file or store.user_settings().is_file():  # else: the built-in rules
            from purlin_resume.core import config

            config.applied(project)  # what the event writes is redacted by the settings' rules
        handler = capture.HANDLERS[payload.event]
        if payload.event in capture.TAKES_ENV:
            outcome = handler(project, payload, env)
        else:
            outcome = handler(project, payload)
        if outcome.output:
            stdout.write(hooks.session_context(outcome.output) + "\n")
            stdout.flush()
    except Exception as exc:  # noqa: BLE001 -- logged, never raised into Claude Code
        with suppress(Exception):
            from purlin_resume.core import redact

            line = failure_line(exc)
            event = redact.redact(event).text  # from the command line: it may hold anything
            logged = log_failure(root, event, session, line, exc)
            see = f" (see .purlin/cache/{LOG_NAME})" if logged else ""
            sys.stderr.write(f"purlin-resume hook {event}: {line}{see}\n")
    return 0


def handle(event: str, rest: list[str] | None = None) -> None:
    """The console script's ``hook EVENT [--cli NAME]``: the event handled in this process;
    exits 0. ``--cli`` names the agent CLI that calls (Codex CLI, Gemini CLI; else Claude Code)."""
    rest = rest or []
    env = dict(os.environ)
    env.pop(AGENT_CLI_ENV, None)  # only this call's own --cli says which CLI calls
    if len(rest) >= 2 and rest[0] == "--cli" and rest[1] in OTHERS:
        env[AGENT_CLI_ENV] = rest[1]
    sys.exit(run(event, env=env))
