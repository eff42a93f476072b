"""`save`, `restore` and `checkpoints`: role-aware session checkpoints (``/pl-resume``)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.table import Table

from purlin_resume.agents import handover
from purlin_resume.checkpoints import format as checkpoint_format
from purlin_resume.checkpoints import gsd_handoff, project_state, restore, roles
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    print_json,
    print_text,
    project_for,
    warning_line,
)
from purlin_resume.cli.options import (
    JsonOption,
    ProjectOption,
    SessionOption,
)
from purlin_resume.core import config, current_session, store, yaml_text
from purlin_resume.core.errors import UsageError


def _opt(*names: str, help: str) -> Any:
    return typer.Option(*names, help=help, show_default=False)


def _read_fields(source: str) -> dict[str, Any]:
    """Fields from a YAML or JSON mapping in a file, or on stdin for ``-``."""
    largest = 4 * checkpoints.LARGEST  # room for YAML's own marks around the fields
    if source == "-":
        text, where = sys.stdin.read(largest + 1), "standard input"
        if len(text) > largest:
            raise UsageError(f"--from -: more than {largest // 1024} KiB on standard input")
    else:
        text, where = _file_text("--from", source, largest), source
    try:
        data = yaml_text.load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "syntax error"
        raise UsageError(f"--from {where}: not valid YAML or JSON ({first})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--from {where}: expected a mapping of checkpoint fields")
    return {str(k).strip().lower().replace("-", "_").replace(" ", "_"): v for k, v in data.items()}


@app.command(rich_help_panel="Checkpoints")
def save(
    role: Annotated[str | None, _opt("--role", help="architect, builder or qa.")] = None,
    feature: Annotated[
        str | None, _opt("--feature", help='Feature being worked on (default "none").')
    ] = None,
    in_progress: Annotated[
        str | None, _opt("--in-progress", help="What is actively in progress.")
    ] = None,
    done: Annotated[
        list[str] | None, _opt("--done", help="Completed this session (repeat).")
    ] = None,
    next_: Annotated[list[str] | None, _opt("--next", help="Next step, in order (repeat).")] = None,
    notes: Annotated[str | None, _opt("--notes", help="Open questions, blockers.")] = None,
    step: Annotated[str | None, _opt("--step", help="Builder: protocol step 0-4.")] = None,
    step_note: Annotated[
        str | None, _opt("--step-note", help="Builder: detail of the step.")
    ] = None,
    delivery_plan: Annotated[
        str | None, _opt("--delivery-plan", help="Builder: phase, status, features done.")
    ] = None,
    work_queue: Annotated[
        list[str] | None, _opt("--work-queue", help="Builder: remaining feature (repeat).")
    ] = None,
    pending_decision: Annotated[
        list[str] | None,
        _opt("--pending-decision", help="Builder: unrecorded decision (repeat)."),
    ] = None,
    scenario_progress: Annotated[
        str | None, _opt("--scenario-progress", help='QA: e.g. "5 of 8 scenarios completed".')
    ] = None,
    current_scenario: Annotated[
        str | None, _opt("--current-scenario", help="QA: scenario being verified.")
    ] = None,
    discovery: Annotated[
        list[str] | None, _opt("--discovery", help="QA: discovery recorded (repeat).")
    ] = None,
    verification_queue: Annotated[
        str | None, _opt("--verification-queue", help="QA: verified vs remaining.")
    ] = None,
    spec_review: Annotated[
        list[str] | None,
        _opt("--spec-review", help="Architect: spec review in progress (repeat)."),
    ] = None,
    discovery_processing: Annotated[
        str | None,
        _opt("--discovery-processing", help="Architect: discoveries reviewed vs pending."),
    ] = None,
    from_: Annotated[
        str | None, _opt("--from", help="Read the fields from a YAML/JSON file, or - for stdin.")
    ] = None,
    gsd_handoff: Annotated[
        bool,
        typer.Option(
            "--gsd-handoff",
            help="Also write GSD's hand-off (.planning/HANDOFF.json and the current phase's "
            ".continue-here.md) for /gsd:resume-work.",
        ),
    ] = False,
    session: SessionOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Save a checkpoint of this session (what /pl-resume save runs). Branch and uncommitted changes come from git."""
    given = {
        "feature": feature,
        "in_progress": in_progress,
        "done": done,
        "next": next_,
        "notes": notes,
        "step": step,
        "step_note": step_note,
        "delivery_plan": delivery_plan,
        "work_queue": work_queue,
        "pending_decisions": pending_decision,
        "scenario_progress": scenario_progress,
        "current_scenario": current_scenario,
        "discoveries": discovery,
        "verification_queue": verification_queue,
        "spec_reviews": spec_review,
        "discovery_processing": discovery_processing,
    }
    values = _read_fields(from_) if from_ else {}
    values.update({k: v for k, v in given.items() if v not in (None, [])})
    chosen_role = roles.required_role(str(role or values.pop("role", "") or ""))
    values.pop("role", None)
    session_id = checkpoints.session_id(session)
    where = project_for(project)
    before_clear = handover.earlier(where, session_id)
    saved, cp = checkpoints.take(where, chosen_role, values, session_id)
    moved = handover.superseded(where, before_clear)  # its work from before /clear: to no one
    handed = _gsd_handoff(where, cp) if gsd_handoff else None
    _show_saved(where, saved, cp, handed, [where.relative(p) for p in moved], as_json)


