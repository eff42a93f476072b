"""Gemini CLI's sessions: ``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``.

Checked against Gemini CLI 0.61.0 (real files in ``tests/fixtures/gemini``). A session file is
append-only JSONL: a metadata line (``sessionId``, ``projectHash``, ``startTime``, ``kind``),
then message records (``id``, ``timestamp``, ``type`` user/gemini/info/error/warning,
``content``; a gemini message holds ``toolCalls`` with their results, ``thoughts`` and
``tokens``). A message written again under the same id replaces the earlier one; ``{"$set":
{...}}`` updates the metadata (its ``messages``, when present, start the list over) and
``{"$rewindTo": id}`` drops that message and every later one. A compression (``/compress`` or an
automatic one) starts the list over with the session's context, the summary as a user message
and the CLI's fixed answer to it, then the messages kept: the turns before it stay, followed by a compaction. Before the JSONL form, a session
was one JSON document ``session-*.json`` holding the same fields and a ``messages`` list; it is
read whole (those files were rewritten whole by the CLI, and stay small). A subagent's file sits
under its parent's session id: ``chats/<parent session id>/<subagent session id>.jsonl``
(chatRecordingService.ts), each one a chat of its own. The project folder is read from
``tmp/<project>/.project_root`` (or ``projects.json``).

A resume in a later minute leaves a second file for the same session (``session-<later
time>-<same id8>``): the CLI starts a new file as it starts (the metadata and the session's
context only), then goes on writing the resumed one. The CLI treats every ``session-*-<id8>``
file of ``chats`` as one session (it deletes them together, and resumes the last updated one);
``groups`` says which files make up each session, and ``read`` reads the files it is given.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from purlin_resume.agentcli.names import GEMINI
from purlin_resume.agentcli.shape import (
    Conversation,
    NativeSession,
    add_text,
    json_file,
    json_lines,
    result_text,
    tool_call,
)
from purlin_resume.claude import layout
from purlin_resume.claude.catalog import title
from purlin_resume.claude.records import ReadStats, integer, string, utc
from purlin_resume.claude.transcript import (
    COMPACTION,
    PROMPT,
    RESPONSE,
    Compaction,
    ReadOptions,
    ToolCall,
    Transcript,
    Turn,
)
from purlin_resume.core import cache_home, store

_MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
_CONTEXT_PREFIXES = ("<session_context>", "<hook_context>")  # hooks' context, as it wraps it
SPAWN_TOOLS = frozenset({"invoke_agent"})
# what the CLI has the model say after a compression's summary (chatCompressionService.ts)
COMPRESSION_ACK = "Got it. Thanks for the additional context!"
_SUFFIXES = (".jsonl", ".json")


def root(explicit: Path | None = None) -> Path:
    """``explicit``, else ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``."""
    if explicit is not None:
        return Path(explicit)
    home = os.environ.get("GEMINI_CLI_HOME")
    return (Path(home) if home else Path.home()) / ".gemini"


def _project_roots(folder: Path) -> dict[str, str]:
    """Project folder name -> the folder it stands for (``projects.json``)."""
    stats = ReadStats()
    data = json_file(folder / "projects.json", stats)
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {name: path for path, name in projects.items() if isinstance(name, str)}


def _project_path(project: Path, roots: dict[str, str]) -> str | None:
    try:
        with store.open_regular(project / ".project_root") as marker:
            text = marker.read(4096).decode("utf-8", errors="replace").strip()
        if text:
            return text
    except OSError:
        pass
    return roots.get(project.name)


def groups(folder: Path, parent: str | None = None) -> list[list[Path]]:
    """The sessions of one folder of chats, each as its files oldest first: what makes up one
    session, for the listing and for a read alike. In ``chats`` (``parent`` None) the regular
    ``session-*-<id8>`` files of one id8 are one session; in a subagent's folder (``chats/<parent
    id>``, ``parent`` its name) every ``.jsonl`` or ``.json`` file is one. A file named so that
    is no regular file (a FIFO, a link to one, a link leading nowhere) stands alone: never
    merged, listed to be reported unreadable, never opened; a folder is no chat. A legacy
    ``.json`` file is left out when the CLI migrated it to a ``.jsonl`` beside it."""
    try:
        with os.scandir(folder) as scan:
            entries = [
                e
                for e in scan
                if e.name.endswith(_SUFFIXES)
                and (parent is not None or e.name.startswith("session-"))
                and not store.is_folder(e)
            ]
    except OSError:
        return []
    names = {e.name for e in entries}
    found: dict[tuple[bool, str], list[Path]] = {}
    for entry in sorted(entries, key=lambda e: e.name):
        if entry.name + "l" in names:  # a legacy file the CLI migrated
            continue
        path = folder / entry.name
        merged = parent is None and store.is_file(entry)
        found.setdefault((merged, _short_id(path) if merged else entry.name), []).append(path)
    return list(found.values())


def parts(path: Path, parent: str | None = None) -> list[Path]:
    """The files of the session ``path`` is one of (``groups``; ``parent``: the subagent's
    parent session id), oldest first; ``[path]`` when its folder holds no such session."""
    group = (g for g in groups(path.parent, parent) if {path, path.with_suffix(".jsonl")} & {*g})
    return next(group, [path])


def _short_id(path: Path) -> str:
    """The session id's first 8 characters, as a ``session-<time>-<id8>`` name ends."""
    return path.stem[path.stem.rfind("-") + 1 :]


