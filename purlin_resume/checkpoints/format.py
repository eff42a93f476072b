"""The session checkpoint: its fields, its Markdown shape, and the parser that reads it back.

The shape is the ``/pl-resume`` one: ``**Label:** value`` fields at the top and under
``## Current Work``, the Done and Next lists under it, one ``##`` section per other field.
``render`` and ``parse`` both follow ``FIELDS``; parsing is the exact inverse for
every normalised checkpoint (``parse(render(c)) == c``), so a checkpoint can be saved, read,
and saved again without drifting.

Normalisation keeps the format unambiguous: one-line fields and list items have their
whitespace folded to single spaces; free-text sections keep their lines, and a line of theirs
that starts with ``#`` is stored behind a backslash so it can never be read as a heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from purlin_resume.checkpoints.roles import ROLES, with_article
from purlin_resume.core.errors import UsageError

Kind = Literal["line", "list", "numbered", "text"]
NONE = "None"

PROTOCOL_STEPS = {
    0: "Preflight",
    1: "Acknowledge/Plan",
    2: "Implement/Document",
    3: "Verify Locally",
    4: "Commit Status Tag",
}


@dataclass(frozen=True)
class Field:
    """One checkpoint field: its key (YAML and Python), Markdown label, kind and roles."""

    key: str
    label: str
    kind: Kind
    roles: tuple[str, ...] = ROLES
    required: bool = False
    help: str = ""
    option: str = ""  # the ``save`` option, when it is not ``--KEY`` (repeatable ones are singular)

    @property
    def flag(self) -> str:
        return self.option or "--" + self.key.replace("_", "-")

    def as_option(self) -> str:
        """The field as an error names it to a ``save`` user: its key and its option."""
        return f"{self.key} ({self.flag})"


FIELDS: tuple[Field, ...] = (
    Field("feature", "Feature", "line", help='feature being worked on, or "none"'),
    Field("in_progress", "In Progress", "line", required=True, help="what is actively in progress"),
    Field("step", "Step", "line", ("builder",), True, "protocol step 0-4 (with --step-note)"),
    Field(
        "scenario_progress",
        "Scenario Progress",
        "line",
        ("qa",),
        True,
        'e.g. "5 of 8 scenarios completed"',
    ),
    Field("current_scenario", "Current Scenario", "line", ("qa",), True, "scenario being verified"),
    Field("done", "Done", "list", help="completed this session (repeatable)"),
    Field("next", "Next", "numbered", required=True, help="next steps in order (repeatable)"),
    Field(
        "delivery_plan", "Delivery Plan", "text", ("builder",), help="phase, status, features done"
    ),
    Field(
        "work_queue",
        "Work Queue",
        "numbered",
        ("builder",),
        help="remaining features by priority (repeatable)",
    ),
    Field(
        "pending_decisions",
        "Pending Decisions",
        "list",
        ("builder",),
        help="decisions not yet recorded (repeatable)",
        option="--pending-decision",
    ),
    Field(
        "discoveries",
        "Discoveries",
        "list",
        ("qa",),
        help="discoveries recorded this session (repeatable)",
        option="--discovery",
    ),
    Field(
        "verification_queue",
        "Verification Queue",
        "text",
        ("qa",),
        help="features verified vs remaining",
    ),
    Field(
        "spec_reviews",
        "Spec Reviews",
        "list",
        ("architect",),
        True,
        "spec reviews in progress (repeatable)",
        option="--spec-review",
    ),
    Field(
        "discovery_processing",
        "Discovery Processing",
        "text",
        ("architect",),
        help="discoveries reviewed vs pending",
    ),
    Field("notes", "Notes", "text", help="open questions, blockers"),
)
FIELDS_BY_KEY = {f.key: f for f in FIELDS}


def fields_for(role: str) -> tuple[Field, ...]:
    return tuple(f for f in FIELDS if role in f.roles)


@dataclass(frozen=True)
class Checkpoint:
    """One saved session state. Lists are tuples; absent text is ``"None"``."""

    role: str
    timestamp: str
    branch: str
    session: str | None = None
    source: str | None = None
    feature: str = "none"
    in_progress: str = ""
    step: str = ""
    scenario_progress: str = ""
    current_scenario: str = ""
    done: tuple[str, ...] = ()
    next: tuple[str, ...] = ()
    delivery_plan: str = NONE
    work_queue: tuple[str, ...] = ()
    pending_decisions: tuple[str, ...] = ()
    discoveries: tuple[str, ...] = ()
    verification_queue: str = NONE
    spec_reviews: tuple[str, ...] = ()
    discovery_processing: str = NONE
    uncommitted: tuple[str, ...] = ()
    notes: str = NONE

    def normalized(self) -> Checkpoint:
        """The same checkpoint in canonical form (what render and parse agree on)."""
        values: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("session", "source"):
                values[f.name] = fold(value) or None if value is not None else None
            elif isinstance(value, tuple):
                values[f.name] = tuple(item for item in (fold(v) for v in value) if item)
            elif f.name in FIELDS_BY_KEY and FIELDS_BY_KEY[f.name].kind == "text":
                values[f.name] = text_block(value)
            else:
                values[f.name] = fold(value)
        if not values["feature"]:
            values["feature"] = "none"
        return replace(self, **values)

    @property
    def step_number(self) -> int | None:
        match = re.match(r"(\d+)\b", self.step)
        return int(match.group(1)) if match else None


def fold(text: str) -> str:
    """One line: every run of whitespace (newlines included) becomes one space."""
    return " ".join(str(text).split())


def text_block(text: str) -> str:
    """Free text: line ends unified, trailing spaces and blank edges dropped; empty is "None"."""
    lines = [
        line.rstrip() for line in str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    ]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) or NONE


_HEADING_LIKE = re.compile(r"^(\\*)#")
_ESCAPED_HEADING = re.compile(r"^\\(\\*#)")


def escape_block(text: str) -> str:
    """Put a backslash before lines that start with ``#`` (or backslashes then ``#``)."""
    return "\n".join(_HEADING_LIKE.sub(r"\\\1#", line) for line in text.split("\n"))


