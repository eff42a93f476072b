"""Conflict detection before an agent is resumed.

What other agents (or people) changed since the agent was spawned is intersected with the files
the agent modifies: its ``files_modified``, else the files its work ref (the branch holding its
work) changed since the spawn, else the files its own Claude Code transcript shows it edited
(Edit, Write, MultiEdit, NotebookEdit).

The agent's own changes are not collisions. A commit since the spawn is the agent's own when an
``Agent-Id:`` trailer names it, or when ``.purlin/cache/commits.jsonl`` records it from the
agent's session and no trailer names another agent. An uncommitted change to one of the agent's
files is its work in progress unless another agent of the history recorded that file too. So an
interrupted agent that left work in progress resumes without ``--force``. (An agent with a work
ref worked in its own checkout: uncommitted changes here are someone else's.)

Each file the agent modifies that others changed is:

- ``clean``: its work ref and the current state merge without conflict (``git merge-tree
  --write-tree``); both changes can stay;
- ``conflict``: they do not merge; resuming would overwrite someone's work;
- ``unverified``: the agent's own version is unknown (no work ref), so the change since the
  spawn cannot be told apart from a conflict.

An agent spawned on a commit HEAD's history does not hold worked on another branch: without its
work ref nothing can be compared, and every file it modifies is unverified. Conflicts,
unverified overlaps and such a spawn stop a resume unless it is forced.

Recorded files outside the project (absolute, or ``..`` leaving it) or with a control character
in their name are no file of the agent's here: they are left out, and counted.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from purlin_resume.agents import commit_log, trailers
from purlin_resume.claude import catalog, layout
from purlin_resume.core import gitrepo
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project, project_files
from purlin_resume.history import agent_history as history
from purlin_resume.history.agent_history import HistoryEntry

CLEAN, CONFLICT, UNVERIFIED = "clean", "conflict", "unverified"


@dataclass(frozen=True)
class Overlap:
    """A file the agent modifies that also changed since it was spawned."""

    path: str
    kind: str


@dataclass(frozen=True)
class ConflictReport:
    agent_id: str
    spawn_commit: str | None = None
    work_ref: str | None = None
    commits: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    uncommitted: tuple[str, ...] = ()
    agent_files: tuple[str, ...] = ()
    agent_files_from: str | None = None
    own_commits: tuple[str, ...] = ()
    own_uncommitted: tuple[str, ...] = ()
    overlaps: tuple[Overlap, ...] = ()
    note: str | None = None
    files_left_out: int = 0  # recorded files that are none of the project's
    off_branch: bool = False  # spawned on a commit HEAD's history does not hold
    spawn_branches: tuple[str, ...] = ()  # the branches that hold it, when off_branch
    diff_base: str | None = None  # the spawn commit, when git can compare from it here
    blocking: tuple[Overlap, ...] = field(init=False)

    def __post_init__(self) -> None:
        stop = tuple(o for o in self.overlaps if o.kind != CLEAN)
        object.__setattr__(self, "blocking", stop)

    @property
    def stops(self) -> bool:
        """Whether this report stops a resume that is not forced."""
        return bool(self.blocking) or self.off_branch

    def to_dict(self) -> dict:
        return asdict(self)


def classify(
    changed: Iterable[str],
    agent_files: Iterable[str],
    merge_conflicts: Iterable[str] | None,
    ref_changed: Iterable[str] = (),
    untracked: Iterable[str] = (),
) -> tuple[Overlap, ...]:
    """The overlaps of ``changed`` and ``agent_files`` and what each one is.

    ``merge_conflicts`` is what ``git merge-tree`` reported for the work ref (None without
    one); an untracked file the work ref also changed would be overwritten, so it conflicts.
    """
    changed, ref_changed, untracked = set(changed), set(ref_changed), set(untracked)
    conflicted = None if merge_conflicts is None else set(merge_conflicts)
    overlaps = []
    for path in sorted(set(agent_files) & changed):
        if conflicted is None:
            kind = UNVERIFIED
        elif path in conflicted or (path in untracked and path in ref_changed):
            kind = CONFLICT
        else:
            kind = CLEAN
        overlaps.append(Overlap(path, kind))
    return tuple(overlaps)


def check(
    project: Project,
    entry: HistoryEntry,
    ref: str | None = None,
    ignore: Iterable[str] = (),
    claude_dir: Path | None = None,
) -> ConflictReport:
    """Compare what the agent modifies with what changed since its spawn commit.

    ``ref`` (else the entry's ``work_ref``) names the branch or commit holding the agent's work;
    ``ignore`` are paths that are nobody's work (our own state files); ``claude_dir`` holds the
    agent's transcript (``layout.claude_dir``'s default when None).
    """
    root, spawn = project.root, entry.spawn_commit
    ref = ref or entry.work_ref
    recorded, left_out = recorded_files(project, entry)
    base = ConflictReport(
        entry.agent_id,
        spawn_commit=spawn,
        work_ref=ref,
        agent_files=tuple(recorded),
        agent_files_from="files_modified" if recorded else None,
        files_left_out=left_out,
    )
    unable = _incomparable(root, spawn)
    if unable is not None:
        return replace(base, note=unable)
    assert spawn is not None  # checked by _incomparable
    if ref is None and not gitrepo.is_ancestor(root, spawn):
        return _off_branch(project, base, spawn, claude_dir)
    if ref is not None and not gitrepo.commit_exists(root, ref):
        raise PurlinError(
            f"work ref {ref!r} of agent {entry.agent_id} is not a commit or branch here; "
            "pass --ref with the branch that holds its work"
        )
    skip = set(ignore)
    ref_changed = gitrepo.changed_between(root, spawn, ref) if ref else []
    agent_files = recorded or ref_changed or transcript_files(project, entry.agent_id, claude_dir)
    history_commits = gitrepo.commits_in(root, spawn)
    sessions = commit_log.sessions_by_commit(project)
    own = [c for c in history_commits if _is_own(c, entry, sessions.get(c.sha))]
    others_committed = {f for c in history_commits if c not in own for f in c.files} - skip
    uncommitted = [p for p in gitrepo.uncommitted_paths(root) if p not in skip]
    claimed = claimed_by_others(project, entry)
    # an agent with a work ref worked elsewhere: this work tree's edits are someone else's
    mine = set() if ref else set(agent_files) - claimed
    own_uncommitted = [p for p in uncommitted if p in mine]
    others = sorted(others_committed | (set(uncommitted) - set(own_uncommitted)))
    merged = _merged(root, ref)
    return replace(
        base,
        commits=tuple(gitrepo.commits_between(root, spawn)),
        changed=tuple(p for p in gitrepo.changed_between(root, spawn) if p not in skip),
        uncommitted=tuple(uncommitted),
        agent_files=tuple(agent_files),
        agent_files_from=_agent_files_from(recorded, ref_changed, agent_files),
        own_commits=tuple(_oneline(c) for c in own),
        own_uncommitted=tuple(own_uncommitted),
        overlaps=classify(others, agent_files, merged, ref_changed, gitrepo.untracked_paths(root)),
        diff_base=spawn,
    )


def recorded_files(project: Project, entry: HistoryEntry) -> tuple[list[str], int]:
    """The agent's ``files_modified`` that are files of the project (relative to its top), and
    how many recorded names were left out: outside it (absolute, ``..`` leaving it) or holding
    a control character. A committed history is not trusted to name what an agent may read."""
    root = project.root
    left_out = [
        name
        for name in entry.files_modified
        if history.control_in(name) or not project_files([root], [name])
    ]
    kept = project_files([root], [name for name in entry.files_modified if name not in left_out])
    return kept, len(left_out)


def _off_branch(
    project: Project, base: ConflictReport, spawn: str, claude_dir: Path | None
) -> ConflictReport:
    """The report on an agent spawned on the commit ``spawn``, which HEAD's history does not
    hold: its work is on another branch, so none of its files can be vouched for here (each is
    unverified)."""
    files = list(base.agent_files) or transcript_files(project, base.agent_id, claude_dir)
    branches = tuple(gitrepo.branches_containing(project.root, spawn))
    held = f" ({_holding(branches)})" if branches else ""
    return replace(
        base,
        agent_files=tuple(files),
        agent_files_from=base.agent_files_from or ("transcript" if files else None),
        overlaps=tuple(Overlap(path, UNVERIFIED) for path in sorted(set(files))),
        note=f"it was spawned on commit {spawn[:12]}, which this branch does not contain{held}",
        off_branch=True,
        spawn_branches=branches,
        diff_base=spawn,
    )


_BRANCHES_NAMED = 3


def _holding(branches: tuple[str, ...]) -> str:
    """``branch feat holds it``, ``branches a, b, c and 2 more hold it``."""
    named = ", ".join(branches[:_BRANCHES_NAMED])
    more = len(branches) - _BRANCHES_NAMED
    if len(branches) == 1:
        return f"branch {named} holds it"
    return f"branches {named}{f' and {more} more' if more > 0 else ''} hold it"


def _incomparable(root: Path, spawn: str | None) -> str | None:
    """Why nothing can be compared (no git, no spawn commit, or one gone), else None."""
    if gitrepo.toplevel(root) is None:
        return "the project is not a git repository: nothing to compare"
    if spawn is None:
        return "no spawn commit was recorded for this agent: nothing to compare"
    if not gitrepo.commit_exists(root, spawn):
        return f"the spawn commit {spawn} no longer exists: nothing to compare"
    return None


def _merged(root: Path, ref: str | None) -> list[str] | None:
    """The conflicts a merge of the work ``ref`` into the work tree would have (None without a
    ref); refused when the ref shares no history with HEAD."""
    if ref is None:
        return None
    merged = gitrepo.merge_conflicts(root, gitrepo.work_tree_commit(root), ref)
    if merged is None:
        raise PurlinError(f"work ref {ref!r} shares no history with HEAD; cannot compare")
    return merged


def _agent_files_from(
    recorded: list[str], ref_changed: list[str], agent_files: list[str]
) -> str | None:
    """Where the agent's files were learnt: its history entry, its work ref, its transcript."""
    if recorded:
        return "files_modified"
    if ref_changed:
        return "work_ref"
    return "transcript" if agent_files else None


