"""The sessions and agents of a Claude data folder: listing them and resolving ids.

Ids are a session id (the file name; for a file not named by a session id, such as a copy
``subagent.jsonl``, the session id its records carry, the file name still naming it too), an
agent id (``agent-<id>.jsonl``, given with or without the ``agent-`` prefix) or, for 1.0.x inline
subagents that have none, the uuid of the sidechain's first record. A unique prefix of any of
them is enough, as in git.
"""

from __future__ import annotations

import mmap
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from purlin_resume.claude import layout, listing, records
from purlin_resume.claude.agent_tree import (
    INLINE,
    AgentRun,
    Subagent,
    attach_compaction_runs,
    link,
)
from purlin_resume.claude.layout import AgentFile, SessionFile
from purlin_resume.claude.records import ReadStats
from purlin_resume.claude.subagents import read_meta
from purlin_resume.claude.transcript import Reading, ReadOptions, Transcript, read
from purlin_resume.core import redact, store
from purlin_resume.core.errors import Ambiguous, NotFound, UsageError

TITLE_LENGTH = 80
_SESSION_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_UUID_PREFIX = re.compile(r"[0-9a-f-]{1,36}")
_INLINE_ROOT = (b'"isSidechain":true', b'"parentUuid":null')


@dataclass
class Session:
    """One line of ``sessions``."""

    id: str
    path: Path
    exists: bool
    project_path: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    turns: int = 0
    title: str | None = None
    subagents: int = 0
    compactions: int = 0
    size: int = 0
    version: str | None = None
    git_branch: str | None = None
    stats: ReadStats = field(default_factory=ReadStats)
    # field name -> what was redacted in its value (kept values are redacted before they are
    # stored; the command reports these as if it had redacted them itself)
    redactions: dict[str, dict[str, int]] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return listing_fields(self)


def listing_fields(session: Any) -> dict[str, Any]:
    """What ``sessions --json`` shows of a session of any agent CLI (``Session``, or another
    CLI's ``NativeSession``, which names its attributes alike)."""
    stats = session.stats
    return {
        "id": session.id,
        "project": session.project_path,
        "start": session.started_at,
        "end": session.ended_at,
        "turns": session.turns,
        "title": session.title,
        "subagents": session.subagents,
        "compactions": session.compactions,
        "size": session.size,
        "version": session.version,
        "git_branch": session.git_branch,
        "path": str(session.path),
        "file_missing": not session.exists,
        "malformed_lines": stats.malformed,
        "unknown_records": stats.unknown,
        "unknown_types": dict(sorted(stats.unknown_types.items())),
        "duplicate_records": stats.duplicates,
        "truncated": stats.truncated,
        "binary": stats.binary,
        "unreadable": stats.unreadable,
    }


@dataclass(frozen=True)
class _TitleCandidates:
    """Each as a title shows it (``title``); the first that is not None is the title."""

    renamed: str | None = None  # /rename
    ai_title: str | None = None
    own_summaries: list[tuple[str | None, str | None]] = field(default_factory=list)
    first_prompt: str | None = None


@dataclass
class SessionView:
    """A session read in full: its main thread, subagents and compaction runs."""

    file: SessionFile
    main: Transcript | None
    reading: Reading | None
    subagents: list[Subagent]
    agents: dict[str, Transcript]  # subagent transcripts by id, all layouts
    compaction_runs: list[Transcript]

    @property
    def session_id(self) -> str:
        return self.file.id

    def all_subagents(self) -> Iterator[Subagent]:
        for node in self.subagents:
            yield from node.walk()

    def to_dict(self) -> dict[str, Any]:
        """The subagent tree and compactions, as ``agents --json`` prints them."""
        main = self.main
        return {
            "session_id": self.session_id,
            "session_file_missing": main is None,
            "project": main.project_path if main is not None else None,
            "subagents": [node.to_dict() for node in self.subagents],
            "compactions": [c.to_dict() for c in (main.compactions if main is not None else [])],
        }

    def find(self, agent_id: str) -> Subagent | None:
        return next((node for node in self.all_subagents() if node.id == agent_id), None)


