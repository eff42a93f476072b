"""`find` and `recommend`: the earlier agents a search or the current task points to."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Optional

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.candidates import candidate_line
from purlin_resume.cli.common import print_json, print_text
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, ProjectOption, TeamOption
from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection import candidates, recommendation
from purlin_resume.resurrection.candidates import open_command
from purlin_resume.resurrection.environment import environment_here

# Typer reads these annotations at runtime, so Optional/List stay (Python 3.10).
# ruff: noqa: UP045, UP006


class ProgressBar:
    """One line on a terminal's stderr, redrawn at most ten times a second, wiped when done."""

    WIDTH = 30

    def __init__(self, label: str):
        self.label = label
        self.shown = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total:
            sys.stderr.write("\r\033[K")
        elif now - self.shown >= 0.1:
            filled = self.WIDTH * done // max(total, 1)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            sys.stderr.write(f"\r{self.label} [{bar}] {done}/{total} sessions")
        else:
            return
        self.shown = now
        sys.stderr.flush()


@app.command("find", rich_help_panel="Resurrection")
def find_command(
    query: Annotated[list[str], typer.Argument(metavar="QUERY", help="Words, names, time words.")],
    limit: Annotated[int, typer.Option("--limit", min=1, help="Results shown.")] = 10,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
    team: TeamOption = False,
) -> None:
    """Find sessions and subagents of every project: ranked, with why each matched (--team:
    the team's bookmarks)."""
    text = " ".join(query).strip()
    if not text:
        raise UsageError('give words to search for, e.g. find "tmux tests yesterday"')
    if team:
        from purlin_resume.cli import team_side  # the team wing, loaded for --team only

        return team_side.find(claude_dir, text, limit, as_json)
    env = environment_here(claude_dir, project)
    progress = None if as_json or not sys.stderr.isatty() else ProgressBar("indexing transcripts")
    found = candidates.by_search(env, text, limit, progress=progress)
    outside = getattr(found, "outside_note", lambda: None)()
    if as_json:
        results = [{**c.to_dict(), "open": open_command(c)} for c in found]
        print_json({"query": text, "results": results, "outside_time": outside})
        return
    if not found:
        print_text(f"Nothing matches {text!r}" + (f" ({outside})" if outside else "") + ".\n")
        return
    print_text("\n".join(candidate_line(n, c) for n, c in enumerate(found, 1)) + "\n")


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
    session: Annotated[
        Optional[str],
        typer.Option(
            "--session",
            help="The current session (default: $PURLIN_SESSION_ID, $CLAUDE_CODE_SESSION_ID).",
            show_default=False,
        ),
    ] = None,
    claude_dir: ClaudeDirOption = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Who worked on this before: earlier agents ranked by the current task, with why."""
    if task is not None and not task.strip():
        raise UsageError("--task is empty: say what you are working on, or leave --task out")
    env = environment_here(claude_dir, project)
    current, found = recommendation.for_task(env, task, file or [], session, limit, threshold)
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
        title = item.title if not item.title or len(item.title) <= 70 else item.title[:69] + "…"
        lines.append(f"{number:2}. {item.score:5.1f}  {item.label()}{kind}  {title or ''}".rstrip())
        where = item.project or "?"
        lines.append(f"      {where}" + ("  [other repository]" if item.cross_repo else ""))
        lines.append(f"      why: {item.why}")
        lines.append(f"      purlin-resume resurrect --recommended {number}")
    print_text("\n".join(lines) + "\n")
