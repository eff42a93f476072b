"""`find`: the sessions and subagents a search points to."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from purlin_resume.cli.app import app
from purlin_resume.cli.candidates import candidate_line, searched
from purlin_resume.cli.common import print_json, print_text
from purlin_resume.cli.environment import environment_here
from purlin_resume.cli.options import ClaudeDirOption, JsonOption, ProjectOption, TeamOption
from purlin_resume.core.errors import UsageError
from purlin_resume.resurrection.candidates import open_command


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
    found = searched(env, text, limit, progress)
    outside = getattr(found, "outside_note", lambda: None)()
    if as_json:
        results = [{**c.to_dict(), "open": open_command(c)} for c in found]
        print_json({"query": text, "results": results, "outside_time": outside})
        return
    if not found:
        print_text(f"Nothing matches {text!r}" + (f" ({outside})" if outside else "") + ".\n")
        return
    print_text("\n".join(candidate_line(n, c) for n, c in enumerate(found, 1)) + "\n")