@dataclass(frozen=True)
class Target:
    """What an id names."""

    kind: str  # "session", "agent" (own file), "inline" (1.0.x sidechain), "compaction"
    id: str
    session: SessionFile | None
    agent: AgentFile | None = None

    def describe(self) -> str:
        where = f" in session {self.session.id}" if self.session and self.kind != "session" else ""
        return f"{self.id} ({self.kind}{where})"

    @property
    def file(self) -> Path | None:
        """The file its conversation is read from (a 1.0.x inline subagent's: its session's)."""
        if self.agent is not None:
            return self.agent.path
        return self.session.path if self.session is not None else None


def title(text: str | None) -> str | None:
    """A title candidate as a session's title shows it (one line, cut where no secret is cut in
    two); None when the candidate is empty (the next one is taken)."""
    if not text:
        return None
    return redact.one_line(text, TITLE_LENGTH)


def leading_summaries(path: Path) -> list[tuple[str | None, str]]:
    """The summary records at the top of a file (where Claude Code writes them)."""
    found: list[tuple[str | None, str]] = []
    try:
        if records.is_binary(path):
            return found
        with store.open_regular(path) as handle:
            for line in handle:
                if b'"type":"summary"' not in line:
                    break
                try:
                    record = records.parsed(line)
                except (ValueError, RecursionError):
                    break
                if isinstance(record, dict) and isinstance(record.get("summary"), str):
                    found.append(
                        (records.string(record.get("leafUuid")), record["summary"].strip())
                    )
    except OSError:
        pass
    return found


