"""Agent history: ``.planning/agent-history.json`` in the GSD v1.2 format, and its lifecycle.

The file is the GSD template (``version``, ``max_entries``, ``entries``) with the GSD entry
schema field for field. purlin-resume adds ``spawn_commit`` (HEAD when the agent was spawned),
``session_id`` (the session that spawned it) and, when known, ``work_ref`` (the branch holding
its work); it never renames or drops a field, and keeps fields it does not know, so GSD tooling
and purlin-resume read each other's files. Every change happens under the file's lock.

Lifecycle (GSD's diagram; a resumed agent runs again, so it may also be interrupted again or
fail)::

    queued -> spawned -> completed
              spawned -> interrupted -> resumed -> completed
              spawned -> failed
              spawned -> interrupted -> failed       (abandoned: "start fresh")

An agent id can occur in several entries (the interrupted one, then the resumed one): the last
entry of an id is that agent's current state.

This module is the only reader and writer of ``agent-history.json`` and ``current-agent-id.txt``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from purlin_resume.core import clock, gitrepo, ids, store
from purlin_resume.core.errors import Ambiguous, CorruptFile, NotFound, PurlinError, UsageError
from purlin_resume.core.project import Project, project_files

VERSION = "1.2"
DEFAULT_MAX_ENTRIES = 50
# what the history keeps, and a briefing shows, of an agent's task or prompt (a committed file
# may hold megabytes, and every resume copies the entry)
PROMPT_CHARS = 20_000
# fields written on one line (a briefing's list, a command's summary): no control characters,
# line breaks included (C0, DEL, C1, the Unicode line and paragraph separators)
ONE_LINE_FIELDS = ("phase", "plan", "parallel_group", "execution_mode", "granularity", "work_ref")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
FILE_NAME = "agent-history.json"
CURRENT_ID_FILE = "current-agent-id.txt"

QUEUED, SPAWNED, COMPLETED = "queued", "spawned", "completed"
INTERRUPTED, RESUMED, FAILED = "interrupted", "resumed", "failed"
STATUSES = (QUEUED, SPAWNED, COMPLETED, INTERRUPTED, RESUMED, FAILED)
TRANSITIONS: dict[str, tuple[str, ...]] = {
    QUEUED: (SPAWNED,),
    SPAWNED: (COMPLETED, INTERRUPTED, FAILED),
    INTERRUPTED: (RESUMED, FAILED),  # failed: abandoned, "start fresh"
    RESUMED: (COMPLETED, INTERRUPTED, FAILED),
    COMPLETED: (),
    FAILED: (),
}
RUNNING_STATUSES = (SPAWNED, RESUMED)
MODES = ("sequential", "parallel")
GRANULARITIES = ("plan", "task_group")
SCHEMA_FIELDS = (
    "agent_id",
    "task_description",
    "phase",
    "plan",
    "segment",
    "timestamp",
    "status",
    "completion_timestamp",
    "execution_mode",
    "parallel_group",
    "granularity",
    "depends_on",
    "files_modified",
    "checkpoints_skipped",
    "task_results",
)


class HistoryEntry(NamedTuple):
    """One entry of the history, as a view over the object in the file (``data``)."""

    position: int  # in the file's entries
    data: dict[str, Any]

    def _text(self, name: str) -> str | None:
        value = self.data.get(name)
        return value if isinstance(value, str) and value else None

    @property
    def agent_id(self) -> str:
        return self.data["agent_id"]

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def parallel_group(self) -> str | None:
        return self._text("parallel_group")

    @property
    def timestamp(self) -> str | None:
        return self._text("timestamp")

    @property
    def spawn_commit(self) -> str | None:
        return self._text("spawn_commit")

    @property
    def session_id(self) -> str | None:
        return self._text("session_id")

    @property
    def work_ref(self) -> str | None:
        return self._text("work_ref")

    @property
    def task(self) -> str:
        """The task description as text ("" when none): GSD writes a string; a list or an
        object is shown as ``templating.shown`` shows it."""
        from purlin_resume.core import templating  # only to show it: kept off the hooks' path

        return str(templating.shown(self.data.get("task_description") or ""))

    @property
    def files_modified(self) -> list[str]:
        files = self.data.get("files_modified")
        return [f for f in files if isinstance(f, str)] if isinstance(files, list) else []


class AgentHistory(NamedTuple):
    """The whole document: ``data`` is exactly what the file holds."""

    path: Path
    data: dict[str, Any]

    @property
    def max_entries(self) -> int:
        return self.data.get("max_entries", DEFAULT_MAX_ENTRIES)

    @property
    def entries(self) -> list[HistoryEntry]:
        return [HistoryEntry(i, e) for i, e in enumerate(self.data["entries"])]

    def latest(self) -> list[HistoryEntry]:
        """The current entry of every agent (its last one), in file order."""
        last: dict[str, HistoryEntry] = {}
        for entry in self.entries:
            last[entry.agent_id] = entry
        return sorted(last.values(), key=lambda e: e.position)

    def latest_with(self, *statuses: str) -> list[HistoryEntry]:
        return [e for e in self.latest() if e.status in statuses]

    def find(self, wanted: str) -> HistoryEntry:
        """The current entry of the agent ``wanted`` names: its id, or a unique prefix of it."""
        if not wanted:
            raise UsageError("an agent id is required")
        latest = {e.agent_id: e for e in self.latest()}
        if wanted in latest:
            return latest[wanted]
        matches = [agent_id for agent_id in latest if agent_id.startswith(wanted)]
        if len(matches) == 1:
            return latest[matches[0]]
        if not matches:
            raise NotFound(f"no agent {wanted!r} in {self.path}; see 'purlin-resume history list'")
        raise Ambiguous(
            f"agent id {wanted!r} is ambiguous: it starts {len(matches)} ids "
            f"({', '.join(matches)}); give more of it"
        )


class PruneResult(NamedTuple):
    removed: tuple[str, ...]
    remaining: int
    limit: int

    @property
    def over_limit(self) -> bool:
        return self.remaining > self.limit

    def warning(self) -> str | None:
        if not self.over_limit:
            return None
        return (
            f"the history holds {self.remaining} entries, over max_entries {self.limit}: "
            "the rest are spawned, queued, resumed or awaiting resume and are never pruned"
        )


# --- the format --------------------------------------------------------------------------------


def template(max_entries: int = DEFAULT_MAX_ENTRIES) -> dict[str, Any]:
    """The GSD file template."""
    return {"version": VERSION, "max_entries": max_entries, "entries": []}


def check(path: Path, data: Any) -> dict[str, Any]:
    """``data`` when it is an agent history we can read and write; else CorruptFile naming why."""
    if not isinstance(data, dict):
        raise CorruptFile(path, "the top level must be an object with 'entries'")
    version = data.get("version", VERSION)
    if not isinstance(version, str) or version.split(".")[0] != VERSION.split(".")[0]:
        raise CorruptFile(path, f"version {version!r} is not supported (expected {VERSION})")
    limit = data.get("max_entries", DEFAULT_MAX_ENTRIES)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise CorruptFile(path, f"max_entries must be a positive integer, not {limit!r}")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise CorruptFile(path, "'entries' must be a list")
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise CorruptFile(path, f"entry {number} is not an object")
        if not isinstance(entry.get("agent_id"), str) or not entry["agent_id"]:
            raise CorruptFile(path, f"entry {number} has no agent_id")
        found = _wrong_id(entry) or _broken_line(entry)
        if found:
            raise CorruptFile(path, f"entry {number}: {found}")
        if entry.get("status") not in STATUSES:
            raise CorruptFile(
                path,
                f"entry {number} ({entry['agent_id']}) has unknown status {entry.get('status')!r}",
            )
    return data


def _wrong_id(entry: dict[str, Any]) -> str | None:
    """Why an id of ``entry`` (agent, session, spawn commit, ``depends_on``) is not one, else
    None: ids go into file names and into the commands a briefing suggests."""
    found = ids.AGENT.problem(entry["agent_id"])
    if found is None and entry.get("session_id") is not None:
        found = ids.SESSION.problem(entry["session_id"])
    commit = entry.get("spawn_commit")
    if found is None and commit is not None and not ids.COMMIT.valid(commit):
        found = f"spawn_commit: {ids.COMMIT.problem(commit)}"
    depends_on = entry.get("depends_on") or []
    if not isinstance(depends_on, list):
        return found or f"depends_on must be a list of agent ids, not {depends_on!r}"
    return found or next(filter(None, map(ids.AGENT.problem, depends_on)), None)


def _broken_line(entry: dict[str, Any]) -> str | None:
    """The first one-line field of ``entry`` holding a control character, said so; else None."""
    for name in ONE_LINE_FIELDS:
        if control_in(entry.get(name)):
            return f"{name} holds a control character (a line break among them)"
    return None


def control_in(value: Any) -> bool:
    """Whether a text inside ``value`` holds a control character (a line break among them)."""
    return any(_CONTROL.search(text) for text in _texts(value))


def bounded(text: str) -> str:
    """``text`` as the history keeps, and a briefing shows, a task or prompt: one longer than
    ``PROMPT_CHARS`` is redacted, then cut (never inside a placeholder) to at most
    ``PROMPT_CHARS`` saying how long it was, so bounding it again leaves it as it is."""
    if len(text) <= PROMPT_CHARS:
        return text
    from purlin_resume.core import redact  # only then: the tasks the hooks record are short

    text = redact.redact(text).text
    if len(text) <= PROMPT_CHARS:
        return text
    tail = f"… ({len(text)} characters)"
    end = PROMPT_CHARS - len(tail)
    opened = text.rfind("[REDACTED:", 0, end)
    if opened != -1 and text.find("]", opened) >= end:
        end = opened
    return text[:end] + tail


def recorded_file(project: Project, name: str) -> str:
    """``name`` (a ``--files`` value) as the history records it: relative to the project's
    top; UsageError for a path outside the project or one with a control character."""
    if control_in(name):
        raise UsageError(f"--files {name!r} holds a control character; give a file name")
    inside = project_files([project.root], [name])
    if not inside:
        raise UsageError(
            f"--files {name!r} is not a file of the project; give its path inside "
            f"{project.root}, relative to it"
        )
    return inside[0]


def check_status(status: str) -> str:
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r} (known: {', '.join(STATUSES)})")
    return status


def group_id(granularity: str, phase: str | None, plan: str | None, moment: datetime) -> str:
    """A new parallel group id in the template's formats."""
    unix = int(moment.timestamp())
    if granularity == "task_group":
        return f"plan-{phase}-{plan}-tasks-batch-{unix}"
    return f"phase-{phase}-batch-{unix}"


