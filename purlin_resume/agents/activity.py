"""What an agent has been doing: ``ActivitySignal`` from one distinct ``Source`` each.

Every source reports the newest evidence of its own kind within ``HORIZON`` (24 h) and nothing
else, so no two sources ever report the same value under different names:

| source | tier | confidence | evidence |
|---|---|---|---|
| transcript | 1 | 0.9 tool use or result, 0.72 reply, 0.54 prompt or system | the last record of the agent's transcript that is not noise |
| git | 1 | 0.85 | a commit attributable to the agent: ``Agent-Id:`` trailer, author naming it, or files its transcript touched |
| tests | 1 | 0.8 pytest, 0.72 coverage | ``.pytest_cache`` or ``.coverage`` in the agent's own worktree |
| files | 2 | 0.65 | the newest uncommitted change in its worktree (not .git, virtualenvs, node_modules, caches, .purlin) |
| status | 2 | 0.7 with content, 0.49 file time only | ``<workspace>/status.json`` |
| devlog | 2 | 0.7 | the newest file in ``<workspace>/devlogs/`` |
| inbox | 2 | 0.6 | the newest message in ``<workspace>/inbox/processed/`` |
| pane | 3 | 0.4 | the tmux pane's text changed since the previous sample |

Evidence from before the agent started (``Subject.started``: a file changed, a commit made, a
record written, by whoever worked there before) is not its own and is left out.

A worktree that more than one live agent works in cannot tell whose test run or file change it
saw: there the tests source says nothing and the files source only counts files the agent's own
transcript touched. Text carrying a noise marker (our nudges and the replies to them) is never
evidence. A commit is one piece of evidence however many sources see it (``merge``). The pane's
sample also tells whether a dialog waits for the user at the bottom of its screen
(``Observation.dialog``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum, unique
from hashlib import sha256
from pathlib import Path
from typing import Any

from purlin_resume.agentcli import programs
from purlin_resume.agents import trailers
from purlin_resume.agents.git_work import HORIZON, GitWork, commits_within_horizon, newest_change
from purlin_resume.claude import records
from purlin_resume.core import clock, gitrepo, redact, store, tmux
from purlin_resume.core.errors import CorruptFile, PurlinError

NOISE_MARKERS = (
    "resumer",
    "stall-recovery",
    "no-acknowledgments",
    "inactivity detected",
    "[c2a]",
    "#no-reply",
    "#progress-only",
)
WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
PANE_SAMPLES = "pane-samples.json"
_COMMIT_OUTPUT = re.compile(r"^\[[^\s\]]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] ", re.M)


@unique
class Source(str, Enum):
    TRANSCRIPT = "transcript"
    GIT = "git"
    TESTS = "tests"
    FILES = "files"
    STATUS = "status"
    DEVLOG = "devlog"
    INBOX = "inbox"
    PANE = "pane"


TIERS = {
    Source.TRANSCRIPT: 1,
    Source.GIT: 1,
    Source.TESTS: 1,
    Source.FILES: 2,
    Source.STATUS: 2,
    Source.DEVLOG: 2,
    Source.INBOX: 2,
    Source.PANE: 3,
}


@dataclass(frozen=True)
class ActivitySignal:
    source: Source
    timestamp: datetime
    confidence: float
    detail: str
    commit: str | None = None  # the commit this evidence is, when it is one

    @property
    def tier(self) -> int:
        return TIERS[self.source]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source.value,
            "tier": self.tier,
            "confidence": self.confidence,
            "timestamp": clock.iso(self.timestamp),
            "detail": self.detail,
            "commit": self.commit,
        }


@dataclass(frozen=True)
class Subject:
    """One agent as the detector sees it."""

    agent_id: str
    project_root: Path
    worktree: Path  # the folder it works in
    workspace: Path | None  # its status.json, devlogs/, inbox/; None: refused (``refused``)
    transcript: Path | None = None
    pane: str | None = None
    shared_worktree: bool = False  # another live agent works in the same folder
    cli: str = "claude"  # the agent CLI whose session file ``transcript`` is
    started: datetime | None = None  # when it started: earlier evidence is not its own
    refused: str | None = None  # why the workspace was refused (it leads outside the project)


@dataclass
class Observation:
    """Signals from every source, and what went wrong or was left out on the way."""

    signals: list[ActivitySignal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dialog: str | None = None  # the line of a dialog its pane shows, waiting for the user


def is_noise(text: str) -> bool:
    """True when ``text`` carries one of the noise markers (case-insensitive)."""
    lowered = text.lower()
    return any(marker in lowered for marker in NOISE_MARKERS)


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)


def _recent(moment: datetime, now: datetime) -> bool:
    return now - HORIZON <= moment


# -- transcript ---------------------------------------------------------------------------


def _record_kind(record: dict[str, Any]) -> tuple[str, str]:
    """(kind, text) of a transcript record: tool_use, tool_result, response, prompt or system."""
    kind = record.get("type")
    message = record.get("message")
    if not isinstance(message, dict):
        message = {}
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    types = {block.get("type") for block in blocks if isinstance(block, dict)}
    if kind == "system":
        return "system", str(record.get("content") or "")
    if kind == "assistant":
        return ("tool_use" if "tool_use" in types else "response"), records.text_of(content)
    if "tool_result" in types:
        parts = []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                parts.append(records.text_of(block.get("content")))
        return "tool_result", "\n".join(parts)
    return "prompt", records.text_of(content)


TRANSCRIPT_CONFIDENCE = {
    "tool_use": 0.9,
    "tool_result": 0.9,
    "response": 0.72,
    "prompt": 0.54,
    "system": 0.54,
}


@dataclass(frozen=True)
class RecordShape:
    """How another agent CLI's session file records what the agent did: the record ``types``
    that can be evidence, the key of the item inside such a record (None: the record itself),
    and for each item label (its ``type``, then ``/role`` when it has one) the kind and the field
    holding its text. An answer that carries tool calls is a tool use."""

    types: frozenset[str]
    item: str | None
    kinds: dict[str, tuple[str, str]]

    def kind_of(self, record: dict[str, Any]) -> tuple[str, str] | None:
        """(kind, text) of ``record``, None for the CLI's bookkeeping."""
        item = record.get(self.item) if self.item else record
        if not isinstance(item, dict):
            return None
        label = f"{item.get('type')}/{item['role']}" if "role" in item else item.get("type")
        found = self.kinds.get(str(label))
        if found is None:
            return None
        kind = "tool_use" if found[0] == "response" and item.get("toolCalls") else found[0]
        return kind, _parts_text(item.get(found[1]))


