"""Recommendations: who worked on this before (seed 000, Phase 2: "resurrection recommendations
based on current task").

The current task is what ``--task`` says, or, without it, what is at hand: the current session's
first prompt (its transcript, found by the session id), the branch name, the files the branch
changed since it left the main branch and the uncommitted ones, and a live checkpoint's feature.

Candidates are the conversations of the search index (main agents and subagents, of every
project) that share words or files with the task, and the bookmarks. Each gets a score out of
100 from six parts, and one line that says why:

- text (up to 30): bm25 over the task's words, relative to the best match, and the share of the
  task's words the conversation holds;
- files (up to 40): the files in play that it edited (a file it only read counts 0.4);
- recency (up to 10): halves every 30 days;
- outcomes: +5 a successful past resurrection of it (at most +10), -10 a failed one (at most -20);
- bookmark: +5 when bookmarked, +5 a tag that is one of the task's words (at most +10);
- same repository (+5): cross-repository candidates are ranked too, and marked.

Only candidates that share something with the task (words, files or tags) are ranked, and only
those that reach the threshold (``resume.recommend_threshold``, 35) as if they were recent (their
recency counted in full) are recommended: age orders the candidates, it excludes none (a strong
match of the task's words alone is recommended however old it is).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.claude import layout
from purlin_resume.claude.transcript import read
from purlin_resume.core import cache_home, clock, current_session, gitrepo, redact, store
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project
from purlin_resume.core.terminal_text import one_line
from purlin_resume.crosscli import sources as crosscli
from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.resurrection import search_index
from purlin_resume.resurrection.conversation import Conversation
from purlin_resume.resurrection.query import STOP_WORDS

WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_WORDS = 32
COVERAGE_WORDS = 8  # matching this many of the task's words is full coverage
BRANCH_NOISE = frozenset(
    {"main", "master", "head", "feature", "feat", "fix", "bugfix", "hotfix", "chore", "wip", "dev"}
)
STATE_FOLDERS = (".purlin/", ".planning/", ".claude/")
HALF_LIFE_DAYS = 30.0
READ_WEIGHT = 0.4
RECENCY_WEIGHT = 10.0


@dataclass
class Task:
    """What the current agent is working on."""

    text: str
    files: list[str] = field(default_factory=list)  # relative to the project
    session_id: str | None = None  # the current session: never recommended to itself
    project: str | None = None
    sources: list[str] = field(default_factory=list)  # where it was gathered from

    @classmethod
    def told(cls, text: str, files: list[str], session_id: str | None, project: str | None) -> Task:
        """A task said in words (``--task``), with the files in play given beside it."""
        text = redact.redact(text).text  # before it is shortened: a cut secret is not found
        sources = [f"--task {_one_line(text, 60)!r}"] + ([f"{len(files)} --file"] if files else [])
        return cls(text, list(dict.fromkeys(files)), session_id, project, sources)

    @property
    def words(self) -> list[str]:
        return task_words(self.text + "\n" + "\n".join(self.files))

    def summary(self) -> str:
        return "; ".join(self.sources) or "nothing"


def task_words(text: str) -> list[str]:
    """The words a task is matched by: lower case, identifiers split, no stop words or numbers."""
    text = redact.PLACEHOLDER.sub(" ", text)  # what redaction put in place of a secret is no word
    words = [
        word
        for word in WORD.findall(text.lower())
        if len(word) >= 3 and not word.isdigit() and word not in STOP_WORDS
    ]
    return list(dict.fromkeys(words))[:MAX_WORDS]


def _one_line(text: str, limit: int = 80) -> str:
    """One plain line (a title is shown on a terminal): escapes and control characters gone."""
    return redact.one_line(one_line(text), limit)


def _first_prompt(claude_root: Path, session_id: str) -> str | None:
    projects = Path(claude_root) / "projects"
    name = session_id + layout.SUFFIX
    try:
        folders = [entry.path for entry in os.scandir(projects) if entry.is_dir()]
    except OSError:
        return None
    for folder in folders:
        path = Path(folder) / name
        if path.is_file():
            return read(path, session_id).main.first_prompt
    return None


def gather(
    project_root: Path | None,
    claude_root: Path,
    session_id: str | None,
    main_branches: tuple[str, ...] = ("main", "master"),
) -> Task:
    """The current task from what is at hand (see the module's description)."""

    parts: list[str] = []
    sources: list[str] = []
    files: list[str] = []
    if session_id:
        prompt = _first_prompt(claude_root, session_id)
        if prompt and prompt.strip():
            parts.append(prompt)
            sources.append(f"first prompt {_one_line(redact.redact(prompt).text, 60)!r}")
    if project_root is not None:
        try:
            branch = gitrepo.branch(project_root)
            changed = gitrepo.changed_since_fork(project_root, main_branches)
            changed += gitrepo.uncommitted_paths(project_root)
        except PurlinError:
            branch, changed = "", []
        branch_words = [w for w in WORD.findall(branch.lower()) if w not in BRANCH_NOISE]
        if branch_words:
            parts.append(" ".join(branch_words))
            sources.append(f"branch {branch}")
        files = [path for path in dict.fromkeys(changed) if not path.startswith(STATE_FOLDERS)]
        if files:
            sources.append(f"{len(files)} changed file{'s' if len(files) != 1 else ''}")
        found = checkpoints.live(Project(project_root))
        live = [(c.session, c.checkpoint) for c in found if c.checkpoint is not None]
        own = [saved for session, saved in live if session_id and session == session_id]
        chosen = own[0] if own else live[0][1] if live else None
        feature = chosen.feature if chosen else "none"
        if feature and feature != "none":
            parts.append(feature)
            sources.append(f"checkpoint feature {feature}")
    return Task(
        redact.redact("\n".join(parts)).text,
        files,
        session_id,
        str(project_root) if project_root is not None else None,
        [redact.redact(s).text for s in sources],
    )


@dataclass
class Recommendation(Conversation):
    kind: str  # "session" or "agent"
    session_id: str
    agent_id: str | None
    title: str | None
    project: str | None
    agent_type: str | None
    ended_at: str | None
    score: float
    why: str
    parts: dict[str, float]
    cross_repo: bool
    bookmark: str | None = None
    cli: str = "claude"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            **self.identity(),
            "score": self.score,
            "why": self.why,
            "parts": self.parts,
            "cross_repo": self.cross_repo,
            "bookmark": self.bookmark,
        }


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def outcome_text(outcomes: Counter) -> str | None:
    """``resurrected twice, both successful``; None when it never was."""
    total = sum(outcomes.values())
    if not total:
        return None
    words = {"success": "successful", "failure": "failed", "partial": "partly successful"}
    if len(outcomes) == 1:
        (kind,) = outcomes
        every = "" if total == 1 else ("both " if total == 2 else "all ")
        return f"resurrected {_times(total)}, {every}{words[kind]}"
    plural = {"success": "successes", "failure": "failures", "partial": "partial"}
    shown = ", ".join(
        f"{n} {kind if n == 1 else plural[kind]}"
        for kind in ("success", "failure", "partial")
        if (n := outcomes.get(kind, 0))
    )
    return f"resurrected {_times(total)}: {shown}"