def signature(files: list[Path]) -> str:
    """The signatures of all a session's files: what tells a cache that it changed."""
    return "+".join(cache_home.signature(p) or "gone" for p in files)


class _Reading:
    """A chat file's records turned into a session line and a transcript, record by record."""

    def __init__(self, path: Path, parent: str | None, options: ReadOptions):
        self.session = NativeSession(GEMINI, path.stem, path, parent_id=parent)
        self.options = options
        self.messages: dict[str, list[Turn]] = {}  # message id -> its turns, in order
        self.calls: dict[str, ToolCall] = {}
        self.tokens: dict[str, int] = {}
        self.before: list[Turn] = []  # the turns up to the newest compression, and its mark
        self.compactions: list[Compaction] = []
        self.summaries: set[str] = set()  # ids of the compressions' summary and answer

    def add(self, record: dict[str, Any]) -> None:
        if "$rewindTo" in record:
            self._rewind(record["$rewindTo"])
        elif "$set" in record:
            update = record["$set"]
            if isinstance(update, dict):
                self._metadata(update)
            else:
                self.session.stats.unknown_type("$set")
        elif "type" in record and "id" in record:
            self._message(record)
        elif "sessionId" in record:
            self._metadata(record)
        else:
            self.session.stats.unknown_type(str(next(iter(record), "{}")))

    def _metadata(self, data: dict[str, Any]) -> None:
        session = self.session
        if isinstance(data.get("sessionId"), str) and data["sessionId"]:
            session.id = data["sessionId"]
        session.seen(utc(data.get("startTime")))
        session.seen(utc(data.get("lastUpdated")))
        session.title = title(string(data.get("summary"))) or session.title
        if data.get("kind") == "subagent":
            session.agent_type = session.agent_type or "subagent"
        messages = data.get("messages")
        if isinstance(messages, list):
            messages = [m for m in messages if isinstance(m, dict) and "id" in m]
            at = self._compressed(messages)
            if at is not None:
                self._compression(messages, at)
            self.messages.clear()
            for message in messages:
                if str(message["id"]) not in self.summaries:
                    self._message(message)

    def _compressed(self, messages: list[dict[str, Any]]) -> int | None:
        """Where a new list of messages holds a compression's summary (a user message, after
        the session's context) followed by the CLI's fixed answer to it; None: it holds none."""
        answer = next((i for i, m in enumerate(messages) if m.get("type") != "user"), 0)
        if (
            answer < 1
            or messages[answer].get("type") != "gemini"
            or _parts_text(messages[answer].get("content")).strip() != COMPRESSION_ACK
            or str(messages[answer - 1]["id"]) in self.summaries
        ):
            return None
        return answer - 1

    def _compression(self, messages: list[dict[str, Any]], at: int) -> None:
        """The turns so far kept before a compaction mark (those the compression kept move
        after it, as the new list has them)."""
        kept = {str(m["id"]) for m in messages[at + 2 :]}
        self.before += [t for key, turns in self.messages.items() if key not in kept for t in turns]
        summary = _parts_text(messages[at].get("content"))
        timestamp = utc(messages[at].get("timestamp"))
        self.compactions.append(Compaction(timestamp, summary=summary))
        self.before.append(Turn("user", COMPACTION, timestamp, summary))
        self.summaries.update(str(m["id"]) for m in messages[at : at + 2])

    def _rewind(self, message_id: Any) -> None:
        message_id = str(message_id)  # as the messages are kept (``_message``)
        if message_id not in self.messages:
            self.messages.clear()
            return
        keys = list(self.messages)
        for key in keys[keys.index(message_id) :]:
            del self.messages[key]

    def _message(self, message: dict[str, Any]) -> None:
        kind, key = message.get("type"), str(message.get("id"))
        timestamp = utc(message.get("timestamp"))
        self.session.seen(timestamp)
        if not isinstance(kind, str) or kind not in _MESSAGE_TYPES:
            self.session.stats.unknown_type(f"message:{kind}")
            return
        if kind == "user":
            turns = self._user(message, timestamp)
            if not turns and key in self.messages:
                return  # tool results under the id of the call's message (a resume's rewrite)
        elif kind == "gemini":
            turns = self._gemini(message, key, timestamp)
        else:
            turns = []
        self.messages.pop(key, None)  # written again: the newer one counts, in its new place
        self.messages[key] = turns

    def _user(self, message: dict[str, Any], timestamp: str | None) -> list[Turn]:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(response, dict):
                self._answer(response)
        text = _parts_text(content)
        if not text.strip() or text.lstrip().startswith(_CONTEXT_PREFIXES):
            return []
        return [Turn("user", PROMPT, timestamp, text)]

    def _gemini(self, message: dict[str, Any], key: str, timestamp: str | None) -> list[Turn]:
        turn = Turn("agent", RESPONSE, timestamp, message_id=key)
        add_text(turn, _parts_text(message.get("content")))
        thoughts = message.get("thoughts")
        if self.options.thinking and isinstance(thoughts, list):
            for thought in thoughts:
                if isinstance(thought, dict):
                    parts = [thought.get("subject"), thought.get("description")]
                    text = "\n".join(p for p in parts if isinstance(p, str) and p)
                    if text:
                        turn.thinking.append(text)
        calls = message.get("toolCalls")
        if not isinstance(calls, list):  # rewritten on a resume: the calls are in the content
            calls = [_call_record(p) for p in _parts(message.get("content")) if "functionCall" in p]
        for record in calls:
            if isinstance(record, dict):
                turn.tool_calls.append(self._call(record))
        tokens = message.get("tokens")
        total = integer(tokens.get("total")) if isinstance(tokens, dict) else None
        if total is not None:
            self.tokens[key] = total
        return [turn]

    def _call(self, record: dict[str, Any]) -> ToolCall:
        name = string(record.get("name"))
        call = tool_call(
            record.get("id"), name, record.get("args"), self.options.tools, name in SPAWN_TOOLS
        )
        call.is_error = record.get("status") in ("error", "cancelled")
        if isinstance(record.get("agentId"), str):
            call.agent_id, call.linked_by = record["agentId"], "agentId"
        if name in SPAWN_TOOLS:
            call.outcome["status"] = (
                record.get("status") if isinstance(record.get("status"), str) else "?"
            )
        results = record.get("result")
        if isinstance(results, list) and results:
            call.answered = True
            if self.options.tools:
                call.result = "\n".join(_response_text(r) for r in results if isinstance(r, dict))
        if call.id:
            self.calls[call.id] = call
        return call

    def _answer(self, response: dict[str, Any]) -> None:
        call = self.calls.get(str(response.get("id") or ""))
        if call is not None and not call.answered:
            call.answered = True
            if self.options.tools:
                call.result = _response_text({"functionResponse": response})

    def transcript(self) -> Transcript:
        session = self.session
        transcript = Transcript(session.id, path=None, cli=GEMINI)
        transcript.stats = session.stats
        transcript.turns = self.before + [t for turns in self.messages.values() for t in turns]
        transcript.compactions = self.compactions
        transcript.session_id = session.parent_id or session.id
        transcript.agent_id = session.id if session.parent_id else None
        transcript.project_path = session.project_path
        transcript.started_at, transcript.ended_at = session.started_at, session.ended_at
        if self.tokens:
            session.tokens = sum(self.tokens[k] for k in self.messages if k in self.tokens)
            transcript.last_usage_tokens = session.tokens
        return transcript


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    parts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            parts.append(part)
        elif (
            isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
        ):
            parts.append(part["text"])
    return "\n".join(p for p in parts if p)


