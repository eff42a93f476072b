"""Claude Code hook payloads: the JSON a hook command reads on stdin, and what it may print.

Every payload carries ``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``; the
events purlin-resume listens to add:

| event | fields read |
|---|---|
| PreToolUse (matcher ``Agent|Task``) | ``tool_name``, ``tool_input`` (description, prompt, subagent_type), ``tool_use_id`` |
| PostToolUse (same matcher) | the same, plus ``tool_response`` (``agentId``, ``status``: completed or async_launched) |
| SubagentStart | ``agent_id``, ``agent_type`` (no tool call: the agent's ``.meta.json`` names it) |
| SubagentStop | ``agent_id``, ``agent_type``, ``agent_transcript_path``, ``last_assistant_message`` |
| UserPromptSubmit | ``prompt`` (also the ``<task-notification>`` of a background agent's end) |
| PreCompact | ``trigger`` (manual or auto), ``custom_instructions`` |
| SessionStart | ``source`` (startup, resume, clear or compact) |
| SessionEnd | ``reason`` |

A SessionStart hook gives the model context by printing
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": TEXT}}``.
Exit code 2 is the only code that blocks anything; purlin-resume hooks always exit 0.

This module is pure (json, the id patterns and names) so the hook entry point stays light.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from purlin_resume.claude.layout import COMPACTION_PREFIX
from purlin_resume.claude.records import SUBAGENT_TOOLS, string
from purlin_resume.core import ids

# command-line name -> Claude Code event name
EVENTS = {
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "subagent-start": "SubagentStart",
    "subagent-stop": "SubagentStop",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-compact": "PreCompact",
    "session-start": "SessionStart",
    "session-end": "SessionEnd",
}
SESSION_SOURCES = ("startup", "resume", "clear", "compact")
AGENT_CLI_ENV = (
    "PURLIN_AGENT_CLI"  # which agent CLI called (``hook EVENT --cli NAME``); unset: Claude Code
)
MAX_CONTEXT_CHARS = 10_000


class BadPayload(ValueError):
    """The standard input is not a hook payload."""


class HookPayload(NamedTuple):
    """One hook call's input; ``data`` is the whole object as Claude Code sent it."""

    event: str
    data: dict[str, Any]

    def text(self, name: str) -> str | None:
        return string(self.data.get(name))

    @property
    def session_id(self) -> str | None:
        return self.text("session_id")

    @property
    def transcript_path(self) -> str | None:
        return self.text("transcript_path")

    @property
    def cwd(self) -> str | None:
        return self.text("cwd")

    @property
    def tool_name(self) -> str | None:
        return self.text("tool_name")

    @property
    def tool_use_id(self) -> str | None:
        return self.text("tool_use_id")

    @property
    def tool_input(self) -> dict[str, Any]:
        value = self.data.get("tool_input")
        return value if isinstance(value, dict) else {}

    @property
    def tool_response(self) -> dict[str, Any]:
        value = self.data.get("tool_response")
        return value if isinstance(value, dict) else {}

    @property
    def spawns_agent(self) -> bool:
        return self.tool_name in SUBAGENT_TOOLS

    @property
    def source(self) -> str | None:
        return self.text("source")

    @property
    def compaction_run(self) -> bool:
        """SubagentStart or SubagentStop of a compaction run (``acompact-…``): no agent."""
        agent = self.text("agent_id")
        return agent is not None and agent.startswith(COMPACTION_PREFIX)


def parse(event: str, text: str) -> HookPayload:
    """The payload of ``event`` (a command-line name or Claude Code's) read from ``text``."""
    name = EVENTS.get(event, event)
    if name not in EVENTS.values():
        raise BadPayload(f"unknown hook event {event!r} (known: {', '.join(EVENTS)})")
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        said = exc.msg.removesuffix(" at")  # "Invalid control character at"
        raise BadPayload(f"hook input is not JSON ({said} at column {exc.colno})") from None
    except RecursionError:
        raise BadPayload("hook input is nested too deeply") from None
    if not isinstance(data, dict):
        raise BadPayload("hook input must be a JSON object")
    response = data.get("tool_response")
    for kind, value in (
        (ids.SESSION, data.get("session_id")),
        (ids.AGENT, data.get("tool_use_id")),
        (ids.AGENT, data.get("agent_id")),
        (ids.AGENT, response.get("agentId") if isinstance(response, dict) else None),
    ):
        if isinstance(value, str) and value and not kind.valid(value):
            raise BadPayload(f"hook input: {kind.problem(value)}")
    return HookPayload(name, data)


def session_context(text: str) -> str:
    """What a SessionStart hook prints to give the model ``text`` as additional context."""
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}},
        ensure_ascii=False,
    )


def bounded(text: str, limit: int = MAX_CONTEXT_CHARS, tail: str = "") -> str:
    """``text`` cut to at most ``limit`` characters, ending with ``tail`` when it was cut."""
    if len(text) <= limit:
        return text
    marker = "\n\n[... cut to fit the hook's context limit]" + (f"\n{tail}" if tail else "")
    return text[: max(0, limit - len(marker))].rstrip() + marker