def unescape_block(text: str) -> str:
    return "\n".join(_ESCAPED_HEADING.sub(r"\1", line) for line in text.split("\n"))


def protocol_step(value: Any, note: str | None = None) -> str:
    """``3`` or ``"3"`` → ``"3 -- Verify Locally"`` (plus ``" (note)"``); a full text is kept."""
    text = fold(str(value))
    match = re.fullmatch(r"(\d+)(?:\s*--.*)?", text, re.DOTALL)
    if not match or int(match.group(1)) not in PROTOCOL_STEPS:
        raise UsageError(
            f"protocol step must be 0-4 (got '{text}'); steps: "
            + ", ".join(f"{n} {name}" for n, name in PROTOCOL_STEPS.items())
        )
    if text == match.group(1):
        text = f"{text} -- {PROTOCOL_STEPS[int(text)]}"
    if note and fold(note):
        text += f" ({fold(note)})"
    return text


def render(checkpoint: Checkpoint) -> str:
    """The checkpoint as Markdown: the header; ``## Current Work`` with the feature, what is in
    progress and the role's own one-line fields, then Done and Next; a ``##`` section for each
    other field of the role (in ``FIELDS`` order); the uncommitted changes and the notes."""
    cp = checkpoint.normalized()
    own = [f for f in fields_for(cp.role) if f.roles != ROLES]
    header = [("Role", cp.role), ("Timestamp", cp.timestamp), ("Branch", cp.branch)]
    header += [(label, v) for label, v in (("Session", cp.session), ("Source", cp.source)) if v]
    work = [("Feature", cp.feature), ("In Progress", cp.in_progress)]
    work += [(f.label, getattr(cp, f.key)) for f in own if f.kind == "line"]
    lines = ["# Session Checkpoint", ""] + [f"**{label}:** {value}" for label, value in header]
    lines += ["", "## Current Work", ""] + [f"**{label}:** {value}" for label, value in work]
    lines += ["", "### Done", shown("list", cp.done), "", "### Next", shown("numbered", cp.next)]
    for f in own:
        if f.kind != "line":
            lines += ["", f"## {f.label}", shown(f.kind, getattr(cp, f.key))]
    lines += ["", "## Uncommitted Changes", shown("list", cp.uncommitted)]
    lines += ["", "## Notes", shown("text", cp.notes), ""]
    return "\n".join(lines)