class NewAgent(NamedTuple):
    """What ``history spawn`` or ``history queue`` says about an agent."""

    agent_id: str
    task: str | None = None
    phase: str | None = None
    plan: str | None = None
    segment: int | None = None
    mode: str | None = None
    group: str | None = None
    new_group: bool = False
    granularity: str | None = None
    depends_on: tuple[str, ...] = ()
    work_ref: str | None = None
    prompt: str | None = None
    tool_use_id: str | None = None

    def described(self) -> dict[str, Any]:
        """The schema fields this request sets (checked), in schema order."""
        if self.group is not None and self.new_group:
            raise UsageError("--group and --new-group exclude each other")
        for option, text in (
            ("--phase", self.phase),
            ("--plan", self.plan),
            ("--group", self.group),
            ("--ref", self.work_ref),
        ):
            if text is not None and control_in(text):
                raise UsageError(f"{option} holds a control character; give it on one line")
        if self.segment is not None and self.segment < 1:
            raise UsageError(f"--segment must be a positive number, not {self.segment}")
        for name, value, known in (
            ("--mode", self.mode, MODES),
            ("--granularity", self.granularity, GRANULARITIES),
        ):
            if value is not None and value not in known:
                raise UsageError(f"{name} {value!r} is not one of: {', '.join(known)}")
        grouped = self.group is not None or self.new_group
        if grouped and self.mode == "sequential":
            raise UsageError("a parallel group needs --mode parallel")
        values: dict[str, Any] = {}
        given: Any
        for name, given in (
            ("task_description", None if self.task is None else bounded(self.task)),
            ("phase", self.phase),
            ("plan", self.plan),
            ("segment", self.segment),
            ("execution_mode", "parallel" if grouped and self.mode is None else self.mode),
            ("parallel_group", self.group),
            ("granularity", self.granularity),
            ("depends_on", list(self.depends_on) or None),
        ):
            if given is not None:
                values[name] = given
        return values

    def apply(self, entry: dict[str, Any], moment: datetime) -> None:
        """Set what this request describes on ``entry`` (a new group is made for it here)."""
        entry.update(self.described())
        if self.new_group:
            entry["parallel_group"] = group_id(
                entry.get("granularity", "plan"), entry.get("phase"), entry.get("plan"), moment
            )
        for name in ("work_ref", "tool_use_id"):
            if getattr(self, name):
                entry[name] = getattr(self, name)
        if self.prompt:  # redacted with the rest of the new entry when it is written
            entry["prompt"] = bounded(self.prompt)

    def entry(self, status: str, moment: datetime) -> dict[str, Any]:
        """A complete new entry: every schema field, in schema order."""
        if not self.agent_id:
            raise UsageError("--agent-id must not be empty")
        for wrong in filter(None, map(ids.AGENT.problem, (self.agent_id, *self.depends_on))):
            raise UsageError(wrong)
        missing = [
            option
            for option, value in (
                ("--task", self.task),
                ("--phase", self.phase),
                ("--plan", self.plan),
            )
            if not value
        ]
        if missing:
            names = (
                ", ".join(missing[:-1]) + " and " + missing[-1] if len(missing) > 1 else missing[0]
            )
            verb = "are" if len(missing) > 1 else "is"
            raise UsageError(f"{names} {verb} required for a new agent (one not queued before)")
        entry: dict[str, Any] = {name: None for name in SCHEMA_FIELDS}
        entry.update(
            agent_id=self.agent_id,
            timestamp=clock.iso(moment),
            status=status,
            execution_mode="sequential",
            granularity="plan",
        )
        self.apply(entry, moment)
        return entry