def _oneline(commit: gitrepo.Commit) -> str:
    subject = commit.message.splitlines()[0] if commit.message else ""
    return f"{commit.sha[:12]} {subject}".strip()


def _is_own(commit: gitrepo.Commit, entry: HistoryEntry, session: str | None) -> bool:
    """Whether ``commit`` is the agent's: a trailer names it (or its tool call), or it was made
    from the agent's session and names no other agent."""
    named = trailers.trailer_agents(commit.message)
    mine = {entry.agent_id, entry.data.get("tool_use_id")} - {None}
    if named:
        return bool(mine & set(named))
    return session is not None and session == entry.session_id


def claimed_by_others(project: Project, entry: HistoryEntry) -> set[str]:
    """Files other agents of the history record as theirs (their ``files_modified``)."""
    try:
        doc = history.load(project)
    except PurlinError:
        return set()
    mine = entry.agent_id
    return {f for e in doc.latest() if e.agent_id != mine for f in e.files_modified}


def transcript_files(project: Project, agent_id: str, claude_dir: Path | None = None) -> list[str]:
    """Files inside the project that the agent's own transcript shows it edited; [] when its
    transcript cannot be found (in ``claude_dir``, else ``$CLAUDE_CONFIG_DIR``, else
    ``~/.claude``)."""
    try:
        opened = catalog.open_target(catalog.Catalog(layout.claude_dir(claude_dir)), agent_id)
    except PurlinError:
        return []
    if opened.target.kind not in ("agent", "inline") or opened.transcript is None:
        return []
    return project_files([project.root], opened.transcript.files_modified())


