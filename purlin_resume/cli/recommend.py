"""`recommend`: the earlier agents the current task points to."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.candidates import warn_passed_over
from purlin_resume.cli.common import print_json, print_text
from purlin_resume.cli.environment import environment_here
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, ProjectOption, SessionOption
from purlin_resume.core import redact
from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection import recommendation

# Typer reads these annotations at runtime, so Optional stays (Python 3.10).
# ruff: noqa: UP045


@app.command("recommend", rich_help_panel="Resurrection")
def recommend_command(
    task: Annotated[
        Optional[str],
        typer.Option(
            "--task",
            help="What you are working on (default: this session's first prompt, the branch, "
            "the changed files and a live checkpoint's feature).",
            show_default=False,
        ),
    ] = None,
    file: Annotated[
        Optional[list[str]],
        typer.Option(
            "--file", help="A file in play, relative to the project (repeat).", show_default=False
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Recommendations shown.")] = 5,
    threshold: Annotated[
        Optional[float],
        typer.Option(
            "--threshold",
            min=0,
            max=100,
            help="Lowest score recommended (default: the recommend_threshold setting, 35).",
            show_default=False,
        ),
    ] = None,
    session: SessionOption = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Who worked on this before: earlier agents ranked by the current task, with why."""
    if task is not None and not task.strip():
        raise UsageError("--task is empty: say what you are working on, or leave --task out")
    env = environment_here(claude_dir, project)
    refused: dict[str, list[Path]] = {}
    try:
        current, found = recommendation.for_task(
            env, task, file or [], session, limit, threshold, refused
        )
    finally:
        warn_passed_over(env.claude_root, refused)
    if as_json:
        print_json(
            {
                "task": {
                    "summary": current.summary(),
                    "words": current.words,
                    "files": current.files,
                },
                "threshold": env.settings.recommend_threshold if threshold is None else threshold,
                "recommendations": [r.to_dict() for r in found],
            }
        )
        return
    print_text(_recommendations_text(current, found))


def _recommendations_text(
    current: recommendation.Task, found: list[recommendation.Recommendation]
) -> str:
    """The task as understood, then each recommendation with why and how to resurrect it."""
    lines = [f"Task: {current.summary()}"]
    if not current.words and not current.files:
        lines.append(
            "Nothing to go on: no session prompt, branch, changed files or checkpoint; "
            "say it with --task"
        )
    elif not found:
        lines.append(
            "No earlier agent clears the threshold; lower it with --threshold, or search with 'purlin-resume find'."
        )
    for number, item in enumerate(found, 1):
        kind = f" ({item.agent_type})" if item.agent_type and item.agent_type != "main" else ""
        title = redact.one_line(item.title, 70) if item.title else None
        lines.append(f"{number:2}. {item.score:5.1f}  {item.label()}{kind}  {title or ''}".rstrip())
        where = item.project or "?"
        lines.append(f"      {where}" + ("  [other repository]" if item.cross_repo else ""))
        lines.append(f"      why: {item.why}")
        lines.append(f"      purlin-resume resurrect --recommended {number}")
    return "\n".join(lines) + "\n"
