"""What redaction would take out of a conversation, before anything leaves the tool.

``report`` reads a session's (or one agent's) transcript files record by record and runs the
redaction rules over every text value, so a user can review what a resurrection or an export
would hide: each finding by kind, by place (user text, tool input, tool result, assistant text,
thinking, other record fields), file and line, each shown as the placeholder that takes its place
(its kind and fingerprint): no character of a secret is shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.claude import records
from purlin_resume.claude.catalog import Catalog, session_paths
from purlin_resume.core import redact

PLACES = ("user text", "tool input", "tool result", "assistant text", "thinking", "record")


@dataclass(frozen=True)
class Exposure:
    file: str
    line: int
    place: str
    kind: str
    placeholder: str  # what takes the secret's place: its kind and fingerprint, none of it

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "place": self.place,
            "kind": self.kind,
            "placeholder": self.placeholder,
        }


@dataclass
class Report:
    target: str
    files: list[str]
    exposures: list[Exposure] = field(default_factory=list)

    @property
    def by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(e.kind for e in self.exposures).items()))

    @property
    def by_place(self) -> dict[str, int]:
        counts = Counter(e.place for e in self.exposures)
        return {place: counts[place] for place in PLACES if counts[place]}

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "files": self.files,
            "total": len(self.exposures),
            "by_kind": self.by_kind,
            "by_place": self.by_place,
            "findings": [e.to_dict() for e in self.exposures],
        }


def _strings(value: Any, place: str) -> Iterator[tuple[str, str]]:
    """Every text value under ``value`` with the place it belongs to."""
    if isinstance(value, str):
        yield place, value
    elif isinstance(value, dict):
        kind = value.get("type")
        if kind == "tool_use":
            place = "tool input"
        elif kind == "tool_result":
            place = "tool result"
        elif kind == "thinking":
            place = "thinking"
        for key, item in value.items():
            yield from _strings(item, "tool result" if key == "toolUseResult" else place)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, place)


def _record_strings(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    speaker = {"user": "user text", "assistant": "assistant text"}.get(record.get("type", ""))
    for key, value in record.items():
        if key == "message" and speaker:
            yield from _strings(value, speaker)
        elif key == "toolUseResult":
            yield from _strings(value, "tool result")
        else:
            yield from _strings(value, "record")


def _files(catalog: Catalog, identifier: str) -> tuple[str, list[Path]]:
    target = catalog.resolve(identifier)
    if target.agent is not None:
        return target.id, [target.agent.path]
    assert target.session is not None
    return target.id, session_paths(catalog, target.session)


@redact.remembering()  # as every output of the conversation: a secret once found, found again
def report(catalog: Catalog, identifier: str) -> Report:
    """What redaction finds in the files of the session or agent ``identifier``; a secret
    found in one text, also where a later text repeats it."""
    name, paths = _files(catalog, identifier)
    found = Report(name, [path.relative_to(catalog.root).as_posix() for path in paths])
    for path, shown in zip(paths, found.files, strict=True):
        if path.suffix != ".jsonl":
            continue
        stats = records.ReadStats()
        for record in records.read(path, stats):
            line = stats.lines
            for place, text in _record_strings(record):
                found.exposures += [
                    Exposure(shown, line, place, f.kind, f.placeholder) for f in redact.find(text)
                ]
    return found