def age_text(moment: datetime, now: datetime) -> str:
    """``from today``, ``5 days old``, ``3 weeks old``, ``2 months old``, ``2 years old``."""
    days = (now - moment).total_seconds() / 86400
    if days < 1:
        return "from today"
    if days < 2:
        return "from yesterday"
    count, unit = (
        (int(days), "day")
        if days < 14
        else (int(days // 7), "week")
        if days < 60
        else (int(days // 30), "month")
        if days < 730
        else (int(days // 365), "year")
    )
    return f"{count} {unit}s old"


def _files_text(edited: int, read: int, total: int) -> str:
    """What was edited and read of ``total`` files (at least one was)."""
    of = f"of the {total} files you changed" if total != 1 else "the file you changed"
    if total == 1:
        return "edited " + of if edited else "read " + of
    if edited and read:
        return f"edited {edited} and read {read} {of}"
    return f"{'edited' if edited else 'read'} {edited or read} {of}"


def _inside(path: str | None, root: str | None) -> bool:
    if not path or not root:
        return False
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass
class _Evidence:
    """What one candidate shares with the task, before it is scored."""

    kind: str
    session_id: str
    agent_id: str | None
    title: str | None = None
    project: str | None = None
    agent_type: str | None = None
    ended_at: str | None = None
    text: float = 0.0
    words: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    cli: str = "claude"


def _score(
    found: _Evidence,
    task: Task,
    task_words_: list[str],
    outcomes: Counter,
    mark,
    now: datetime,
) -> Recommendation | None:
    parts: dict[str, float] = {}
    reasons: list[str] = []
    coverage = min(1.0, len(found.words) / max(1, min(len(task_words_), COVERAGE_WORDS)))
    if found.words:
        parts["text"] = 30 * (0.5 * found.text + 0.5 * coverage)
    if task.files and (found.edited or found.read):
        share = (len(found.edited) + READ_WEIGHT * len(found.read)) / len(task.files)
        parts["files"] = 40 * min(1.0, share)
        reasons.append(_files_text(len(found.edited), len(found.read), len(task.files)))
    tags = [t for t in (mark.tags if mark else []) if t.lower() in task_words_]
    if not parts and not tags:
        return None  # nothing in common with the task: recency alone recommends no one
    if found.words:
        shown = ", ".join(found.words[:4]) + (", …" if len(found.words) > 4 else "")
        reasons.append(f"mentions {shown}")
    if mark is not None:
        parts["bookmark"] = 5 + min(10, 5 * len(tags))
        reasons.append(f"bookmarked as {mark.name}" + (f" (tag {', '.join(tags)})" if tags else ""))
    said = outcome_text(outcomes)
    if said:
        parts["outcomes"] = min(10, 5 * outcomes.get("success", 0)) - min(
            20, 10 * outcomes.get("failure", 0)
        )
        reasons.append(said)
    moment = clock.parse(found.ended_at)
    if moment is not None:
        age = max(0.0, (now - moment).total_seconds() / 86400)
        parts["recency"] = RECENCY_WEIGHT * 0.5 ** (age / HALF_LIFE_DAYS)
        reasons.append(age_text(moment, now))
    cross = bool(task.project) and not _inside(found.project, task.project)
    if task.project and not cross:
        parts["same_repository"] = 5
    if cross and found.project:
        reasons.append(f"in another repository ({os.path.basename(found.project.rstrip('/'))})")
    return _recommendation(found, parts, reasons, cross, mark)


def _recommendation(
    found: _Evidence, parts: dict[str, float], reasons: list[str], cross: bool, mark
) -> Recommendation:
    """The candidate recommended, its score the sum of its ``parts`` (0..100)."""
    total = max(0.0, min(100.0, sum(parts.values())))
    return Recommendation(
        found.kind,
        found.session_id,
        found.agent_id,
        found.title,  # made one line once ranked: most candidates are never shown
        found.project,
        found.agent_type,
        found.ended_at,
        round(total, 1),
        "; ".join(r for r in reasons if r),
        {k: round(v, 1) for k, v in parts.items()},
        cross,
        mark.name if mark else None,
        found.cli,
    )


def _judged(found: Recommendation) -> float:
    """The score the threshold judges: the candidate's, as if it were recent."""
    return found.score - found.parts.get("recency", 0.0) + RECENCY_WEIGHT


def rank(
    task: Task,
    claude_root: Path,
    cache: Path,
    *,
    marks=(),
    outcomes: dict[tuple, Counter] | None = None,
    threshold: float = 0.0,
    limit: int = 5,
    now: datetime | None = None,
    update: bool = True,
    text_only: bool = False,
    refused: dict[str, list[Path]] | None = None,
) -> list[Recommendation]:
    """The candidates for ``task``, best first, those below ``threshold`` left out.

    ``text_only`` ranks by the words alone (bm25): the baseline the benchmark compares with.
    """

    now = now or clock.now()
    outcomes = outcomes or {}
    words = task.words
    files = [] if text_only else task.files
    related = search_index.related(
        claude_root,
        cache,
        words,
        files,
        exclude_session=task.session_id,
        update=update,
        refused=refused,
    )
    evidence = _indexed_evidence(related)
    if text_only:
        return _by_words(evidence, limit)
    by_key = {(m.session_id, m.agent_id): m for m in marks}
    _add_bookmarked(evidence, by_key, task.session_id, words)
    scored = [
        found
        for key, item in evidence.items()
        if (found := _score(item, task, words, outcomes.get(key, Counter()), by_key.get(key), now))
        is not None
        and _judged(found) >= threshold
    ]
    scored.sort(key=lambda r: (-r.score, r.cross_repo, r.session_id, r.agent_id or ""))
    return [
        dataclasses.replace(
            r, title=_one_line(r.title, 120) if r.title else None, why=_one_line(r.why, 400)
        )
        for r in scored[:limit]
    ]


def _indexed_evidence(related) -> dict[tuple, _Evidence]:
    """What each candidate the search index relates to the task shares with it, by (session,
    agent)."""
    evidence: dict[tuple, _Evidence] = {}
    for item in related:
        hit = item.hit
        evidence[(hit.session_id, hit.agent_id)] = _Evidence(
            hit.kind,
            hit.session_id,
            hit.agent_id,
            hit.title,
            hit.project,
            hit.agent_type,
            hit.ended_at or hit.started_at,
            item.text,
            item.words,
            item.edited,
            item.read,
            hit.cli,
        )
    return evidence


def _by_words(evidence: dict[tuple, _Evidence], limit: int) -> list[Recommendation]:
    """The candidates ranked by their words' score alone (the ``text_only`` baseline)."""
    ranked = sorted(evidence.values(), key=lambda e: -e.text)
    return [
        Recommendation(
            e.kind,
            e.session_id,
            e.agent_id,
            e.title,
            e.project,
            e.agent_type,
            e.ended_at,
            round(100 * e.text, 1),
            "",
            {"text": round(100 * e.text, 1)},
            False,
            cli=e.cli,
        )
        for e in ranked[:limit]
    ]


def _add_bookmarked(
    evidence: dict[tuple, _Evidence],
    by_key: dict[tuple, Any],
    session_id: str | None,
    words: list[str],
) -> None:
    """Add the bookmarks the index does not hold (their transcripts are archived), judged by
    their own words against the task's ``words``; never the task's own session."""
    for key, mark in by_key.items():
        if key in evidence or key[0] == session_id:
            continue
        own = task_words(" ".join([mark.name, mark.description or "", *mark.tags]))
        shared = [w for w in own if w in words]
        evidence[key] = _Evidence(
            "agent" if mark.agent_id else "session",
            mark.session_id,
            mark.agent_id,
            mark.description or mark.name,
            mark.project_path,
            text=1.0 if shared else 0.0,
            words=shared,
        )


def recommend(
    env,
    task: Task,
    *,
    limit: int = 5,
    threshold: float | None = None,
    update: bool = True,
    refused: dict[str, list[Path]] | None = None,
) -> list[Recommendation]:
    """``rank`` with what the resurrection environment ``env`` knows: its index, bookmarks,
    resurrection log and threshold setting; ``refused``: the folders its walk passed over
    (``search_index.refresh``)."""
    entries = resurrection_log.History(env.log)
    return rank(
        task,
        env.claude_root,
        env.cache,
        marks=env.shelves.all(),
        outcomes=resurrection_log.outcomes_by_source(entries),
        threshold=env.settings.recommend_threshold if threshold is None else threshold,
        limit=limit,
        update=update and (env.has_transcripts() or crosscli.has_sessions()),
        refused=refused,
    )


def for_task(
    env,
    told: str | None,
    files: list[str],
    session: str | None,
    limit: int,
    threshold: float | None = None,
    refused: dict[str, list[Path]] | None = None,
) -> tuple[Task, list[Recommendation]]:
    """The task (``told``, else gathered from the session, branch, changed files and a live
    checkpoint; ``files`` added) and the earlier agents recommended for it, remembered for
    ``resurrect --recommended N``; ``refused`` as ``recommend`` takes it."""
    session = current_session.checked(session)
    if told is not None:
        here = str(env.project_root) if env.project_root else None
        task = Task.told(told, files, session, here)
    else:
        task = gather(env.project_root, env.claude_root, session, env.settings.main_branches)
        task.files += [f for f in files if f not in task.files]
    if not env.has_transcripts() and not crosscli.has_sessions() and not env.shelves.all():
        raise PurlinError(
            f"no Claude Code transcripts in {env.claude_root}, no sessions of "
            f"{', '.join(crosscli.OTHERS)} and no bookmarks: nothing to recommend; "
            "pass --claude-dir or set CLAUDE_CONFIG_DIR"
        )
    found = recommend(env, task, limit=limit, threshold=threshold, refused=refused)
    remember(env.cache, task, found)
    return task, found


# ---------------------------------------------------------------------------------------------
# the last recommendations, for ``resurrect --recommended N``


def remember(cache: Path, task: Task, found: list[Recommendation]) -> None:
    """Keep the list for ``resurrect --recommended N`` (redacted: it names conversations and
    quotes their titles) in the cache's ``recommendations`` table; the last list made wins."""
    made = {
        "made_at": clock.iso(),
        "project": task.project,
        "task": task.summary(),
        "recommendations": [r.to_dict() for r in found],
    }
    row = (task.project or "-", store.dump_json(made))
    cache_home.write([("INSERT OR REPLACE INTO recommendations VALUES (?, ?)", [row])], cache)


def remembered(cache: Path, project: str | None) -> list[dict[str, Any]] | None:
    """The last ``recommend`` list of ``project``; None when there is none (or it is unreadable)."""
    rows = cache_home.read(
        "SELECT made FROM recommendations WHERE project = ?", (project or "-",), cache
    )
    try:
        data = json.loads(rows[0][0]) if rows else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("recommendations"), list):
        return None
    return [r for r in data["recommendations"] if isinstance(r, dict) and r.get("session_id")]
