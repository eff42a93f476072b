"""GSD's hand-off files: ``.planning/HANDOFF.json`` and ``.planning/phases/<phase>/.continue-here.md``.

Current GSD pauses with ``/gsd:pause-work`` and resumes with ``/gsd:resume-work`` through these two
files; their shape is GSD's own (``get-shit-done/workflows/pause-work.md``, step
``write_structured``, HANDOFF.json version 1.0, and step ``write`` for ``.continue-here.md``; its
``resume-project.md`` reads them back). This module is their one reader and writer here:

- ``read`` finds a present hand-off for the restore and SessionStart briefings (a corrupt
  HANDOFF.json is named, never rewritten);
- ``from_checkpoint`` turns a purlin-resume checkpoint into GSD's shape and ``write`` writes
  both files (``save --gsd-handoff``), so GSD users and ``/pl-resume`` users share one hand-off.

Every text value is redacted before it is written: GSD commits these files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from purlin_resume.checkpoints.format import NONE, Checkpoint
from purlin_resume.core import redact, store, templating
from purlin_resume.core.project import Project

VERSION = "1.0"
FILE_NAME = "HANDOFF.json"
CONTINUE_HERE = ".continue-here.md"
SOURCE = "purlin-resume"  # GSD's own writers mark theirs ("auto-compact"); this marks ours
# Field order of GSD's template (pause-work.md, write_structured).
FIELDS = (
    "version",
    "timestamp",
    "phase",
    "phase_name",
    "phase_dir",
    "plan",
    "task",
    "total_tasks",
    "status",
    "completed_tasks",
    "remaining_tasks",
    "blockers",
    "human_actions_pending",
    "decisions",
    "uncommitted_files",
    "next_action",
    "context_notes",
)
_PHASE = re.compile(r"^(\d+(?:\.\d+)?)-(.+)$")


def path(project: Project) -> Path:
    return project.planning_dir / FILE_NAME


@dataclass(frozen=True)
class Handoff:
    """A hand-off found in the project: HANDOFF.json (parsed, or why not) and .continue-here.md."""

    json_path: Path | None
    data: dict[str, Any] | None
    error: str | None
    continue_here: Path | None

    @property
    def present(self) -> bool:
        return self.json_path is not None or self.continue_here is not None


def _continue_here_files(project: Project) -> list[Path]:
    phases = project.planning_dir / "phases"
    found = list(phases.glob(f"*/{CONTINUE_HERE}")) if phases.is_dir() else []
    return sorted((p for p in found if p.is_file()), key=lambda p: p.stat().st_mtime)


def read(project: Project) -> Handoff:
    """The hand-off present in the project (``present`` is False when there is none)."""
    json_path = path(project)
    data, error = None, None
    present = json_path.is_file() and not json_path.is_symlink()
    if present:
        try:
            parsed = json.loads(store.read_text(json_path))
            if isinstance(parsed, dict):
                data = parsed
            else:
                error = "not a JSON object"
        except (ValueError, OSError) as exc:
            error = f"unreadable: {getattr(exc, 'msg', None) or exc}"
        except Exception as exc:  # noqa: BLE001 -- store's own errors carry a message
            error = getattr(exc, "message", str(exc))
    files = _continue_here_files(project)
    return Handoff(json_path if present else None, data, error, files[-1] if files else None)


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""


def _named(items: Any, key: str) -> list[str]:
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        if isinstance(item, dict):
            out.append(_text(item.get(key) or item.get("name") or item.get("description")))
        else:
            out.append(_text(item))
    return [i for i in out if i]


def summary(project: Project, handoff: Handoff) -> dict[str, Any]:
    """What a briefing shows of a hand-off (plain values, redacted by the caller; the notes cut
    to fit are redacted here)."""
    data = handoff.data or {}
    rel = project.relative
    return {
        "handoff": rel(handoff.json_path) if handoff.json_path else None,
        "error": handoff.error,
        "continue_here": rel(handoff.continue_here) if handoff.continue_here else None,
        "timestamp": _text(data.get("timestamp")),
        "phase": _text(data.get("phase_name") or data.get("phase")),
        "plan": _text(data.get("plan")),
        "task": _text(data.get("task")),
        "total_tasks": _text(data.get("total_tasks")),
        "status": _text(data.get("status")),
        "next_action": _text(data.get("next_action")),
        "remaining": _named(data.get("remaining_tasks"), "name")[:10],
        "blockers": _named(data.get("blockers"), "description")[:10],
        "human_actions": _named(data.get("human_actions_pending"), "action")[:10],
        # redacted whole before the cut: a secret cut short is no longer found
        "context_notes": redact.redact(_text(data.get("context_notes"))).text[:1000],
        "source": _text(data.get("source")),
    }


def briefing_part(project: Project) -> str:
    """The briefing's GSD hand-off section; empty when the project has none."""
    handoff = read(project)
    if not handoff.present:
        return ""
    return templating.render("restore/gsd_handoff.md.j2", h=summary(project, handoff))