def _parts_text(content: Any) -> str:
    """The text of another CLI's field: a string, or the ``text`` of each of its parts (Codex
    CLI's ``input_text`` and ``output_text``, Gemini CLI's untyped parts)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    texts = [part.get("text") for part in parts if isinstance(part, dict)]
    return "\n".join(text for text in texts if isinstance(text, str))


CLAUDE_TYPES = frozenset({"user", "assistant", "system"})
RECORD_SHAPES = {
    "codex": RecordShape(
        frozenset({"response_item"}),
        "payload",
        {
            "function_call": ("tool_use", "name"),
            "custom_tool_call": ("tool_use", "name"),
            "local_shell_call": ("tool_use", "name"),
            "function_call_output": ("tool_result", "output"),
            "custom_tool_call_output": ("tool_result", "output"),
            "message/assistant": ("response", "content"),
            "message/user": ("prompt", "content"),
        },
    ),
    "gemini": RecordShape(
        frozenset({"gemini", "user"}),
        None,
        {"gemini": ("response", "content"), "user": ("prompt", "content")},
    ),
}


def _evidence(transcript: Path, cli: str):
    """(kind, moment, text) of the session file's records, newest first (its last 256 KiB)."""
    shape = RECORD_SHAPES.get(cli)
    types = shape.types if shape else CLAUDE_TYPES
    for record in records.last_records(transcript, types=types):
        found = shape.kind_of(record) if shape else _record_kind(record)
        moment = clock.parse(record.get("timestamp"))
        if found is not None and moment is not None:
            yield found[0], moment, found[1]


def transcript_signals(subject: Subject, now: datetime) -> list[ActivitySignal]:
    """The last record of the transcript that is evidence: not noise, not the client's own
    bookkeeping (a ``system`` record without text, such as ``turn_duration``), and not a reply
    to our nudge (the text answer that follows a noise prompt). A Codex CLI rollout and a
    Gemini CLI chat file are read the same way, by their own record types (opencode keeps no
    file per session: none)."""
    if subject.transcript is None:
        return []
    if not subject.transcript.is_file():
        raise PurlinError(f"{subject.transcript} does not exist or is not a file")
    reply = None  # the newest text answer, evidence unless it answers a nudge
    for kind, moment, text in _evidence(subject.transcript, subject.cli):
        if kind == "system" and not text.strip():
            continue
        if is_noise(text):
            reply = None
            continue
        if kind == "response":
            reply = reply or (kind, moment, text)
            continue
        return _transcript_signal(*(reply or (kind, moment, text)), now)
    return _transcript_signal(*reply, now) if reply else []


