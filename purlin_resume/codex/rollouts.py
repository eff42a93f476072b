"""Codex CLI's sessions: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``.

Checked against Codex CLI 0.171.0 (real rollouts in ``tests/fixtures/codex``). A rollout is one
thread: a ``session_meta`` record (id, cwd, git branch, CLI version, and for a child thread its
``parent_thread_id``), then ``response_item`` records (messages, function calls and their
outputs, reasoning), ``compacted`` records (a compaction's summary), ``turn_context`` and
``event_msg`` records (token counts, aborted turns), each as ``{timestamp, type, payload}``.
Rollouts of before mid-2025 have no envelope: the first line is the session meta itself and
every other line a response item (or ``{"record_type": "state"}``). Cold rollouts are kept
zstd-compressed as ``rollout-*.jsonl.zst`` (the plain file wins when both are there);
``session_index.jsonl`` holds the names given to threads. ``codex exec`` sessions are rollouts
like any other (``originator`` says ``codex_exec``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from purlin_resume.agentcli.names import CODEX
from purlin_resume.agentcli.shape import (
    Conversation,
    NativeSession,
    add_text,
    agent_turn,
    answer_turn,
    json_lines,
    result_text,
    tool_call,
)
from purlin_resume.claude import layout
from purlin_resume.claude.catalog import title
from purlin_resume.claude.records import ReadStats, integer, string, utc
from purlin_resume.claude.transcript import (
    COMPACTION,
    INTERRUPTION,
    NOTIFICATION,
    PROMPT,
    Compaction,
    ReadOptions,
    ToolCall,
    Transcript,
    Turn,
)
from purlin_resume.core import store

_ROLLOUT = re.compile(
    r"^rollout-.*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(\.zst)?$"
)
_RECORD_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
    | {"world_state", "token_usage_record"}
)
_ITEM_TYPES = frozenset(
    {"message", "function_call", "function_call_output", "custom_tool_call"}
    | {"custom_tool_call_output", "local_shell_call", "reasoning", "web_search_call"}
    | {"tool_search_call", "tool_search_output", "compaction", "image_generation_call"}
)
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<skills_instructions>",
    "<permissions instructions>",
    "# AGENTS.md instructions",
    "<user_shell_command>",
)
SPAWN_TOOLS = frozenset({"spawn_agent"})
# Records nothing here reads (settings, world state, per-request usage, developer instructions,
# item and task events that repeat the response items): counted without being parsed.
_PASSED_OVER = (
    b'"type":"world_state"',
    b'"type":"turn_context"',
    b'"type":"token_usage_record"',
    b'"role":"developer"',
    b'"payload":{"type":"item_completed"',
    b'"payload":{"type":"thread_settings_applied"',
    b'"payload":{"type":"task_started"',
    b'"payload":{"type":"task_complete"',
)
_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>")
_AGENT_ID = re.compile(r'"agent_id"\s*:\s*"([0-9a-f-]{36})"')


def root(explicit: Path | None = None) -> Path:
    """``explicit``, else ``$CODEX_HOME``, else ``~/.codex``."""
    if explicit is not None:
        return Path(explicit)
    home = os.environ.get("CODEX_HOME")
    return Path(home) if home else Path.home() / ".codex"


def rollout_files(folder: Path, refused: list[Path] | None = None) -> Iterator[tuple[str, Path]]:
    """(thread id, file) of every rollout under ``sessions/`` and ``archived_sessions/``; a
    compressed file only when no plain one sits beside it. Links are followed (``store.walk``);
    a folder in them this user may not list is passed over, and goes to ``refused``."""
    for top in ("sessions", "archived_sessions"):
        for current, folders, files in store.walk(folder / top):
            layout.leave_unlisted(current, folders, refused)
            names = set(files)
            for name in files:
                match = _ROLLOUT.match(name)
                if match is None or (match.group(2) and name[:-4] in names):
                    continue
                yield match.group(1), current / name


def thread_names(folder: Path) -> dict[str, str]:
    """The names given to threads (``session_index.jsonl``: the newest for each id)."""
    names: dict[str, str] = {}
    stats = ReadStats()
    for record in json_lines(folder / "session_index.jsonl", stats):
        name, thread = title(string(record.get("thread_name"))), record.get("id")
        if name and isinstance(thread, str):
            names[thread] = name
    return names


class _Reading:
    """One rollout's records turned into a session line and a transcript, record by record."""

    def __init__(self, thread: str, path: Path, options: ReadOptions):
        self.session = NativeSession(CODEX, thread, path)
        self.transcript = Transcript(thread, path=None)
        self.transcript.stats = self.session.stats
        self.turns: list[Turn] = []  # the transcript's, as they are read
        self.transcript.turns = self.turns
        self.options = options
        self.calls: dict[str, ToolCall] = {}
        self.envelope: bool | None = None
        self.answer: tuple[Turn, str] | None = None  # the newest answer, and the turn it is in

    def add(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        kind = kind if isinstance(kind, str | None) else str(kind)
        if self.envelope is None:
            self.envelope = "payload" in record or kind in _RECORD_TYPES
            if not self.envelope and "id" in record and "timestamp" in record and kind is None:
                self._meta(record, record.get("timestamp"))
                return
        if not self.envelope:  # the older format: bare response items
            if record.get("record_type") == "state":
                return
            self._item(record, None)
            return
        timestamp = utc(record.get("timestamp"))
        self.session.seen(timestamp)
        payload = record.get("payload")
        if not isinstance(payload, dict) or kind not in _RECORD_TYPES:
            self.session.stats.unknown_type(str(kind))
            return
        if kind == "session_meta":
            self._meta(payload, timestamp)
        elif kind == "response_item":
            self._item(payload, timestamp)
        elif kind == "compacted":
            self._compacted(payload, timestamp)
        elif kind == "event_msg":
            self._event(payload, timestamp)

    def _meta(self, meta: dict[str, Any], timestamp: str | None) -> None:
        session = self.session
        if session.version is not None:
            return  # a forked thread repeats its source's meta after its own
        session.version = string(meta.get("cli_version")) or "?"
        session.project_path = string(meta.get("cwd"))
        git = meta.get("git")
        if isinstance(git, dict):
            session.git_branch = string(git.get("branch"))
        source = meta.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        parent = meta.get("parent_thread_id") or (
            spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
        )
        session.parent_id = string(parent)
        session.agent_type = string(meta.get("agent_role")) or string(meta.get("agent_nickname"))
        session.seen(utc(meta.get("timestamp")) or timestamp)
        transcript = self.transcript
        transcript.session_id = session.parent_id or session.id
        transcript.agent_id = session.id if session.parent_id else None
        transcript.project_path = session.project_path
        transcript.git_branch = session.git_branch
        transcript.version = session.version

    def _item(self, item: dict[str, Any], timestamp: str | None) -> None:
        kind = item.get("type")
        if not isinstance(kind, str) or kind not in _ITEM_TYPES:
            self.session.stats.unknown_type(f"response_item:{kind}")
            return
        if kind == "message":
            self._message(item, timestamp)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(item, timestamp)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(item)
        elif kind == "reasoning" and self.options.thinking:
            summary = item.get("summary")
            for part in summary if isinstance(summary, list) else []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    agent_turn(self.turns, timestamp).thinking.append(part["text"])

    def _message(self, item: dict[str, Any], timestamp: str | None) -> None:
        text = _content_text(item.get("content"))
        role = item.get("role")
        if role == "assistant":
            turn = answer_turn(self.turns, timestamp)
            add_text(turn, text)
            self.answer = (turn, text)
            return
        if role != "user" or not text.strip():
            return  # developer and system instructions
        stripped = text.lstrip()
        if stripped.startswith(_CONTEXT_PREFIXES):
            found = _CWD.search(text) if stripped.startswith("<environment_context>") else None
            if found and self.session.project_path is None:  # the older format's folder
                self.session.project_path = self.transcript.project_path = found.group(1)
            return
        if stripped.startswith("<turn_aborted>"):
            self._aborted(timestamp)
            return
        kind = NOTIFICATION if stripped.startswith("<subagent_notification>") else PROMPT
        self.turns.append(Turn("user", kind, timestamp, text))

    def _aborted(self, timestamp: str | None) -> None:
        turns = self.turns
        if turns and turns[-1].kind == INTERRUPTION:
            return
        turns.append(Turn("user", INTERRUPTION, timestamp, "[Request interrupted by user]"))

    def _call(self, item: dict[str, Any], timestamp: str | None) -> None:
        name = string(item.get("name")) or (
            "shell" if item.get("type") == "local_shell_call" else "?"
        )
        raw = item.get("arguments", item.get("input", item.get("action")))
        data = raw
        if isinstance(raw, str):
            try:
                data = json.loads(raw)
            except (ValueError, RecursionError):
                data = {"input": raw}
        call = tool_call(
            item.get("call_id") or item.get("id"),
            name,
            data,
            self.options.tools,
            name in SPAWN_TOOLS,
        )
        turn = agent_turn(self.turns, timestamp)
        turn.tool_calls.append(call)
        if call.id:
            self.calls[call.id] = call
        if item.get("type") == "local_shell_call" and item.get("status") == "completed":
            call.answered = True

    def _output(self, item: dict[str, Any]) -> None:
        call = self.calls.get(str(item.get("call_id") or ""))
        if call is None:
            return
        output = item.get("output")
        if isinstance(output, dict):  # older records: {"content": ..., "success": ...}
            call.is_error = output.get("success") is False
            output = output.get("content", output)
        text = result_text(output)
        call.answered = True
        if self.options.tools:
            call.result = text
        if call.name in SPAWN_TOOLS:
            found = _AGENT_ID.search(text)
            if found:
                call.agent_id, call.linked_by = found.group(1), "spawn_agent output"
            call.outcome["status"] = "failed" if call.is_error else "spawned"

    def _compacted(self, payload: dict[str, Any], timestamp: str | None) -> None:
        """A compaction: its message is Codex's preamble then the summary the model just wrote
        (recorded before it as an answer), which becomes the compaction's summary alone."""
        summary = string(payload.get("message")) or ""
        turns = self.turns
        if self.answer and self.answer[1].strip() and summary.endswith(self.answer[1]):
            turn, summary = self.answer
            turn.text = turn.text[: len(turn.text) - len(summary)].rstrip()
            if not turn.text and not turn.tool_calls and turns and turns[-1] is turn:
                turns.pop()
        self.answer = None
        self.transcript.compactions.append(Compaction(timestamp, summary=summary))
        turns.append(Turn("user", COMPACTION, timestamp, summary))
        self.session.compactions += 1

    def _event(self, payload: dict[str, Any], timestamp: str | None) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            info = payload.get("info")
            total = info.get("total_token_usage") if isinstance(info, dict) else None
            tokens = integer(total.get("total_tokens")) if isinstance(total, dict) else None
            if tokens is not None:
                self.session.tokens = self.transcript.last_usage_tokens = tokens
        elif kind == "turn_aborted":
            self._aborted(timestamp)
        elif kind == "thread_name_updated":
            self.session.title = title(string(payload.get("thread_name"))) or self.session.title


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text"):
            text = part.get("text")
            if isinstance(text, str):
                parts.append(text)
        elif isinstance(part, dict) and part.get("type") in ("input_image", "image"):
            parts.append("[image]")
    return "\n".join(parts)


def read(thread: str, path: Path, options: ReadOptions | None = None) -> Conversation:
    """One rollout, read in one streaming pass."""
    reading = _Reading(thread, path, options or ReadOptions())
    for record in json_lines(path, reading.session.stats, _PASSED_OVER):
        reading.add(record)
    session, transcript = reading.session, reading.transcript
    try:
        session.size = path.stat().st_size
    except OSError:
        session.exists = False
    session.title = session.title or title(transcript.first_prompt)
    transcript.started_at, transcript.ended_at = session.started_at, session.ended_at
    transcript.cli = CODEX
    session.turns = transcript.turn_count
    return Conversation(session, transcript)


def head(thread: str, path: Path, folder: Path | None = None) -> NativeSession:
    """A thread as its first records tell it (id, parent, folder, first prompt as its title,
    or the name ``folder``'s session index gives it): its meta, and on the older format the
    environment context, without reading the conversation through."""
    reading = _Reading(thread, path, ReadOptions())
    session = reading.session
    for record in json_lines(path, session.stats, _PASSED_OVER):
        reading.add(record)
        if reading.turns:
            break
    prompt = reading.transcript.first_prompt
    session.title = thread_names(folder).get(thread) if folder is not None else None
    session.title = session.title or title(prompt)
    return session


def threads(folder: Path) -> list[NativeSession]:
    """Every thread under ``folder`` known by its file name and first record alone (id, parent):
    what finding one by id needs, without reading every rollout through."""
    found = []
    for thread, path in rollout_files(folder):
        reading = _Reading(thread, path, ReadOptions())
        for record in json_lines(path, reading.session.stats):
            reading.add(record)
            break
        found.append(reading.session)
    return found