# ---------------------------------------------------------------------------------------------
# writing


def current_phase_dir(project: Project) -> Path | None:
    """GSD's current phase: the folder under ``.planning/phases`` with the newest ``*PLAN.md``."""
    phases = project.planning_dir / "phases"
    if not phases.is_dir():
        return None
    plans = [p for p in phases.glob("*/*PLAN.md") if p.is_file()]
    if not plans:
        return None
    return max(plans, key=lambda p: p.stat().st_mtime).parent


def _given(value: str) -> str | None:
    return None if value in ("", NONE) else value


def from_checkpoint(project: Project, cp: Checkpoint, phase_dir: Path | None) -> dict[str, Any]:
    """The checkpoint in GSD's HANDOFF.json shape (version 1.0), redacted."""
    phase = phase_name = None
    if phase_dir is not None:
        match = _PHASE.match(phase_dir.name)
        phase, phase_name = (match.group(1), match.group(2)) if match else (phase_dir.name, None)
    done = [{"id": n, "name": item, "status": "done"} for n, item in enumerate(cp.done, 1)]
    in_progress = _given(cp.in_progress)
    task = None
    if in_progress:
        task = len(done) + 1
        done.append({"id": task, "name": in_progress, "status": "in_progress"})
    first_next = len(done) + 1
    remaining = [
        {"id": n, "name": item, "status": "not_started"}
        for n, item in enumerate(cp.next, first_next)
    ]
    decisions = [
        {"decision": item, "rationale": "", "phase": phase} for item in cp.pending_decisions
    ]
    notes = [_given(cp.notes), f"feature: {cp.feature}" if cp.feature != "none" else None]
    data = {
        "version": VERSION,
        "timestamp": cp.timestamp,
        "phase": phase,
        "phase_name": phase_name,
        "phase_dir": project.relative(phase_dir) if phase_dir else None,
        "plan": None,
        "task": task,
        "total_tasks": (len(done) + len(remaining)) or None,
        "status": "paused",
        "completed_tasks": done,
        "remaining_tasks": remaining,
        "blockers": [],
        "human_actions_pending": [],
        "decisions": decisions,
        "uncommitted_files": [line.split(" ", 1)[-1] for line in cp.uncommitted],
        "next_action": cp.next[0] if cp.next else in_progress,
        "context_notes": " / ".join(n for n in notes if n),
        "source": SOURCE,
        "branch": cp.branch,
        "session_id": cp.session,
    }
    return redact.redact_data(data)[0]


def continue_here_text(data: dict[str, Any]) -> str:
    """``.continue-here.md`` in GSD's shape (front matter, then the tagged sections)."""
    return templating.render("gsd/continue-here.md.j2", h=data)


def write(project: Project, data: dict[str, Any], phase_dir: Path | None) -> list[Path]:
    """Write HANDOFF.json (and .continue-here.md in the phase folder); the paths written."""
    target = path(project)
    store.write_text(target, store.dump_json({k: data.get(k) for k in FIELDS} | data))
    written = [target]
    if phase_dir is not None:
        note = phase_dir / CONTINUE_HERE
        store.write_text(note, continue_here_text(data))
        written.append(note)
    return written