def _transcript_signal(kind: str, moment: datetime, text: str, now: datetime):
    if not _recent(moment, now):
        return []
    found = _COMMIT_OUTPUT.search(text) if kind == "tool_result" else None
    return [
        ActivitySignal(
            Source.TRANSCRIPT,
            moment,
            TRANSCRIPT_CONFIDENCE[kind],
            f"last record: {kind}",
            commit=found.group(1) if found else None,
        )
    ]


def files_touched(subject: Subject) -> set[str]:
    """Paths (relative to the worktree) that the agent's transcript wrote or edited: the
    writing tool calls of its main thread (read without assembling the conversation)."""
    if subject.transcript is None or not subject.transcript.is_file():
        return set()  # (a FIFO in its place is never opened: its reading would wait)
    worktree = subject.worktree.resolve()
    touched = set()
    for block in records.main_tool_uses(subject.transcript, WRITING_TOOLS):
        file_path = records.file_path_of(block.get("input"))
        if not file_path:
            continue
        path = Path(file_path)
        if not path.is_absolute():
            path = subject.worktree / path
        try:
            touched.add(path.resolve().relative_to(worktree).as_posix())
        except ValueError:
            continue
    return touched


# -- git ----------------------------------------------------------------------------------


def _trailer_names(message: str, agent_id: str) -> bool:
    return agent_id.lower() in {name.lower() for name in trailers.trailer_agents(message)}


def attribution(commit: gitrepo.Commit, agent_id: str, touched: set[str]) -> list[str]:
    """Why ``commit`` is the agent's: ``trailer``, ``author``, ``files`` (empty: it is not)."""
    why = []
    if _trailer_names(commit.message, agent_id):
        why.append("trailer")
    if agent_id in commit.author_name or agent_id in commit.author_email:
        why.append("author")
    if touched & set(commit.files):
        why.append("files")
    return why


def recent_commits(subject: Subject, now: datetime) -> list[gitrepo.Commit]:
    """The commits of the agent's work tree within ``HORIZON``, newest first (none outside git)."""
    return commits_within_horizon(subject.worktree, now)


def git_signals(
    subject: Subject,
    now: datetime,
    touched: set[str],
    commits: list[gitrepo.Commit] | None = None,
) -> list[ActivitySignal]:
    """The newest commit attributable to the agent: one signal, however many reasons match.
    ``commits``: ``recent_commits`` when the caller already has them."""
    if commits is None:
        commits = recent_commits(subject, now)
    for commit in commits:
        if commit.message and is_noise(commit.message.splitlines()[0]):
            continue
        why = attribution(commit, subject.agent_id, touched)
        if why:
            moment = datetime.fromtimestamp(commit.committed_at, timezone.utc)
            detail = f"commit {commit.sha[:12]} ({', '.join(why)})"
            return [ActivitySignal(Source.GIT, moment, 0.85, detail, commit=commit.sha)]
    return []


# -- tests, files -------------------------------------------------------------------------


def _newest(paths: list[Path]) -> tuple[Path, datetime] | None:
    best = None
    for path in paths:
        try:
            moment = _mtime(path)
        except OSError:
            continue
        if best is None or moment > best[1]:
            best = (path, moment)
    return best


def test_signals(subject: Subject, now: datetime) -> list[ActivitySignal]:
    """A pytest or coverage run recorded in the agent's own worktree (never in a shared one)."""
    if subject.shared_worktree:
        return []
    found = []
    cache = subject.worktree / ".pytest_cache" / "v" / "cache"
    pytest_run = _newest(list(cache.iterdir())) if cache.is_dir() else None
    if pytest_run and _recent(pytest_run[1], now):
        found.append(ActivitySignal(Source.TESTS, pytest_run[1], 0.8, "pytest run"))
    coverage = _newest([subject.worktree / ".coverage"])
    if coverage and _recent(coverage[1], now):
        found.append(ActivitySignal(Source.TESTS, coverage[1], 0.72, "coverage run"))
    return sorted(found, key=lambda s: s.timestamp, reverse=True)[:1]


def file_signals(
    subject: Subject,
    now: datetime,
    touched: set[str],
    newest: Callable[[], tuple[str, float] | None] | None = None,
) -> list[ActivitySignal]:
    """The newest change in the worktree; in a shared worktree only among files it touched.
    ``newest``: gives ``newest_change`` of the worktree when the caller has it under way."""
    if subject.shared_worktree:
        if not touched:
            return []
        found = _newest([subject.worktree / relative for relative in touched])
        if found is None:
            return []
        relative, moment = found[0].relative_to(subject.worktree).as_posix(), found[1]
    else:
        change = newest() if newest is not None else newest_change(subject.worktree)
        if change is None:
            return []
        relative, moment = change[0], datetime.fromtimestamp(change[1], timezone.utc)
    if not _recent(moment, now):
        return []
    return [ActivitySignal(Source.FILES, moment, 0.65, f"changed {relative}")]


