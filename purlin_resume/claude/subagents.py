"""Subagents of a session as their files show them: where each agent's transcript and
``.meta.json`` are, the call that spawned it, how it ended (the tree: ``agent_tree``).

Three layouts hold a subagent's own turns: inline ``isSidechain`` records in the session file
(1.0.x: no agent id, one subagent per sidechain root, linked to its call by prompt), an
``agent-<id>.jsonl`` beside the sessions (2.0.x) and ``<session>/subagents/agent-<id>.jsonl``
(2.1.2+). A call names its agent in ``toolUseResult.agentId``, in the result's "agentId: …"
trailer, or through ``agent_progress`` records; ``agent-<id>.meta.json`` may add the type and
description; the agent's first prompt matching the call's prompt is the last resort.
``acompact-*`` runs are compactions, not agents. A background agent's call (2.1.x) only says
``async_launched``; its end is the ``<task-notification>`` the session receives later, else the
``finished`` or ``stoppedByUser`` flag of its ``.meta.json``, else it is unfinished.

How an agent ended when no hook said so: a ``<task-notification>`` the session received (a
background agent, 2.1.x), the error result of its call in the session's transcript (the user
stopped a foreground agent: "User rejected tool use"), ``stoppedByUser`` in its ``.meta.json``,
its own transcript ending with the interruption (an agent inside a stopped agent), or an API error as its last record (``isApiErrorMessage``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from purlin_resume.claude import records
from purlin_resume.claude.layout import AGENT_PREFIX
from purlin_resume.core import store

META_LINKS = ("toolUseId", "toolUseID", "tool_use_id", "parentToolUseID")  # .meta.json: its call
STOPPED_BY_USER = "stoppedByUser"  # .meta.json of a background agent the user stopped
META_SUFFIX = ".meta.json"
_NOTIFICATION = re.compile(r"(?s)<task-notification>(.*?)</task-notification>")
_NOTIFIED = re.compile(r"<(task-id|tool-use-id|status)>\s*([^<]*?)\s*</\1>")


def read_meta(path: Path) -> dict[str, Any]:
    """The ``agent-<id>.meta.json`` beside an agent file, or {} when absent or unreadable."""
    try:
        with store.open_regular(path) as handle:  # a FIFO in its place would hold the open
            data = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def agent_folder(session_transcript: Path) -> Path:
    """Where Claude Code 2.1.2+ keeps the subagents of the session whose transcript this is."""
    return session_transcript.with_suffix("") / "subagents"


def agent_path(session_transcript: Path, agent_id: str) -> Path | None:
    """The transcript of agent ``agent_id`` of that session (2.1.2+ or 2.0.x layout), if any."""
    for candidate in (
        agent_folder(session_transcript) / f"{AGENT_PREFIX}{agent_id}.jsonl",
        session_transcript.parent / f"{AGENT_PREFIX}{agent_id}.jsonl",
    ):
        if candidate.is_file():
            return candidate
    return None


def meta_of(session_transcript: Path, agent_id: str) -> dict[str, Any]:
    """The ``.meta.json`` of agent ``agent_id`` of that session ({} when there is none)."""
    return read_meta(agent_folder(session_transcript) / f"{AGENT_PREFIX}{agent_id}{META_SUFFIX}")


def call_of(meta: dict[str, Any]) -> str | None:
    """The tool call that started an agent, as its ``.meta.json`` names it."""
    return next((v for k in META_LINKS if isinstance(v := meta.get(k), str) and v), None)


def spawned_by(session_transcript: Path, tool_use_id: str) -> str | None:
    """The id of the agent that the session's tool call ``tool_use_id`` started, as the
    ``<session>/subagents/agent-<id>.meta.json`` beside the session file says; the call itself
    may never have returned (a foreground subagent cut off with its session)."""
    for meta in sorted(agent_folder(session_transcript).glob(f"{AGENT_PREFIX}*{META_SUFFIX}")):
        if call_of(read_meta(meta)) == tool_use_id:
            return meta.name[len(AGENT_PREFIX) : -len(META_SUFFIX)] or None
    return None


class Notification(NamedTuple):
    """A ``<task-notification>`` the session received: a background agent's end."""

    task_id: str | None
    tool_use_id: str | None
    status: str


def notifications(text: str | None) -> list[Notification]:
    """The task notifications in a prompt the session received."""
    found = []
    for block in _NOTIFICATION.findall(text or ""):
        fields = dict(_NOTIFIED.findall(block))
        if fields.get("status"):
            found.append(
                Notification(fields.get("task-id"), fields.get("tool-use-id"), fields["status"])
            )
    return found


class CallState(NamedTuple):
    """What a session's transcript holds of one tool call: whether an assistant message of its
    own made the call, and its ``tool_result`` block (None while it has none)."""

    made: bool
    result: dict[str, Any] | None


def call_state(session_transcript: Path, tool_use_id: str) -> CallState:
    """The call ``tool_use_id`` in the session's transcript, read in one pass (nothing when the
    file cannot be read). A line that only quotes the id (an agent's progress, a tool's
    output) does not count."""
    try:
        lines = list(records.lines_holding(session_transcript, (tool_use_id.encode(),)))
    except OSError:
        return CallState(False, None)
    made = False
    for line in lines:
        try:
            record = records.parsed(line)
        except (ValueError, RecursionError):
            continue
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if record.get("type") == "assistant" and block.get("type") == "tool_use":
                made = made or block.get("id") == tool_use_id
            elif (
                record.get("type") == "user"
                and block.get("type") == "tool_result"
                and block.get("tool_use_id") == tool_use_id
            ):
                return CallState(True, block)
    return CallState(made, None)


def api_error(agent_transcript: Path | None) -> str | None:
    """The API error an agent's run ended with (its last assistant record is the client's
    ``isApiErrorMessage``), else None."""
    if agent_transcript is None:
        return None
    for record in records.last_records(agent_transcript, 64 * 1024):
        if record.get("type") != "assistant":
            continue
        if record.get("isApiErrorMessage") is not True:
            return None
        message = record.get("message")
        text = records.text_of(message.get("content")) if isinstance(message, dict) else ""
        return text.strip() or "API error"
    return None


def stopped(agent_transcript: Path | None) -> bool:
    """Whether an agent's run ends with the client's ``[Request interrupted by user…]``: the
    user stopped it, or the agent that spawned it (whose call result alone says so)."""
    if agent_transcript is None:
        return False
    for record in records.last_records(agent_transcript, 64 * 1024):
        if record.get("type") not in ("user", "assistant"):
            continue
        message = record.get("message")
        text = records.text_of(message.get("content")) if isinstance(message, dict) else ""
        return record["type"] == "user" and text.strip().startswith(records.INTERRUPTED_MARK)
    return False
