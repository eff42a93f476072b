"""The seven steps of a restore, as data: role, checkpoint, instructions, command table, fresh
state, the "Context Restored" summary, and consumption of the checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.checkpoints import gsd_handoff, instructions, project_state, roles
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.checkpoints.format import Checkpoint, as_dict
from purlin_resume.checkpoints.instructions import CommandTable, Layer, RoleCompact
from purlin_resume.checkpoints.project_state import ProjectState
from purlin_resume.checkpoints.roles import display_name
from purlin_resume.core import templating
from purlin_resume.core.config import Settings
from purlin_resume.core.project import Project

NO_CHECKPOINT = "No checkpoint found -- recovering from project state only."
READY = "Ready to continue from here, or would you like to adjust?"


@dataclass
class Restoration:
    role: str
    role_source: str
    found: checkpoints.LiveCheckpoint | None
    layers: list[Layer]
    compact: RoleCompact | None
    commands: CommandTable | None
    state: ProjectState
    notices: list[str] = field(default_factory=list)
    archived_to: Path | None = None

    @property
    def checkpoint(self) -> Checkpoint | None:
        return self.found.checkpoint if self.found else None


def choose_role(
    project: Project,
    given: str | None,
    session: str | None,
    standing_role: str | None,
    system_prompt: str | None,
    ask: Callable[[], str] | None,
) -> tuple[str, str]:
    """The role a restore works in and where it comes from: the role given, else that of the
    session's own live checkpoint, else the session's standing role, else the one the system
    prompt names, else ``ask``'s answer (a usage error when there is nobody to ask)."""
    if given is not None:
        return given, "argument"
    own = checkpoints.of_session(project, session, include_archive=False) if session else []
    if own:
        return own[0].role, "session's own checkpoint"
    if standing_role:
        return standing_role, "agent's role"
    detected = roles.detect_from_system_prompt(system_prompt) if system_prompt else None
    if detected:
        return detected, "system prompt"
    if ask is None:
        raise roles.undetected(system_prompt)
    return roles.parse_role(ask()), "answer"


def prepare(
    project: Project,
    settings: Settings,
    role: str,
    role_source: str,
    *,
    session: str | None,
    session_explicit: bool = False,
    busy: frozenset[str] = frozenset(),
    prefer: tuple[str, ...] = (),
    claimed: Path | None = None,
    claim: bool = False,
    system_prompt: str | None = None,
    reload_instructions: bool = False,
    run_status: bool = False,
) -> Restoration:
    """Steps 2 to 5: everything a restore presents, and with ``claim`` step 7 first: the
    checkpoint is taken (archived) before anything else is read, so two restores at once never
    both take it. ``busy``: sessions still running, whose checkpoints are never taken;
    ``prefer``: the sessions its process ran before it (``/clear``); ``claimed``: the
    checkpoint it took over already. The project's status command runs only when
    ``run_status`` (see ``trust``)."""

    def choosing() -> checkpoints.Choice:
        return checkpoints.choose(project, role, session, session_explicit, busy, prefer, claimed)

    choice, archived = checkpoints.claim(project, choosing) if claim else (choosing(), None)
    layers = instructions.layers(project, role)
    reload = reload_instructions or not instructions.launcher_loaded(system_prompt, layers[1])
    state = project_state.gather(project, settings, role, run_status)
    commands = instructions.command_table(project, role, state.branch, settings.main_branches)
    notices = list(choice.notices)
    if commands is None:
        notices.append(
            f"No command table found for {role} (instructions/references/{role}_commands.md)."
        )
    return Restoration(
        role=role,
        role_source=role_source,
        found=choice.chosen,
        layers=layers,
        compact=instructions.role_compact(role, layers) if reload else None,
        commands=commands,
        state=state,
        notices=notices,
        archived_to=archived,
    )


def _context(project: Project, r: Restoration) -> dict[str, Any]:
    return {
        "r": r,
        "cp": r.checkpoint,
        "role_name": display_name(r.role),
        "rel": lambda path: _relative(project, path),
        "uncommitted": uncommitted_summary(r.state.git_status),
        "no_checkpoint": NO_CHECKPOINT,
        "ready": READY,
    }


def _relative(project: Project, path: Path | None) -> str:
    if path is None:
        return ""
    try:
        return project.relative(path)
    except ValueError:
        return str(path)


