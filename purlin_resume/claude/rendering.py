"""A conversation as Markdown: a section per command, turns in order, tool calls one line each.

Each user request that starts a unit of work (a prompt, a slash command) is a ``##`` heading;
under it come the turns, ``**User:**`` or ``**Agent:**`` with their timestamps, in order. Turns
with nothing to show are left out. A command's output follows it. Tool calls are one line each,
or their full input and result with ``tools``; thinking is shown with ``thinking``. Compaction
gets its own section with the summary the model continued from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from purlin_resume.claude import export
from purlin_resume.claude.agent_tree import Subagent
from purlin_resume.claude.export import Unredacted
from purlin_resume.claude.transcript import (
    COMMAND,
    COMPACTION,
    NOTIFICATION,
    PROMPT,
    Details,
    ToolCall,
    Transcript,
    Turn,
)
from purlin_resume.core import redact
from purlin_resume.core.templating import counted

HEADING_LENGTH = 100
_HEADING = re.compile(r"#{1,6}(?:\s|$)")


@dataclass(frozen=True)
class MarkdownOptions:
    tools: bool = False
    thinking: bool = False


def no_history(target) -> str:
    """What is said of a conversation without turns, named as what it is (a ``Target``)."""
    what = target.kind if target.kind in ("session", "compaction") else "agent"
    return f"No conversation history found for {what} {target.id}\n"


def has_history(
    transcript: Transcript | None, options: MarkdownOptions = MarkdownOptions()
) -> bool:
    return transcript is not None and any(_shown(turn, options) for turn in transcript.turns)


def _one_line(text: str, limit: int = HEADING_LENGTH) -> str:
    return redact.one_line(text, limit)


def _fence(text: str, info: str = "") -> str:
    fence = "```"  # one backtick longer than the longest run of three or more in the text
    while fence in text:
        fence += "`"
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{info}\n{body}{fence}\n"


def demote_headings(text: str, levels: int = 2) -> str:
    """Push the Markdown headings inside a turn ``levels`` deeper (code blocks untouched), so
    an agent's own ``## Summary`` cannot be mistaken for a section of the transcript."""
    if "#" not in text:
        return text
    lines = text.split("\n")
    fence = ""
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = ""
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif _HEADING.match(line):
            depth = len(line) - len(line.lstrip("#"))
            lines[number] = "#" * min(depth + levels, 6) + line[depth:]
    return "\n".join(lines)


def _shown(turn: Turn, options: MarkdownOptions) -> bool:
    if turn.kind == COMPACTION:
        return True
    return (
        bool(turn.text.strip()) or bool(turn.tool_calls) or (options.thinking and turn.has_thinking)
    )


def _call_line(call: ToolCall) -> str:
    line = f"- `{call.name}`"
    if call.summary:
        line += f": {call.summary}"
    if call.spawns_agent:
        status = call.outcome.get("status") if call.answered else "unfinished"
        agent = f"agent `{call.agent_id}`" if call.agent_id else "agent"
        line += f" → {agent} ({status})"
    elif call.is_error:
        line += " (error)"
    return line + "\n"


def input_piece(data: dict[str, Any]) -> str:
    """A tool call's input as the transcript shows it with ``tools``."""
    return _fence(export.json_text(data), "json")


def result_piece(text: str) -> str:
    """A tool call's result as the transcript shows it under its label (``Result:``)."""
    return _fence(text, "text")


def thought_piece(text: str) -> str:
    """One thought as the transcript shows it with ``thinking``."""
    return "\n> _Thinking:_\n" + _quote(text)


def _call_detail(call: ToolCall, data: str | None, result: str | None) -> str:
    """A tool call with its input and result pieces (None: not shown)."""
    parts = [_call_line(call)]
    if data is not None:
        parts.append(data)
    if call.answered and result is not None:
        label = "Error" if call.is_error else "Result"
        parts.append(f"{label}:\n")
        parts.append(result)
    return "".join(parts)


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.strip().splitlines()) + "\n"