class Catalog:
    def __init__(self, root: Path):
        self.root = Path(root)
        folders = layout.project_folders(self.root)
        self.folders = [folder for folder in folders if layout.listable(folder)]
        # the folders this user may not list (``sudo claude`` made them root's): passed over,
        # and named (``layout.refused_line``)
        self.refused = [folder for folder in folders if folder not in self.folders]
        self._sessions: list[SessionFile] | None = None
        self._agents: list[AgentFile] | None = None
        self._agents_by_session: dict[str | None, list[AgentFile]] = {}

    def session_files(self, kept: listing.Kept | None = None) -> list[SessionFile]:
        """Every session file; ``kept``: the listing kept, which knows the recorded id of a file
        named otherwise while it is unchanged."""
        if self._sessions is None:
            self._sessions = [
                s
                for folder in self.folders
                for s in _recorded_ids(layout.session_files(folder), kept)
            ]
        return self._sessions

    def agent_files(self) -> list[AgentFile]:
        """Every agent file, with the session of a 2.0.x one taken from its records."""
        if self._agents is None:
            found = []
            for folder in self.folders:
                for agent in layout.agent_files(folder, self.refused):
                    if agent.session_id is None:
                        first = records.first_record(agent.path, ("sessionId",))
                        agent = AgentFile(agent.id, agent.path, first.get("sessionId"))
                    found.append(agent)
                    self._agents_by_session.setdefault(agent.session_id, []).append(agent)
            self._agents = found
        return self._agents

    def agent_files_of(self, session: SessionFile) -> list[AgentFile]:
        self.agent_files()
        return [
            agent
            for agent in self._agents_by_session.get(session.id, [])
            if agent.path.parent.is_relative_to(session.folder)
        ]

    # reading -----------------------------------------------------------------------------

    def view(
        self, session: SessionFile, options: ReadOptions | None = None, leaves=()
    ) -> SessionView:
        options = options or ReadOptions()
        reading = None
        main = None
        if session.exists:
            reading = read(session.path, session.id, options, leaves=leaves)
            main = reading.main
        runs: list[AgentRun] = []
        compaction_runs: list[Transcript] = []
        for agent in self.agent_files_of(session):
            transcript = read(
                agent.path, agent.id, options, agent_id=agent.id, split_sidechains=False
            ).main
            if agent.is_compaction:
                compaction_runs.append(transcript)
            else:
                runs.append(AgentRun(transcript, agent.layout, read_meta(agent.meta_path)))
        if reading is not None:  # an agent with its own file is not listed twice
            own = {run.transcript.id for run in runs}
            runs += [AgentRun(c, INLINE) for c in reading.sidechains if c.id not in own]
        tree = link(session.id, main, runs, reading.progress_links if reading is not None else None)
        if main is not None:
            attach_compaction_runs(main.compactions, compaction_runs)
        agents = {run.transcript.id: run.transcript for run in runs}
        return SessionView(session, main, reading, tree, agents, compaction_runs)

    def sessions(self, project: Path | None = None, cache: Path | None = None) -> list[Session]:
        """Every session (of ``project`` and folders under it, when given), oldest first.

        ``cache``: the user cache folder, where what was read of each session is kept (redacted)
        for the next call, which reads again only the sessions whose files changed."""
        wanted = str(Path(project)) if project is not None else None
        kept = listing.Kept(self.root, cache) if cache is not None else None
        listed: list[Session] = []
        by_folder: dict[Path, list[SessionFile]] = {}
        for file in self.session_files(kept):
            by_folder.setdefault(file.folder, []).append(file)
        for folder in self.folders:
            files = by_folder.get(folder, [])
            entries = {s.id: _usable(kept.get(str(s.path))) if kept else None for s in files}
            if wanted is not None:
                files = [s for s in files if _inside(self._project_of(s, entries[s.id]), wanted)]
            if not files:
                continue
            summaries = [
                item for s in files if s.exists for item in self._summaries(s, entries[s.id], kept)
            ]
            leaves = {leaf for leaf, _ in summaries if leaf}
            # One session read at a time; only what titles need is kept across the folder.
            read_here = [self._figures(s, leaves, entries[s.id], kept) for s in files]
            found_anywhere = set().union(*(found for _, found, _ in read_here))
            for session, found, candidates in read_here:
                by_leaf = [text for leaf, text in summaries if leaf in found]
                orphans = [
                    text for leaf, text in candidates.own_summaries if leaf not in found_anywhere
                ]
                session.title = next(
                    (
                        text
                        for text in (
                            candidates.renamed,
                            candidates.ai_title,
                            by_leaf[-1] if by_leaf else None,
                            orphans[-1] if orphans else None,
                            candidates.first_prompt,
                        )
                        if text is not None
                    ),
                    None,
                )
                if kept is not None:
                    session.redactions = _redactions(session, kept.counts)
                listed.append(session)
        if kept is not None:
            kept.save()
        listed.sort(key=lambda s: (s.started_at or "", s.id))
        return listed

    def _project_of(self, session: SessionFile, entry: dict[str, Any] | None) -> str | None:
        if entry is not None and isinstance(entry.get("cwd"), list):
            return entry["cwd"][0]  # unchanged by redaction (else it is not kept)
        return self.project_of(session)

    def _summaries(self, session: SessionFile, entry, kept) -> list[tuple[str | None, str | None]]:
        """The leading summaries of a session file: (leaf, title-shaped text or None)."""
        if entry is not None and kept is not None:
            return [(leaf, kept.text(text)) for leaf, text in entry["summaries"]]
        return [(leaf, title(text)) for leaf, text in leading_summaries(session.path)]

    def _figures(self, file: SessionFile, leaves: set[str], entry, kept):
        """The figures of one session, the summary leaves found in it and its title candidates:
        kept ones when its files did not change (and no new leaf is asked about), else read."""
        if entry is not None and kept is not None and leaves <= set(entry["asked"]):
            try:
                return _from_kept(file, entry, kept, leaves)
            except (KeyError, TypeError, ValueError):
                pass  # a damaged entry: read the session again
        figures = self._session(file, self.view(file, leaves=leaves))
        if kept is not None:
            _keep(file, figures, leaves, self, kept)
        return figures

    def project_of(self, session: SessionFile) -> str | None:
        """The folder a session worked in: the ``cwd`` of its (or its agents') first record."""
        if session.exists:
            first = records.first_record(session.path)
            if first:
                return records.string(first.get("cwd"))
        for agent in self.agent_files_of(session):
            first = records.first_record(agent.path)
            if first:
                return records.string(first.get("cwd"))
        return None

    def _session(self, file: SessionFile, view: SessionView):
        """The figures of one read session, the summary leaves found in it and its title
        candidates (the title itself needs the whole project folder)."""
        main, reading = view.main, view.reading
        session = Session(file.id, file.path, file.exists)
        candidates = _TitleCandidates()
        found: set[str] = set()
        if main is None or reading is None:
            any_agent = next(iter(view.agents.values()), None)
            if any_agent is not None:
                session.project_path = any_agent.project_path
                session.started_at = any_agent.started_at
                session.ended_at = any_agent.ended_at
        else:
            session.project_path = main.project_path
            session.started_at, session.ended_at = main.started_at, main.ended_at
            session.turns = main.turn_count
            session.compactions = len(main.compactions)
            session.version, session.git_branch = main.version, main.git_branch
            session.stats = main.stats
            session.size = file.path.stat().st_size
            found = reading.leaves_found
            candidates = _TitleCandidates(
                title(reading.custom_title),
                title(reading.ai_title),
                [(leaf, title(text)) for leaf, text in reading.summaries],
                title(main.first_prompt),
            )
        session.subagents = sum(1 for _ in view.all_subagents())
        return session, found, candidates

    # ids ---------------------------------------------------------------------------------

    def _inline_roots(self, holding: str = "") -> Iterator[Target]:
        """Roots of 1.0.x inline sidechains (only sessions older than 2.0 are scanned); those of
        the files that hold ``holding`` somewhere (the others are not read line by line)."""
        for session in self.session_files():
            if not session.exists:
                continue
            version = records.first_record(session.path, ("version",)).get("version")
            if (
                isinstance(version, str)
                and version[:1].isdigit()
                and int(version.split(".")[0]) >= 2
            ):
                continue
            try:
                if records.is_binary(session.path):
                    continue
                handle = store.open_regular(session.path)  # closed by the with below
            except OSError:
                continue
            with handle:
                if holding and not _holds(handle, holding.encode()):
                    continue
                for line in handle:
                    if _INLINE_ROOT[0] in line and _INLINE_ROOT[1] in line:
                        try:
                            record = records.parsed(line)
                        except (ValueError, RecursionError):
                            continue
                        if (
                            isinstance(record, dict)
                            and record.get("isSidechain")
                            and record.get("parentUuid") is None
                            and not record.get("agentId")
                            and isinstance(record.get("uuid"), str)
                        ):
                            yield Target("inline", record["uuid"], session)

    def targets(self, inline: bool = True) -> Iterator[Target]:
        """Everything an id can name; ``inline`` adds 1.0.x inline subagents (a scan)."""
        for session in self.session_files():
            yield Target("session", session.id, session)
        by_id: dict[str, list[SessionFile]] = {}
        for session in self.session_files():
            by_id.setdefault(session.id, []).append(session)
        for agent in self.agent_files():
            owner = next(
                (
                    session
                    for session in by_id.get(agent.session_id or "", [])
                    if agent.path.parent.is_relative_to(session.folder)
                ),
                None,
            )
            if owner is None and agent.session_id:
                owner = SessionFile(agent.session_id, agent.path.parent)
            kind = "compaction" if agent.is_compaction else "agent"
            yield Target(kind, agent.id, owner, agent)
        if inline:
            yield from self._inline_roots()

    def resolve(self, query: str, kinds: tuple[str, ...] | None = None) -> Target:
        """The one session or agent ``query`` names (full id or unique prefix)."""
        query = query.strip()
        if query.startswith(layout.AGENT_PREFIX):
            query = query[len(layout.AGENT_PREFIX) :]
        if query.endswith(layout.SUFFIX):
            query = query[: -len(layout.SUFFIX)]
        if not query:
            raise UsageError("an id is required: a session id, an agent id or a unique prefix")
        named = [t for t in self.targets(inline=False) if kinds is None or t.kind in kinds]
        exact = [t for t in named if query in _names(t)]
        if (
            len(exact) != 1
            and (kinds is None or "inline" in kinds)
            and _UUID_PREFIX.fullmatch(query)  # an inline root is named by a record's UUID
        ):
            named += [t for t in self._inline_roots(query) if t.id.startswith(query)]
            exact = [t for t in named if query in _names(t)]
        matches = exact or [t for t in named if any(n.startswith(query) for n in _names(t))]
        what = "session" if kinds == ("session",) else "session or agent"
        if not matches:
            unread = f" ({layout.refused_line(self.refused)})" if self.refused else ""
            raise NotFound(
                f"no {what} matches '{query}' in {self.root}{unread}; "
                "list them with 'purlin-resume sessions --all'"
            )
        if len(matches) > 1:
            shown = ", ".join(t.describe() for t in matches[:10])
            more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
            raise Ambiguous(
                f"'{query}' is ambiguous: it matches {shown}{more}; give more characters"
            )
        return matches[0]


