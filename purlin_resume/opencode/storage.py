"""opencode's sessions: ``$XDG_DATA_HOME/opencode/opencode.db`` (default
``~/.local/share/opencode``), and the JSON files of before the database.

Checked against opencode 1.18.33 (a real database in ``tests/fixtures/opencode``). The database
has a ``session`` table (id, ``parent_id`` for a child session, directory, title, version, times
in milliseconds, token totals), ``message`` (one row per message, its fields as JSON in
``data``: role, times, tokens, error, ``summary`` for a compaction's summary message) and
``part`` (the pieces of a message as JSON: ``text``, ``reasoning``, ``tool`` with its call state,
``compaction``, step markers, snapshots, patches). The older layout keeps the same objects as
files: ``storage/session/<project>/<session>.json``, ``storage/message/<session>/<message>.json``
and ``storage/part/<message>/<part>.json``. The database is opened read-only and read row by
row; a child session starts from the ``task`` tool, whose state names it. A deferred reading
(``ReadOptions.deferred``) keeps no turn: it counts them as it reads, and its transcript reads
them again from the database, one at a time, each time they are gone through.
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from purlin_resume.agentcli.names import OPENCODE
from purlin_resume.agentcli.shape import (
    Conversation,
    NativeSession,
    add_text,
    json_file,
    millis,
    result_text,
    tool_call,
)
from purlin_resume.claude import catalog
from purlin_resume.claude.records import ReadStats, integer, line_decoder, string
from purlin_resume.claude.transcript import (
    COMPACTION,
    INTERRUPTION,
    PROMPT,
    RESPONSE,
    Compaction,
    Facts,
    ReadOptions,
    Transcript,
    Turn,
    Turns,
)
from purlin_resume.core import store
from purlin_resume.core.errors import PurlinError

# the part types a reading passes over (read by SQLite, which leaves them in the database)
_SILENT_PARTS = (
    "step-start",
    "step-finish",
    "snapshot",
    "patch",
    "file",
    "agent",
    "subtask",
    "retry",
)
_PART_TYPES = frozenset({"text", "reasoning", "tool", "compaction", *_SILENT_PARTS})
SPAWN_TOOLS = frozenset({"task"})
_TASK_ID = re.compile(r'<task id="(ses_[A-Za-z0-9]+)"')
_SESSION_COLUMNS = (
    "id, parent_id, directory, title, version, time_created, time_updated, "
    "tokens_input + tokens_output + tokens_reasoning + tokens_cache_read + tokens_cache_write, agent"
)


def root(explicit: Path | None = None) -> Path:
    """``explicit``, else ``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode``."""
    if explicit is not None:
        return Path(explicit)
    return store.user_folder("data", "opencode")


def _connect(path: Path) -> sqlite3.Connection | None:
    """The database, read-only (immutable when its folder cannot take SQLite's shared-memory
    file); None when there is none or it is no database. Links are followed; what is not a
    regular file is never handed to SQLite, whose open would wait on a FIFO."""
    try:
        if not path.is_file():
            return None
    except OSError:  # its folder may not be looked into (another user's): ``_refused`` says so
        return None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            connection = sqlite3.connect(f"file:{path}?{flags}", uri=True)
            connection.execute("select 1 from session limit 1").fetchall()
            return connection
        except sqlite3.Error:
            continue
    return None


def _refused(path: Path) -> str | None:
    """Why the user may not open ``path`` (``sudo opencode`` made it another user's); None when
    they may, or it is not there (a FIFO or a loop of links: no database, as before)."""
    try:
        store.open_regular(path).close()
    except PermissionError as exc:
        return exc.strerror or "Permission denied"
    except OSError:
        return None
    return None


# rows and JSON objects to the common shape ----------------------------------------------------


def _session(row: tuple[Any, ...], path: Path) -> NativeSession:
    ident, parent, directory, title, version, created, updated, tokens, agent = row
    session = NativeSession(OPENCODE, str(ident), path, parent_id=parent or None)
    session.project_path = string(directory)
    session.title = catalog.title(title) if isinstance(title, str) else None
    session.version = string(version)
    session.started_at, session.ended_at = millis(created), millis(updated)
    session.tokens = integer(tokens) or None
    session.agent_type = string(agent) if parent else None
    return session


class _Reading:
    """Messages and their parts, in order, turned into turns (each message's once its parts are
    read) and into a transcript's compactions and usage."""

    def __init__(self, session: NativeSession, options: ReadOptions):
        self.session = session
        self.options = options
        self.transcript = Transcript(session.id, path=None, cli=OPENCODE)
        self.transcript.stats = session.stats
        self.pending: list[Turn] = []  # the turns of the message being read
        self.turn: Turn | None = None
        self.compaction: Compaction | None = None  # the one the current message summarises
        self.asked: list[Compaction] = []  # compactions asked for, their summary not yet read

    def message(self, message: dict[str, Any]) -> None:
        self.session.stats.records += 1
        time = _object(message.get("time"))
        timestamp = millis(time.get("created"))
        role = message.get("role")
        self.compaction = None
        if role == "user":
            self.turn = Turn("user", PROMPT, timestamp)
        elif role == "assistant":
            self.turn = Turn("agent", RESPONSE, timestamp, message_id=str(message.get("id") or ""))
            tokens = message.get("tokens")
            total = integer(tokens.get("total")) if isinstance(tokens, dict) else None
            if total:
                self.transcript.last_usage_tokens = total
        else:
            self.session.stats.unknown_type(f"message:{role}")
            self.turn = None
            return
        if message.get("summary") and role == "assistant":
            self.compaction = self._summarised(timestamp)
            self.turn.kind, self.turn.role = COMPACTION, "user"
        self.pending.append(self.turn)
        error = message.get("error")
        if isinstance(error, dict) and "Abort" in str(error.get("name")):
            self.pending.append(
                Turn("user", INTERRUPTION, timestamp, "[Request interrupted by user]")
            )

    def _summarised(self, timestamp: str | None) -> Compaction:
        """The compaction a summary message written at ``timestamp`` completes: the oldest one
        asked for and not yet summarised, else one of its own."""
        if self.asked:
            compaction = self.asked.pop(0)
            compaction.timestamp = timestamp
            return compaction
        compaction = Compaction(timestamp)
        self.transcript.compactions.append(compaction)
        return compaction

    def part(self, part: dict[str, Any]) -> None:
        """A part of the message read last."""
        kind, turn = part.get("type"), self.turn
        if not isinstance(kind, str) or kind not in _PART_TYPES:
            self.session.stats.unknown_type(f"part:{kind}")
            return
        if turn is None:
            return
        if kind == "text" and isinstance(part.get("text"), str) and not part.get("synthetic"):
            add_text(turn, part["text"])
            if self.compaction is not None:
                self.compaction.summary = turn.text
        elif kind == "reasoning" and self.options.thinking and isinstance(part.get("text"), str):
            turn.thinking.append(part["text"])
        elif kind == "tool":
            self._tool(turn, part)
        elif kind == "compaction":
            self._compaction_asked(turn, _auto(part))

    def _compaction_asked(self, turn: Turn, trigger: str | None) -> None:
        """The request for a compaction (a part of the user message that asks for it): the
        summary message that follows it, if one does, is that compaction's summary."""
        compaction = Compaction(turn.timestamp, trigger=trigger)
        self.transcript.compactions.append(compaction)
        self.asked.append(compaction)

    def _tool(self, turn: Turn, part: dict[str, Any]) -> None:
        state = _object(part.get("state"))
        name = part.get("tool")
        spawns = isinstance(name, str) and name in SPAWN_TOOLS
        call = tool_call(part.get("callID"), name, state.get("input"), self.options.tools, spawns)
        status = state.get("status")
        call.answered = status in ("completed", "error")
        call.is_error = status == "error"
        output = state.get("output") if status == "completed" else state.get("error")
        if self.options.tools and call.answered:
            call.result = result_text(output)
        if spawns:
            metadata = _object(state.get("metadata"))
            child = metadata.get("sessionId")
            found = _TASK_ID.search(output) if isinstance(output, str) else None
            child = child if isinstance(child, str) else (found.group(1) if found else None)
            if child:
                call.agent_id, call.linked_by = child, "task state"
            call.outcome["status"] = status if isinstance(status, str) else "?"
        turn.tool_calls.append(call)

    def done(self) -> list[Turn]:
        """The turns of the message read last that say something (or mark something)."""
        found, self.pending = self.pending, []
        return [
            t
            for t in found
            if (t.text.strip() or t.tool_calls or t.kind != RESPONSE)
            and (t.kind != PROMPT or t.text.strip())
        ]

    def finish(self) -> None:
        """Once the turns are read (``turns``): the transcript's and the session's facts."""
        session, transcript = self.session, self.transcript
        transcript.session_id = session.parent_id or session.id
        transcript.agent_id = session.id if session.parent_id else None
        transcript.project_path, transcript.version = session.project_path, session.version
        transcript.started_at, transcript.ended_at = session.started_at, session.ended_at
        session.turns = transcript.turn_count
        session.compactions = len(transcript.compactions)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _auto(part: dict[str, Any]) -> str | None:
    auto = part.get("auto")
    return None if auto is None else ("auto" if auto else "manual")


# the database ---------------------------------------------------------------------------------


_DECODE = line_decoder()
# a part the reading passes over stays in the database (SQLite reads its type); one that is no
# valid JSON comes out, to be counted
_MESSAGES_AND_PARTS = (
    "select m.id, m.data, p.data from message m left join part p on p.message_id = m.id "
    "and case when json_valid(p.data) then coalesce(p.data ->> '$.type' not in ({silent}), 1) "
    "else 1 end "
    "where m.session_id = ? order by m.time_created, m.id, p.id"
)


def _query(options: ReadOptions) -> str:
    silent = _SILENT_PARTS + (() if options.thinking else ("reasoning",))
    return _MESSAGES_AND_PARTS.format(silent=", ".join(f"'{kind}'" for kind in silent))


def _loads(text: Any, stats: ReadStats) -> dict[str, Any] | None:
    try:
        value = _DECODE(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        stats.malformed += 1
        return None
    return value


def _database_sessions(folder: Path) -> list[NativeSession]:
    """The database's sessions; one that cannot be opened (another user's: ``sudo opencode``
    made it) is listed as itself, saying why, rather than left out without a word."""
    path = folder / "opencode.db"
    connection = _connect(path)
    if connection is None:
        why = _refused(path)
        if why is None:
            return []
        unread = NativeSession(OPENCODE, path.name, path)
        unread.stats.unreadable = why
        return [unread]
    try:
        rows = connection.execute(f"select {_SESSION_COLUMNS} from session").fetchall()
    except sqlite3.Error:  # a column missing, or the table damaged
        return []
    finally:
        connection.close()
    return [_session(row, path) for row in rows]


def _database_turns(reading: _Reading) -> Iterator[Turn]:
    """The session's messages in order, each followed by its parts in order
    (one cursor over the two tables' indexes, no sorting, one row at a time), as turns. A
    database that cannot be read to the end (no such table, locked, damaged) ends them there,
    said in the session's ``stats.unreadable``."""
    session = reading.session
    connection = _connect(session.path)
    if connection is None:
        session.stats.unreadable = _refused(session.path) or "not an opencode database"
        return
    try:
        current = None
        for message_id, message_data, part_data in connection.execute(
            _query(reading.options), (session.id,)
        ):
            if message_id != current:
                current = message_id
                yield from reading.done()
                message = _loads(message_data, session.stats)
                if message is not None:
                    message.setdefault("id", message_id)
                    reading.message(message)
                else:
                    reading.turn = reading.compaction = None
            part = _loads(part_data, session.stats) if part_data is not None else None
            if part is not None:
                reading.part(part)
        yield from reading.done()
    except sqlite3.Error as exc:
        session.stats.unreadable = f"the opencode database could not be read to the end: {exc}"
    finally:
        connection.close()


# the older JSON files -------------------------------------------------------------------------


def _json_objects(folder: Path, stats: ReadStats) -> Iterator[dict[str, Any]]:
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.json")):
        data = json_file(path, stats)
        if isinstance(data, dict):
            yield data


def _file_sessions(folder: Path) -> list[NativeSession]:
    found: list[NativeSession] = []
    base = folder / "storage" / "session"
    if not base.is_dir():
        return found
    for project in sorted(base.iterdir()):
        for info in _json_objects(project, ReadStats()):
            time = _object(info.get("time"))
            row = (
                info.get("id"),
                info.get("parentID"),
                info.get("directory"),
                info.get("title"),
                info.get("version"),
                time.get("created"),
                time.get("updated"),
                None,
                None,
            )
            if isinstance(row[0], str):
                found.append(_session(row, folder / "storage"))
    return found


def _file_turns(reading: _Reading) -> Iterator[Turn]:
    storage, session = reading.session.path, reading.session
    messages = list(_json_objects(storage / "message" / session.id, session.stats))
    messages.sort(key=lambda m: (_created(m), str(m.get("id"))))
    for message in messages:
        reading.message(message)
        parts = list(_json_objects(storage / "part" / str(message.get("id")), session.stats))
        for part in sorted(parts, key=lambda p: str(p.get("id"))):
            reading.part(part)
        yield from reading.done()


def _created(message: dict[str, Any]) -> int:
    time = message.get("time")
    created = time.get("created") if isinstance(time, dict) else None
    return integer(created) or 0


# the reader -----------------------------------------------------------------------------------


def listed(folder: Path) -> list[NativeSession]:
    """Every session of ``folder`` as its row (or info file) says, without its messages."""
    found = _database_sessions(folder)
    known = {s.id for s in found}
    return found + [s for s in _file_sessions(folder) if s.id not in known]


def row_counts(folder: Path) -> dict[str, str]:
    """Session id -> how many message and part rows it has in the database (read from the
    tables' indexes): with the session's update time, what tells that it changed."""
    connection = _connect(folder / "opencode.db")
    if connection is None:
        return {}
    counts: dict[str, list[int]] = {}
    try:
        for table, at in (("message", 0), ("part", 1)):
            query = f"select session_id, count(*) from {table} group by session_id"
            for session_id, count in connection.execute(query):
                counts.setdefault(str(session_id), [0, 0])[at] = count
    except sqlite3.Error:  # a table missing, or the database damaged: no counts
        return {}
    finally:
        connection.close()
    return {ident: f"{messages}m{parts}p" for ident, (messages, parts) in counts.items()}


def _turns(reading: _Reading) -> Iterator[Turn]:
    if reading.session.path.name == "opencode.db":
        return _database_turns(reading)
    return _file_turns(reading)


def _read_again(session: NativeSession, options: ReadOptions) -> Iterator[Turn]:
    """The turns of a session counted already, read again; an error when the database can no
    longer be read as far as it was (locked, damaged or replaced since): never a conversation
    cut short without a word."""
    again = dataclasses.replace(session, stats=ReadStats())
    yield from _turns(_Reading(again, options))
    if again.stats.unreadable and not session.stats.unreadable:
        raise PurlinError(f"{session.path}: {again.stats.unreadable}")


def read(session: NativeSession, options: ReadOptions | None = None) -> Conversation:
    """The conversation of a listed session: its turns in a list or, read deferred, counted
    and read again on each pass (``Turns``)."""
    session.stats = ReadStats()
    options = options or ReadOptions()
    # counting the turns needs neither their thinking nor their tools' inputs and results
    counted = dataclasses.replace(options, tools=False, thinking=False)
    reading = _Reading(session, counted if options.deferred else options)
    transcript = reading.transcript
    if options.deferred:
        transcript.facts = Facts.of(_turns(reading))
        transcript.turns = Turns(lambda: _read_again(session, options))
    else:
        transcript.turns = list(_turns(reading))
    reading.finish()
    try:
        session.size = session.path.stat().st_size if session.path.is_file() else 0
    except OSError:
        session.size = 0
    return Conversation(session, transcript)
