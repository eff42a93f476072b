"""`agents-status`, `revive`, `lineage`, `stall check` and `watch`: the registered agents."""

from __future__ import annotations

import time
from typing import Annotated, Optional

import typer

from purlin_resume.agents import lineage, registry, revival, stall, watch
from purlin_resume.agents.stall import server_of
from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import (
    print_json,
    print_text,
    project_for,
    warning_line,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    ProjectOption,
    TmuxSocketOption,
    tmux_server,
)
from purlin_resume.core import config
from purlin_resume.core.errors import PurlinError, UsageError
from purlin_resume.core.project import locate

STALLED_EXIT, DEAD_EXIT, HELD_EXIT = 3, 4, 5  # stall check: 0 active, 3 stalled, 4 dead,
# 5 held (a dialog waits for the user), apart from errors
AgentArgument = Annotated[
    str,
    typer.Argument(metavar="AGENT_ID", help="Registered agent (session) id or a unique prefix."),
]
stall_app = typer.Typer(
    cls=PurlinGroup, help="Stall detection for registered agents.", no_args_is_help=True
)
app.add_typer(stall_app, name="stall", rich_help_panel="Revival and stall watch")


@app.command("agents-status", rich_help_panel="Revival and stall watch")
def agents_status_command(project: ProjectOption = None, as_json: JsonOption = False) -> None:
    """Registered agents: alive or dead (ended, process gone, pane gone), role, lineage."""
    found = project_for(project)
    statuses = lineage.statuses(registry.load(found), server_of(config.load(found)))
    if as_json:
        print_json({"project": str(found.root), "agents": [s.to_dict() for s in statuses]})
        return
    if not statuses:
        print_text(f"No registered agents in {found.root} (.purlin/agents.json).\n")
        return
    lines = []
    for status in statuses:
        agent = status.agent
        links = []
        if agent.previous_agent_id:
            links.append(f"succeeds {agent.previous_agent_id}")
        if status.successors:
            links.append(f"succeeded by {', '.join(status.successors)}")
        lines.append(
            f"{agent.session_id}  {status.liveness.state:<7}  {agent.role or '-'}  "
            f"pane {agent.tmux_pane or '-'}"
            f"{f' (-S {agent.tmux_socket})' if agent.tmux_pane and agent.tmux_socket else ''}  "
            f"started {agent.started_at or '-'}\n"
            f"    {status.liveness.why}{'; ' + '; '.join(links) if links else ''}\n"
        )
    print_text("".join(lines))