def _holds(handle: BinaryIO, text: bytes) -> bool:
    """Does the file of ``handle`` hold ``text`` (looked for in the pages the system keeps, not
    read into this process)?"""
    try:
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as whole:
            return whole.find(text) != -1
    except ValueError:  # an empty file
        return False


def _names(target: Target) -> tuple[str, ...]:
    """What names ``target``: its id, and a session file's own name when that is another."""
    stem = target.session.stem if target.kind == "session" and target.session else None
    return (target.id, stem) if stem else (target.id,)


def _recorded_ids(files: list[SessionFile], kept: listing.Kept | None) -> list[SessionFile]:
    """``files`` of one folder, each under the session id its records carry when its name is
    not a session id (a copy such as ``subagent.jsonl``); one whose id another file of the
    folder already has, or whose records carry no session id, keeps its name. The listing kept of an unchanged file says it."""
    named = {f.id for f in files}
    found = []
    for file in files:
        if file.exists and not _SESSION_ID.fullmatch(file.id):
            entry = _usable(kept.get(str(file.path))) if kept is not None else None
            if entry is not None and "session_id" in entry:
                recorded = entry["session_id"]
            else:
                recorded = records.first_record(file.path, ("sessionId",)).get("sessionId")
            if (
                isinstance(recorded, str)
                and _SESSION_ID.fullmatch(recorded)
                and recorded not in named
            ):
                named.add(recorded)
                file = SessionFile(recorded, file.folder, stem=file.id)
        found.append(file)
    return found


