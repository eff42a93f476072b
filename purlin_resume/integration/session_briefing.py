"""The briefing a SessionStart hook gives the model: what this session needs to carry on.

It is made of parts, each built on its own: a part that fails (a corrupt agent history, an
unreadable checkpoint, git missing) becomes one line saying so, and the other parts are still
given.

| part | what it says |
|---|---|
| checkpoint | with Purlin roles: the restore briefing of the role (checkpoint, Role Compact, commands, project state); without: the checkpoint's own content only |
| subagents | interrupted agents of the agent history, with the command that resumes each (or its parallel group), and agents still marked running |
| git | without Purlin roles: branch, uncommitted changes and recent commits (with roles, the restore briefing has them) |
| GSD hand-off | a present ``.planning/HANDOFF.json`` / ``.continue-here.md`` (``gsd_handoff``; with roles, inside the restore briefing); due on ``startup`` too |

A project uses Purlin roles when the session has a role (``$PURLIN_ROLE``, the registry), the
project has an ``instructions/`` folder, role overrides in ``.purlin/``, or ``agents`` settings
in its config, or the checkpoint being restored was saved by the agent with ``/pl-resume save``.
Elsewhere no persona, rule or slash command is named.

The briefing is due after ``compact``, ``resume`` and ``clear``; on ``startup`` only when a
checkpoint is live or subagents are waiting. The checkpoint shown is the session's own, else the
newest of the sessions its process ran before it (``/clear``), else the one it (or they) took
over, else one of the session's own role (``handover``); a checkpoint of another session that is
still running is never briefed. A checkpoint handed over from another session, or an automatic
one, is claimed (archived, as a restore claims) so no second successor is briefed with it; it
and its plan are this session's.
Everything is redacted and cut to Claude Code's context limit.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from purlin_resume.agents import handover
from purlin_resume.checkpoints import autosave
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.checkpoints.roles import ROLES
from purlin_resume.claude import hooks
from purlin_resume.core import gitrepo, redact
from purlin_resume.core.config import Settings
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history

SOURCES = ("startup", "resume", "clear", "compact")
MAX_LISTED = 12
Built = TypeVar("Built")  # what a part of the briefing gives


@dataclass(frozen=True)
class Request:
    """What the SessionStart hook knows."""

    source: str
    session: str | None
    role: str | None  # the session's own, when it has one
    standing: handover.Standing  # what the registry says about the session
    settings: Settings
    settings_note: str | None = None


def _part(name: str, build: Callable[[], Built]) -> Built | str:
    try:
        return build()
    except PurlinError as exc:
        return f"({name} unavailable: {exc.message})"
    except Exception as exc:  # noqa: BLE001 -- one broken part never silences the others
        return f"({name} unavailable: {type(exc).__name__}: {exc})"


def uses_roles(project: Project, settings: Settings, role: str | None) -> bool:
    """Whether the project works with Purlin roles (see the module text)."""
    if role in ROLES or (project.root / "instructions").is_dir():
        return True
    if any((project.purlin_dir / f"{r.upper()}_OVERRIDES.md").is_file() for r in ROLES):
        return True
    agents = settings.raw.get("agents")
    return isinstance(agents, dict) and any(r in agents for r in ROLES)


def compose(project: Project, request: Request) -> str | None:
    """The briefing text (redacted, bounded), or None when nothing is due."""
    if request.source not in SOURCES:
        return None
    found = _part("checkpoint", lambda: _handed_over(project, request))
    broken = found if isinstance(found, str) else None  # unreadable: said, and the rest goes on
    chosen, archived = (None, None) if isinstance(found, str) else found
    waiting = _part("subagents", lambda: _subagents(project))
    gsd = _part("GSD hand-off", lambda: _gsd_handoff(project))
    if request.source == "startup" and not (chosen or waiting or broken or gsd):
        return None
    saved_by_agent = chosen is not None and not autosave.is_automatic(chosen.checkpoint)
    if saved_by_agent or uses_roles(project, request.settings, request.role):
        role = request.role or (chosen.role if chosen else None)
        role = role if role in ROLES else autosave.DEFAULT_ROLE
        parts: list[str | None] = [
            _part("restore", lambda: _role_briefing(project, request, role, chosen, archived))
        ]
        tail = f"Run `purlin-resume restore {role} --keep` to read the whole briefing."
    else:
        parts = [
            f"# Resuming this session ({request.source})",
            _part("checkpoint", lambda: _neutral_checkpoint(project, chosen, archived)),
            _part("git", lambda: _git_state(project)),
            gsd,  # the restore briefing of the role path has it already
        ]
        tail = "Run `purlin-resume checkpoints` to list the live checkpoints."
    after = [broken, waiting, request.settings_note and f"Note: {request.settings_note}"]
    return _bounded("\n\n".join(p for p in parts if p), "\n\n".join(p for p in after if p), tail)


def _bounded(text: str, after: str, tail: str) -> str:
    """``text``, then ``after`` (what is left to do: subagents to resume, notes), redacted (a
    secret either shows, in both) and within the hook's limit: ``text`` is cut to leave room for
    ``after``, which is kept whole."""
    text, after = redact.redact_data([text, after])[0]
    room = hooks.MAX_CONTEXT_CHARS - len(after) - 2 if after else hooks.MAX_CONTEXT_CHARS
    text = hooks.bounded(text, max(room, hooks.MAX_CONTEXT_CHARS // 2), tail=tail)
    return hooks.bounded("\n\n".join(p for p in (text, after) if p), tail=tail)


def _checkpoint_to_brief(project: Project, request: Request) -> checkpoints.LiveCheckpoint | None:
    """This session's checkpoint; else the newest of the sessions its process ran before
    (``/clear``), else the one it or they took over; else the newest one of the session's role
    that no running session owns. A session without
    a role is handed only an automatic checkpoint, and only in a project without roles."""
    live = checkpoints.live(project)
    own = [c for c in live if request.session and c.session == request.session]
    broken = next((c for c in own if c.error), None)
    if broken is not None:
        raise PurlinError(f"unreadable checkpoint left in place: {broken.error}")
    readable = [c for c in live if c.checkpoint is not None]
    mine = [c for c in readable if request.session and c.session == request.session]
    if mine:
        return mine[0]
    standing = request.standing
    role = request.role
    free = [c for c in readable if checkpoints.owner(c) not in standing.busy]
    before = [c for c in free if checkpoints.owner(c) in standing.chain and role in (None, c.role)]
    taken = checkpoints.taken_over(standing.claimed)  # this agent's already: briefed again
    before += [c for c in [taken] if c is not None and role in (None, c.role)]
    if role is not None:
        free = [c for c in free if c.role == role]
    elif uses_roles(project, request.settings, None):
        free = []
    else:
        free = [c for c in free if autosave.is_automatic(c.checkpoint)]
    return next(iter(before or free), None)


def _handed_over(
    project: Project, request: Request
) -> tuple[checkpoints.LiveCheckpoint | None, Path | None]:
    """The checkpoint to brief and, when it is handed over (another session's, or an automatic
    one), where it went: it is claimed (archived) under the lock a restore claims with, so it
    is offered to one successor only."""

    def taking(found: checkpoints.LiveCheckpoint) -> bool:
        own = request.session is not None and found.session == request.session
        return not own or autosave.is_automatic(found.checkpoint)

    choice, archived = checkpoints.claim(
        project, lambda: checkpoints.Choice(_checkpoint_to_brief(project, request)), taking
    )
    return choice.chosen, archived


def _role_briefing(
    project: Project,
    request: Request,
    role: str,
    chosen: checkpoints.LiveCheckpoint | None,
    archived: Path | None,
) -> str:
    from purlin_resume.checkpoints import restore

    r = restore.prepare(
        project,
        request.settings,
        role,
        f"SessionStart hook ({request.source})",
        session=request.session if archived is None else None,
        claimed=archived,
        run_status=request.settings.trusted,  # code from the repo: never untrusted
    )
    if chosen is None:
        r.found = None  # what is live belongs to another session that is still running
    elif chosen.session != request.session:
        handover.taken_over(project, request.session, role, archived)
    return restore.briefing(project, r)


def _neutral_checkpoint(
    project: Project, found: checkpoints.LiveCheckpoint | None, archived: Path | None
) -> str:
    if found is None:
        return "## Checkpoint\n\nNo checkpoint found."
    cp = found.checkpoint
    assert cp is not None  # _checkpoint_to_brief picks a readable one
    lines = [
        "## Checkpoint",
        "",
        f"From `{project.relative(found.path)}`, saved {cp.timestamp} on branch {cp.branch}"
        + (f" ({cp.source})" if cp.source else "")
        + ".",
        "",
        f"- In progress: {cp.in_progress}",
    ]
    if cp.feature and cp.feature != "none":
        lines.append(f"- Feature: {cp.feature}")
    if cp.done:
        lines += ["- Done:"] + [f"  - {item}" for item in cp.done]
    if cp.next:
        lines += ["- Next:"] + [f"  {n}. {item}" for n, item in enumerate(cp.next, 1)]
    lines.append(f"- Uncommitted when saved: {'; '.join(cp.uncommitted) or 'none'}")
    if cp.notes and cp.notes != "None":
        lines += ["- Notes:"] + [f"  {line}" for line in cp.notes.splitlines()]
    if archived is not None:
        lines += ["", f"(The automatic checkpoint was consumed: `{project.relative(archived)}`.)"]
    return "\n".join(lines)


def _git_state(project: Project) -> str | None:
    from purlin_resume.checkpoints.restore import uncommitted_summary

    if gitrepo.toplevel(project.root) is None:
        return None
    status = gitrepo.status_lines(project.root)
    lines = ["## Git", "", f"- Branch: {gitrepo.branch(project.root)}"]
    lines.append(f"- Uncommitted: {uncommitted_summary(status)}")
    lines += [f"  - `{line}`" for line in status[:MAX_LISTED]]
    if len(status) > MAX_LISTED:
        lines.append(f"  - ... and {len(status) - MAX_LISTED} more")
    commits = gitrepo.recent_commits(project.root, 5)
    lines += ["- Recent commits:"] + [f"  - {c}" for c in commits or ["(none yet)"]]
    return "\n".join(lines)


def _subagents(project: Project) -> str | None:
    """Interrupted and still-running subagents, with the commands that resume them."""
    if not history.path(project).exists():
        return None
    doc = history.load(project)
    waiting = doc.latest_with(history.INTERRUPTED)
    running = doc.latest_with(*history.RUNNING_STATUSES)
    if not waiting and not running:
        return None
    lines = ["## Subagents"]
    if waiting:
        lines += ["", f"Interrupted ({len(waiting)}), waiting to be resumed:"]
        for entry in waiting[-MAX_LISTED:]:
            command = f"purlin-resume resume-task {shlex.quote(entry.agent_id)}"
            lines.append(f"- {_described(entry)}: `{command}`")
        groups = list(dict.fromkeys(e.parallel_group for e in waiting if e.parallel_group))
        for group in groups:
            command = f"purlin-resume resume-task --batch {shlex.quote(group)}"
            lines.append(f"- parallel group {group}, all at once: `{command}`")
        lines.append(
            "To start fresh instead: `purlin-resume history abandon ID` (an agent or group id)."
        )
    if running:
        lines += ["", f"Still marked running ({len(running)}):"]
        lines += [f"- {_described(e)}" for e in running[-MAX_LISTED:]]
        lines.append(
            "If one of them stopped, `purlin-resume history interrupt ID` lets it be resumed."
        )
    return "\n".join(lines)


def _described(entry: history.HistoryEntry) -> str:
    task = " ".join(entry.task.split())
    task = redact.redact(task).text[:120]  # redacted whole: a cut secret is no longer found
    spawned = f", spawned {entry.timestamp}" if entry.timestamp else ""
    return f"`{entry.agent_id}` {task or '(no task recorded)'}{spawned}"


def _gsd_handoff(project: Project) -> str | None:
    from purlin_resume.checkpoints import gsd_handoff

    return gsd_handoff.briefing_part(project).strip() or None
