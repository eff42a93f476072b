"""A conversation assembled from Claude Code records: ``Transcript``, ``Turn``, ``ToolCall``.

A turn is what one side said once: a user prompt (or slash command, or interruption), or one
assistant API message. Claude Code writes an assistant message as several records, one per
content block, sharing ``message.id``; they are joined back into one turn. Tool results are not
turns: they are attached to the tool call they answer. Compaction (a ``compact_boundary`` system
record, then a user record with ``isCompactSummary``) becomes a ``Compaction`` plus a marker turn
that holds the summary. Records are taken in file order, but for a manual `/compact`: Claude
Code writes it after the compaction it caused, and it is put back before it. A transcript's
counts, first prompt, final output and files come from ``Facts``, counted turn by turn, so that a
reader of a source it can read again (opencode's database) may hand its turns as ``Turns``, read
on each pass, and keep none.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.claude import records
from purlin_resume.claude.records import SUBAGENT_TOOLS, ReadStats, integer, string, utc

PROMPT, COMMAND, INTERRUPTION, NOTIFICATION, RESPONSE, COMPACTION = (
    "prompt",
    "command",
    "interruption",
    "notification",
    "response",
    "compaction",
)
_COMMAND_NAME = re.compile(r"(?s)<command-name>\s*(.*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"(?s)<command-args>\s*(.*?)\s*</command-args>")
_BASH_INPUT = re.compile(r"(?s)<bash-input>(.*?)</bash-input>")
_NOTIFICATION_SUMMARY = re.compile(r"(?s)<summary>(.*?)</summary>")
_NOTIFICATION_FIELD = re.compile(
    r"(?s)<(tool-use-id|status|subagent_tokens|tool_uses|duration_ms)>\s*(.*?)\s*</\1>"
)
_NOTIFIED = {
    "subagent_tokens": "totalTokens",
    "tool_uses": "totalToolUseCount",
    "duration_ms": "totalDurationMs",
}
_STATUS_WORD = re.compile(r"[a-z_]{1,40}")
_COUNT = re.compile(r"[0-9]{1,15}")
_AGENT_TRAILER = re.compile(r"agentId: ([A-Za-z0-9_-]+)")
_GIT_COMMIT = re.compile(r"(?m)^\[([^\s\]]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] ")
_OUTPUT_TAGS = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")
_OUTPUT_STARTS = tuple(f"<{tag}>" for tag in _OUTPUT_TAGS)
_OUTPUT = re.compile(rf"(?s)<({'|'.join(_OUTPUT_TAGS)})>(.*?)</\1>")
_SKIPPED_USER_TEXT = (*_OUTPUT_STARTS, "<local-command-caveat>")
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_SUMMARY_KEYS = ("command", "file_path", "notebook_path", "pattern", "url", "query", "path")


@dataclass(frozen=True)
class ReadOptions:
    """What to keep beyond text and one-line tool calls (both cost memory on big sessions)."""

    tools: bool = False  # full tool inputs and results
    thinking: bool = False
    inputs_of: frozenset[str] = frozenset()  # tools whose inputs are kept (e.g. TodoWrite)
    # With tools or thinking: keep only where each input, result and thought is in the file
    # (``Details`` reads them back one at a time), so a big session's tool output and thinking
    # never sit in memory together. opencode's reader keeps no turn at all: it counts them
    # (``Facts``) and reads them again from its database on each pass (``Turns``).
    deferred: bool = False
    # One-line summaries of tool calls; a hook that reads an agent for its files and its end
    # shows none (a long one is redacted before it is cut: that loads the scanner)
    summaries: bool = True


Place = tuple[int, int]  # (byte offset of a record's line, index of a block in its content)


@dataclass
class ToolCall:
    id: str
    name: str
    summary: str
    input: dict[str, Any] | None = None  # kept with ReadOptions.tools, and for subagent calls
    file_path: str | None = None
    result: str | None = None  # kept with ReadOptions.tools
    answered: bool = False
    is_error: bool = False
    outcome: dict[str, Any] = field(default_factory=dict)  # subagent calls: status, tokens...
    agent_id: str | None = None
    linked_by: str | None = None  # where agent_id came from
    input_at: Place | None = None  # a deferred reading's input, and result
    result_at: Place | None = None

    @property
    def spawns_agent(self) -> bool:
        return self.name in SUBAGENT_TOOLS


@dataclass
class Turn:
    role: str  # "user" or "agent"
    kind: str
    timestamp: str | None
    text: str = ""
    thinking: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    uuid: str | None = None
    message_id: str | None = None
    thinking_at: list[Place] = field(default_factory=list)  # a deferred reading's thinking
    output: str = ""  # what a command printed (a local slash command's, a ``!`` command's)

    @property
    def has_thinking(self) -> bool:
        return bool(self.thinking) or bool(self.thinking_at)

    @property
    def counts(self) -> bool:
        """A real turn: said something or called a tool (thinking alone does not count)."""
        return self.kind != COMPACTION and (bool(self.text.strip()) or bool(self.tool_calls))


@dataclass
class Compaction:
    timestamp: str | None
    trigger: str | None = None
    pre_tokens: int | None = None
    logical_parent_uuid: str | None = None
    summary: str | None = None
    agent_id: str | None = None  # the acompact-* run that wrote the summary, when known

    def to_dict(self) -> dict[str, Any]:
        return {
            "timestamp": self.timestamp,
            "trigger": self.trigger,
            "pre_tokens": self.pre_tokens,
            "run": self.agent_id,
            "has_summary": self.summary is not None,
        }


@dataclass
class Facts:
    """What the turns of a conversation add up to, counted one turn at a time (so that the
    turns themselves need not be kept)."""

    turns: int = 0
    tools: dict[str, int] = field(default_factory=dict)  # calls by tool name
    first_prompt: str | None = None
    final_output: str | None = None
    touched: dict[str, None] = field(default_factory=dict)  # files, in order
    modified: dict[str, None] = field(default_factory=dict)  # files edited without error

    def add(self, turn: Turn) -> None:
        if turn.counts:
            self.turns += 1
        if turn.text.strip():
            if self.first_prompt is None and turn.kind in (PROMPT, COMMAND):
                self.first_prompt = turn.text
            if turn.role == "agent":
                self.final_output = turn.text
        for call in turn.tool_calls:
            self.tools[call.name] = self.tools.get(call.name, 0) + 1
            if call.file_path:
                self.touched.setdefault(call.file_path, None)
                if call.name in EDIT_TOOLS and not call.is_error:
                    self.modified.setdefault(call.file_path, None)

    @classmethod
    def of(cls, turns: Iterable[Turn]) -> Facts:
        facts = cls()
        for turn in turns:
            facts.add(turn)
        return facts


class Turns:
    """The turns of a conversation read again from their source on each pass, one at a time,
    never all in memory (a deferred reading of opencode's database); what they add up to is
    the transcript's ``facts``. The walk that redacts a transcript leaves them as they are:
    whoever redacts it redacts them as they come."""

    def __init__(self, read: Callable[[], Iterator[Turn]]):
        self._read = read

    def __iter__(self) -> Iterator[Turn]:
        return self._read()


@dataclass
class Transcript:
    """One conversation: a session's main thread, or one subagent's."""

    id: str
    session_id: str | None = None
    agent_id: str | None = None
    path: Path | None = None
    project_path: str | None = None
    git_branch: str | None = None
    version: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    turns: list[Turn] | Turns = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)  # "branch sha" lines seen in git output
    last_usage_tokens: int | None = None
    stats: ReadStats = field(default_factory=ReadStats)
    cli: str = "claude"  # the agent CLI that wrote it
    facts: Facts | None = None  # turns read again on each pass (``Turns``): counted as read
    # what ``turns`` add up to, counted once: for that list at that length
    _counted: tuple[list[Turn], int, Facts] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def summed(self) -> Facts:
        """What the turns add up to: ``facts``, else counted once (again only when ``turns``
        is another list, or grew)."""
        if self.facts is not None:
            return self.facts
        turns = self.turns
        if not isinstance(turns, list):
            return Facts.of(turns)
        counted = self._counted
        if counted is None or counted[0] is not turns or counted[1] != len(turns):
            counted = self._counted = (turns, len(turns), Facts.of(turns))
        return counted[2]

    @property
    def turn_count(self) -> int:
        return self.summed.turns

    def tool_calls(self) -> Iterator[ToolCall]:
        for turn in self.turns:
            yield from turn.tool_calls

    def tool_counts(self) -> Counter:
        return Counter(self.summed.tools)

    @property
    def first_prompt(self) -> str | None:
        return self.summed.first_prompt

    @property
    def final_output(self) -> str | None:
        return self.summed.final_output

    def files_modified(self) -> list[str]:
        """Files the conversation changed with Edit, Write, MultiEdit or NotebookEdit, in order."""
        return list(self.summed.modified)

    def files_touched(self) -> list[str]:
        return list(self.summed.touched)


def _one_line(text: str, limit: int = 120) -> str:
    """``redact.one_line``; a text no longer than ``limit`` is only folded, without loading the
    scanner (the hooks read agents' transcripts)."""
    if len(text) <= limit:
        return " ".join(text.split())
    from purlin_resume.core import redact

    return redact.one_line(text, limit)


def _summarise_input(name: str, data: Any) -> str:
    """A tool call's input in one line (redacted, then cut, when long): the subagent's type and
    task, a search's pattern and the folder or file it searched (``Glob``, ``Grep``), else the
    first of ``_SUMMARY_KEYS`` it has, else its first text."""
    if not isinstance(data, dict):
        return ""
    if name in SUBAGENT_TOOLS:
        kind = data.get("subagent_type") or "agent"
        return _one_line(f"{kind}: {data.get('description') or data.get('prompt') or ''}")
    for key in _SUMMARY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value:
            where = data.get("path") if key == "pattern" else None
            return _one_line(f"{value} in {where}" if isinstance(where, str) and where else value)
    for value in data.values():
        if isinstance(value, str) and value:
            return _one_line(value)
    return ""


def blocks_text(content: Any) -> str:
    """The text of a string or of the text (and image) blocks of a block list."""
    return records.text_of(content, "[image]")


def classify_blocks_text(text: str) -> tuple[str, str] | None:
    """(kind, text) of what a user typed, or None for command output and caveats."""
    stripped = text.lstrip()
    if not stripped:
        return None
    if stripped.startswith(_SKIPPED_USER_TEXT):
        return None
    if "<command-name>" in stripped:
        name = _COMMAND_NAME.search(stripped)
        if name:
            args = _COMMAND_ARGS.search(stripped)
            command = name.group(1)
            if not command.startswith("/"):
                command = "/" + command
            if args and args.group(1):
                command = f"{command} {args.group(1)}"
            return COMMAND, command
    if stripped.startswith("<bash-input>"):
        match = _BASH_INPUT.search(stripped)
        if match:
            return COMMAND, "! " + match.group(1).strip()
    if stripped.startswith(records.INTERRUPTED_MARK):
        return INTERRUPTION, stripped.strip()
    if stripped.startswith("<task-notification>"):
        match = _NOTIFICATION_SUMMARY.search(stripped)
        return NOTIFICATION, (match.group(1).strip() if match else stripped.strip())
    return PROMPT, text


def command_output(text: str) -> str | None:
    """What a command printed, when ``text`` is the record of it Claude Code writes after the
    command (``<local-command-stdout>…</local-command-stdout>``, a ``!`` command's
    ``<bash-stdout>`` and ``<bash-stderr>``): its parts joined, as a terminal shows them (the
    styles Claude Code wrote, ``ESC[1m``, gone); None for any other text."""
    if not text.lstrip().startswith(_OUTPUT_STARTS):
        return None
    from purlin_resume.core.terminal_text import displayed  # here: the hooks read turns too

    parts = (displayed(part).strip("\n") for _, part in _OUTPUT.findall(text))
    return "\n".join(part for part in parts if part.strip())


def _caused(command: Turn, last: Turn | None) -> bool:
    """``command`` is the ``/compact`` that made the compaction ``last``: Claude Code writes the
    command after the compaction it caused, with the earlier time it was typed."""
    return (
        command.kind == COMMAND
        and command.text.split(" ", 1)[0] == "/compact"
        and last is not None
        and last.kind == COMPACTION
        and (not command.timestamp or not last.timestamp or command.timestamp <= last.timestamp)
    )


class _Assembly:
    """Turns the records of one conversation into a Transcript, one record at a time."""

    def __init__(self, transcript: Transcript, options: ReadOptions):
        self.transcript = transcript
        self.turns: list[Turn] = []  # the transcript's, as they are assembled
        transcript.turns = self.turns
        self.options = options
        self.calls: dict[str, ToolCall] = {}
        self.by_message: dict[str, Turn] = {}
        self.open_compaction: Compaction | None = None
        self.compaction_turn: Turn | None = None
        self.deferred = options.deferred
        self.offset = -1  # of the record being added, when it was read from a file

    def add(self, record: dict[str, Any], offset: int = -1) -> None:
        self.offset = offset
        kind = record.get("type")
        transcript = self.transcript
        timestamp = utc(record.get("timestamp"))
        if timestamp:
            if transcript.started_at is None or timestamp < transcript.started_at:
                transcript.started_at = timestamp
            if transcript.ended_at is None or timestamp > transcript.ended_at:
                transcript.ended_at = timestamp
        transcript.project_path = transcript.project_path or string(record.get("cwd"))
        transcript.git_branch = string(record.get("gitBranch")) or transcript.git_branch
        transcript.version = transcript.version or string(record.get("version"))
        transcript.session_id = transcript.session_id or string(record.get("sessionId"))
        if kind == "assistant":
            self._assistant(record, timestamp)
        elif kind == "user":
            self._user(record, timestamp)
        elif kind == "system":
            self._system(record, timestamp)

    def _assistant(self, record: dict[str, Any], timestamp: str | None) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        message_id = string(message.get("id"))
        turn = self.by_message.get(message_id) if message_id else None
        if turn is None:
            turn = Turn(
                "agent", RESPONSE, timestamp, uuid=record.get("uuid"), message_id=message_id
            )
            self.turns.append(turn)
            if message_id:
                self.by_message[message_id] = turn
        usage = message.get("usage")
        if isinstance(usage, dict):
            total = 0
            for key in (
                "input_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
                "output_tokens",
            ):
                total += integer(usage.get(key)) or 0
            if total:  # synthetic messages ("No response requested.") report zeros
                self.transcript.last_usage_tokens = total
        content = message.get("content")
        if isinstance(content, str):
            turn.text = f"{turn.text}\n\n{content}" if turn.text.strip() else content
            return
        if isinstance(content, list):
            self._assistant_blocks(turn, content)

    def _assistant_blocks(self, turn: Turn, content: list[Any]) -> None:
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "text":
                text = string(block.get("text")) or ""
                if text.strip():
                    turn.text = f"{turn.text}\n\n{text}" if turn.text.strip() else text
            elif block_type in records.TOOL_USE_TYPES:
                self._tool_use(turn, block, index)
            elif block_type == "thinking":
                if self.options.thinking:
                    self._thinking(turn, block, index)
            elif block_type not in records.BLOCK_TYPES:
                self._unknown_block("assistant", block_type)

    def _thinking(self, turn: Turn, block: dict[str, Any], index: int) -> None:
        thought = string(block.get("thinking")) or ""
        if thought.strip():
            if self.deferred and self.offset >= 0:
                turn.thinking_at.append((self.offset, index))
            else:
                turn.thinking.append(thought)

    def _unknown_block(self, record_type: str, block_type: Any) -> None:
        """A content block of a type the reader does not know, counted as an unknown type of
        its record's (``assistant:future_block``), so drift shows where unknown records do."""
        self.transcript.stats.unknown_type(f"{record_type}:{block_type}")

    def _tool_use(self, turn: Turn, block: dict[str, Any], index: int) -> None:
        name = str(block.get("name") or "?")
        data = block.get("input")
        call = ToolCall(
            id=str(block.get("id") or ""),
            name=name,
            summary=_summarise_input(name, data) if self.options.summaries else "",
        )
        if isinstance(data, dict):
            call.file_path = records.file_path_of(data)
            if name in SUBAGENT_TOOLS or name in self.options.inputs_of:
                call.input = data
            elif self.options.tools:
                if self.deferred and self.offset >= 0:
                    call.input_at = (self.offset, index)
                else:
                    call.input = data
        turn.tool_calls.append(call)
        if call.id:
            self.calls[call.id] = call

    def _user(self, record: dict[str, Any], timestamp: str | None) -> None:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if record.get("isCompactSummary"):
            self._compact_summary(blocks_text(content), timestamp, record)
            return
        if isinstance(content, list):
            for index, block in enumerate(content):
                if not isinstance(block, dict):
                    continue
                block_type = block.get("type")
                if block_type == "tool_result":
                    self._tool_result(block, record.get("toolUseResult"), index)
                elif block_type not in records.BLOCK_TYPES:
                    self._unknown_block("user", block_type)
        if record.get("isMeta"):
            return
        said = blocks_text(content)
        classified = classify_blocks_text(said)
        if classified is None:
            self._command_output(said)
            return
        kind, text = classified
        if kind == NOTIFICATION:
            self._task_notification(said)
        turn = Turn("user", kind, timestamp, text, uuid=record.get("uuid"))
        turns = self.turns
        if _caused(turn, turns[-1] if turns else None):
            turns.insert(len(turns) - 1, turn)
        else:
            turns.append(turn)

    def _task_notification(self, text: str) -> None:
        """A background agent's end (its call's result only said "async_launched"): its status
        and usage, from the ``<task-notification>`` Claude Code sends when it stops."""
        found = dict(_NOTIFICATION_FIELD.findall(text))
        call = self.calls.get(found.get("tool-use-id", ""))
        status = found.get("status", "")
        if call is None or not call.spawns_agent or not _STATUS_WORD.fullmatch(status):
            return  # not one of our calls, or a status that is no plain word: keep what we had
        call.outcome["status"] = status
        for name, key in _NOTIFIED.items():
            if _COUNT.fullmatch(found.get(name, "")):
                call.outcome[key] = int(found[name])

    def _tool_result(self, block: dict[str, Any], outcome: Any, index: int) -> None:
        call = self.calls.get(str(block.get("tool_use_id") or ""))
        if call is None:
            return
        call.answered = True
        call.is_error = bool(block.get("is_error"))
        keep = self.options.tools
        if keep and self.deferred and self.offset >= 0:
            call.result_at, keep = (self.offset, index), False
        spawn = call.name in SUBAGENT_TOOLS
        if keep or spawn or call.name == "Bash":
            text = blocks_text(block.get("content"))
            if keep:
                call.result = text
            if call.name == "Bash" and "] " in text:
                self.transcript.commits.extend(
                    f"{m.group(1)} {m.group(2)}" for m in _GIT_COMMIT.finditer(text)
                )
            if spawn:
                trailer = _AGENT_TRAILER.search(text)
                if trailer and not call.agent_id:
                    call.agent_id, call.linked_by = trailer.group(1), "result trailer"
        if spawn:
            details = outcome if isinstance(outcome, dict) else {}
            for key in ("status", "agentId", "totalTokens", "totalDurationMs", "totalToolUseCount"):
                if key in details:
                    call.outcome[key] = details[key]
            if isinstance(details.get("agentId"), str):
                call.agent_id, call.linked_by = details["agentId"], "toolUseResult"
            if "status" not in call.outcome:
                text = outcome if isinstance(outcome, str) else ""
                if "interrupted" in text.lower() or "rejected" in text.lower():
                    call.outcome["status"] = "interrupted"
                else:
                    call.outcome["status"] = "failed" if call.is_error else "completed"

    def _system(self, record: dict[str, Any], timestamp: str | None) -> None:
        subtype = record.get("subtype")
        if subtype == "compact_boundary":
            meta = record.get("compactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            compaction = Compaction(
                timestamp,
                trigger=string(meta.get("trigger")),
                pre_tokens=integer(meta.get("preTokens")),
                logical_parent_uuid=string(record.get("logicalParentUuid")),
            )
            self.transcript.compactions.append(compaction)
            turn = Turn("user", COMPACTION, timestamp, uuid=record.get("uuid"))
            self.turns.append(turn)
            self.open_compaction, self.compaction_turn = compaction, turn
        elif subtype == "local_command":
            said = str(record.get("content") or "")
            classified = classify_blocks_text(said)
            if classified is None:
                self._command_output(said)
            else:
                kind, text = classified
                self.turns.append(Turn("user", kind, timestamp, text, uuid=record.get("uuid")))

    def _command_output(self, text: str) -> None:
        """Put what a command printed under that command: the last turn, compactions aside (a
        ``/compact`` is put before the compaction it caused). Output that follows no command
        is left out."""
        output = command_output(text)
        if not output:
            return
        command = next((turn for turn in reversed(self.turns) if turn.kind != COMPACTION), None)
        if command is not None and command.kind == COMMAND:
            command.output = f"{command.output}\n{output}" if command.output else output

    def _compact_summary(self, text: str, timestamp: str | None, record: dict[str, Any]) -> None:
        compaction, turn = self.open_compaction, self.compaction_turn
        if compaction is None or compaction.summary is not None or turn is None:
            compaction = Compaction(
                timestamp, logical_parent_uuid=string(record.get("logicalParentUuid"))
            )
            self.transcript.compactions.append(compaction)
            turn = Turn("user", COMPACTION, timestamp, uuid=record.get("uuid"))
            self.turns.append(turn)
        compaction.summary = text
        turn.text = text
        self.open_compaction = self.compaction_turn = None


@dataclass
class Reading:
    """Everything one pass over a session (or agent) file yields."""

    main: Transcript
    sidechains: list[Transcript] = field(default_factory=list)  # 1.0.x inline subagents
    progress_links: dict[str, str] = field(default_factory=dict)  # tool_use id -> agent id
    summaries: list[tuple[str | None, str]] = field(default_factory=list)  # (leafUuid, text)
    leaves_found: set[str] = field(default_factory=set)
    custom_title: str | None = None  # set by /rename
    ai_title: str | None = None

    @property
    def stats(self) -> ReadStats:
        return self.main.stats


def read(
    path: Path,
    identifier: str,
    options: ReadOptions = ReadOptions(),
    *,
    agent_id: str | None = None,
    split_sidechains: bool = True,
    leaves: Iterable[str] = (),
    loads: Callable[[bytes], Any] | None = None,
) -> Reading:
    """Read ``path`` in one streaming pass.

    ``split_sidechains`` (session files): records with ``isSidechain`` are subagent turns written
    inline (Claude Code 1.0.x); each chain of them, from its root, becomes its own Transcript with
    the root's uuid as its id. In an agent file every record is a sidechain of that one agent.
    ``leaves``: uuids named by summary records; those found here are reported (session titles).
    ``loads``: how each line is parsed (``records.read_located``).
    """
    main = Transcript(identifier, agent_id=agent_id, path=Path(path))
    reading = Reading(main)
    assembly = _Assembly(main, options)
    sidechains = _Sidechains(reading, Path(path), options)
    wanted = set(leaves)
    for offset, record in records.read_located(path, main.stats, loads):
        kind = record.get("type")
        uuid = record.get("uuid")
        if wanted and uuid in wanted:
            reading.leaves_found.add(uuid)
        if kind in _NOTES:
            _note(reading, kind, record)
        elif split_sidechains and record.get("isSidechain"):
            sidechains.add(record, offset)
        else:
            assembly.add(record, offset)
    return reading


# the records that say something of the session, outside its conversation
_NOTES = ("summary", "custom-title", "ai-title", "agent-name", "progress")


def _note(reading: Reading, kind: str, record: dict[str, Any]) -> None:
    """Keep what a record of ``_NOTES`` says: a summary, a title, or which agent a call ran."""
    if kind == "summary":
        summary = record.get("summary")
        if isinstance(summary, str) and summary.strip():
            reading.summaries.append((string(record.get("leafUuid")), summary.strip()))
    elif kind == "progress":
        data = record.get("data")
        if isinstance(data, dict) and data.get("type") == "agent_progress":
            parent = record.get("parentToolUseID")
            if isinstance(data.get("agentId"), str) and isinstance(parent, str):
                reading.progress_links.setdefault(parent, data["agentId"])
    elif kind != "agent-name":
        title = record.get("customTitle" if kind == "custom-title" else "aiTitle")
        if isinstance(title, str) and title.strip():
            if kind == "custom-title":
                reading.custom_title = title.strip()
            else:
                reading.ai_title = title.strip()


class _Sidechains:
    """The subagents written inline in a session file (Claude Code 1.0.x): each chain of
    sidechain records, from its root, read as its own Transcript with the root's uuid as id."""

    def __init__(self, reading: Reading, path: Path, options: ReadOptions):
        self.reading, self.path, self.options = reading, path, options
        self.chains: dict[str, _Assembly] = {}
        self.chain_of: dict[str, str] = {}  # record uuid -> the chain it belongs to

    def add(self, record: dict[str, Any], offset: int) -> None:
        uuid = record.get("uuid")
        key = (
            string(record.get("agentId"))
            or self.chain_of.get(string(record.get("parentUuid")) or "")
            or uuid
        )
        if not key:
            return
        if uuid:
            self.chain_of[uuid] = key
        chain = self.chains.get(key)
        if chain is None:
            transcript = Transcript(key, agent_id=key, path=self.path)
            chain = self.chains[key] = _Assembly(transcript, self.options)
            self.reading.sidechains.append(chain.transcript)
        chain.add(record, offset)


_THINKING, _TOOL_USE, _RESULT = ("thinking",), ("tool_use", "server_tool_use"), ("tool_result",)


@dataclass
class TurnDetails:
    """The thinking of one turn, and the input and result of each of its tool calls (None
    where not kept), in the order of ``turn.tool_calls``."""

    thinking: list[str]
    inputs: list[Any]
    results: list[str | None]


class Details:
    """The tool inputs, results and thoughts of one transcript, turn by turn: those it holds,
    or (a deferred reading) those read back from its file, passed through ``clean`` (the
    redaction the rest of the transcript had) together, one turn at a time."""

    def __init__(self, transcript: Transcript, clean: Callable[[Any], Any] | None = None):
        self.lines = records.Lines(transcript.path) if transcript.path is not None else None
        self.clean = clean if clean is not None else _as_is
        self._last: tuple[Turn | None, TurnDetails | None] = (None, None)

    def _block(self, place: Place, kinds: tuple[str, ...], key: str = "", value: str = "") -> dict:
        """The block at ``place`` if it is of one of ``kinds`` (and its ``key`` is ``value``):
        the one the reading found there; {} when the file no longer holds it."""
        if self.lines is None:
            return {}
        content = self.lines.content(place[0])
        block = content[place[1]] if content is not None and place[1] < len(content) else None
        if (
            isinstance(block, dict)
            and block.get("type") in kinds
            and (not key or str(block.get(key) or "") == value)
        ):
            return block
        return {}

    def of(self, turn: Turn) -> TurnDetails:
        if self._last[0] is turn and self._last[1] is not None:
            return self._last[1]
        calls = turn.tool_calls
        details = TurnDetails(
            turn.thinking, [call.input for call in calls], [call.result for call in calls]
        )
        if turn.thinking_at or any(c.input_at or c.result_at for c in calls):
            thoughts = [self._block(at, _THINKING).get("thinking") for at in turn.thinking_at]
            inputs = [
                self._block(c.input_at, _TOOL_USE, "id", c.id).get("input") if c.input_at else None
                for c in calls
            ]
            results = [
                blocks_text(self._block(c.result_at, _RESULT, "tool_use_id", c.id).get("content"))
                if c.result_at
                else None
                for c in calls
            ]
            thoughts, inputs, results = self.clean([thoughts, inputs, results])
            if turn.thinking_at:
                details.thinking = [t for t in thoughts if isinstance(t, str)]
            for number, call in enumerate(calls):
                if call.input_at is not None:
                    data = inputs[number]
                    details.inputs[number] = data if isinstance(data, dict) else None
                if call.result_at is not None:
                    details.results[number] = results[number]
        self._last = (turn, details)
        return details

    def close(self) -> None:
        self._last = (None, None)
        if self.lines is not None:
            self.lines.close()


def _as_is(value: Any) -> Any:
    return value
