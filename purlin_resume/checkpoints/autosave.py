"""The automatic checkpoint the PreCompact hook writes from the session's own transcript.

Compaction throws the conversation away; this keeps what a successor needs, read from the
transcript rather than from the model's memory:

| checkpoint field | from the transcript |
|---|---|
| In Progress | the last user request (a prompt or slash command) |
| Done | the completed items of the last TodoWrite list |
| Next | its in-progress items, then its pending ones (else: continue the last request) |
| Notes | the files the session changed (Edit, Write, MultiEdit, NotebookEdit), then the last assistant message |
| Source | ``PreCompact hook (auto compaction)`` or ``PreCompact hook (manual /compact)`` |

Role: the session's role in the registry, else the role of the session's own newest checkpoint
(a QA agent that saved once stays QA), else ``builder`` (the role of a coding session; its
protocol step is marked as not recorded). The plan goes on from the session's newest checkpoint
of that role (``carried``: one it saved, or the one it restored): feature, delivery plan, work
queue, pending decisions, the role's own fields, and its Next list when the transcript has no
to-do list. Everything taken from the transcript is redacted, and so is a secret its shell
commands show wherever the checkpoint repeats it.
A checkpoint the agent saved itself for the same session is never overwritten by one of these.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from purlin_resume.checkpoints.format import Checkpoint, fold
from purlin_resume.claude.transcript import COMMAND, PROMPT, ReadOptions, Transcript
from purlin_resume.core import redact
from purlin_resume.core.project import relative_paths

SOURCE_PREFIX = "PreCompact hook"
DEFAULT_ROLE = "builder"
NOT_RECORDED = "not recorded (automatic checkpoint)"
TODO_TOOL = "TodoWrite"
SHELL_TOOL = "Bash"  # where a password is typed: its commands' secrets are hidden everywhere
READ_OPTIONS = ReadOptions(inputs_of=frozenset({TODO_TOOL, SHELL_TOOL}))
REQUEST_CHARS = 600
MESSAGE_CHARS = 2000
CONTINUE = "Continue the last request (see In Progress)"
PLAN_FIELDS = (
    "feature",
    "step",
    "scenario_progress",
    "current_scenario",
    "delivery_plan",
    "work_queue",
    "pending_decisions",
    "discoveries",
    "verification_queue",
    "spec_reviews",
    "discovery_processing",
)


def source_for(trigger: str | None) -> str:
    kind = "manual /compact" if trigger == "manual" else "auto compaction"
    return f"{SOURCE_PREFIX} ({kind})"


def is_automatic(cp: Checkpoint | None) -> bool:
    return cp is not None and (cp.source or "").startswith(SOURCE_PREFIX)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def last_request(transcript: Transcript) -> str | None:
    found = None
    for turn in transcript.turns:
        if turn.role == "user" and turn.kind in (PROMPT, COMMAND) and turn.text.strip():
            found = turn.text
    return found


def todo_list(transcript: Transcript) -> list[dict[str, Any]]:
    """The items of the last TodoWrite call (each with ``content`` and ``status``)."""
    for call in reversed(list(transcript.tool_calls())):
        if call.name == TODO_TOOL and isinstance(call.input, dict):
            todos = call.input.get("todos")
            if isinstance(todos, list):
                return [
                    t for t in todos if isinstance(t, dict) and isinstance(t.get("content"), str)
                ]
    return []


@redact.remembering()
def build(
    transcript: Transcript,
    *,
    role: str,
    timestamp: str,
    branch: str,
    uncommitted: list[str],
    session: str | None,
    trigger: str | None,
    root: Path,
    carried: Checkpoint | None = None,
) -> Checkpoint:
    """The automatic checkpoint of ``transcript`` (redacted, normalised); the plan of
    ``carried`` goes on when it is of the same role."""
    redact.remember([call.input for call in transcript.tool_calls() if call.name == SHELL_TOOL])
    clean = lambda text: redact.redact(text).text  # noqa: E731
    request = last_request(transcript)
    todos = todo_list(transcript)
    done = [t["content"] for t in todos if t.get("status") == "completed"]
    active = [t["content"] for t in todos if t.get("status") == "in_progress"]
    pending = [t["content"] for t in todos if t.get("status") not in ("completed", "in_progress")]
    plan = carried if carried is not None and carried.role == role else None
    upcoming = active + pending or list(plan.next if plan else ()) or [CONTINUE]
    files = relative_paths([root, transcript.project_path], transcript.files_modified())
    message = transcript.final_output
    notes = [
        "Files changed this session: " + (", ".join(files) if files else "none"),
        "",
        "Last assistant message:",
        _cut(clean(message.strip()), MESSAGE_CHARS) if message else "none",
    ]
    role_fields: dict[str, Any] = {}
    if role == "builder":
        role_fields["step"] = NOT_RECORDED
    elif role == "qa":
        role_fields.update(scenario_progress=NOT_RECORDED, current_scenario=NOT_RECORDED)
    if plan is not None:
        role_fields.update({name: getattr(plan, name) for name in PLAN_FIELDS})
    return Checkpoint(
        role=role,
        timestamp=timestamp,
        branch=branch,
        session=session,
        source=source_for(trigger),
        in_progress=_cut(clean(fold(request)), REQUEST_CHARS) if request else "no request found",
        done=tuple(clean(item) for item in done),
        next=tuple(clean(item) for item in upcoming),
        uncommitted=tuple(uncommitted),
        notes=clean("\n".join(notes)),
        **role_fields,
    ).normalized()
