"""``open``: hand a session back to the agent CLI that wrote it (``claude --resume``, ``codex
resume``, ``gemini --resume``, ``opencode --session``), from anywhere.

Claude Code's ``--resume ID`` only finds a session among those of the folder it runs in (its
transcripts live under ``projects/<that folder, encoded>/``). So ``plan`` resolves what the user
named (a session id or prefix, an agent id, a bookmark, or words to search for), reads the
folder the session recorded (the ``cwd`` of its first record; never a decoded folder name), and
composes the command to run there: ``claude --resume ID``, with ``--fork-session`` and a new
``--session-id`` for a fork (Claude Code accepts ``--session-id`` beside ``--resume`` only with
``--fork-session``). Nothing is started here; ``launch`` (tmux), ``exec_argv`` and
``shell_line`` carry a plan out.

A session Claude Code cannot resume is an error naming the alternative: its folder is gone, or
its transcript survives only in a bookmark's archive (``resurrect`` still brings it back).

A session of Codex CLI, Gemini CLI or opencode (named by its id, a child's id, or a unique
prefix) is resumed the same way in the folder it recorded, with its own CLI's command
(``agentcli.programs``); a child session resumes its parent. Gemini CLI cannot fork.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.agentcli import programs
from purlin_resume.agentcli.names import CLAUDE
from purlin_resume.agentcli.shape import NativeSession
from purlin_resume.core import config, tmux
from purlin_resume.core.errors import NotFound, PurlinError, UsageError
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.resurrection import archive
from purlin_resume.resurrection import flow as resurrection
from purlin_resume.resurrection.flow import Candidate, Environment

_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


@dataclass
class OpenPlan:
    """Everything ``open`` would run, checked; nothing started."""

    session_id: str
    cwd: Path
    argv: list[str]
    env: dict[str, str]
    fork: bool
    via: str  # "session", "agent", "bookmark" or "search"
    title: str | None = None
    new_session_id: str | None = None  # the fork's id
    notes: list[str] = field(default_factory=list)
    cli: str = CLAUDE  # the agent CLI that resumes it

    def shell_line(self) -> str:
        """The command as one line a user can paste into a shell (every value quoted)."""
        assigned = [f"{key}={shlex.quote(value)}" for key, value in sorted(self.env.items())]
        command = shlex.join(self.argv)
        return f"cd {shlex.quote(str(self.cwd))} && " + " ".join([*assigned, command])

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "cli": self.cli,
            "new_session_id": self.new_session_id,
            "fork": self.fork,
            "via": self.via,
            "title": self.title,
            "cwd": str(self.cwd),
            "argv": self.argv,
            "env": self.env,
            "command": self.shell_line(),
            "notes": self.notes,
        }


def project_folder_name(cwd: str) -> str:
    """The folder Claude Code keeps a working directory's sessions in (every non-alphanumeric
    character becomes ``-``); used only to check, never to decode."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


@dataclass
class _Named:
    """What ``open`` was asked for: a session, how it was named, its title; ``native``: the
    session when another agent CLI wrote it."""

    session_id: str
    via: str
    title: str | None = None
    native: NativeSession | None = None


def _resolve(
    env: Environment, query: str, pick: Callable[[list[Candidate]], Candidate] | None
) -> _Named:
    """The session ``query`` names: Claude Code's, a bookmark's, another CLI's, a search's."""
    catalog = env.live_catalog()
    if catalog is not None:
        try:  # any id ``transcript`` takes: a subagent of every layout leads to its session
            target = catalog.resolve(query)
        except NotFound:
            target = None
        if target is not None and target.session is not None:
            return _Named(target.session.id, "session" if target.kind == "session" else "agent")
    mark = env.shelves.find(query.strip())
    if mark is not None:
        return _Named(mark.session_id, "bookmark", mark.description or mark.name)
    native = _other_cli_session(query)
    if native is not None:
        return _Named(native[0].id, native[1], native[0].title, native[0])
    if catalog is None:
        raise NotFound(
            f"no Claude Code transcripts in {env.claude_root} and no bookmark {query!r}; "
            "pass --claude-dir or set CLAUDE_CONFIG_DIR"
        )
    found = resurrection.by_search(env, query)
    if not found:
        raise NotFound(
            f"no session, agent or bookmark is named {query!r} and no session matches it; "
            "'purlin-resume find WORDS' searches, 'purlin-resume sessions --all' lists them"
        )
    chosen = pick(found) if pick is not None else found[0]
    return _Named(chosen.session_id, "search", chosen.title)


def _session_folder(env: Environment, session_id: str) -> tuple[Any, str | None]:
    """(the session's file, the folder it recorded) in the live transcripts."""
    catalog = env.live_catalog()
    if catalog is None:
        return None, None
    session = next((s for s in catalog.session_files() if s.id == session_id), None)
    if session is None or not session.exists:
        return session, None
    return session, catalog.project_of(session)