def _show_saved(
    where,
    saved: checkpoints.Saved,
    cp,
    handed: list[str] | None,
    superseded: list[str],
    as_json: bool,
) -> None:
    """What ``save`` prints: where the checkpoint went and what it holds, the GSD hand-off's
    files (``handed``: None when not asked), where an unreadable checkpoint was kept, and where
    this agent's older checkpoints (before ``/clear``) were archived."""
    aside = where.relative(saved.kept_aside) if saved.kept_aside else None
    if as_json:
        extra: dict = {"gsd_handoff": handed} if handed is not None else {}
        if superseded:
            extra["superseded"] = superseded
        print_json(
            {
                "path": where.relative(saved.path),
                "kept_aside": aside,
                **checkpoint_format.as_dict(cp),
                **extra,
            }
        )
    else:
        if aside:
            typer.echo(f"warning: the unreadable checkpoint there was kept at {aside}", err=True)
        print_text(
            f"Checkpoint saved: {where.relative(saved.path)} ({cp.role}, {cp.timestamp}, branch {cp.branch})"
            + "".join(f"\nGSD hand-off: {name}" for name in handed or [])
            + "".join(
                f"\nArchived your checkpoint from before /clear (out of date): {p}"
                for p in superseded
            )
        )


def _gsd_handoff(where, cp) -> list[str]:
    """``--gsd-handoff``: the checkpoint written again as GSD's hand-off; the files written."""
    phase = gsd_handoff.current_phase_dir(where)
    data = gsd_handoff.from_checkpoint(where, cp, phase)
    written = [where.relative(p) for p in gsd_handoff.write(where, data, phase)]
    if phase is None:
        typer.echo(
            "note: no phase folder with a PLAN.md under .planning/phases: "
            "only HANDOFF.json was written",
            err=True,
        )
    return written


