"""A conversation as the TR-3 context document that resurrection reads.

Shape (seed 000, TR-3): agent_id, session_id, project_path, started_at, completed_at,
duration_ms, agent_type, original_prompt, conversation[], final_output, files_analyzed,
tool_calls_summary {total, by_tool}; plus git_branch and git_commit when the records show them
(the branch Claude Code recorded; the last commit the conversation's own ``git commit`` printed).
"""

from __future__ import annotations

import functools
import json
import re
import secrets
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import msgspec

from purlin_resume.claude.agent_tree import Subagent
from purlin_resume.claude.transcript import COMPACTION, Details, Transcript, Turn


class Clean(str):
    """A piece of output redacted already: written as it is, not scanned again."""


class Serialised:
    """A value of the document read back from the file (a tool's input or result, a thought),
    written as its own JSON text: ``text`` is what is redacted (a string as it is, before the
    document around it escapes it once more; another value as its JSON text, where a
    secret-named key and its value are seen together), ``laid_out`` what is written of it once
    redacted. ``json_chunks`` writes it as an ``Unredacted`` piece."""

    def __init__(self, value: Any):
        self.quoted = isinstance(value, str)
        self.text = value if self.quoted else json.dumps(value, ensure_ascii=False)

    def laid_out(self, indent: str, redacted: str) -> str:
        """The value's JSON text, ``redacted`` being its ``text`` redacted, each new line
        starting with ``indent`` (its place in the document)."""
        if self.quoted:
            return json.dumps(redacted, ensure_ascii=False)
        try:
            text = msgspec.json.format(redacted, indent=2)
        except (msgspec.DecodeError, UnicodeEncodeError):  # NaN, a lone surrogate: json lays it out
            try:
                text = json.dumps(json.loads(redacted), indent=2, ensure_ascii=False)
            except ValueError:  # no JSON after a redaction across quotes: kept as it is
                text = redacted
        return text.replace("\n", indent)


class Unredacted(str):
    """A piece of output read back from the file (a tool's input or result, a thought), not
    redacted yet: redacted with the text written around it (its secrets written in pieces
    joined with theirs: ``transcript_output.redacted_batches``), then written as ``lay_out``
    makes it of its redacted text (a quote's marks or the document's escapes would hide a
    secret from a scan of what is written)."""

    lay_out: Callable[[str], str]

    def __new__(cls, text: str, lay_out: Callable[[str], str]) -> Unredacted:
        piece = super().__new__(cls, text)
        piece.lay_out = lay_out
        return piece


def _serialised(value: Any, serialised: bool) -> Any:
    """``value``, or its ``Serialised`` value when ``serialised``."""
    return Serialised(value) if serialised and value is not None else value


def _duration_ms(start: str | None, end: str | None) -> int | None:
    if not start or not end:
        return None
    try:
        began = datetime.fromisoformat(start.replace("Z", "+00:00"))
        ended = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int((ended - began).total_seconds() * 1000)


