"""What ``find`` does, without Typer (``cli/fast_path`` calls it when the command line is plain;
the Typer command in ``cli/resurrect`` otherwise), and what the resurrection commands share
with it: the environment of a search, and how a candidate is shown."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from purlin_resume.cli.common import print_json, print_text
from purlin_resume.core.errors import UsageError

if TYPE_CHECKING:
    from purlin_resume.resurrection.candidates import Candidate, Environment


def project_root(explicit: Path | None) -> Path | None:
    from purlin_resume.core import gitrepo
    from purlin_resume.core.project import locate, working_folder

    if explicit is not None:
        return locate(explicit).root
    here = working_folder()
    return gitrepo.toplevel(here) if here is not None else None  # a deleted folder: no project


def environment(claude_dir: Path | None, project: Path | None) -> Environment:
    from purlin_resume.core import config
    from purlin_resume.core.project import Project
    from purlin_resume.resurrection import candidates

    root = project_root(project)
    settings = config.load(Project(root)) if root is not None else config.Settings()
    return candidates.environment(claude_dir, root, settings)


def candidate_line(number: int, candidate: Candidate) -> str:
    score = f"{candidate.score:5.1f}" if candidate.score is not None else "    -"
    what = candidate.label()
    kind = f" ({candidate.agent_type})" if candidate.agent_type else ""
    lines = [f"{number:2}. {score}  {what}{kind}  {candidate.title or ''}".rstrip()]
    details = [candidate.project or "?", candidate.ended_at or ""]
    lines.append(f"      {' · '.join(d for d in details if d)}")
    if candidate.reasons:
        lines.append(f"      why: {', '.join(candidate.reasons)}")
    lines.append(f"      continue it: {open_command(candidate)}")
    return "\n".join(lines)


def open_command(candidate: Candidate) -> str:
    """The ``open`` command that continues a candidate's session in Claude Code."""
    import shlex

    return f"purlin-resume open {shlex.quote(candidate.session_id)}"


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


def find(
    query: list[str],
    limit: int,
    claude_dir: Path | None,
    project: Path | None,
    as_json: bool,
    team: bool,
) -> None:
    """The sessions and subagents of every project that match ``query``, ranked, with why each
    matched; with ``team``, the team's bookmarks (that part loads the team commands)."""
    text = " ".join(query).strip()
    if not text:
        raise UsageError('give words to search for, e.g. find "tmux tests yesterday"')
    if team:
        from purlin_resume.cli import team as team_cli

        return team_cli.find(claude_dir, text, limit, as_json)
    from purlin_resume.resurrection import candidates

    env = environment(claude_dir, project)
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