@dataclass
class Opened:
    """What an id names, read: the conversation and, for a subagent, its place in the tree."""

    target: Target
    view: SessionView
    transcript: Transcript | None
    subagent: Subagent | None = None


def open_target(catalog: Catalog, query: str, options: ReadOptions | None = None) -> Opened:
    """Resolve ``query`` and read the conversation it names (with its session, for context)."""
    return open_resolved(catalog, catalog.resolve(query), options)


def open_resolved(catalog: Catalog, target: Target, options: ReadOptions | None = None) -> Opened:
    """Read the conversation ``target`` names (with its session, for context)."""
    assert target.session is not None
    view = catalog.view(target.session, options)
    if target.kind == "session":
        return Opened(target, view, view.main)
    if target.kind == "compaction":
        run = next((t for t in view.compaction_runs if t.id == target.id), None)
        return Opened(target, view, run)
    return Opened(target, view, view.agents.get(target.id), view.find(target.id))


def _inside(path: str | None, wanted: str) -> bool:
    if not path:
        return False
    return path == wanted or path.startswith(wanted.rstrip("/") + "/")


_KEPT_FIELDS = ("project_path", "started_at", "ended_at", "version", "git_branch")
_KEPT_FIGURES = ("turns", "subagents", "compactions", "size")
_KEPT_STATS = ("lines", "records", "malformed", "duplicates", "blank", "truncated", "binary")