# --- lifecycle and pruning (pure: they change the document they are given) ----------------------


def refuse(entry: HistoryEntry, target: str) -> PurlinError:
    allowed = TRANSITIONS[entry.status]
    return PurlinError(
        f"agent {entry.agent_id} is {entry.status}: it cannot become {target} "
        f"(allowed from {entry.status}: {', '.join(allowed) if allowed else 'none, it is final'})"
    )


def transition(entry: HistoryEntry, target: str) -> None:
    """Move ``entry`` to ``target`` in place, if the lifecycle allows it."""
    check_status(target)
    if target not in TRANSITIONS[entry.status]:
        raise refuse(entry, target)
    entry.data["status"] = target


def merge_files(entry: HistoryEntry, files: Iterable[str]) -> None:
    """Add ``files`` to files_modified (kept in order, without repeats)."""
    files = list(files)
    if not files:
        return
    merged = entry.files_modified
    merged += [f for f in dict.fromkeys(files) if f not in merged]
    entry.data["files_modified"] = merged


def prune(data: dict[str, Any]) -> PruneResult:
    """Bring the history to at most max_entries, in place.

    Oldest completed entries go first, then oldest failed ones, then interrupted entries an
    agent has already been resumed from. Spawned, queued and resumed entries, and interrupted
    agents still awaiting resume, are never removed. When an agent's final entry goes, the
    earlier entries of that agent go with it, so no agent is left looking interrupted.
    """
    entries: list[dict[str, Any]] = data["entries"]
    limit = data.get("max_entries", DEFAULT_MAX_ENTRIES)
    gone: set[int] = set()

    def earlier_of(index: int) -> list[int]:
        agent = entries[index]["agent_id"]
        return [
            i
            for i in range(index)
            if entries[i]["agent_id"] == agent and entries[i]["status"] not in RUNNING_STATUSES
        ]

    last_of = {e["agent_id"]: i for i, e in enumerate(entries)}
    superseded = [
        i
        for i, e in enumerate(entries)
        if e["status"] == INTERRUPTED and last_of[e["agent_id"]] != i
    ]
    for tier in (
        [i for i, e in enumerate(entries) if e["status"] == COMPLETED],
        [i for i, e in enumerate(entries) if e["status"] == FAILED],
        superseded,
    ):
        for index in tier:
            if len(entries) - len(gone) <= limit:
                break
            if index not in gone:
                gone.update([index, *earlier_of(index)])
    removed = tuple(entries[i]["agent_id"] for i in sorted(gone))
    data["entries"] = [e for i, e in enumerate(entries) if i not in gone]
    return PruneResult(removed=removed, remaining=len(data["entries"]), limit=limit)