@app.command("revive", rich_help_panel="Revival and stall watch")
def revive_command(
    agent_id: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at runtime on Python 3.10
        typer.Argument(
            metavar="AGENT_ID",
            help="Registered agent (session) id or a unique prefix.",
            show_default=False,
        ),
    ] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every registered agent whose process died without ending its session (a "
            "crash, a reboot, a killed tmux server), each in its own window; agents already "
            "revived are left.",
        ),
    ] = False,
    native: Annotated[
        bool,
        typer.Option(
            "--native",
            help="Resume the agent's own conversation (claude --resume, full context) instead "
            "of briefing a fresh successor; needs its transcript.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be started and sent; do nothing.")
    ] = False,
    tmux_socket: TmuxSocketOption = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Start a successor for a dead agent in a new tmux window and brief it from the transcript."""
    if every == (agent_id is not None):
        raise UsageError("give one AGENT_ID or --all")
    server = tmux_server(tmux_socket)
    found = project_for(project)
    settings = config.load(found)
    if every:
        swept = revival.sweep(found, settings, native, claude_dir, dry_run, server)
        _report_sweep(swept, dry_run, as_json)
        return
    assert agent_id is not None  # without --all an AGENT_ID is given (checked above)
    planner = revival.plan_native if native else revival.plan
    planned = planner(found, agent_id, settings, claude_dir=claude_dir, tmux_server=server)
    if dry_run:
        for doubt in revival.doubts(found, planned, settings, claude_dir):
            warning_line(doubt)
        if as_json:
            print_json({"dry_run": True, **planned.to_dict()})
            return
        print_text(_plan_text(planned))
        return
    done = revival.perform(found, planned, settings)
    if as_json:
        print_json({"dry_run": False, **done.to_dict()})
        return
    if done.outcome != revival.SUCCESS:
        typer.echo(f"partial: {done.problem}", err=True)
    print_text(_revived_line(done))


def _plan_text(planned) -> str:
    how = " (resuming its own conversation)" if planned.native else ""
    parts = [
        f"Would revive {planned.predecessor.session_id} as {planned.successor_id}{how}\n",
        f"  command: {planned.command}\n  folder:  {planned.cwd}\n",
        f"  tmux session: {planned.session} on {planned.server.label}\n",
        *(f"  env: {key}={value}\n" for key, value in planned.env.items()),
    ]
    for injection in planned.injections:
        parts.append(f"\n--- {injection.kind} injection ---\n{injection.text.rstrip()}\n")
    return "".join(parts)


def _revived_line(done) -> str:
    planned = done.plan
    if planned.native:
        how = "resuming its own conversation"
    else:
        kinds = " then ".join(i.kind for i in planned.injections)
        confirmed = done.outcome == revival.SUCCESS
        how = f"{kinds} {'injected' if confirmed else 'not all confirmed'}"
    return (
        f"Revived {planned.predecessor.session_id} as {planned.successor_id} in tmux pane "
        f"{done.pane} on {planned.server.label} ({how}).\n"
    )


def _report_sweep(sweep, dry_run: bool, as_json: bool) -> None:
    if as_json:
        print_json({"dry_run": dry_run, **sweep.to_dict()})
    else:
        none = "No agent to revive.\n"  # the agents left are named below, each with why
        if dry_run:  # a blank line between one agent's plan and the next
            lines = ["\n".join(_plan_text(p) for p in sweep.plans) or none]
        else:
            lines = [_revived_line(d) for d in sweep.done]
            lines += [f"Failed {agent}: {why}\n" for agent, why in sweep.failed]
            if not sweep.plans:
                lines.append(none)
        lines += [f"Left {agent}: {why}\n" for agent, why in sweep.skipped]
        print_text("".join(lines))
    if sweep.failed:
        raise PurlinError(f"{len(sweep.failed)} of {len(sweep.plans)} revivals failed")


@app.command("lineage", rich_help_panel="Revival and stall watch")
def lineage_command(
    agent_id: AgentArgument, project: ProjectOption = None, as_json: JsonOption = False
) -> None:
    """The chain of predecessors and the successors of an agent."""
    found = project_for(project)
    agents = registry.load(found)
    agent = registry.resolve(agents, agent_id)
    before = lineage.predecessors(agents, agent.session_id)
    after = lineage.descendants(agents, agent.session_id)
    if as_json:
        print_json(
            {
                "agent_id": agent.session_id,
                "predecessors": [{"agent_id": sid, "registered": sid in agents} for sid in before],
                "successors": [node.to_dict() for node in after],
            }
        )
        return
    lines = []
    for depth, sid in enumerate(reversed(before)):
        lines.append(f"{'  ' * depth}{sid}{'' if sid in agents else ' (not registered)'}")
    lines.append(f"{'  ' * len(before)}{agent.session_id}  <- this agent")

    def walk(nodes, depth):
        for node in nodes:
            lines.append(f"{'  ' * depth}{node.agent_id}")
            walk(node.children, depth + 1)

    walk(after, len(before) + 1)
    print_text("\n".join(lines) + "\n")


@stall_app.command("check")
def stall_check_command(
    agent_id: AgentArgument,
    lookback: Annotated[
        Optional[float],  # noqa: UP045 - Typer reads the annotation at runtime on Python 3.10
        typer.Option(
            "--lookback",
            help="Minutes of activity that count (default: resume.stall_lookback_minutes, 60).",
            show_default=False,
        ),
    ] = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Is the agent active? Confidence, level, last activity, signals, reasons, and the sources that could not be read; a dead agent is not assessed. Exit code: 0 active, 3 stalled, 4 dead, 5 held: a dialog on its screen waits for the user (1 error, 2 usage)."""
    if lookback is not None and lookback <= 0:
        raise UsageError("--lookback must be a positive number of minutes")
    result = stall.detect(project_for(project), agent_id, lookback)
    code = {"active": 0, "stalled": STALLED_EXIT, stall.HELD: HELD_EXIT}.get(
        result.verdict, DEAD_EXIT
    )
    if as_json:
        print_json(result.to_dict())
        raise typer.Exit(code)
    if result.liveness is not None and result.verdict == lineage.DEAD:
        print_text(f"{result.agent_id}: dead ({result.liveness.why}); not assessed\n")
        raise typer.Exit(code)
    last = result.to_dict()["last_activity"] or "never"
    lines = [
        f"{result.agent_id}: {result.verdict} (confidence {result.confidence:.2f}, "
        f"{result.level}; validation {'passed' if result.validation_passed else 'failed'}; "
        f"last activity {last})"
    ]
    lines += [
        f"  signal {s.source.value} tier {s.tier} {s.confidence:.2f} "
        f"{s.to_dict()['timestamp']} {s.detail}"
        for s in result.signals
    ]
    lines += [f"  reason: {reason}" for reason in result.reasons]
    lines += [f"  note: {note}" for note in result.notes]
    print_text("\n".join(lines) + "\n")
    raise typer.Exit(code)


@app.command("watch", rich_help_panel="Revival and stall watch")
def watch_command(
    interval: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(
            "--interval",
            help="Seconds between passes (default: resume.watch_interval, 300).",
            show_default=False,
        ),
    ] = None,
    once: Annotated[bool, typer.Option("--once", help="One pass, then exit.")] = False,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Watch live registered agents and send the resume prompt to stalled ones through tmux."""
    if interval is not None and interval <= 0:
        raise UsageError("--interval must be a positive number of seconds")
    found = locate(project)
    settings, unusable = config.applied(found)  # the watch fails open
    if unusable:
        typer.echo(f"warning: {unusable}", err=True)
    pause = interval if interval is not None else settings.watch_interval
    while True:
        decisions = watch.watch_once(found, settings)
        if as_json:
            print_json({"decisions": [d.to_dict() for d in decisions]})
        else:
            text = "".join(f"{d.at} {d.agent_id} {d.action}: {d.reason}\n" for d in decisions)
            print_text(text or f"{time.strftime('%H:%M:%S')} no live registered agents\n")
        if once:
            return
        time.sleep(pause)
