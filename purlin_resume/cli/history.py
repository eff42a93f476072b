"""`history ...` and `resume-task`: the agent history of `.planning/agent-history.json`."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import (
    print_json,
    print_text,
    project_for,
)
from purlin_resume.cli.options import (
    JsonOption,
    ProjectOption,
    SessionOption,
)
from purlin_resume.core import config, current_session
from purlin_resume.history import agent_history, resumption, tracking
from purlin_resume.history.agent_history import NewAgent

# Typer reads these annotations at runtime, so Optional/List stay (Python 3.10).
# ruff: noqa: UP045, UP006

history = typer.Typer(
    cls=PurlinGroup,
    name="history",
    help="Track subagent spawns in .planning/agent-history.json (the GSD v1.2 format).",
    no_args_is_help=True,
)
app.add_typer(history, name="history", rich_help_panel="Agent history")

NEW_AGENT = " Required for a new agent (not for one queued before)."
Task = Annotated[Optional[str], typer.Option("--task", help="What the agent executes." + NEW_AGENT)]
Phase = Annotated[
    Optional[str], typer.Option("--phase", help='Phase number, e.g. "02".' + NEW_AGENT)
]
Plan = Annotated[Optional[str], typer.Option("--plan", help='Plan number, e.g. "01".' + NEW_AGENT)]
Segment = Annotated[
    Optional[int], typer.Option("--segment", min=1, help="Segment of a segmented plan.")
]
Mode = Annotated[
    Optional[str],
    typer.Option("--mode", help="sequential or parallel (parallel when a group is given)."),
]
Group = Annotated[Optional[str], typer.Option("--group", help="Parallel group id to join.")]
NewGroup = Annotated[
    bool, typer.Option("--new-group", help="Start a parallel group (id in the GSD format).")
]
Granularity = Annotated[
    Optional[str], typer.Option("--granularity", help="plan (default) or task_group.")
]
DependsOn = Annotated[
    Optional[list[str]],
    typer.Option("--depends-on", help="Agent id or plan this depends on (repeatable)."),
]
Ref = Annotated[
    Optional[str],
    typer.Option("--ref", help="Branch or commit holding the agent's work (e.g. its worktree)."),
]
Files = Annotated[
    Optional[list[str]],
    typer.Option("--files", help="A file the agent created or modified (repeatable)."),
]
TaskResults = Annotated[
    Optional[str], typer.Option("--task-results", help="Per-task outcomes as a JSON object.")
]
CheckpointsSkipped = Annotated[
    Optional[int],
    typer.Option("--checkpoints-skipped", min=0, help="Checkpoints skipped in background."),
]
AgentId = Annotated[str, typer.Argument(help="Agent id, or a unique prefix of it.")]


def _session(explicit: str | None) -> str | None:
    return current_session.resolve(explicit)


def _warn(text: str | None) -> None:
    if text:
        typer.echo(f"warning: {text}", err=True)


def _summary(entry: dict[str, Any]) -> str:
    where = f"phase {entry.get('phase')} plan {entry.get('plan')}"
    if entry.get("segment") is not None:
        where += f" segment {entry['segment']}"
    if entry.get("parallel_group"):
        where += f", group {entry['parallel_group']}"
    return f"{entry['agent_id']} {entry['status']} ({where})"


def _report(recorded: tracking.Recorded, as_json: bool) -> None:
    pruned = recorded.pruned
    if as_json:
        print_json(
            {
                "entry": recorded.entry,
                "pruned": None
                if pruned is None
                else {
                    "removed": list(pruned.removed),
                    "remaining": pruned.remaining,
                    "max_entries": pruned.limit,
                    "over_limit": pruned.over_limit,
                },
            }
        )
    else:
        line = _summary(recorded.entry)
        if recorded.entry.get("spawn_commit"):
            line += f" at commit {recorded.entry['spawn_commit'][:12]}"
        print_text(line)
        if pruned and pruned.removed:
            print_text(_pruned_line(pruned))
    if pruned:
        _warn(pruned.warning())


@history.command("init")
def init_command(project: ProjectOption = None, as_json: JsonOption = False) -> None:
    """Create .planning/agent-history.json from the template when it is absent; prune it when it holds more than max_entries."""
    where = project_for(project)
    created, pruned = agent_history.init(where)
    file = agent_history.path(where)
    if as_json:
        print_json(
            {
                "path": str(file),
                "created": created,
                "pruned": list(pruned.removed) if pruned else [],
            }
        )
    else:
        print_text(f"{'created' if created else 'kept the existing'} {file}")
        if pruned and pruned.removed:
            print_text(_pruned_line(pruned))
    if pruned:
        _warn(pruned.warning())


_PRUNED_SHOWN = 10  # ids named in the line: a prune of thousands says how many more


def _pruned_line(pruned) -> str:
    n = len(pruned.removed)
    more = f" and {n - _PRUNED_SHOWN} more" if n > _PRUNED_SHOWN else ""
    shown = ", ".join(pruned.removed[:_PRUNED_SHOWN])
    return f"pruned {n} {'entry' if n == 1 else 'entries'}: {shown}{more}"


@history.command("abandon")
def abandon_command(
    wanted: Annotated[
        str, typer.Argument(help="Interrupted agent id (or unique prefix), or a parallel group id.")
    ],
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Start fresh: close an interrupted agent (or its whole parallel group) as failed, so it no longer waits for a resume."""
    closed = tracking.abandon(project_for(project), wanted)
    if as_json:
        print_json({"abandoned": closed})
        return
    for entry in closed:
        print_text(f"abandoned {_summary(entry)}")