def select(
    history: AgentHistory,
    status: str | None = None,
    group: str | None = None,
    parallel: bool = False,
) -> list[HistoryEntry]:
    """Entries (all of them, as in the file) matching every filter given."""
    if status is not None:
        check_status(status)
    return [
        e
        for e in history.entries
        if (status is None or e.status == status)
        and (group is None or e.data.get("parallel_group") == group)
        and (not parallel or e.data.get("parallel_group") is not None)
    ]


def interrupted_by_session_end(
    history: AgentHistory,
    session_state: Callable[[str | None], str],
    now: datetime,
    max_age: timedelta,
) -> list[tuple[HistoryEntry, str]]:
    """The running agents whose spawning session is over, each with the reason.

    ``session_state`` answers ``over``, ``running`` or ``unknown`` for a session id; when it
    cannot tell, an agent spawned longer ago than ``max_age`` counts as interrupted.
    """
    found = []
    for entry in history.latest_with(*RUNNING_STATUSES):
        state = session_state(entry.session_id)
        if state == "over":
            found.append((entry, f"session {entry.session_id} is over"))
        elif state != "running":
            spawned = clock.parse(entry.timestamp)
            if spawned is not None and now - spawned > max_age:
                minutes = int((now - spawned).total_seconds() // 60)
                found.append((entry, f"spawned {minutes} minutes ago, session unknown"))
    return found


# --- the files ---------------------------------------------------------------------------------


def path(project: Project) -> Path:
    return project.planning_dir / FILE_NAME


def current_id_path(project: Project) -> Path:
    return project.planning_dir / CURRENT_ID_FILE


def state_files() -> tuple[str, ...]:
    """Our files in the project (relative to its root): never someone else's change."""
    return tuple(
        f".planning/{name}{suffix}"
        for name in (FILE_NAME, CURRENT_ID_FILE)
        for suffix in ("", ".lock")
    )


def _keep_locks_out_of_git(project: Project) -> None:
    gitrepo.exclude_state_files(
        project.planning_dir, FILE_NAME + ".lock", CURRENT_ID_FILE + ".lock"
    )


def load(project: Project) -> AgentHistory:
    """The history of ``project``; NotFound when it has none yet."""
    file = path(project)
    try:
        data = store.read_json(file)
    except NotFound:
        raise NotFound(
            f"{file} does not exist; run 'purlin-resume history init' or spawn an agent first"
        ) from None
    return AgentHistory(file, check(file, data))


def init(project: Project) -> tuple[bool, PruneResult | None]:
    """Create the history from the template when absent (True), else prune it when it holds
    more than ``max_entries`` (GSD prunes while it initialises tracking): what pruning did, or
    None when there was nothing to prune. A broken file is reported, never rewritten.
    """
    _keep_locks_out_of_git(project)
    if store.create_json(path(project), template()):
        return True, None
    doc = load(project)
    if len(doc.data["entries"]) <= doc.max_entries:
        return False, None
    return False, update(project, lambda current: prune(current.data))


def update(project: Project, change: Callable[[AgentHistory], Any], create: bool = False) -> Any:
    """Run ``change`` on the history under its lock and write the result; returns what it returns.

    ``create`` starts from the template when the file is absent. Nothing is written when the
    file does not parse or ``change`` raises. Every text a change writes is redacted.
    """
    file = path(project)
    if not create and not file.exists():
        load(project)  # raises NotFound with the hint
    _keep_locks_out_of_git(project)
    outcome: list[Any] = []

    def apply(data: Any) -> None:
        entries = list(check(file, data)["entries"])  # kept alive: their ids stay theirs
        held = {id(entry): _texts(entry) for entry in entries}
        outcome.append(change(AgentHistory(file, data)))
        data["entries"] = [_redacted(e, held.get(id(e), set())) for e in data["entries"]]

    store.update_json(file, apply, default=template())
    return outcome[0]


# fields whose values are statuses, modes or times (checked or made here): no free text
_SHAPED_FIELDS = frozenset(
    {
        "status",
        "timestamp",
        "completion_timestamp",
        "abandoned_at",
        "spawn_commit",
        "execution_mode",
        "granularity",
    }
)
# fields whose values are ids: one holding a secret is refused, as redacted it is no id
_ID_FIELDS = ("agent_id", "session_id", "tool_use_id", "depends_on")


def _texts(value: Any) -> set[str]:
    """Every string inside a JSON value, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(_texts(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_texts(item) for item in value))
    return set()


def _redacted(entry: Any, before: set[str]) -> Any:
    """``entry`` redacted when a change put text into it that it did not hold (the file is
    committed): a new entry whole, even text copied from another (a hand-made or older file
    may hold a secret); text an entry held already is not scanned again. An id holding a
    secret is refused (UsageError): nothing is written. The entry's own keys are field names,
    no free text."""
    if not isinstance(entry, dict):
        return entry
    for name in _ID_FIELDS:
        for value in _texts(entry.get(name)) - before:
            if kind := ids.secret_in(value):
                raise UsageError(f"{name.replace('_', ' ')} holds a secret ({kind}): not recorded")
    texts = {k: v for k, v in entry.items() if k not in _SHAPED_FIELDS and k not in _ID_FIELDS}
    if not set().union(*map(_texts, texts.values())) - before:
        return entry
    from purlin_resume.core import redact  # only then: naming or ending an agent needs none

    return entry | redact.redact_data(texts)[0]


def write_current_id(project: Project, agent_id: str) -> None:
    store.write_text(current_id_path(project), agent_id + "\n")


def read_current_id(project: Project) -> str | None:
    try:
        text = store.read_text(current_id_path(project)).strip()
    except NotFound:
        return None
    return text.splitlines()[0] if text else None


def parse_task_results(text: str | None) -> dict[str, Any] | None:
    """``--task-results``: a JSON object (per-task outcomes)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--task-results is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise UsageError("--task-results is nested too deeply") from None
    if not isinstance(value, dict):
        raise UsageError("--task-results must be a JSON object of per-task outcomes")
    return value
