"""Resurrecting a teammate's bookmark from the context they shared (``resurrect NAME --team``).

The shared context pack stands in for the transcripts, which never leave their owner's
machine; the prompt is rendered from it with the same template as a local resurrection and
redacted once more; the resurrection is logged (and so mirrored) like any other, with the
team bookmark's id.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from purlin_resume.core import redact
from purlin_resume.resurrection import compress
from purlin_resume.resurrection import flow as resurrection
from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.resurrection.flow import Environment
from purlin_resume.team import reads


@dataclass(frozen=True)
class Revival:
    bookmark: dict[str, Any]
    prompt: str
    tokens: int
    entry: dict[str, Any]


def revive(env: Environment, name: str, task: str | None, notes: str | None) -> Revival:
    started = time.monotonic()
    in_project = str(resurrection.destination(env))
    mark, context = reads.context_of(env.history, env.shelves.paths(), name)
    prompt = redact.redact(resurrection.render_prompt(context, task, here=in_project)).text
    tokens = compress.estimate_tokens(prompt)
    entry = {
        "bookmark_id": mark["bookmark_id"],
        "bookmark_uuid": mark["uuid"],
        "resurrected_from_agent_id": mark.get("agent_id") or context.agent_id,
        "resurrected_from_session_id": mark.get("session_id") or context.session_id,
        "resurrected_from_hostname": mark.get("hostname"),
        "resurrected_from_project": context.project_path or mark.get("project_path"),
        "resurrected_as_agent_id": None,
        **resurrection.resurrector(env),
        "resurrection_mode": "bookmark",
        "query": name,
        "context_extraction_method": context.method,
        "context_size_tokens": tokens,
        "outcome": "success",
        "outcome_reason": None,
        "notes": redact.redact(notes).text if notes else None,
        "new_agent_duration_ms": None,
        "new_agent_tool_calls": None,
        "resurrected_from_agent_type": context.agent_type,
        "cross_repo": (context.project_path or mark.get("project_path")) != in_project,
        "shared_by": mark.get("member"),
        "latency_ms": round((time.monotonic() - started) * 1000),
    }
    written = resurrection_log.append(env.log, entry)
    return Revival(mark, prompt, tokens, written)