def _keep(file: SessionFile, figures, leaves: set[str], catalog: Catalog, kept) -> None:
    """Keep what reading ``file`` found, every text value redacted; identifiers (the folder it
    worked in, summary leaves) that redaction would change are not kept (they must match)."""
    session, found, candidates = figures
    cwd = catalog.project_of(file)
    identifiers = [cwd, *leaves]
    if any(listing.redacted(value)[1] for value in identifiers if isinstance(value, str)):
        kept.put(str(file.path), None)
        return

    def text(value: str | None):
        return listing.redacted(value)[0]

    stats = session.stats
    entry = {
        "session_id": file.id,
        "cwd": [cwd],
        "asked": sorted(leaves),
        "found": sorted(found),
        "summaries": [
            [leaf, text(title(summary))]
            for leaf, summary in (leading_summaries(file.path) if file.exists else [])
        ],
        "session": {
            **{name: text(getattr(session, name)) for name in _KEPT_FIELDS},
            **{name: getattr(session, name) for name in _KEPT_FIGURES},
            "stats": {
                **{name: getattr(stats, name) for name in _KEPT_STATS},
                "unknown": stats.unknown,
                "unknown_types": dict(stats.unknown_types),
                "unreadable": text(stats.unreadable),
            },
        },
        "titles": {
            "renamed": text(candidates.renamed),
            "ai_title": text(candidates.ai_title),
            "own": [[leaf, text(summary)] for leaf, summary in candidates.own_summaries],
            "first_prompt": text(candidates.first_prompt),
        },
    }
    if any(not isinstance(leaf, str | None) for leaf, _ in candidates.own_summaries):
        kept.put(str(file.path), None)  # an odd leaf: read each time
        return
    kept.put(str(file.path), entry)


def _from_kept(file: SessionFile, entry: dict[str, Any], kept, leaves: set[str]):
    """The figures, leaves found and title candidates of a session as ``_keep`` kept them."""
    figures, titles = entry["session"], entry["titles"]
    stats = ReadStats(**{name: figures["stats"][name] for name in _KEPT_STATS})
    if figures["stats"]["unknown"]:
        named = figures["stats"].get("unknown_types") or {"unknown": figures["stats"]["unknown"]}
        stats.unknown_types = Counter(named)
    stats.unreadable = kept.text(figures["stats"]["unreadable"])
    session = Session(
        file.id,
        file.path,
        file.exists,
        **{name: kept.text(figures[name]) for name in _KEPT_FIELDS},
        **{name: figures[name] for name in _KEPT_FIGURES},
        stats=stats,
    )
    candidates = _TitleCandidates(
        kept.text(titles["renamed"]),
        kept.text(titles["ai_title"]),
        [(leaf, kept.text(summary)) for leaf, summary in titles["own"]],
        kept.text(titles["first_prompt"]),
    )
    return session, set(entry["found"]) & leaves, candidates


def _usable(entry: Any) -> dict[str, Any] | None:
    """``entry`` when it has the shape ``_keep`` gives (a damaged cache is read past)."""
    try:
        if (
            isinstance(entry["cwd"], list)
            and all(isinstance(leaf, str) for leaf in entry["asked"])
            and isinstance(entry["found"], list)
            and all(len(pair) == 2 for pair in entry["summaries"])
            and isinstance(entry["session"], dict)
            and isinstance(entry["titles"], dict)
        ):
            return entry
    except (KeyError, TypeError):
        pass
    return None


def _redactions(session: Session, counts: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    values = {name: getattr(session, name) for name in ("title", *_KEPT_FIELDS)}
    values["unreadable"] = session.stats.unreadable
    return {name: counts[value] for name, value in values.items() if value in counts}


def session_paths(catalog: Catalog, session: SessionFile) -> list[Path]:
    """Every file that holds a turn of ``session``."""
    paths = [session.path] if session.exists else []
    paths += [agent.path for agent in catalog.agent_files_of(session)]
    meta = [agent.meta_path for agent in catalog.agent_files_of(session)]
    return paths + [path for path in meta if path.is_file()]