@app.command(name="restore", rich_help_panel="Checkpoints")
def restore_command(
    role: Annotated[
        str | None,
        typer.Argument(help="architect, builder or qa (default: detected).", show_default=False),
    ] = None,
    system_prompt: Annotated[
        str | None,
        _opt(
            "--system-prompt",
            help="File holding the system prompt (or - for stdin), to detect the role and the launcher's instructions.",
        ),
    ] = None,
    reload_instructions: Annotated[
        bool,
        typer.Option(
            "--reload-instructions",
            help="Reload the instruction layers even when the system prompt has them.",
        ),
    ] = False,
    keep: Annotated[
        bool, typer.Option("--keep", help="Leave the checkpoint in place instead of consuming it.")
    ] = False,
    session: SessionOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Restore a session (what /pl-resume ROLE runs): checkpoint, instructions, commands and fresh project state."""
    given = roles.restore_role(role)  # before anything is read
    prompt_text = _system_prompt(system_prompt)
    where = project_for(project)
    session_id = checkpoints.session_id(session)
    standing = handover.standing(where, session_id)
    can_ask = system_prompt != "-" and sys.stdin.isatty()
    chosen, source = restore.choose_role(
        where,
        given,
        session_id,
        standing.role or roles.from_environment(),
        prompt_text,
        _ask_role if can_ask else None,
    )
    settings = config.load(where)
    run_status = _may_run_status(where, settings, stdin_used=system_prompt == "-")
    r = restore.prepare(
        where,
        settings,
        chosen,
        source,
        session=session_id,
        session_explicit=bool(session),
        busy=_running_elsewhere(where) if session else standing.busy,
        prefer=standing.chain,
        claimed=standing.claimed,
        claim=not keep,
        system_prompt=prompt_text,
        reload_instructions=reload_instructions,
        run_status=run_status,
    )
    if r.found is not None and r.found.session != session_id:
        handover.taken_over(where, session_id, chosen, r.archived_to)
    if as_json:
        print_json(restore.as_json(where, r))
    else:
        print_text(restore.briefing(where, r))


def _system_prompt(source: str | None) -> str | None:
    """``--system-prompt``: the text of the file named, or of standard input for ``-``."""
    if source is None:
        return None
    return sys.stdin.read() if source == "-" else _file_text("--system-prompt", source)


def _running_elsewhere(where) -> frozenset[str]:
    """The sessions still running but the one this process runs in (whose checkpoint a
    restore of a session named by ``--session`` may take)."""
    return handover.standing(where, current_session.from_environment()).busy


def _may_run_status(where, settings, stdin_used: bool) -> bool:
    """A trusted project's status command runs; otherwise a person at a terminal is asked
    (once, for this restore), and without one the briefing says how to trust the project."""
    if settings.trusted:
        return True
    if stdin_used or not sys.stdin.isatty():
        return False
    if project_state.run_status_command(where, settings).outcome != "untrusted":
        return False  # none configured or not found: nothing to ask about
    return typer.confirm(
        f"Run this project's status command {settings.status_command.strip()!r}? It is code "
        "from the repository ('purlin-resume trust' allows it for good)",
        default=False,
        err=True,
    )


def _file_text(option: str, source: str, largest: int | None = None) -> str:
    """The text of the file an option names (a usage error when it is not a file, or holds
    more than ``largest`` bytes)."""
    try:
        with store.open_regular(Path(source)) as handle:  # a FIFO is refused, not waited on
            raw = handle.read(-1 if largest is None else largest + 1)
    except FileNotFoundError:
        raise UsageError(f"{option} {source}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{option} {source}: is a folder; give a file") from None
    except OSError as exc:
        raise UsageError(f"{option} {source}: {exc.strerror or exc}") from None
    if largest is not None and len(raw) > largest:
        raise UsageError(f"{option} {source}: more than {largest // 1024} KiB")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        raise UsageError(f"{option} {source}: not UTF-8 text (byte {bad.start})") from None


def _ask_role() -> str:
    return typer.prompt(f"Which role are you resuming? ({', '.join(roles.ROLES)})")


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


@app.command(name="checkpoints", rich_help_panel="Checkpoints")
def list_checkpoints(project: ProjectOption = None, as_json: JsonOption = False) -> None:
    """List the live (not yet restored) checkpoints of this project."""
    where = project_for(project)
    now = time.time()
    rows: list[dict[str, Any]] = []
    for found in checkpoints.live(where):
        cp = found.checkpoint
        rows.append(
            {
                "session": found.session,
                "path": where.relative(found.path),
                "role": cp.role if cp else None,
                "timestamp": cp.timestamp if cp else None,
                "age_seconds": int(now - found.modified),
                "feature": cp.feature if cp else None,
                "error": found.error,
            }
        )
    if as_json:
        print_json(rows)
        return
    if not rows:
        print_text("No live checkpoints.")
        return

    table = Table("session", "role", "age", "feature", "path", box=None, highlight=False)
    for row in rows:
        table.add_row(
            row["session"] or "(none)",
            row["role"] or "unreadable",
            _age(row["age_seconds"]),
            row["feature"] or "-",
            row["path"],
        )
    Console(highlight=False, width=None if sys.stdout.isatty() else 240).print(table, markup=False)
    for row in rows:
        if row["error"]:
            warning_line(row["error"])  # why a checkpoint is unreadable: a line of its own