def uncommitted_summary(status_lines: list[str]) -> str:
    """``none``, or ``3 files (2 modified, 1 untracked)`` from ``git status --porcelain`` lines."""
    if not status_lines:
        return "none"
    kinds: dict[str, int] = {}
    for line in status_lines:
        code = line[:2]
        kind = (
            "untracked"
            if code == "??"
            else "added"
            if "A" in code
            else "deleted"
            if "D" in code
            else "renamed"
            if "R" in code
            else "conflicted"
            if "U" in code
            else "modified"
        )
        kinds[kind] = kinds.get(kind, 0) + 1
    parts = ", ".join(f"{n} {kind}" for kind, n in kinds.items())
    return f"{len(status_lines)} file{'s' if len(status_lines) != 1 else ''} ({parts})"


def summary_block(project: Project, r: Restoration) -> str:
    """Step 6: the "--- Context Restored ---" block."""
    return templating.render("restore/context_restored.txt.j2", **_context(project, r))


def briefing(project: Project, r: Restoration) -> str:
    """The whole restore as Markdown for the agent: steps 1 to 7 in order, then a present GSD
    hand-off (``.planning/HANDOFF.json``, ``.continue-here.md``) before the closing question."""
    text = templating.render(
        "restore/briefing.md.j2", summary=summary_block(project, r), **_context(project, r)
    )
    part = gsd_handoff.briefing_part(project)
    head, question, tail = text.rpartition(READY)
    return f"{head}{part}\n{question}{tail}" if part and question else text + part


def as_json(project: Project, r: Restoration) -> dict[str, Any]:
    found = r.found
    return {
        "role": r.role,
        "role_source": r.role_source,
        "checkpoint": (
            {
                "path": _relative(project, found.path),
                "session": found.session,
                **as_dict(found.checkpoint),
            }
            if found and found.checkpoint
            else None
        ),
        "checkpoint_message": None if r.checkpoint else NO_CHECKPOINT,
        "archived_to": _relative(project, r.archived_to) or None,
        "notices": r.notices,
        "instructions": _instructions_json(r),
        "command_table": None
        if r.commands is None
        else {
            "variant": r.commands.variant,
            "source": _relative(project, r.commands.source),
            "text": r.commands.text,
        },
        "state": _state_json(project, r.state),
        "summary": summary_block(project, r),
        "gsd_handoff": _gsd_handoff(project),
        "question": READY,
    }


def _instructions_json(r: Restoration) -> dict[str, Any]:
    """The instruction layers, and the role's compact form if reloaded."""
    return {
        "reloaded": r.compact is not None,
        "layers": [
            {"name": layer.name, "present": layer.present, "chars": len(layer.text)}
            for layer in r.layers
        ],
        "role_compact": None
        if r.compact is None
        else {
            "mandates": list(r.compact.mandates),
            "prohibitions": list(r.compact.prohibitions),
            "protocols": [{"title": t, "steps": list(steps)} for t, steps in r.compact.protocols],
            "chars": r.compact.chars,
            "source_chars": r.compact.source_chars,
        },
    }


def _state_json(project: Project, s: ProjectState) -> dict[str, Any]:
    """The fresh project state in ``as_json``."""
    return {
        "branch": s.branch,
        "config": _relative(project, s.config_source) or None,
        "role_settings": s.role_settings,
        "status_command": {
            "command": s.status.command,
            "outcome": s.status.outcome,
            "message": s.status.message,
        },
        "critic_report": _relative(project, s.critic_report) or None,
        "action_items": s.action_items,
        "dependency_graph": None
        if s.graph is None
        else {
            "path": _relative(project, s.graph.path),
            "features": s.graph.features,
            "error": s.graph.error,
        },
        "git_status": s.git_status,
        "recent_commits": s.recent_commits,
        "delivery_plan": None
        if s.plan is None
        else {"phase": s.plan.phase, "phases": s.plan.phases, "next": s.plan.next_feature},
        "todo_features": s.todo_features,
        "testing_features": s.testing_features,
        "uncommitted": uncommitted_summary(s.git_status),
    }


def _gsd_handoff(project: Project) -> dict[str, Any] | None:
    found = gsd_handoff.read(project)
    return gsd_handoff.summary(project, found) if found.present else None
