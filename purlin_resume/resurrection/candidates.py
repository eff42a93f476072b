"""What a resurrection can bring back: the candidates, named by a bookmark, found by a search,
or given by their ids (where it looks: ``resurrection.environment``).

``find`` needs this and not the rest of the flow (opening, checking, compressing, recording,
launching), so it loads none of that.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process

from purlin_resume.core import redact
from purlin_resume.core.errors import Ambiguous, NotFound, UsageError
from purlin_resume.crosscli import sources as crosscli
from purlin_resume.resurrection import preflight, search_index
from purlin_resume.resurrection.bookmarks import Bookmark
from purlin_resume.resurrection.conversation import Conversation
from purlin_resume.resurrection.environment import Environment


@dataclass
class Candidate(Conversation):
    """A conversation that could be resurrected."""

    session_id: str
    agent_id: str | None = None
    title: str | None = None
    project: str | None = None
    score: float | None = None
    reasons: list[str] = field(default_factory=list)
    bookmark: Bookmark | None = None
    agent_type: str | None = None
    ended_at: str | None = None
    resurrects: str | None = None  # a resurrection of this conversation (its label) started it
    cli: str = "claude"
    archived: bool = False  # its transcripts are gone: only its bookmark's archive holds it

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.identity(),
            "score": self.score,
            "reasons": self.reasons,
            "bookmark": self.bookmark.name if self.bookmark else None,
            "resurrects": self.resurrects,
        }


def open_command(candidate: Candidate) -> str | None:
    """The ``open`` command that continues a candidate's session in Claude Code (None for
    another CLI's session, and for one whose transcripts are gone: Claude Code cannot resume
    it)."""
    if candidate.cli != "claude" or candidate.archived:
        return None
    return f"purlin-resume open {shlex.quote(candidate.session_id)}"


def close_matches(word: str, choices: list[str], limit: int = 3) -> list[str]:
    """The choices spelled most like ``word`` (at most ``limit``), for a "did you mean"."""

    found = process.extract(word, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=60)
    return [choice for choice, _, _ in found]


_SESSION_LIKE = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f-]*)?")  # a session id or its prefix


def by_bookmark(env: Environment, name: str) -> Candidate:
    mark = env.shelves.find(name)
    if mark is None:
        names = [m.name for m in env.shelves.all()]
        close = close_matches(name, names)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        if _SESSION_LIKE.fullmatch(name):
            hint += f"resurrect the session of that id with 'purlin-resume resurrect --session {name}', or "
        raise preflight.failure(
            "exists",
            f"no bookmark named {name!r} (looked in "
            f"{', '.join(str(p) for _, p in env.shelves.paths())})",
            f"{hint}search instead with 'purlin-resume resurrect find {shlex.quote(name)}'",
        )
    return Candidate(
        mark.session_id,
        mark.agent_id,
        title=mark.description or mark.name,
        project=mark.project_path,
        reasons=[f"bookmark {mark.name}"],
        bookmark=mark,
        cli=mark.cli or "claude",
    )


def by_search(
    env: Environment,
    query: str,
    limit: int = 10,
    now=None,
    progress=None,
    refused: dict[str, list[Path]] | None = None,
) -> list[Candidate]:
    """The conversations ``query`` finds, best first; the folders of another CLI's tree this
    user may not list go to ``refused`` (``search_index.refresh``)."""
    # (the index reads the transcripts: no catalog is built here)
    if not env.has_transcripts() and not crosscli.has_sessions():
        raise NotFound(
            f"no Claude Code transcripts in {env.claude_root} and no sessions of "
            f"{', '.join(crosscli.OTHERS)}: nothing to search; "
            "pass --claude-dir or set CLAUDE_CONFIG_DIR"
        )
    names = [
        search_index.BookmarkName(m.name, m.session_id, m.agent_id, m.description)
        for m in env.shelves.all()
    ]
    hits = search_index.search(
        env.claude_root,
        env.cache,
        query,
        bookmarks=names,
        limit=limit,
        now=now,
        progress=progress,
        refused=refused,
    )
    marks = {m.name: m for m in env.shelves.all()}
    found = [
        Candidate(
            hit.session_id,
            hit.agent_id,
            title=hit.title,
            project=hit.project,
            score=hit.score,
            reasons=hit.reasons,
            bookmark=marks.get(hit.bookmark) if hit.bookmark else None,
            agent_type=hit.agent_type,
            ended_at=hit.ended_at,
            resurrects=hit.resurrects,
            cli=hit.cli,
        )
        for hit in hits
    ]
    found += _archived_bookmarks(query, marks.values(), {(c.session_id, c.agent_id) for c in found})
    found.sort(key=lambda c: -(c.score or 0))
    return hits.like(found[:limit])


# An autonomous pick (``--yes``) takes the best match only when it is a clear winner: this high,
# and this far ahead of the next one (as a share of its own score).
AUTONOMOUS_FLOOR = 30.0
AUTONOMOUS_LEAD = 0.2


class NoClearWinner(preflight.PreflightFailed):
    """A search whose best match is too weak, or too close to the next, to be taken without
    asking (exit 1); ``candidates`` are the matches, to show."""

    def __init__(self, query: str, candidates: list[Candidate]):
        self.candidates = candidates
        best = candidates[0].score or 0.0
        shown = "; ".join(
            f"{c.score:.1f} {c.label()}" + (f" {redact.one_line(c.title, 40)!r}" if c.title else "")
            for c in candidates[:3]
        )
        why = (
            f"the best match scores {best:.1f}, under {AUTONOMOUS_FLOOR:.0f}"
            if best < AUTONOMOUS_FLOOR
            else "no match is clearly ahead of the next"
        )
        super().__init__(
            preflight.Check(
                "exists",
                preflight.FAIL,
                f"no clear winner for {query!r} ({why}): {shown}",
                "name one by its ids, or leave out --yes and pick",
            )
        )


def clear_winner(query: str, found: list[Candidate]) -> Candidate:
    """The search result an autonomous pick may take: the best one, when it scores at least
    ``AUTONOMOUS_FLOOR`` and leads the next by ``AUTONOMOUS_LEAD`` of its score (a
    conversation a resurrection of the best one started is no rival: it holds the same
    context); else ``NoClearWinner``. A candidate without a score (named by a bookmark or its
    ids) is taken."""
    best = found[0]
    if best.score is None:
        return best
    rivals = [c.score or 0.0 for c in found[1:] if c.resurrects != best.label()]
    runner_up = max(rivals, default=0.0)
    if best.score >= AUTONOMOUS_FLOOR and best.score - runner_up >= AUTONOMOUS_LEAD * best.score:
        return best
    raise NoClearWinner(query, found)


def _archived_bookmarks(query: str, marks, listed: set) -> list[Candidate]:
    """Bookmarks named like the query whose conversation the index does not hold (its
    transcripts are gone; the bookmark's archive still resurrects it)."""

    extra = []
    for mark in marks:
        if (mark.session_id, mark.agent_id) in listed:
            continue
        ratio = search_index.bookmark_ratio(mark.name, query)
        if ratio >= search_index.FUZZY_MIN:
            extra.append(
                Candidate(
                    mark.session_id,
                    mark.agent_id,
                    title=mark.description or mark.name,
                    project=mark.project_path,
                    score=round(60 * ratio / 100, 1),
                    reasons=[f"bookmark {mark.name}", "transcripts archived"],
                    bookmark=mark,
                    archived=True,
                )
            )
    return extra


def direct(session: str, agent: str | None) -> Candidate:
    return Candidate(session.strip(), (agent or "").strip().removeprefix("agent-") or None)


def by_agent(env: Environment, agent: str) -> Candidate:
    """``--agent`` without ``--session``: the one subagent whose id is (or starts with) ``agent``
    in the transcripts, else in a bookmark (its archive); several is an error listing them."""
    wanted = agent.strip().removeprefix("agent-")
    if not wanted:
        raise UsageError("--agent needs an agent id (or give --session)")
    found: dict[str, str] = {}  # agent id -> session id
    catalog = env.live_catalog()
    if catalog is not None:
        for target in catalog.targets():
            if target.kind in ("agent", "inline") and target.id.startswith(wanted):
                found.setdefault(target.id, target.session.id if target.session else "")
    for mark in env.shelves.all():
        if mark.agent_id and mark.agent_id.startswith(wanted):
            found.setdefault(mark.agent_id, mark.session_id)
    exact = {aid: sid for aid, sid in found.items() if aid == wanted} or found
    if not exact:
        raise preflight.failure(
            "exists",
            f"no agent {wanted} in {env.claude_root} or in a bookmark",
            "'purlin-resume agents SESSION' lists a session's agents; or give --session",
        )
    if len(exact) > 1:
        listed = ", ".join(f"{aid} (session {sid})" for aid, sid in sorted(exact.items())[:10])
        raise Ambiguous(f"agent {wanted} is ambiguous: {listed}; give more of it or --session")
    [(agent_id, session_id)] = exact.items()
    return Candidate(session_id, agent_id)