def shown(kind: Kind, value: Any) -> str:
    """A section's value as its Markdown: bullets, a numbered list or escaped free text."""
    if kind == "text":
        return escape_block(value)
    if kind == "numbered":
        return "\n".join(f"{n}. {item}" for n, item in enumerate(value, 1)) or NONE
    return "\n".join(f"- {item}" for item in value) or NONE


# ---------------------------------------------------------------------------------------------
# Parsing

_LABEL = re.compile(r"^\*\*(?P<label>[^*]+?):\*\*\s?(?P<value>.*)$")
# what no field may hold: control characters but tab and line breaks (a field's text is put on
# lines of its own), DEL and the C1 controls (what a terminal acts on)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+(?P<item>.*)$")
_HEADER_LABELS = {
    "role": "role",
    "timestamp": "timestamp",
    "branch": "branch",
    "session": "session",
    "source": "source",
}
_LABELS = {f.label.lower(): f.key for f in FIELDS if f.kind == "line"} | {
    "protocol step": "step",
    "current feature": "feature",
}
_SECTIONS = {f.label.lower(): f.key for f in FIELDS if f.kind != "line"} | {
    "uncommitted changes": "uncommitted"
}


def parse(text: str) -> Checkpoint:
    """Read a checkpoint back into its fields (unknown labels and sections are ignored).

    Raises UsageError when the text is not a checkpoint (no ``**Role:**`` of a known role).
    """
    values: dict[str, Any] = {}
    collected: dict[str, list[str]] = {}
    section: str | None = None  # None: labelled lines; a field key: its lines; "": skipped
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        heading = re.match(r"^(#{1,3}) (.*)$", line)
        if heading:
            title = heading.group(2).strip().lower()
            if heading.group(1) == "#" or title == "current work":
                section = None
            else:
                section = _SECTIONS.get(title, "")
                if section:
                    collected.setdefault(section, [])
            continue
        if section is None:
            label = _LABEL.match(line)
            if label:
                name = label["label"].strip().lower()
                key = _HEADER_LABELS.get(name) or _LABELS.get(name)
                if key:
                    values[key] = label["value"]
        elif section:
            collected[section].append(line)
    for key, lines in collected.items():
        if key in _TEXT_KEYS:
            values[key] = unescape_block(text_block("\n".join(lines)))
        else:
            values[key] = _items(lines)
    role = fold(values.pop("role", "")).lower()
    if role not in ROLES:
        raise UsageError("not a checkpoint: no '**Role:**' line naming architect, builder or qa")
    values.setdefault("timestamp", "")
    values.setdefault("branch", "")
    return Checkpoint(role=role, **values).normalized()


_TEXT_KEYS = {f.key for f in FIELDS if f.kind == "text"}


def _items(lines: Iterable[str]) -> tuple[str, ...]:
    items: list[str] = []
    for line in lines:
        match = _LIST_ITEM.match(line)
        if match:
            items.append(match["item"])
        elif line.startswith("  ") and items:  # a wrapped item continues
            items[-1] += " " + line.strip()
    return tuple(items)


# ---------------------------------------------------------------------------------------------
# Building one from the caller's fields


def missing_fields(role: str, values: Mapping[str, Any]) -> list[Field]:
    """Required fields of ``role`` that are absent or empty in ``values``."""
    missing = []
    for f in fields_for(role):
        value = values.get(f.key)
        empty = value is None or (
            not any(fold(v) for v in value) if isinstance(value, (list, tuple)) else not fold(value)
        )
        if f.required and empty:
            missing.append(f)
    return missing