def describe(reports: Iterable[ConflictReport]) -> str:
    """One line naming every agent spawned on another branch and every blocking file of every
    other agent, and what to do."""
    reports = list(reports)
    parts = [_elsewhere(r) for r in reports if r.off_branch]
    colliding = [r for r in reports if r.blocking and not r.off_branch]
    if colliding:
        parts.append(_collisions(colliding))
    return (
        "resume stopped, "
        + "; ".join(parts)
        + ("; resolve them, or" if colliding else ";")
        + " run again with --force to resume anyway"
    )


def _elsewhere(report: ConflictReport) -> str:
    """Why an agent spawned on another branch stops the resume, and how to go back to it."""
    spawn = (report.spawn_commit or "")[:12]
    if report.spawn_branches:
        back = f"'git switch {shlex.quote(report.spawn_branches[0])}' goes back to it"
        back += f" ({_holding(report.spawn_branches)})"
    else:
        back = f"no branch holds it, 'git switch --detach {spawn}' goes back to it"
    return (
        f"agent {report.agent_id} was spawned on commit {spawn}, which this branch does not "
        f"contain, so its files cannot be checked here: {back}, or --ref BRANCH with its work "
        "checks them here"
    )


def _collisions(reports: list[ConflictReport]) -> str:
    parts = [
        f"agent {r.agent_id}: " + ", ".join(f"{o.path} ({o.kind})" for o in r.blocking)
        for r in reports
    ]
    unverified = any(o.kind == UNVERIFIED for r in reports for o in r.blocking)
    return (
        "files other agents changed since the spawn collide with the agent's own: "
        + "; ".join(parts)
        + (
            " (unverified: the agent's own version is unknown; --ref BRANCH with its work checks them)"
            if unverified
            else ""
        )
    )