# -- status, devlogs, inbox ---------------------------------------------------------------


def read_status(workspace: Path) -> dict[str, Any] | None:
    """The agent's status.json as an object; None when absent or not an object."""
    path = workspace / "status.json"
    try:
        data = store.read_json(path, default=None)
    except CorruptFile:
        return None
    return data if isinstance(data, dict) else None


def _has_content(status: dict[str, Any]) -> bool:
    return any(
        isinstance(value, (str, int, float, list, dict)) and not isinstance(value, bool) and value
        for key, value in status.items()
        if key not in ("last_updated", "timestamp", "updated_at", "agent_id")
    )


def status_signals(workspace: Path, now: datetime) -> list[ActivitySignal]:
    path = workspace / "status.json"
    if not path.is_file():
        return []
    moment = _mtime(path)
    if not _recent(moment, now):
        return []
    status = read_status(workspace)
    if status is not None and is_noise(store.dump_json(status)):
        return []
    if status is not None and _has_content(status):
        return [ActivitySignal(Source.STATUS, moment, 0.7, "status.json updated")]
    return [ActivitySignal(Source.STATUS, moment, 0.49, "status.json touched (no content)")]


def _newest_real_file(folder: Path, now: datetime) -> tuple[Path, datetime] | None:
    if not folder.is_dir():
        return None
    dated = []
    for path in folder.iterdir():
        if path.is_file():
            dated.append((path, _mtime(path)))
    for path, moment in sorted(dated, key=lambda pair: pair[1], reverse=True):
        if not _recent(moment, now):
            return None
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        if not is_noise(text):
            return path, moment
    return None


def devlog_signals(workspace: Path, now: datetime) -> list[ActivitySignal]:
    found = _newest_real_file(workspace / "devlogs", now)
    if found is None:
        return []
    return [ActivitySignal(Source.DEVLOG, found[1], 0.7, f"devlog {found[0].name}")]


def inbox_signals(workspace: Path, now: datetime) -> list[ActivitySignal]:
    found = _newest_real_file(workspace / "inbox" / "processed", now)
    if found is None:
        return []
    return [ActivitySignal(Source.INBOX, found[1], 0.6, f"processed {found[0].name}")]


# -- pane ---------------------------------------------------------------------------------


def screen_digest(screen: str) -> str:
    """A digest of a pane's text without noise lines and trailing blanks."""
    kept = [line.rstrip() for line in screen.splitlines() if not is_noise(line)]
    while kept and not kept[-1]:
        kept.pop()
    return sha256("\n".join(kept).encode()).hexdigest()


def _pane_key(server: tmux.Server, pane: str, agent_id: str) -> str:
    return f"{server.label}:{pane}:{agent_id}"


DIALOG_LINES = 20  # a dialog stands at the bottom of the screen: its last non-blank lines


def dialog_shown(screen: str, cli: str) -> str | None:
    """The line of a dialog of ``cli`` among the last lines of ``screen`` (a permission prompt
    waiting for the user), else None."""
    known = programs.PROGRAMS.get(cli)
    texts = [t.strip() for t in (known.dialog_text if known else "").split("|") if t.strip()]
    bottom = [line.strip() for line in screen.splitlines() if line.strip()][-DIALOG_LINES:]
    found = (line for text in texts for line in reversed(bottom) if text in line)
    return next((redact.one_line(line, 120) for line in found), None)  # never inside a token


def pane_signals(
    subject: Subject,
    now: datetime,
    server: tmux.Server,
    cache_dir: Path,
    seen: Observation | None = None,
) -> list[ActivitySignal]:
    """The pane's text changed since the previous sample (each call takes a new sample); a
    dialog it shows is told to ``seen``."""
    if subject.pane is None:
        return []
    if not tmux.available():
        raise PurlinError("tmux is not installed")
    screen = tmux.capture_if_alive(server, subject.pane)
    if screen is None:  # gone, perhaps between the liveness check and the capture
        raise PurlinError(f"tmux pane {subject.pane} is not reachable on {server.label}")
    if seen is not None:
        seen.dialog = dialog_shown(screen, subject.cli)
    digest = screen_digest(screen)
    key = _pane_key(server, subject.pane, subject.agent_id)
    previous: dict[str, Any] = {}

    def change(data: Any) -> None:
        if not isinstance(data, dict):
            raise CorruptFile(cache_dir / PANE_SAMPLES, "the top level must be an object")
        previous.update(data.get(key) or {})
        data[key] = {"digest": digest, "at": clock.iso(now)}

    gitrepo.exclude_state_files(cache_dir, PANE_SAMPLES, PANE_SAMPLES + ".lock")
    store.private_folder(cache_dir)
    store.update_json(cache_dir / PANE_SAMPLES, change, default={})
    if previous.get("digest") and previous["digest"] != digest:
        return [ActivitySignal(Source.PANE, now, 0.4, "pane text changed since the last sample")]
    return []


