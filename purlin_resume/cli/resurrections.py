"""`resurrections` and `resurrections stats`: the resurrection log, its history and figures."""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated, Any, Optional

import typer

from purlin_resume.claude import layout
from purlin_resume.cli.app import PurlinGroup, app
from purlin_resume.cli.common import Printout, print_json, print_text
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, Outcome, TeamOption
from purlin_resume.resurrection import log as resurrection_log

# Typer reads these annotations at runtime, so Optional/List stay (Python 3.10).
# ruff: noqa: UP045, UP006


class Mode(str, Enum):
    bookmark = "bookmark"
    fuzzy = "fuzzy"
    direct = "direct"


resurrections = typer.Typer(
    cls=PurlinGroup,
    name="resurrections",
    help="The resurrection log: history and statistics.",
    invoke_without_command=True,
)
app.add_typer(resurrections, name="resurrections", rich_help_panel="Resurrection")
SinceOption = Annotated[
    Optional[str],
    typer.Option(
        "--since",
        help="2026-02-09, 7d / 12h / 30m, or yesterday / last week / 3 days ago.",
        show_default=False,
    ),
]


def _entries(claude_dir, since, agent, outcome, mode, team=False, for_stats=False):
    """The log's path, its chosen entries newest first (an iterator over the local log) and
    what tells the skipped lines once they are read (``.skipped``)."""
    since = resurrection_log.parse_since(since) if since else None
    if team:
        from purlin_resume.cli import team_side  # the team wing, loaded for --team only

        log, entries = team_side.team_entries(claude_dir, for_stats)
        entries.reverse()
        history: Any = _NothingSkipped
    else:
        log = layout.history_dir(claude_dir) / resurrection_log.FILE_NAME
        entries = history = resurrection_log.History(log, since)
    chosen = resurrection_log.matching(
        entries, since, agent, outcome.value if outcome else None, mode.value if mode else None
    )
    return log, chosen, history


class _NothingSkipped:
    skipped = 0


def _batches(entries, size: int = 1000):
    batch = []
    for entry in entries:
        batch.append(entry)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _warn_skipped(log, skipped: int) -> None:
    if skipped:
        typer.echo(f"warning: {skipped} line(s) of {log} did not parse and were skipped", err=True)


@resurrections.callback()
def resurrections_list(
    ctx: typer.Context,
    since: SinceOption = None,
    agent: Annotated[
        Optional[str], typer.Option("--agent", help="Agent or session id (prefix).")
    ] = None,
    outcome: Annotated[Optional[Outcome], typer.Option("--outcome")] = None,
    mode: Annotated[Optional[Mode], typer.Option("--mode")] = None,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Recent resurrections, newest first (filters: --since --agent --outcome --mode; --team:
    every teammate's)."""
    ctx.obj = (since, agent, outcome, mode, claude_dir, as_json, team)
    if ctx.invoked_subcommand is not None:
        return
    log, chosen, history = _entries(claude_dir, since, agent, outcome, mode, team)
    with Printout() as out:
        shown = 0
        for batch in _batches(chosen):
            if as_json:
                pieces = [json.dumps(e, indent=2, ensure_ascii=False) for e in out.data(batch)]
                out.add(("," if shown else "") + "\n" + ",\n".join(map(_nested, pieces)))
            else:
                out.add("\n".join(map(resurrection_log.summary_line, batch)) + "\n")
            shown += len(batch)
        if as_json:
            head = {"log": str(log), "skipped_lines": history.skipped, "resurrections": []}
            start, _, end = json.dumps(out.data(head), indent=2, ensure_ascii=False).rpartition(
                "[]"
            )
            out.send(start + "[", ("\n  ]" if shown else "]") + end + "\n")
            return
        _warn_skipped(log, history.skipped)
        if not shown:
            print_text(f"No resurrections in {log}.\n")
            return
        out.send()


def _nested(document: str) -> str:
    """A JSON document as an item of the top-level document's list (indented by two levels)."""
    return "\n".join("    " + line for line in document.split("\n"))


@resurrections.command("stats")
def resurrections_stats(
    ctx: typer.Context,
    claude_dir: ClaudeDirOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Top agents, success by mode, context size by agent type, cross-repo, latency, failures."""
    since, agent, outcome, mode, parent_dir, parent_json, parent_team = ctx.obj or (None,) * 7
    claude_dir, team = claude_dir or parent_dir, team or bool(parent_team)
    if team and not (since or agent or outcome or mode):
        from purlin_resume.cli import team_side  # the team wing, loaded for --team only

        (log, figures), history = team_side.stats(claude_dir), _NothingSkipped
    else:
        log, chosen, history = _entries(claude_dir, since, agent, outcome, mode, team, True)
        figures = resurrection_log.stats(chosen, newest_first=True)
    if as_json or parent_json:
        print_json({"log": str(log), "skipped_lines": history.skipped, **figures})
        return
    _warn_skipped(log, history.skipped)
    lines = [f"{figures['total']} resurrection(s) in {log}", "", "Most resurrected:"]
    lines += [f"  {t['resurrections']:4}  {t['agent']}" for t in figures["top_agents"]] or ["  -"]
    lines.append("Success rate by mode:")
    lines += [
        f"  {m:9} {v['success']}/{v['total']} ({v['rate'] * 100:.0f}%)"
        for m, v in figures["success_rate_by_mode"].items()
    ] or ["  -"]
    lines.append("Average context tokens by agent type:")
    lines += [
        f"  {k:16} {v}" for k, v in figures["average_context_tokens_by_agent_type"].items()
    ] or ["  -"]
    cross = figures["cross_repo"]
    lines.append(
        f"Cross-repo: {cross['cross']} of {figures['total']}"
        + (f" ({cross['ratio'] * 100:.0f}%)" if cross["ratio"] is not None else "")
    )
    latency = figures["latency_ms"]
    lines.append(f"Latency ms: p50 {latency['p50']}  p95 {latency['p95']}  p99 {latency['p99']}")
    lines.append("Top failure reasons:")
    lines += [f"  {f['count']:4}  {f['reason']}" for f in figures["top_failure_reasons"]] or ["  -"]
    print_text("\n".join(lines) + "\n")