def _parts(content: Any) -> list[dict[str, Any]]:
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _call_record(part: dict[str, Any]) -> dict[str, Any]:
    """A ``functionCall`` part as the tool call record a gemini message holds."""
    call = part["functionCall"] if isinstance(part["functionCall"], dict) else {}
    return {"id": call.get("id"), "name": call.get("name"), "args": call.get("args")}


def _response_text(part: dict[str, Any]) -> str:
    response = part.get("functionResponse")
    body = response.get("response") if isinstance(response, dict) else part
    if isinstance(body, dict):
        for key in ("output", "error", "llmContent"):
            if key in body:
                return result_text(body[key])
    return result_text(body)


def _read_file(path: Path, parent: str | None, options: ReadOptions) -> Conversation:
    """One chat file (JSONL, or a legacy whole JSON document), read in one pass."""
    reading = _Reading(path, parent, options)
    stats = reading.session.stats
    if path.suffix == ".json":
        data = json_file(path, stats)
        if isinstance(data, dict):
            reading.add(data if "sessionId" in data else {"?": data})
        elif data is not None:
            stats.malformed += 1
    else:
        for record in json_lines(path, stats):
            reading.add(record)
    session = reading.session
    try:
        session.size = path.stat().st_size
    except OSError:
        session.exists = False
    transcript = reading.transcript()
    session.turns = transcript.turn_count
    session.compactions = len(transcript.compactions)
    session.title = session.title or title(transcript.first_prompt)
    return Conversation(session, transcript)