def _assistant_content(
    turn: Turn, tools: bool, thinking: bool, details: Details, serialised: bool
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    shown = details.of(turn) if tools or thinking else None
    if shown is not None and thinking:
        blocks += [
            {"type": "thinking", "thinking": _serialised(thought, serialised)}
            for thought in shown.thinking
        ]
    if turn.text.strip():
        blocks.append({"type": "text", "text": turn.text})
    for number, call in enumerate(turn.tool_calls):
        block: dict[str, Any] = {"type": "tool_use", "id": call.id, "name": call.name}
        data = shown.inputs[number] if shown is not None and tools else None
        if data is not None:
            block["input"] = _serialised(data, serialised)
        else:
            block["summary"] = call.summary
        if call.agent_id:
            block["agent_id"] = call.agent_id
        blocks.append(block)
    return blocks


def conversation_items(
    transcript: Transcript,
    tools: bool = False,
    thinking: bool = False,
    details: Details | None = None,
    serialised: bool = False,
) -> Iterator[dict[str, Any]]:
    """The ``conversation`` of the document one item at a time (inputs, results and thoughts
    of a deferred reading are read back as their turn comes); ``serialised``: those are
    ``Serialised`` values, redacted as they are written."""
    details = details if details is not None else Details(transcript)
    for turn in transcript.turns:
        if turn.kind == COMPACTION:
            yield {
                "role": "system",
                "type": "compaction",
                "content": turn.text,
                "timestamp": turn.timestamp,
            }
            continue
        if turn.role == "user":
            if turn.text.strip():
                said = {"role": "user", "type": turn.kind, "content": turn.text}
                if turn.output:
                    said["output"] = turn.output  # what the command printed
                yield {**said, "timestamp": turn.timestamp}
            continue
        content = _assistant_content(turn, tools, thinking, details, serialised)
        if not content:
            continue
        yield {"role": "assistant", "content": content, "timestamp": turn.timestamp}
        if tools:
            answers = details.of(turn).results
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": _serialised(answer, serialised),
                    "is_error": call.is_error,
                }
                for call, answer in zip(turn.tool_calls, answers, strict=True)
                if call.answered
            ]
            if results:
                yield {"role": "user", "content": results, "timestamp": turn.timestamp}
    details.close()


def conversation(transcript: Transcript, tools: bool = False, thinking: bool = False) -> list[dict]:
    return list(conversation_items(transcript, tools, thinking))


def document(
    transcript: Transcript,
    subagent: Subagent | None = None,
    *,
    tools: bool = False,
    thinking: bool = False,
    kind: str = "session",
    details: Details | None = None,
    streamed: bool = False,
    serialised: bool = False,
) -> dict[str, Any]:
    """The TR-3 document of one conversation (a session's main thread or one subagent).

    ``streamed``: its ``conversation`` is an iterator of items, for ``json_chunks`` to write as
    they come, instead of a list; ``serialised``: its tool inputs, results and thoughts are
    ``Serialised`` values, redacted as they are written (with the text around them)."""
    counts = transcript.tool_counts()
    duration = subagent.duration_ms if subagent is not None else None
    if duration is None:
        duration = _duration_ms(transcript.started_at, transcript.ended_at)
    agent_type: str | None
    if kind == "session":
        agent_type = "main"
    elif subagent is not None:
        agent_type = subagent.agent_type
    else:
        agent_type = "compaction" if kind == "compaction" else None
    commit = transcript.commits[-1].split(" ", 1)[1] if transcript.commits else None
    stats = transcript.stats
    items = conversation_items(transcript, tools, thinking, details, serialised)
    return {
        "agent_id": None if kind == "session" else transcript.id,
        "session_id": transcript.session_id if kind != "session" else transcript.id,
        "project_path": transcript.project_path,
        "started_at": transcript.started_at,
        "completed_at": transcript.ended_at,
        "duration_ms": duration,
        "agent_type": agent_type,
        "description": subagent.description if subagent is not None else None,
        "status": subagent.status if subagent is not None else None,
        "original_prompt": transcript.first_prompt
        or (subagent.prompt if subagent is not None else None),
        "conversation": items if streamed else list(items),
        "final_output": transcript.final_output,
        "files_analyzed": transcript.files_touched(),
        "tool_calls_summary": {
            "total": sum(counts.values()),
            "by_tool": dict(sorted(counts.items())),
        },
        "git_branch": transcript.git_branch,
        "git_commit": commit,
        "claude_code_version": transcript.version if transcript.cli == "claude" else None,
        "cli": transcript.cli,
        "cli_version": transcript.version,
        "turns": transcript.turn_count,
        "compactions": len(transcript.compactions),
        "skipped": {
            "malformed_lines": stats.malformed,
            "unknown_records": stats.unknown,
            "duplicate_records": stats.duplicates,
        },
    }