def from_fields(
    role: str,
    values: Mapping[str, Any],
    *,
    timestamp: str,
    branch: str,
    uncommitted: Iterable[str],
    session: str | None = None,
    source: str | None = None,
    spelled: Callable[[Field], str] = Field.as_option,
) -> Checkpoint:
    """A checkpoint from caller-supplied fields (keys of FIELDS, plus ``step_note``).

    Every missing required field is reported at once, each named as ``spelled`` writes it
    (the ``save`` option by default); a field of another role is an error.
    """
    _check_fields(role, values, spelled)
    data = _field_values(role, values, spelled)
    if role == "builder":
        data["step"] = protocol_step(data["step"], values.get("step_note"))
    return Checkpoint(
        role=role,
        timestamp=timestamp,
        branch=branch,
        session=session,
        source=source,
        uncommitted=tuple(uncommitted),
        **data,
    ).normalized()


def _check_fields(role: str, values: Mapping[str, Any], spelled: Callable[[Field], str]) -> None:
    """Refuse an unknown role, a field of another role, and (all at once) missing fields."""
    if role not in ROLES:
        raise UsageError(f"unknown role '{role}': valid roles are {', '.join(ROLES)}")
    allowed = {f.key for f in fields_for(role)} | ({"step_note"} if role == "builder" else set())
    foreign = sorted(k for k, v in values.items() if k not in allowed and v not in (None, [], ()))
    if foreign:
        raise UsageError(
            f"not fields of {with_article(role)} checkpoint: {', '.join(foreign)} "
            f"(its fields: {', '.join(sorted(allowed))})"
        )
    missing = missing_fields(role, values)
    if missing:
        raise UsageError(
            f"missing required fields for {with_article(role)} checkpoint: "
            + ", ".join(spelled(f) for f in missing)
        )


def _field_values(
    role: str, values: Mapping[str, Any], spelled: Callable[[Field], str]
) -> dict[str, Any]:
    """The role's fields given, each in its kind's form: lists as tuples of text, a text
    given as a list joined by lines, anything else as text. A mapping, or a list inside a list
    (what a ``--from`` file may hold), is refused: it has no text form."""
    data: dict[str, Any] = {}
    for f in fields_for(role):
        value = values.get(f.key)
        if value is None:
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, (dict, list, tuple)) for v in items):
            raise UsageError(
                f"{spelled(f)} must be text or a list of texts, not a list "
                "holding a mapping or list"
                if isinstance(value, (list, tuple))
                else f"{spelled(f)} must be text or a list of texts, not a mapping"
            )
        if any(_CONTROL.search(str(v)) for v in items):
            raise UsageError(
                f"{spelled(f)} holds a control character (an escape, a NUL); give plain text"
            )
        if f.kind in ("list", "numbered"):
            data[f.key] = tuple(str(v) for v in items)
        elif f.kind == "text" and isinstance(value, (list, tuple)):
            data[f.key] = "\n".join(str(v) for v in value)
        else:
            data[f.key] = str(value)
    return data


def as_dict(checkpoint: Checkpoint) -> dict[str, Any]:
    """Plain JSON-ready fields of a checkpoint (only those its role has): lists as lists, and
    free text left empty (the Markdown's ``None``) as null."""
    cp = checkpoint.normalized()
    out: dict[str, Any] = {"role": cp.role, "timestamp": cp.timestamp, "branch": cp.branch}
    if cp.session:
        out["session"] = cp.session
    if cp.source:
        out["source"] = cp.source
    for f in fields_for(cp.role):
        value = getattr(cp, f.key)
        if isinstance(value, tuple):
            value = list(value)
        elif f.kind == "text" and value == NONE:
            value = None
        out[f.key] = value
    out["uncommitted"] = list(cp.uncommitted)
    return out