def read(
    files: list[Path],
    parent: str | None = None,
    project_path: str | None = None,
    options: ReadOptions | None = None,
) -> Conversation:
    """One session of its files (``groups``, oldest first), as the CLI resumes it: the last
    updated of those holding a conversation, the others' sizes, times and what reading them
    skipped added to it."""
    readings = [_read_file(path, parent, options or ReadOptions()) for path in files]
    held = [c for c in readings if c.session.turns] or readings
    chosen = max(held, key=lambda c: c.session.ended_at or "")
    session = chosen.session
    session.project_path = chosen.transcript.project_path = project_path
    for other in readings:
        if other is not chosen:
            session.seen(other.session.ended_at)
            session.size += other.session.size
            session.exists = session.exists and other.session.exists
            session.stats.add(other.session.stats)
    chosen.transcript.ended_at = session.ended_at
    return chosen


def sessions(
    folder: Path, refused: list[Path] | None = None
) -> Iterator[tuple[list[Path], str | None, str | None]]:
    """(files, parent session id or None, project path) of every session under ``folder``
    (``groups``: of each project's ``chats`` and of the subagents' folders in it), links
    followed (``store.walk``); a folder of these this user may not list is passed over, and
    goes to ``refused``."""
    roots = _project_roots(folder)
    base = folder / "tmp"
    for current, folders, _ in store.walk(base):
        depth = len(current.relative_to(base).parts)
        parent = current.name if depth >= 3 else None
        if depth == 1:  # a project's folder: its chats only
            folders[:] = [name for name in folders if name == "chats"]
        elif parent is not None:  # a session's folder of subagents: nothing deeper
            folders.clear()
        layout.leave_unlisted(current, folders, refused)
        if depth >= 2:  # the chats, then a folder of subagents per session
            project = _project_path(current.parents[depth - 2], roots)
            for files in groups(current, parent):
                yield files, parent, project


def heads(folder: Path) -> list[NativeSession]:
    """Every chat under ``folder`` known by its first record alone (id, parent, project): what
    finding one by id needs, without reading every chat through (a legacy ``.json`` document is
    read whole: its id is inside it)."""
    found = []
    for files, parent, project in sessions(folder):
        path = files[0]
        reading = _Reading(path, parent, ReadOptions())
        if path.suffix == ".jsonl":
            for record in json_lines(path, reading.session.stats):
                reading.add(record)
                break
        if reading.session.id == path.stem:  # no id up front: read it through
            found.append(read(files, parent, project).session)
        else:
            reading.session.project_path = project
            found.append(reading.session)
    return found