def _entry_command(name: str, doc: str, agent_id_parameter: Any) -> None:
    """Register ``history NAME``, which records through ``tracking.NAME`` (spawn or queue)."""

    def command(
        agent_id: str,
        task: Task = None,
        phase: Phase = None,
        plan: Plan = None,
        segment: Segment = None,
        mode: Mode = None,
        group: Group = None,
        new_group: NewGroup = False,
        granularity: Granularity = None,
        depends_on: DependsOn = None,
        ref: Ref = None,
        session: SessionOption = None,
        project: ProjectOption = None,
        as_json: JsonOption = False,
    ) -> None:
        request = NewAgent(
            agent_id, task, phase, plan, segment, mode, group, new_group, granularity,
            tuple(depends_on or ()), ref,
        )  # fmt: skip
        record = getattr(tracking, name)
        _report(record(project_for(project), request, _session(session)), as_json)
        if task is not None and len(task) > agent_history.PROMPT_CHARS:
            _warn(
                f"--task of {len(task)} characters: the history keeps at most "
                f"{agent_history.PROMPT_CHARS} of it, saying how long it was"
            )

    command.__annotations__["agent_id"] = agent_id_parameter
    command.__doc__ = doc
    history.command(name)(command)


_entry_command(
    "spawn",
    "Record a spawned subagent (its spawn commit and session too), then prune.",
    Annotated[str, typer.Option("--agent-id", help="Id the Agent tool returned.")],
)
_entry_command(
    "queue",
    "Record an agent waiting for its dependencies (status queued); spawn moves it on.",
    Annotated[str, typer.Argument(help="Id of the agent that waits.")],
)


def _status_command(target: str, doc: str) -> None:
    def command(
        agent: AgentId,
        files: Files = None,
        task_results: TaskResults = None,
        checkpoints_skipped: CheckpointsSkipped = None,
        project: ProjectOption = None,
        as_json: JsonOption = False,
    ) -> None:
        recorded = tracking.change_status(
            project_for(project),
            agent,
            target,
            files=files or (),
            task_results=agent_history.parse_task_results(task_results),
            checkpoints_skipped=checkpoints_skipped,
        )
        _report(recorded, as_json)

    command.__doc__ = doc
    history.command(
        {"completed": "complete", "failed": "fail", "interrupted": "interrupt"}[target]
    )(command)


# The statuses are those of history.COMPLETED, FAILED and INTERRUPTED (the GSD v1.2 values).
_status_command("completed", "Mark an agent completed (sets completion_timestamp).")
_status_command("failed", "Mark an agent failed.")
_status_command("interrupted", "Mark an agent interrupted: its session ended before it did.")


@history.command("list")
def list_command(
    status: Annotated[Optional[str], typer.Option("--status", help="Only this status.")] = None,
    group: Annotated[Optional[str], typer.Option("--group", help="Only this group.")] = None,
    parallel: Annotated[
        bool, typer.Option("--parallel", help="Only entries of some parallel group.")
    ] = False,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """List entries as they are in the file, oldest first."""
    doc = agent_history.load(project_for(project))
    chosen = agent_history.select(doc, status, group, parallel)
    if as_json:
        print_json(
            {
                "path": str(doc.path),
                "version": doc.data.get("version"),
                "max_entries": doc.max_entries,
                "entries": [e.data for e in chosen],
            }
        )
        return
    if not chosen:
        print_text(f"no matching entries in {doc.path}")
        return
    rows = [(e.agent_id, e.status, e.timestamp or "-", e.task) for e in chosen]
    width = max(len(r[0]) for r in rows)
    print_text("\n".join(f"{a:<{width}}  {s:<11}  {t:<20}  {d}" for a, s, t, d in rows))


@history.command("scan")
def scan_command(project: ProjectOption = None, as_json: JsonOption = False) -> None:
    """Mark running agents whose spawning session is over as interrupted."""
    where = project_for(project)
    found = tracking.scan(where, config.load(where))
    if as_json:
        print_json({"interrupted": [{"entry": d.entry, "reason": d.reason} for d in found]})
    elif not found:  # those marked before wait for a resume: 'history list --status interrupted'
        print_text("no running agent found interrupted")
    else:
        print_text("\n".join(f"interrupted {d.entry['agent_id']}: {d.reason}" for d in found))


@app.command("resume-task", rich_help_panel="Agent history")
def resume_task_command(
    agent: Annotated[
        Optional[str],
        typer.Argument(
            help="Agent id or unique prefix (default: the most recent interrupted agent); "
            "with --batch also a parallel group id.",
            show_default=False,
        ),
    ] = None,
    batch: Annotated[
        bool, typer.Option("--batch", help="Resume every interrupted agent of the group.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Resume even when files conflict.")
    ] = False,
    ref: Ref = None,
    session: SessionOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Resume an interrupted agent: record it and print a briefing for a fresh agent (GSD)."""
    where = project_for(project)
    done = resumption.resume(
        where,
        config.load(where),
        wanted=agent,
        batch=batch,
        force=force,
        session_id=_session(session),
        ref=ref,
    )
    if as_json:
        print_json(done.to_dict())
    else:
        print_text(done.briefing)
