"""Candidates for resurrection and for ``open`` as the commands show them: one per line with why
it matched, and the question that picks one on a terminal (``oN`` there continues it with
``cli.opening`` instead)."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer

from purlin_resume.cli.common import warning_line
from purlin_resume.core.errors import PurlinError
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.resurrection.candidates import (
    Candidate,
    NoClearWinner,
    by_search,
    clear_winner,
    open_command,
)
from purlin_resume.resurrection.environment import Environment


def say(text: str) -> None:
    typer.echo(text, err=True)


def searched(env: Environment, text: str, limit: int, progress=None) -> list[Candidate]:
    """The candidates a search finds, and a warning line for each folder of an agent CLI it
    passes over (the user may not list it), as the search's walk noted them; a search that
    failed still warns first."""
    refused: dict[str, list[Path]] = {}
    try:
        found = by_search(env, text, limit, progress=progress, refused=refused)
    except PurlinError:
        warn_passed_over(env.claude_root, refused)
        raise
    warn_passed_over(env.claude_root, refused)
    return found


def warn_passed_over(claude_root: Path, refused: dict[str, list[Path]]) -> None:
    for line in crosscli.passed_over(claude_root, refused):
        warning_line(line)


def candidate_line(number: int, candidate: Candidate) -> str:
    score = f"{candidate.score:5.1f}" if candidate.score is not None else "    -"
    what = candidate.label()
    kind = f" ({candidate.agent_type})" if candidate.agent_type else ""
    lines = [f"{number:2}. {score}  {what}{kind}  {candidate.title or ''}".rstrip()]
    details = [candidate.project or "?", candidate.ended_at or ""]
    lines.append(f"      {' · '.join(d for d in details if d)}")
    if candidate.reasons:
        lines.append(f"      why: {', '.join(candidate.reasons)}")
    command = open_command(candidate)
    if command is not None:
        lines.append(f"      continue it: {command}")
    else:
        ident = candidate.agent_id or candidate.session_id
        lines.append(f"      read it: purlin-resume transcript {shlex.quote(ident)}")
    return "\n".join(lines)


def resurrect_command(candidate: Candidate) -> str:
    """The ``resurrect`` command that brings back exactly this candidate (by its ids)."""
    agent = f" --agent {shlex.quote(candidate.agent_id)}" if candidate.agent_id else ""
    return f"purlin-resume resurrect --session {shlex.quote(candidate.session_id)}{agent}"


class OpenInstead(Exception):
    """The user picked a candidate to continue in Claude Code itself rather than resurrect."""

    def __init__(self, candidate: Candidate):
        super().__init__(candidate.session_id)
        self.candidate = candidate


def choose(
    candidates: list[Candidate],
    interactive: bool,
    offer_open: bool = True,
    query: str | None = None,
) -> Candidate:
    """The candidate the user picks. Not interactive: the first, or, for the results of a
    search for ``query``, its clear winner (else the candidates are listed and
    ``NoClearWinner`` raised). With ``offer_open``, ``oN`` continues candidate N's session in
    Claude Code instead (``OpenInstead``)."""
    if not interactive:
        if query is None:
            return candidates[0]
        try:
            return clear_winner(query, candidates)
        except NoClearWinner:
            say("Candidates:")
            for number, candidate in enumerate(candidates, 1):
                say(candidate_line(number, candidate))
            raise
    if len(candidates) == 1:
        return candidates[0]
    say("Candidates:")
    for number, candidate in enumerate(candidates, 1):
        say(candidate_line(number, candidate))
    count = len(candidates)
    offer = f", o1-o{count} to continue it in Claude Code (open)" if offer_open else ""
    while True:
        answer = typer.prompt(
            f"Which one? [1-{count}{offer}, q to cancel]", default="1", err=True
        ).strip()
        if answer.lower() in ("q", "quit", "cancel"):
            raise PurlinError("cancelled: nothing was resurrected")
        if answer.isdigit() and 1 <= int(answer) <= count:
            return candidates[int(answer) - 1]
        number = answer[1:].strip()
        if (
            offer_open
            and answer[:1].lower() == "o"
            and number.isdigit()
            and 1 <= int(number) <= count
        ):
            raise OpenInstead(candidates[int(number) - 1])
        say(f"Give a number from 1 to {count}.")
