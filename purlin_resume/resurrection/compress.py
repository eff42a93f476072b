"""An agent's context, compressed for a resurrection prompt: full, summarized or hybrid (TR-4).

- ``full``: the whole conversation, tool inputs and results included (meant for short agents:
  at most ``full_context_turns`` turns, 10 by default).
- ``hybrid`` (default): the first 3 and last 3 messages kept whole (text and one line per tool
  call); the messages between are condensed into a digest. A conversation of at most 10
  messages is kept whole.
- ``summarized``: no message kept whole; the digest covers the whole conversation.

The digest is built deterministically from the records, with no model call: the tools used with
their counts, the files read and the files changed, the errors hit (a tool call that failed, an
API error), and the decisions and conclusions the agent stated (its sentences that say it decided,
concluded, found, fixed, confirmed, implemented or recommends something, or that tests pass).

Every method keeps the metadata, the original task, the findings and the final output, each
once: the message that is the original task and the one that is the final output are left out of
the conversation parts, since they have sections of their own. The findings are the agent's own
conclusions: its sentences of decisions and results (as in the digest) over the whole
conversation, then its last substantive answers (messages that called no tool), condensed; never
the final output again. Narration is never a finding: a sentence announcing the agent's next
step ("Let me search…", "Now I'll…", "I need to…"), an interjection ("Perfect!") or a line
that introduces a tool call (it ends in a colon).

hybrid and summarized also keep Claude Code's own summary of a compaction (its latest), when
the messages kept whole do not hold it: the summary part, without the instructions it gives the
model that continued the session.

Token counts are an estimate, the same on every machine: one token per 4 characters of the text
(rounded up), the usual rule of thumb for English and code with Claude's tokenizer. It is used
to compare methods and to warn about size, not to bill.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import msgspec

from purlin_resume.claude import rendering
from purlin_resume.claude.transcript import (
    COMMAND,
    COMPACTION,
    PROMPT,
    Details,
    Transcript,
    Turn,
)
from purlin_resume.core import redact

METHODS = ("full", "summarized", "hybrid")
DEFAULT_METHOD = "hybrid"
KEEP_HEAD = 3
KEEP_TAIL = 3
SHORT_CONVERSATION = 10
CHARS_PER_TOKEN = 4
MAX_FINDINGS = 25
LAST_TEXTS = 3  # the agent's last substantive messages, added to the findings
SUBSTANTIVE = 40  # characters a message needs to count as substantive
MAX_ERRORS = 10
FINDING_LENGTH = 240
READ_TOOLS = frozenset({"Read", "NotebookRead"})
CHANGE_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_FINDING = re.compile(
    r"\b(?:decided|decision|conclu\w+|root cause|the (?:issue|problem|bug|cause|fix) (?:is|was)"
    r"|turns out|found that|I found|recommend\w*|going with|instead of|fixed|confirmed|verified"
    r"|works now|the answer is|in summary|key (?:insight|finding)s?|approach|the plan is"
    r"|implemented|all \d+ tests? pass\w*|tests? pass(?:es|ed)?|is now|no longer"
    r"|successfully|succeeded|passed|no (?:\w+ )?errors|actually|already|appears to be)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_INTERJECTION = re.compile(
    r"^(?:(?:perfect|great|excellent|good|nice|awesome|okay|ok|alright|all right|ah|oh|hmm"
    r"|right|sure|got it|i see)\b[,.!—-]*\s*)+",
    re.I,
)
_NARRATION = re.compile(
    r"^(?:(?:now|next|then|first|finally|also|so)\b,?\s+)?"
    r"(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|i should|i want to"
    r"|i'm now|we need to|we'll|time to|going to)\b",
    re.I,
)
_SUMMARY_START = re.compile(r"^Summary:\s*$", re.M)
_SUMMARY_END = "\nIf you need specific details from before compaction"


def estimate_tokens(text: str) -> int:
    """One token per 4 characters, rounded up (see the module docstring)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def format_duration(ms: int | None) -> str | None:
    if ms is None:
        return None
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {seconds}s" if minutes else f"{seconds}s"


@dataclass
class Digest:
    """What a run of messages did, condensed."""

    messages: int = 0
    tools: dict[str, int] = field(default_factory=dict)
    files_read: list[str] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)


