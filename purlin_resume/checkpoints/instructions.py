"""Instruction layers, the Role Compact condensed from them, and the role's command table.

Layers, in order: ``instructions/HOW_WE_WORK_BASE.md``, ``instructions/<ROLE>_BASE.md`` (the
project's own copy when it has one, else the copy shipped with purlin-resume), then the project
overrides ``.purlin/HOW_WE_WORK_OVERRIDES.md`` and ``.purlin/<ROLE>_OVERRIDES.md``. An override
section with the same title as a base section replaces it: project overrides win.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from purlin_resume.core import redact
from purlin_resume.core.project import Project
from purlin_resume.core.resources import data_dir

HOW_WE_WORK = "HOW_WE_WORK"
MAX_RULES = 12
MAX_PROTOCOLS = 4
MAX_STEPS = 8
MAX_RULE_CHARS = 200

_PROHIBITION = re.compile(
    r"\b(never|must not|do not|don't|shall not|cannot|forbidden|prohibited|not allowed)\b", re.I
)
_MANDATE = re.compile(r"\b(must|always|shall|required|mandatory|responsible for|only)\b", re.I)
_PROTOCOL_TITLE = re.compile(r"protocol|workflow|procedure|steps|lifecycle|sequence", re.I)
_NUMBERING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[ivx]+\.)\s+", re.I)
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")


@dataclass(frozen=True)
class Layer:
    """One instruction file: where it came from and its text (empty when absent)."""

    name: str
    path: Path | None
    text: str

    @property
    def present(self) -> bool:
        return bool(self.text.strip())


def _source(project: Project, relative: str) -> tuple[Path | None, str]:
    for folder in (project.root / "instructions", data_dir("instructions")):
        candidate = folder / relative
        if candidate.is_file():
            return candidate, candidate.read_text(encoding="utf-8", errors="replace")
    return None, ""


def _override(path: Path) -> tuple[Path | None, str]:
    if path.is_file():
        return path, path.read_text(encoding="utf-8", errors="replace")
    return None, ""


def layers(project: Project, role: str) -> list[Layer]:
    """The four layers for ``role`` in order (absent overrides have empty text)."""
    upper = role.upper()
    found = []
    for name in (f"{HOW_WE_WORK}_BASE.md", f"{upper}_BASE.md"):
        path, text = _source(project, name)
        found.append(Layer(f"instructions/{name}", path, text))
    for name in (f"{HOW_WE_WORK}_OVERRIDES.md", f"{upper}_OVERRIDES.md"):
        path, text = _override(project.purlin_dir / name)
        found.append(Layer(f".purlin/{name}", path, text))
    return found


def launcher_loaded(system_prompt: str | None, role_layer: Layer) -> bool:
    """Whether a system prompt already carries the role's base instructions (its title line)."""
    if not system_prompt or not role_layer.present:
        return False
    title = next((line.strip() for line in role_layer.text.splitlines() if line.strip()), "")
    return bool(title) and title in system_prompt


# ---------------------------------------------------------------------------------------------
# Sections and the Role Compact


@dataclass
class Section:
    title: str
    lines: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return _NUMBERING.sub("", self.title).strip().lower()


def sections(text: str) -> list[Section]:
    """Split Markdown into sections at ``#``-``####`` headings (fenced code is not split)."""
    found = [Section("")]
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"^#{1,4}\s+(.*?)\s*#*\s*$", line)
        if heading:
            found.append(Section(heading.group(1)))
        else:
            found[-1].lines.append(line)
    return found


def merge(per_layer: list[list[Section]]) -> list[Section]:
    """The layers' sections in order; a later section with a known title replaces the earlier one."""
    merged: list[Section] = []
    index: dict[str, int] = {}
    for layer_sections in per_layer:
        for section in layer_sections:
            if section.key in index:
                merged[index[section.key]] = section
                continue
            if section.key:
                index[section.key] = len(merged)
            merged.append(section)
    return merged


def _plain(text: str) -> str:
    """Markdown emphasis, code ticks, links and quote marks removed; whitespace folded."""
    text = re.sub(r"^\s*>\s?", "", text)
    text = re.sub(r"\*\*|__|`", "", text)
    text = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r"\1", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    return " ".join(text.split())