def no_conversation(
    target_id: str, kind: str, session_id: str | None, subagent: Subagent | None, message: str
) -> dict[str, Any]:
    """The TR-3 document of a conversation whose transcript is gone: every key of ``document``,
    empty, and a ``message`` saying why."""
    return {
        "agent_id": None if kind == "session" else target_id,
        "session_id": session_id if kind != "session" else target_id,
        "project_path": None,
        "started_at": None,
        "completed_at": None,
        "duration_ms": subagent.duration_ms if subagent is not None else None,
        "agent_type": "main" if kind == "session" else (subagent.agent_type if subagent else None),
        "description": subagent.description if subagent is not None else None,
        "status": subagent.status if subagent is not None else None,
        "original_prompt": subagent.prompt if subagent is not None else None,
        "conversation": [],
        "final_output": None,
        "files_analyzed": [],
        "tool_calls_summary": {"total": 0, "by_tool": {}},
        "git_branch": None,
        "git_commit": None,
        "claude_code_version": None,
        "cli": None,
        "cli_version": None,
        "turns": 0,
        "compactions": 0,
        "skipped": {"malformed_lines": 0, "unknown_records": 0, "duplicate_records": 0},
        "message": message,
    }


def json_chunks(data: dict[str, Any]) -> Iterator[str]:
    """``store.dump_json(data)`` piece by piece, byte for byte: ``data`` is a dict whose values
    may be iterators; each iterator is written as a list, one item at a time (its items are
    plain JSON values); each ``Serialised`` value as an ``Unredacted`` piece."""
    if any(isinstance(v, Iterator) for v in data.values()):
        separator = "{\n  "
        for key, item in data.items():
            yield separator + json.dumps(key, ensure_ascii=False) + ": "
            yield from _listed(item, 1) if isinstance(item, Iterator) else _spliced(item, 1)
            separator = ",\n  "
        yield "\n}"
    else:
        yield from _spliced(data, 0)
    yield "\n"


def _listed(items: Iterator[Any], level: int) -> Iterator[str]:
    inner = "\n" + "  " * (level + 1)
    separator = "[" + inner
    for item in items:
        yield separator
        yield from _spliced(item, level + 1)
        separator = "," + inner
    yield "[]" if separator.startswith("[") else "\n" + "  " * level + "]"


_MARK = "\x00" + secrets.token_hex(8) + ":"  # stands for a Serialised value, then swapped back
_MARKED = re.compile(re.escape(json.dumps(_MARK)[:-1]) + r'([0-9]+)"')


def _spliced(value: Any, level: int) -> Iterator[str]:
    """The JSON text of ``value`` at ``level``: its ``Serialised`` values as ``Unredacted``
    pieces, indented as their place asks, the text around them in plain pieces."""
    found: list[Serialised] = []

    def mark(other: Any) -> str:
        if not isinstance(other, Serialised):
            raise TypeError(f"Object of type {type(other).__name__} is not JSON serializable")
        found.append(other)
        return f"{_MARK}{len(found) - 1}"

    text = json_text(value, mark)
    if level:  # (a newline inside a JSON string is escaped: every one ends a line)
        text = text.replace("\n", "\n" + "  " * level)
    at = 0
    for match in _MARKED.finditer(text) if found else ():
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        yield text[at : match.start()]
        indent = "\n" + " " * (len(line) - len(line.lstrip(" ")))
        value = found[int(match.group(1))]
        yield Unredacted(value.text, functools.partial(value.laid_out, indent))
        at = match.end()
    yield text[at:]


def json_text(value: Any, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, the same text made faster: json's
    C encoder writes it compact, msgspec lays it out (what msgspec refuses, NaN or a lone
    surrogate, json lays out alone). ``default``: as json's."""
    try:
        return msgspec.json.format(json.dumps(value, ensure_ascii=False, default=default), indent=2)
    except (msgspec.DecodeError, UnicodeEncodeError):
        return json.dumps(value, indent=2, ensure_ascii=False, default=default)