def header(transcript: Transcript, subagent: Subagent | None = None, kind: str = "session") -> str:
    """The title block: what this conversation is and the figures a reader checks first."""
    if kind == "session":
        title = f"# Session {transcript.id}"
    elif kind == "compaction":
        title = f"# Compaction run {transcript.id}"
    else:
        title = f"# Agent {transcript.id}"
        if subagent is not None and (subagent.agent_type or subagent.description):
            title += f" ({subagent.agent_type or 'agent'}): {_one_line(subagent.description or '')}"
    lines = [title.rstrip(": "), ""]
    if kind != "session" and transcript.session_id:
        lines.append(f"- Session: `{transcript.session_id}`")
    if transcript.project_path:
        lines.append(f"- Project: `{transcript.project_path}`")
    if transcript.git_branch:
        lines.append(f"- Branch: `{transcript.git_branch}`")
    if transcript.started_at:
        lines.append(f"- Time: {transcript.started_at} → {transcript.ended_at}")
    counts = transcript.tool_counts()
    figures = f"- Turns: {transcript.turn_count} · Tool calls: {sum(counts.values())}"
    if transcript.compactions:
        figures += f" · Compactions: {len(transcript.compactions)}"
    lines.append(figures)
    if subagent is not None:
        lines.append(f"- Status: {subagent.status}")
    stats = transcript.stats
    skipped = []
    if stats.malformed:
        skipped.append(f"{stats.malformed} malformed line(s)")
    if stats.unknown:
        skipped.append(f"{stats.unknown} record(s) of unknown type ({stats.unknown_named})")
    if stats.duplicates:
        skipped.append(f"{stats.duplicates} duplicate record(s)")
    if skipped:
        lines.append("- Skipped: " + ", ".join(skipped))
    if stats.unreadable:  # read as far as it could be, and no further
        lines.append(f"- Read in part: {stats.unreadable}")
    return "\n".join(lines) + "\n"


def _turn(turn: Turn, options: MarkdownOptions, details: Details) -> str:
    return "".join(_turn_parts(turn, options, details))


def _turn_parts(
    turn: Turn,
    options: MarkdownOptions,
    details: Details,
    unredacted: bool = False,
) -> list[str]:
    """The Markdown of a turn in parts; ``unredacted``: each thought an ``Unredacted`` part,
    quoted once redacted (the quote's marks would hide a secret written over several lines from
    a scan of the output)."""
    label = "**User:**" if turn.role == "user" else "**Agent:**"
    stamp = f" _{turn.timestamp}_" if turn.timestamp else ""
    parts = [f"{label}{stamp}\n"]
    if turn.kind == NOTIFICATION:
        parts.append(f"(background task) {turn.text.strip()}\n")
    elif turn.text.strip():
        parts.append(demote_headings(turn.text.strip()) + "\n")
    if turn.output:
        parts.append("\nOutput:\n" + result_piece(turn.output))
    shown = details.of(turn) if options.thinking or options.tools else None
    if shown is not None and options.thinking:
        if unredacted:
            parts.extend(Unredacted(thought, thought_piece) for thought in shown.thinking)
        else:
            parts.extend(thought_piece(thought) for thought in shown.thinking)
    if turn.tool_calls:
        parts.append("\n")
        if shown is not None and options.tools:
            parts.extend(
                _call_detail(
                    call,
                    input_piece(data) if data is not None else None,
                    result_piece(result) if result is not None else None,
                )
                for call, data, result in zip(
                    turn.tool_calls, shown.inputs, shown.results, strict=True
                )
            )
        else:
            parts.extend(_call_line(call) for call in turn.tool_calls)
    return parts


def _merged(parts: Iterable[str]) -> Iterator[str]:
    """``parts`` with each run of plain ones joined (an ``Unredacted`` part stays apart)."""
    run: list[str] = []
    for part in parts:
        if isinstance(part, Unredacted):
            if run:
                yield "".join(run)
                run = []
            yield part
        else:
            run.append(part)
    if run:
        yield "".join(run)


def _compaction(turn: Turn, transcript: Transcript, index: int) -> str:
    compaction = transcript.compactions[index] if index < len(transcript.compactions) else None
    facts = [turn.timestamp or ""]
    if compaction is not None:
        if compaction.trigger:
            facts.append(compaction.trigger)
        if compaction.pre_tokens:
            facts.append(f"{compaction.pre_tokens} tokens before")
        if compaction.agent_id:
            facts.append(f"summary by `{compaction.agent_id}`")
    parts = ["## Conversation compacted\n\n", "_" + " · ".join(f for f in facts if f) + "_\n"]
    if turn.text.strip():
        parts.append("\n" + demote_headings(turn.text.strip()) + "\n")
    return "".join(parts)


@dataclass(frozen=True)
class Section:
    heading: str
    timestamp: str | None
    turns: int
    line: int  # the line of its heading in the Markdown (1-based)