def plan(
    env: Environment,
    query: str,
    fork: bool = False,
    pick: Callable[[list[Candidate]], Candidate] | None = None,
    claude_dir_given: bool = False,
) -> OpenPlan:
    """Resolve ``query`` and compose the ``claude --resume`` that continues it in its folder."""
    if not query.strip():
        raise UsageError("give a session id, an agent id, a bookmark or words to search for")
    named = _resolve(env, query, pick)
    if named.native is not None:
        return _other_plan(named.native, named.via, fork)
    session_id, via, title = named.session_id, named.via, named.title
    session, recorded = _session_folder(env, session_id)
    alternative = f"bring its agent back instead: purlin-resume resurrect --session {session_id}"
    if session is None or not session.exists:
        if archive.archives(env, session_id):
            raise NotFound(
                f"session {session_id} survives only in an archive (Claude Code deleted its "
                f"transcript), so Claude Code cannot resume it; {alternative}"
            )
        raise NotFound(
            f"the transcript of session {session_id} is gone from {env.claude_root}; "
            f"Claude Code cannot resume it; {alternative}"
        )
    cwd = _recorded_folder(CLAUDE, session_id, recorded, alternative)
    notes = []
    if session.folder.name != project_folder_name(str(cwd)):
        notes.append(
            f"the transcript lies in {session.folder.name}, not where Claude Code looks for "
            f"{cwd}; --resume may not find it there"
        )
    if session.stem:
        notes.append(
            f"its transcript is the file {session.path.name}, not {session_id}.jsonl, the name "
            "Claude Code looks for; --resume may not find it"
        )
    claude = programs.program(CLAUDE)
    argv = claude.resume(session_id, env.settings.agent_command)
    new_id = None
    if fork:
        new_id = str(uuid.uuid4())
        argv = claude.fork(session_id, new_id, env.settings.agent_command) or argv
    launch_env: dict[str, str] = {}
    if new_id:  # the fork reports the id it resumed at SessionStart: name its own for the hook
        launch_env.update(PURLIN_PREVIOUS_AGENT_ID=session_id, PURLIN_AGENT_ID=new_id)
    if claude_dir_given or os.environ.get("CLAUDE_CONFIG_DIR"):
        launch_env["CLAUDE_CONFIG_DIR"] = str(env.claude_root)
    return OpenPlan(session_id, cwd, argv, launch_env, fork, via, title, new_id, notes)


def _recorded_folder(cli: str, session_id: str, recorded: str | None, alternative: str) -> Path:
    """The folder a session recorded, where its CLI resumes it; an error when there is none."""
    name = programs.label(cli)
    if not recorded:
        raise PurlinError(
            f"session {session_id} records no working folder, so {name} cannot find it; "
            f"{alternative}"
        )
    if _UNSAFE.search(recorded) or not os.path.isabs(recorded):
        raise PurlinError(
            f"session {session_id} records a folder that is not a plain absolute path "
            f"({recorded!r}); {alternative}"
        )
    cwd = Path(recorded)
    if not cwd.is_dir():
        raise NotFound(
            f"the folder of session {session_id} is gone ({cwd}); {name} resumes a session "
            f"only from its own folder: restore it (git clone / git worktree add) or {alternative}"
        )
    return cwd


def _other_cli_session(query: str) -> tuple[NativeSession, str] | None:
    """(the session, "session" or "agent") of Codex CLI, Gemini CLI or opencode ``query``
    names by id (a child session: its parent)."""

    try:
        session = crosscli.located(query)
    except NotFound:
        return None
    if session.parent_id is None:
        return session, "session"
    return crosscli.located(session.parent_id), "agent"


def _other_plan(session: NativeSession, via: str, fork: bool) -> OpenPlan:
    """The command that resumes ``session`` in its own CLI, in the folder it recorded."""
    cli = programs.program(session.cli)
    alternative = f"bring its agent back instead: purlin-resume resurrect --session {session.id}"
    cwd = _recorded_folder(session.cli, session.id, session.project_path, alternative)
    argv = cli.resume(session.id)
    if fork:
        forked = cli.fork(session.id, "")
        if forked is None:
            raise UsageError(
                f"{cli.label} cannot fork a session: drop --fork to resume it, or {alternative}"
            )
        argv = forked
    env = cli.data_env()
    return OpenPlan(session.id, cwd, argv, env, fork, via, session.title, cli=session.cli)


def exec_now(opened: OpenPlan) -> None:
    """Replace this process with Claude Code in the session's folder (returns only on failure)."""
    program = shutil.which(opened.argv[0])
    try:
        if program is None:
            raise FileNotFoundError(2, "not found on PATH")
        os.chdir(opened.cwd)
        os.execve(program, opened.argv, {**os.environ, **opened.env})
    except OSError as exc:
        raise PurlinError(
            f"could not start {opened.argv[0]!r}: {exc.strerror or exc}; put "
            f"{programs.label(opened.cli)} on PATH"
            + (f", or {config.where_to_set('agent_command')}" if opened.cli == CLAUDE else "")
        ) from None


def launch(opened: OpenPlan, server: tmux.Server, session_name: str) -> dict[str, str]:
    """Run the plan in a new window of tmux session ``session_name`` of ``server``; the pane id
    and session."""
    if server == tmux.Server() and tmux.inside_tmux():
        session_name = tmux.current_session(server) or session_name
    command = shlex.join(opened.argv)
    pane = tmux.new_window(
        server,
        session_name,
        opened.cwd,
        command,
        env=opened.env,
        name=f"open-{(opened.new_session_id or opened.session_id)[:8]}",
    )
    return {"session": session_name, "pane": pane}