def _first_sentence(text: str) -> str:
    text = _plain(text)
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    sentence = match.group(1) if match and len(match.group(1)) >= 20 else text
    return redact.one_line(sentence, MAX_RULE_CHARS)


def _statements(section: Section) -> list[str]:
    """List items and paragraph sentences of a section, outside code fences."""
    out: list[str] = []
    paragraph: list[str] = []
    fenced = False
    for line in [*section.lines, ""]:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        item = _ITEM.match(line)
        if item or not line.strip() or line.lstrip().startswith("|"):
            if paragraph:
                out += re.split(r"(?<=[.!?])\s+", " ".join(paragraph))
                paragraph = []
            if item:
                out.append(item.group(1))
        elif out and line.startswith("  ") and not paragraph:
            out[-1] += " " + line.strip()
        else:
            paragraph.append(line.strip())
    return [s for s in out if s.strip()]


@dataclass(frozen=True)
class RoleCompact:
    """The focused digest of a role's instructions: not a dump of them."""

    role: str
    mandates: tuple[str, ...]
    prohibitions: tuple[str, ...]
    protocols: tuple[tuple[str, tuple[str, ...]], ...]
    sources: tuple[str, ...]
    source_chars: int

    @property
    def chars(self) -> int:
        return sum(len(r) for r in self.mandates + self.prohibitions) + sum(
            len(t) + sum(len(s) for s in steps) for t, steps in self.protocols
        )


def role_compact(role: str, all_layers: list[Layer]) -> RoleCompact:
    """Condense the layers into mandates, prohibitions and protocol steps.

    Override layers come first in each list, so the project's own rules are never crowded out.
    """
    present = [(layer, sections(layer.text)) for layer in all_layers if layer.present]
    kept = {id(section) for section in merge([found for _, found in present])}
    overrides_first = sorted(present, key=lambda pair: not pair[0].name.startswith(".purlin/"))
    mandates: list[str] = []
    prohibitions: list[str] = []
    protocols: list[tuple[str, tuple[str, ...]]] = []
    seen: set[str] = set()
    for _layer, layer_sections in overrides_first:
        for section in layer_sections:
            if id(section) not in kept:
                continue  # replaced by an override
            if _PROTOCOL_TITLE.search(section.title):
                steps = tuple(
                    _first_sentence(m.group(1))
                    for m in (_NUMBERED.match(line) for line in section.lines)
                    if m
                )[:MAX_STEPS]
                if steps and len(protocols) < MAX_PROTOCOLS:
                    protocols.append((_plain(_NUMBERING.sub("", section.title)), steps))
                    continue
            for statement in _statements(section):
                rule = _first_sentence(statement)
                if rule.lower() in seen:
                    continue
                if _PROHIBITION.search(rule):
                    target = prohibitions
                elif _MANDATE.search(rule):
                    target = mandates
                else:
                    continue
                if len(target) < MAX_RULES:
                    target.append(rule)
                    seen.add(rule.lower())
    return RoleCompact(
        role=role,
        mandates=tuple(mandates),
        prohibitions=tuple(prohibitions),
        protocols=tuple(protocols),
        sources=tuple(layer.name for layer, _ in present),
        source_chars=sum(len(layer.text) for layer, _ in present),
    )


# ---------------------------------------------------------------------------------------------
# Command tables


@dataclass(frozen=True)
class CommandTable:
    variant: str  # "main" or "isolated"
    text: str
    source: Path


def command_table(
    project: Project, role: str, branch: str, main_branches: tuple[str, ...]
) -> CommandTable | None:
    """The main-branch or isolated-branch variant of ``references/<role>_commands.md``, verbatim."""
    path, text = _source(project, f"references/{role}_commands.md")
    if path is None:
        return None
    variant = "main" if branch in main_branches else "isolated"
    chosen = None
    for section in sections(text):
        title = section.title.lower()
        is_main = "main" in title
        if (variant == "main") == is_main and (
            "main" in title or "isolated" in title or "branch" in title
        ):
            chosen = section
            break
    if chosen is None:
        return CommandTable(variant, text.strip(), path)
    body = "\n".join(chosen.lines)
    fence = re.search(r"```[^\n]*\n(.*?)```", body, re.S)
    return CommandTable(variant, (fence.group(1) if fence else body).strip("\n"), path)