def chunks(
    transcript: Transcript,
    options: MarkdownOptions = MarkdownOptions(),
    subagent: Subagent | None = None,
    kind: str = "session",
    details: Details | None = None,
    sections: list[Section] | None = None,
    unredacted: bool = False,
) -> Iterator[str]:
    """The Markdown of ``transcript`` piece by piece, to be written as it comes: its header,
    then the pieces of each shown turn. Its sections (for a digest) are added to ``sections``.
    ``unredacted``: each thought an ``Unredacted`` piece, quoted once redacted."""
    details = details if details is not None else Details(transcript)
    found: list[Section] = sections if sections is not None else []
    head = header(transcript, subagent, kind)
    yield head
    newlines = head.count("\n")
    section: list | None = None  # heading, timestamp, turns, line: the one being written
    compactions_seen = 0
    for turn in transcript.turns:
        if not _shown(turn, options):
            continue
        if turn.kind == COMPACTION:
            block = "\n" + _compaction(turn, transcript, compactions_seen)
            compactions_seen += 1
            if section is not None:
                found.append(Section(*section))
            section = ["Conversation compacted", turn.timestamp, 0, newlines + 2]
        else:
            block = ""
            if turn.kind in (PROMPT, COMMAND) or section is None:
                heading = _one_line(turn.text) if turn.kind in (PROMPT, COMMAND) else "Start"
                block = f"\n## {heading or 'Start'}\n"
                if section is not None:
                    found.append(Section(*section))
                section = [heading or "Start", turn.timestamp, 0, newlines + 2]
            section[2] += 1
            block += "\n"
        parts = (
            [block]
            if turn.kind == COMPACTION
            else [block, *_turn_parts(turn, options, details, unredacted)]
        )
        for piece in _merged(parts):
            yield piece
            if sections is not None:  # the lines sections start on are only asked for a digest
                shown_as = piece.lay_out(piece) if isinstance(piece, Unredacted) else piece
                newlines += shown_as.count("\n")
    if section is not None:
        found.append(Section(*section))
    details.close()


def render(
    transcript: Transcript,
    options: MarkdownOptions = MarkdownOptions(),
    subagent: Subagent | None = None,
    kind: str = "session",
    details: Details | None = None,
) -> tuple[str, list[Section]]:
    """The Markdown of ``transcript`` and its sections (for a digest), whole."""
    sections: list[Section] = []
    text = "".join(chunks(transcript, options, subagent, kind, details, sections))
    return text, sections


def digest(
    length: int,
    end: str,
    sections: list[Section],
    transcript: Transcript,
    written_to: Path,
    max_chars: int,
    subagent: Subagent | None = None,
    kind: str = "session",
) -> str:
    """A bounded stand-in for a transcript too long to print: where the whole one is, an index
    of its sections and as many of its last turns as fit in ``max_chars``. ``length``: the
    transcript's characters; ``end``: its last ``max_chars`` characters at least (all of them
    when it is shorter), the header excluded. Where the whole is goes first and is never cut:
    when even the header does not fit, that line is all."""
    where = f"It was written to:\n\n{written_to}\n\n"
    top = header(transcript, subagent, kind) + (
        f"\nThe full transcript is {length} characters, more than the {max_chars} this "
        f"output allows. {where}"
        "Read that file (in parts) for the whole conversation. Below: its sections, with the line\n"
        "each starts on, then its end.\n"
    )
    if len(top) > max_chars:
        return f"The full transcript ({length} characters) is longer than {max_chars}. {where}"
    index_block = _section_index(sections, (max_chars - len(top)) * 2 // 5)
    room = max_chars - len(top) - len(index_block) - len(_END_HEADING)
    tail = end[-room:] if room > 0 else ""
    cut = tail.find("\n**")  # from the first turn that starts in it, when one does
    if cut >= 0 and len(end) > room:
        tail = tail[cut + 1 :]
    return top + index_block + (_END_HEADING + tail.lstrip() if tail.strip() else "")


_END_HEADING = "\n## The end of the transcript\n\n"


def _section_index(sections: list[Section], budget: int) -> str:
    """The index of the sections, the last ones that fit in ``budget`` characters."""
    lines = [
        f"{number}. line {section.line} · {section.timestamp or '-'} · {section.heading} "
        f"({counted(section.turns, 'turn')})\n"
        for number, section in enumerate(sections, 1)
    ]
    index = ""
    kept = 0
    for line in reversed(lines):
        if len(index) + len(line) + 60 > budget:
            break
        index = line + index
        kept += 1
    if kept < len(lines):
        index = f"… {len(lines) - kept} earlier section(s) …\n" + index
    return f"\n## Sections\n\n{index}" if lines else ""


def turn_markdown(
    turn: Turn, options: MarkdownOptions = MarkdownOptions(), details: Details | None = None
) -> str:
    """One turn as the transcript shows it (a compaction turn: its summary, quoted as such)."""
    if turn.kind == COMPACTION:
        return "**Conversation compacted; the summary:**\n" + demote_headings(turn.text.strip())
    if details is None:
        details = Details(Transcript(""))
    return _turn(turn, options, details)
