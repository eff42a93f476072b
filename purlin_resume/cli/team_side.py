"""The `--team` side of the resurrection commands (`find`, `bookmark list|share`,
`resurrections`, `resurrect NAME`): the team's bookmarks and log, as they print them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from purlin_resume.cli.common import print_json, print_text, warning_line
from purlin_resume.cli.environment import environment_here
from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection import flow as resurrection
from purlin_resume.resurrection.environment import Environment
from purlin_resume.team import reads, sync


def warn(text: str) -> None:
    warning_line(f"team: {text}")


def team_entries(claude_dir: Path | None, for_stats: bool = False) -> tuple[str, list[dict]]:
    env = environment_here(claude_dir, None)
    found = reads.resurrections(env.history, env.shelves.paths(), warn)
    return sync.where(sync.require(env.history)), found


def stats(claude_dir: Path | None) -> tuple[str, dict[str, Any]]:
    """The team's resurrection metrics, computed in SQL."""
    env = environment_here(claude_dir, None)
    figures = reads.figures(env.history, env.shelves.paths(), warn)
    return sync.where(sync.require(env.history)), figures


def bookmarks(claude_dir: Path | None, tag: str | None, as_json: bool) -> None:
    env = environment_here(claude_dir, None)
    marks = [
        m
        for m in reads.bookmarks(env.history, env.shelves.paths(), warn)
        if tag is None or tag in m["tags"]
    ]
    if as_json:
        print_json({"bookmarks": marks})
        return
    print_text("".join(_mark_line(m) for m in marks) or "No team bookmarks.\n")


def _mark_line(mark: dict[str, Any]) -> str:
    what = f"agent {mark['agent_id']}" if mark.get("agent_id") else "main agent"
    tags = f"  [{', '.join(mark['tags'])}]" if mark.get("tags") else ""
    shared = "  shared context" if mark.get("shared") else ""
    return (
        f"{mark['name']}  {mark['bookmark_id']}  {mark['member']}  session {mark['session_id']}"
        f" · {what}{tags}{shared}\n"
        f"    {mark.get('description') or ''}  resurrected {mark.get('team_resurrections', 0)}x"
        f" by the team  uuid {mark['uuid']}\n"
    )


def find(claude_dir: Path | None, text: str, limit: int, as_json: bool) -> None:
    env = environment_here(claude_dir, None)
    found = reads.find(env.history, env.shelves.paths(), text, limit, warn)
    if as_json:
        print_json({"query": text, "results": found})
        return
    print_text("".join(_mark_line(m) for m in found) or f"No team bookmark matches {text!r}.\n")


def share(key: str, no_redact: bool, env: Environment, as_json: bool) -> None:
    """Keep a bookmark's redacted context pack for the team; the next sync publishes it."""
    if no_redact:
        raise UsageError("bookmark share always redacts: --no-redact is refused here")

    candidate = resurrection.by_bookmark(env, key)
    mark = candidate.bookmark
    assert mark is not None  # a candidate found by its bookmark carries it
    plan = resurrection.plan(env, candidate, "bookmark", key, "hybrid", None, True)
    shared = reads.share(
        env.history, mark.to_dict(), plan.context.to_dict(), plan.tokens, plan.method
    )
    if as_json:
        print_json(shared)
        return
    print_text(
        f"shared {shared['name']} ({shared['bookmark_id']}): {plan.method} context, "
        f"{plan.tokens} tokens, {shared['bytes']} bytes compressed; "
        "'purlin-resume team sync' publishes it\n"
    )