@dataclass
class Context:
    """What a resurrected agent is given about the original one."""

    method: str
    agent_id: str | None
    session_id: str | None
    agent_type: str | None
    description: str | None
    status: str | None
    project_path: str | None
    git_branch: str | None
    git_commit: str | None
    started_at: str | None
    completed_at: str | None
    duration: str | None
    original_prompt: str | None
    final_output: str | None
    files_analyzed: list[str]
    tool_usage: dict[str, Any]
    turns: int
    head: list[str] = field(default_factory=list)  # messages kept whole, as Markdown
    digest: Digest | None = None
    tail: list[str] = field(default_factory=list)
    transcript: str | None = None  # the full method: the whole conversation as Markdown
    findings: list[str] = field(default_factory=list)  # the agent's conclusions (module doc)
    compaction_summary: str | None = None  # hybrid, summarized: Claude Code's own (module doc)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Context:
        """A context read back; ``msgspec.ValidationError`` when ``data`` is not one (fields
        it does not know are left out)."""
        return msgspec.convert(data, cls)


def _messages(transcript: Transcript) -> list[Turn]:
    return [
        turn
        for turn in transcript.turns
        if turn.kind == COMPACTION or turn.text.strip() or turn.tool_calls
    ]


def _first_line(text: str | None, limit: int = 160) -> str:
    text = (text or "").replace("\\n", "\n")  # tool output quoted with escaped newlines
    lines = [part.strip() for part in text.splitlines() if part.strip()][:2]
    line = " ".join(lines) if len(lines) == 2 and lines[0].endswith(":") else "".join(lines[:1])
    return redact.one_line(line, limit)


def _condensed(text: str) -> str:
    return redact.one_line(" ".join(text.split()).lstrip("-*# "), FINDING_LENGTH)


def narration(sentence: str) -> bool:
    """A sentence that tells what the agent is about to do, or only reacts: no finding."""
    bare = _INTERJECTION.sub("", sentence.strip())
    return not bare.strip(" .!") or bool(_NARRATION.match(bare)) or bare.endswith(":")


def _stated(text: str) -> list[str]:
    """The sentences of ``text`` that are not narration, condensed."""
    kept = [_condensed(part) for part in _SENTENCE.split(text) if not narration(part)]
    return [sentence for sentence in kept if sentence]


def _conclusions(text: str) -> list[str]:
    """The sentences of ``text`` that state a decision, a cause, a fix or a result."""
    return [s for s in _stated(text) if len(s) > 20 and _FINDING.search(s)]


def findings(turns: list[Turn]) -> list[str]:
    """The agent's conclusions in ``turns``: its decision and result sentences (the latest
    ``MAX_FINDINGS``, less those its last answers hold), then its last ``LAST_TEXTS``
    substantive answers (messages that called no tool), without their narration."""
    said = [
        turn
        for turn in turns
        if turn.role == "agent"
        and turn.text.strip()
        and not turn.text.lstrip().startswith("API Error")
    ]
    found: dict[str, None] = {}
    for turn in said:
        for sentence in _conclusions(turn.text):
            found.setdefault(sentence, None)
    answers = [" ".join(_stated(turn.text)) for turn in said if not turn.tool_calls]
    last = [text for text in answers if len(text) >= SUBSTANTIVE][-LAST_TEXTS:]
    last = [_condensed(text) for text in last]
    kept = [s for s in found if not any(s in text for text in last)][-MAX_FINDINGS:]
    return list(dict.fromkeys([*kept, *last]))


def compaction_summary(transcript: Transcript) -> str | None:
    """Claude Code's summary at the conversation's latest compaction: its ``Summary:`` part
    (the whole text when it has none), without the instructions to the model that went on."""
    text = next((c.summary for c in reversed(transcript.compactions) if c.summary), None)
    if not text:
        return None
    start = _SUMMARY_START.search(text)
    text = text[start.end() :] if start else text
    return text.split(_SUMMARY_END, 1)[0].strip() or None


def _conversation(transcript: Transcript) -> list[Turn]:
    """The messages the conversation parts show: all but the first prompt (the original task)
    and the text of the agent's last message (its final output), which have sections of their
    own. A last message that also called tools keeps its calls."""
    messages = _messages(transcript)
    first = next((t for t in messages if t.kind in (PROMPT, COMMAND) and t.text.strip()), None)
    last = next((t for t in reversed(messages) if t.role == "agent" and t.text.strip()), None)
    shown = []
    for turn in messages:
        if turn is first:
            continue
        if turn is last:
            if not turn.tool_calls:
                continue
            turn = replace(turn, text="")
        shown.append(turn)
    return shown


