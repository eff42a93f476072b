"""How much of a resurrection prompt's "Original agent's findings" is narration, on the real
transcripts in tests/fixtures/claude.

    .venv/bin/python benchmarks/findings.py [--show]

For every conversation of the fixtures (each session's main agent and each subagent; compaction
runs are not agents), the hybrid context is made as ``resurrect`` makes it, and each of its
findings lines is judged. A line is narration when one of its sentences announces the agent's
next step (it begins, after an interjection such as "Perfect!", with "let me", "let's", "I'll",
"I will", "I'm going to", "I need to", "now I", "next I"), when it is only an interjection, or
when it ends in a colon (it introduces a tool call). The judge is written here, apart from the
product's filter; ``--show`` prints every line with its verdict so a reader can check it.

The anchor is the same judge over every line the agents wrote (all their messages but the final
outputs): what a findings section drawn from the messages without a filter holds. Also printed:
the sessions with a compaction whose hybrid prompt holds Claude Code's own summary.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = Path(os.environ.get("PURLIN_FIXTURES", REPO / "tests" / "fixtures" / "claude"))
sys.path.insert(0, str(REPO))

from purlin_resume.claude import export  # noqa: E402
from purlin_resume.claude.catalog import Catalog  # noqa: E402
from purlin_resume.claude.transcript import ReadOptions  # noqa: E402
from purlin_resume.resurrection import compress  # noqa: E402
from purlin_resume.resurrection import flow as resurrection  # noqa: E402

_REACTION = re.compile(
    r"^(?:(?:perfect|great|excellent|good|nice|awesome|ok|okay|alright|ah|oh|i see)\b[,.!]*\s*)+",
    re.I,
)
_NEXT_STEP = re.compile(
    r"^(?:(?:now|next|then|first|so)\b,?\s+)?"
    r"(?:let me|let's|i'll|i will|i'm going to|i am going to|i need to)\b",
    re.I,
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def judged_narration(line: str) -> bool:
    """The benchmark's judge (the module docstring): narration or not."""
    line = line.strip()
    if line.endswith(":") or not _REACTION.sub("", line).strip(" .!"):
        return True
    return any(_NEXT_STEP.match(_REACTION.sub("", s.strip())) for s in _SENTENCES.split(line))


def conversations(root: Path):
    """(label, transcript, export document) of every agent in the fixtures."""
    catalog = Catalog(root)
    for session in catalog.session_files():
        view = catalog.view(session, ReadOptions(tools=True))
        found = [(session.id[:8], None, view.main)]
        found += [(f"{session.id[:8]}/{agent}", agent, t) for agent, t in view.agents.items()]
        for label, agent, transcript in found:
            if transcript is None or not transcript.turns:
                continue
            node = view.find(agent) if agent else None
            kind = "agent" if agent else "session"
            yield label, transcript, export.document(transcript, node, tools=False, kind=kind)


def measure(root: Path, show: bool = False) -> dict[str, float | int]:
    lines = narrated = said = said_narrated = compacted = summarised = 0
    for label, transcript, document in conversations(root):
        context = compress.compress(transcript, document, "hybrid")
        for line in context.findings:
            verdict = judged_narration(line)
            lines += 1
            narrated += verdict
            if show:
                print(f"{label:<20} {'NARRATION' if verdict else 'finding  '} {line[:110]}")
        final = (document.get("final_output") or "").strip()
        for turn in transcript.turns:
            if turn.role == "agent" and turn.text.strip() and turn.text.strip() != final:
                for sentence in filter(None, (s.strip() for s in turn.text.splitlines())):
                    said += 1
                    said_narrated += judged_narration(sentence)
        if transcript.compactions:
            compacted += 1
            summary = compress.compaction_summary(transcript) or "\0"
            summarised += summary[:200] in resurrection.render_prompt(context, None)
    return {
        "lines": lines,
        "narrated": narrated,
        "share": narrated / lines if lines else 0.0,
        "anchor_lines": said,
        "anchor_share": said_narrated / said if said else 0.0,
        "compacted": compacted,
        "summarised": summarised,
    }


def rows(root: Path = FIXTURES, show: bool = False) -> list[tuple[str, str, str]]:
    found = measure(root, show)
    return [
        (
            "findings lines that are narration (hybrid)",
            f"{found['share']:.0%}",
            f"{found['narrated']} of {found['lines']} lines; budget 0%",
        ),
        (
            "anchor: narration among all lines the agents wrote",
            f"{found['anchor_share']:.0%}",
            f"of {found['anchor_lines']} lines",
        ),
        (
            "sessions with a compaction: its summary in the prompt",
            f"{found['summarised']} of {found['compacted']}",
            "budget: all",
        ),
    ]


def main(argv: list[str] | None = None) -> list[tuple[str, str, str]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print every line with its verdict")
    args = parser.parse_args(argv)
    print("findings of the resurrection prompt, on the fixture transcripts")
    found = rows(FIXTURES, args.show)
    for label, value, note in found:
        print(f"  {label:<55} {value:>10}  {note}")
    return found


if __name__ == "__main__":
    main()