def pane_injected(
    server: tmux.Server, pane: str, agent_id: str, now: datetime, cache_dir: Path
) -> None:
    """Our own text went into the pane (a nudge): the next sample is a new baseline, so the
    change the injection made is never taken for the agent's activity."""
    key = _pane_key(server, pane, agent_id)

    def change(data: Any) -> None:
        if not isinstance(data, dict):
            raise CorruptFile(cache_dir / PANE_SAMPLES, "the top level must be an object")
        data[key] = {"digest": None, "injected_at": clock.iso(now)}

    gitrepo.exclude_state_files(cache_dir, PANE_SAMPLES, PANE_SAMPLES + ".lock")
    store.update_json(cache_dir / PANE_SAMPLES, change, default={})


# -- all together -------------------------------------------------------------------------


def merge(signals: list[ActivitySignal]) -> list[ActivitySignal]:
    """One signal per commit however many sources saw it (the strongest), newest first."""
    kept: list[ActivitySignal] = []
    for signal in sorted(signals, key=lambda s: s.confidence, reverse=True):
        if signal.commit and any(
            other.commit
            and (other.commit.startswith(signal.commit) or signal.commit.startswith(other.commit))
            for other in kept
        ):
            continue
        kept.append(signal)
    return sorted(kept, key=lambda s: s.timestamp, reverse=True)


def observe(
    subject: Subject,
    now: datetime,
    server: tmux.Server,
    cache_dir: Path,
) -> Observation:
    """Ask every source; a source that fails is noted and skipped (the rest still count)."""
    observation = Observation()
    touched: set[str] = set()

    def attempt(name: str, collect: Callable[[], Any]) -> Any:
        try:
            return collect()
        except (PurlinError, OSError) as exc:
            message = exc.message if isinstance(exc, PurlinError) else str(exc)
            observation.notes.append(f"{name}: not read ({message})")
            return None

    # git log and git status run while the transcript is read (each waits on its own process)
    git = GitWork.start(subject.worktree, now, changes=not subject.shared_worktree)
    commits = git.commits
    # In a shared work tree only the files the agent touched count, not the newest change.
    newest = None if subject.shared_worktree else git.newest
    touched = attempt("transcript", lambda: files_touched(subject)) or set()
    collectors: list[tuple[str, Callable[[], list[ActivitySignal]]]] = [
        ("transcript", lambda: transcript_signals(subject, now)),
        ("git", lambda: git_signals(subject, now, touched, commits())),
        ("tests", lambda: test_signals(subject, now)),
        ("files", lambda: file_signals(subject, now, touched, newest)),
    ]
    if (workspace := subject.workspace) is not None:
        collectors += [
            ("status", lambda: status_signals(workspace, now)),
            ("devlog", lambda: devlog_signals(workspace, now)),
            ("inbox", lambda: inbox_signals(workspace, now)),
        ]
    else:
        observation.notes.append(f"status, devlog, inbox: not read ({subject.refused})")
    collectors.append(("pane", lambda: pane_signals(subject, now, server, cache_dir, observation)))
    if subject.shared_worktree:
        observation.notes.append(
            f"{subject.worktree} is shared with another live agent: test runs there are not "
            "credited, and only files this agent touched count"
        )
    for name, collect in collectors:
        observation.signals.extend(attempt(name, collect) or [])
    observation.signals = merge(_since_start(subject, observation))
    return observation


def _since_start(subject: Subject, observation: Observation) -> list[ActivitySignal]:
    """The signals of ``observation`` from after the agent started; those from before are
    named by source in a note (their details may quote what someone else did there)."""
    if subject.started is None:
        return observation.signals
    started = subject.started
    earlier = sorted({s.source.value for s in observation.signals if s.timestamp < started})
    if earlier:
        observation.notes.append(
            f"{', '.join(earlier)}: evidence from before it started at {clock.iso(started)} "
            "is not its own activity"
        )
    return [s for s in observation.signals if s.timestamp >= started]