def digest(turns: list[Turn], details: Details | None = None) -> Digest:
    """The condensed account of ``turns`` (deterministic: same turns, same digest); the results
    of failed calls come from ``details`` (by default, those the turns hold)."""
    details = details if details is not None else Details(Transcript(""))
    result = Digest(messages=len(turns))
    tools: dict[str, int] = {}
    read: dict[str, None] = {}
    changed: dict[str, None] = {}
    errors: dict[str, None] = {}
    findings: dict[str, None] = {}
    for turn in turns:
        for number, call in enumerate(turn.tool_calls):
            tools[call.name] = tools.get(call.name, 0) + 1
            if call.file_path:
                if call.name in CHANGE_TOOLS:
                    changed.setdefault(call.file_path, None)
                elif call.name in READ_TOOLS:
                    read.setdefault(call.file_path, None)
            if call.is_error and len(errors) < MAX_ERRORS:
                detail = _first_line(details.of(turn).results[number]) or "failed"
                errors.setdefault(f"{call.name} ({call.summary}): {detail}", None)
        if turn.role != "agent" or not turn.text.strip():
            continue
        if turn.text.lstrip().startswith("API Error") and len(errors) < MAX_ERRORS:
            errors.setdefault(_first_line(turn.text), None)
            continue
        for sentence in _conclusions(turn.text):
            if len(findings) >= MAX_FINDINGS:
                break
            findings.setdefault(sentence, None)
    result.tools = dict(sorted(tools.items(), key=lambda item: (-item[1], item[0])))
    result.files_read = [path for path in read if path not in changed]
    result.files_changed = list(changed)
    result.errors = list(errors)
    result.findings = list(findings)
    return result


def compress(
    transcript: Transcript, document: dict[str, Any], method: str, details: Details | None = None
) -> Context:
    """The context of ``transcript`` by ``method``; ``document`` is its TR-3 export (metadata).

    Tool inputs and results (the full method, the errors' details) come from ``details``; by
    default, those the transcript holds (read with ``ReadOptions(tools=True)``).
    """
    if method not in METHODS:
        raise ValueError(f"unknown context method {method!r}")
    details = details if details is not None else Details(transcript)
    context = Context(
        method=method,
        agent_id=document.get("agent_id"),
        session_id=document.get("session_id"),
        agent_type=document.get("agent_type"),
        description=document.get("description"),
        status=document.get("status"),
        project_path=document.get("project_path"),
        git_branch=document.get("git_branch"),
        git_commit=document.get("git_commit"),
        started_at=document.get("started_at"),
        completed_at=document.get("completed_at"),
        duration=format_duration(document.get("duration_ms")),
        original_prompt=document.get("original_prompt"),
        final_output=document.get("final_output"),
        files_analyzed=list(document.get("files_analyzed") or []),
        tool_usage=dict(document.get("tool_calls_summary") or {}),
        turns=transcript.turn_count,
    )
    messages = _conversation(transcript)
    context.findings = findings(messages)
    if method == "full":
        context.transcript = "".join(whole_conversation(messages, details))
    elif method == "summarized":
        context.digest = digest(messages, details)
    elif len(messages) <= SHORT_CONVERSATION:
        context.head = [rendering.turn_markdown(turn) for turn in messages]
    else:
        context.head = [rendering.turn_markdown(turn) for turn in messages[:KEEP_HEAD]]
        context.digest = digest(messages[KEEP_HEAD:-KEEP_TAIL], details)
        context.tail = [rendering.turn_markdown(turn) for turn in messages[-KEEP_TAIL:]]
    if context.digest is not None:  # the compaction is among the condensed messages
        context.compaction_summary = compaction_summary(transcript)
    return context


def whole_conversation(messages: list[Turn], details: Details) -> Iterator[str]:
    """The full method's conversation as Markdown, one message at a time (tools included)."""
    options = rendering.MarkdownOptions(tools=True)
    for turn in messages:
        yield rendering.turn_markdown(turn, options, details) + "\n"


def full_tokens(context: Context, transcript: Transcript, details: Details, render) -> int:
    """The tokens of the full method's prompt (``render(context)``) for ``context`` (a context
    of another method, of the same transcript), without holding the whole conversation: the
    prompt is rendered around a one-character stand-in and the conversation's length added."""
    written, length = stripped_length(whole_conversation(_conversation(transcript), details))
    full = replace(context, head=[], digest=None, tail=[], transcript="-" if written else None)
    text = render(full)
    if not written:
        return estimate_tokens(text)
    return (len(text) - 1 + length + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN  # "-" taken out


def stripped_length(chunks: Iterable[str]) -> tuple[int, int]:
    """``len("".join(chunks))`` and ``len("".join(chunks).strip())``, one chunk at a time."""
    written = trailing = 0
    leading = None  # the whitespace before the first character that is not
    for chunk in chunks:
        if leading is None and chunk.strip():
            leading = written + len(chunk) - len(chunk.lstrip())
        body = chunk.rstrip()
        trailing = trailing + len(chunk) if not body else len(chunk) - len(body)
        written += len(chunk)
    return written, (written - (leading or 0) - trailing) if leading is not None else 0
