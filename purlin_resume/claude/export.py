"""A conversation as the TR-3 context document that resurrection reads.

Shape (seed 000, TR-3): agent_id, session_id, project_path, started_at, completed_at,
duration_ms, agent_type, original_prompt, conversation[], final_output, files_analyzed,
tool_calls_summary {total, by_tool}; plus git_branch and git_commit when the records show them
(the branch Claude Code recorded; the last commit the conversation's own ``git commit`` printed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec

from purlin_resume.claude.subagents import Subagent
from purlin_resume.claude.transcript import COMPACTION, Details, Transcript, Turn


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
    turn: Turn, tools: bool, thinking: bool, details: Details
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    shown = details.of(turn) if tools or thinking else None
    if shown is not None and thinking:
        blocks += [{"type": "thinking", "thinking": thought} for thought in shown.thinking]
    if turn.text.strip():
        blocks.append({"type": "text", "text": turn.text})
    for number, call in enumerate(turn.tool_calls):
        block: dict[str, Any] = {"type": "tool_use", "id": call.id, "name": call.name}
        data = shown.inputs[number] if shown is not None and tools else None
        if data is not None:
            block["input"] = data
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
) -> Iterator[dict[str, Any]]:
    """The ``conversation`` of the document one item at a time (inputs, results and thoughts
    of a deferred reading are read back as their turn comes)."""
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
                yield {
                    "role": "user",
                    "type": turn.kind,
                    "content": turn.text,
                    "timestamp": turn.timestamp,
                }
            continue
        content = _assistant_content(turn, tools, thinking, details)
        if not content:
            continue
        yield {"role": "assistant", "content": content, "timestamp": turn.timestamp}
        if tools:
            answers = details.of(turn).results
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": answer,
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
) -> dict[str, Any]:
    """The TR-3 document of one conversation (a session's main thread or one subagent).

    ``streamed``: its ``conversation`` is an iterator of items, for ``json_chunks`` to write as
    they come, instead of a list."""
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
    items = conversation_items(transcript, tools, thinking, details)
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


def json_chunks(data: Any) -> Iterator[str]:
    """``store.dump_json(data)`` piece by piece, byte for byte: each iterator inside ``data``
    is written as a list, one item at a time."""
    yield from _json_chunks(data, 0)
    yield "\n"


def _json_chunks(value: Any, level: int) -> Iterator[str]:
    inner = "\n" + "  " * (level + 1)
    if isinstance(value, dict) and any(isinstance(v, Iterator) for v in value.values()):
        if not value:
            yield "{}"
            return
        separator = "{" + inner
        for key, item in value.items():
            yield separator + json.dumps(key, ensure_ascii=False) + ": "
            yield from _json_chunks(item, level + 1)
            separator = "," + inner
        yield "\n" + "  " * level + "}"
    elif isinstance(value, Iterator):
        separator = "[" + inner
        for item in value:
            yield separator
            yield from _json_chunks(item, level + 1)
            separator = "," + inner
        yield "[]" if separator.startswith("[") else "\n" + "  " * level + "]"
    else:  # (a newline inside a JSON string is escaped: every one ends a line)
        text = json_text(value)
        yield text.replace("\n", "\n" + "  " * level) if level else text


def json_text(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, the same text made faster: json's
    C encoder writes it compact, msgspec lays it out (what msgspec refuses, NaN or a lone
    surrogate, json lays out alone)."""
    try:
        return msgspec.json.format(json.dumps(value, ensure_ascii=False), indent=2)
    except (msgspec.DecodeError, UnicodeEncodeError):
        return json.dumps(value, indent=2, ensure_ascii=False)
