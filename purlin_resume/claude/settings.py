"""Claude Code's ``settings.json``: our hooks in it, merged in and taken out again.

The ``hooks`` key maps an event to a list of matcher groups, each
``{"matcher": PATTERN, "hooks": [{"type": "command", "command": ..., "timeout": SECONDS}]}``
(events without tools take no matcher); ``"async": true`` lets the client go on without waiting
for the command. Only SubagentStart is: the client stops a background hook still running when
it exits (``claude -p`` does right after its answer, which the hooks of a last Agent call still
are), and the id SubagentStart gives a spawn SubagentStop, PostToolUse and the next prompt or
session start give it too. ``claude -p`` of 2.1.197 that stopped such a hook runs no SessionEnd,
and its PostToolUse is the only record of a subagent that ended on an API error. Our hook
commands are recognised by their command, ``purlin-resume hook EVENT``: nothing else in the file
is ours. Merging keeps every other key, every other group and every other tool's command exactly
as they were, in place; a group of ours that is out of date is replaced where it stands.
Removing takes out our commands only, and the groups and event lists that held nothing else.

These functions are pure: they take and return the parsed document.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from purlin_resume.claude.records import integer

COMMAND = "purlin-resume"
SUBAGENT_MATCHER = "Agent|Task"  # the tool is "Agent" since Claude Code 2.1.63, "Task" before
DEFAULT_CLEANUP_DAYS = 30


@dataclass(frozen=True)
class OurHook:
    event: str  # Claude Code's name
    name: str  # ours, for ``purlin-resume hook NAME``
    matcher: str | None
    timeout: int  # in the unit the CLI reads (seconds; Gemini CLI: milliseconds)
    cli: str | None = None  # another agent CLI's hook: ``--cli NAME`` tells the hook which
    background: bool = False  # ``"async": true``: the client does not wait for it

    def command(self, executable: str = COMMAND) -> str:
        return f"{executable} hook {self.name}" + (f" --cli {self.cli}" if self.cli else "")

    def group(self, executable: str = COMMAND) -> dict[str, Any]:
        group: dict[str, Any] = {}
        if self.matcher is not None:
            group["matcher"] = self.matcher
        hook: dict[str, Any] = {"type": "command", "command": self.command(executable)}
        hook["timeout"] = self.timeout
        if self.background:
            hook["async"] = True
        group["hooks"] = [hook]
        return group


HOOKS = (
    OurHook("PreToolUse", "pre-tool-use", SUBAGENT_MATCHER, 10),  # the spawn's commit: before
    OurHook("PostToolUse", "post-tool-use", SUBAGENT_MATCHER, 30),
    OurHook("SubagentStart", "subagent-start", None, 10, background=True),
    OurHook("SubagentStop", "subagent-stop", None, 30),
    OurHook("UserPromptSubmit", "user-prompt-submit", None, 10),
    OurHook("PreCompact", "pre-compact", None, 60),
    OurHook("SessionStart", "session-start", None, 60),
    OurHook("SessionEnd", "session-end", None, 10),
)
_OURS = re.compile(r"^\s*(?:\S*/)?purlin-resume\s+hook\s")


def is_ours(hook: Any) -> bool:
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and bool(_OURS.match(hook["command"]))
    )


def _groups(settings: dict[str, Any], event: str) -> list[Any]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    groups = hooks.get(event)
    return groups if isinstance(groups, list) else []


def _our_group_index(groups: list[Any]) -> int | None:
    for index, group in enumerate(groups):
        if isinstance(group, dict) and any(is_ours(h) for h in group.get("hooks") or []):
            return index
    return None


class NotSettings(ValueError):
    """The document cannot hold hooks (not an object, or ``hooks`` not an object of lists)."""


def check(settings: Any) -> dict[str, Any]:
    if not isinstance(settings, dict):
        raise NotSettings("the top level must be an object")
    hooks = settings.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise NotSettings("'hooks' must be an object keyed by event")
    for event, groups in (hooks or {}).items():
        if not isinstance(groups, list):
            raise NotSettings(f"hooks.{event} must be a list of matcher groups")
    return settings


def merged(
    settings: dict[str, Any], executable: str = COMMAND, wanted_hooks: tuple[OurHook, ...] = HOOKS
) -> dict[str, Any]:
    """``settings`` with our hooks (``wanted_hooks``: another CLI's) in it, current; unchanged
    (equal) when they already are."""
    result = copy.deepcopy(check(settings))
    hooks = result.setdefault("hooks", {})
    for ours in wanted_hooks:
        groups = hooks.setdefault(ours.event, [])
        wanted = ours.group(executable)
        index = _our_group_index(groups)
        if index is None:
            groups.append(wanted)
            continue
        group = groups[index]
        others = [h for h in group.get("hooks") or [] if not is_ours(h)]
        if others:  # someone put their command into our group: keep theirs, ours goes apart
            group["hooks"] = others
            groups.insert(index + 1, wanted)
        elif group != wanted:
            groups[index] = wanted
    return result


def removed(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without our hooks; what held only ours goes with them."""
    result = copy.deepcopy(check(settings))
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result
    touched = False
    for event in list(hooks):
        groups = hooks[event]
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list) and any(is_ours(h) for h in inner):
                touched = True
                rest = [h for h in inner if not is_ours(h)]
                if rest:
                    kept.append({**group, "hooks": rest})
                continue
            kept.append(group)
        if kept or not groups or len(kept) == len(groups):
            hooks[event] = kept
        else:
            del hooks[event]
    if touched and not hooks:
        del result["hooks"]
    return result


def installed(settings: dict[str, Any]) -> dict[str, dict[str, Any] | None]:
    """Our group per event as the settings hold it (None when missing)."""
    found: dict[str, dict[str, Any] | None] = {}
    for ours in HOOKS:
        groups = _groups(settings, ours.event)
        index = _our_group_index(groups)
        found[ours.event] = groups[index] if index is not None else None
    return found


def current(group: dict[str, Any] | None, ours: OurHook) -> bool:
    """True when ``group`` is our group for that event as ``install`` writes it."""
    if group is None:
        return False
    commands = [h for h in group.get("hooks") or [] if is_ours(h)]
    if len(commands) != 1 or group.get("matcher") != ours.matcher:
        return False
    hook = commands[0]
    return (
        hook.get("command", "").split()[-2:] == ["hook", ours.name]
        and hook.get("timeout") == ours.timeout
        and bool(hook.get("async")) == ours.background
    )


def matcher_covers_agent(matcher: Any) -> bool:
    """True when a tool matcher matches both ``Agent`` and ``Task``."""
    if matcher in (None, "", "*"):
        return True
    if not isinstance(matcher, str):
        return False
    try:
        pattern = re.compile(matcher)
    except re.error:
        return False
    return all(pattern.fullmatch(name) or pattern.search(name) for name in ("Agent", "Task"))


def indent_of(text: str) -> int | str:
    """The indentation a JSON file uses, so rewriting it changes only what changed."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def dump(settings: dict[str, Any], like: str | None = None) -> str:
    """``settings`` as JSON in the layout of ``like`` (the file's previous text): every value
    that did not change keeps its text as the user wrote it (one-line arrays stay on one line);
    only what changed is written anew, indented like its surroundings."""
    unit = indent_of(like) if like else 2
    if like:
        try:
            old = json.loads(like)
            start = len(like) - len(like.lstrip())
            value, end = _DECODER.raw_decode(like, start)
        except ValueError:
            old = None
        if isinstance(old, dict):
            return like[:start] + _spliced(like, start, end, old, settings, unit) + like[end:]
    return json.dumps(settings, indent=unit, ensure_ascii=False) + "\n"


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")


def _skip(text: str, at: int) -> int:
    space = _SPACE.match(text, at)
    assert space is not None  # \s* matches everywhere
    return space.end()


def _members(text: str, start: int, end: int) -> list[tuple[Any, int, int, int]]:
    """The members of the object or array ``text[start:end]``: (key or index, where the member
    starts, where its value starts, where it ends)."""
    found = []
    at = _skip(text, start + 1)
    index = 0
    while at < end - 1 and text[at] not in "]}":
        begin = at
        if text[start] == "{":
            key, at = _DECODER.raw_decode(text, at)
            at = _skip(text, _skip(text, at) + 1)  # past the colon
        else:
            key, index = index, index + 1
        value_at = at
        _, at = _DECODER.raw_decode(text, at)
        found.append((key, begin, value_at, at))
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found


def _indent_before(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    lead = text[line_start:at]
    return lead if not lead.strip() else ""


def _fresh(value: Any, key: Any, unit: int | str, indent: str, one_line: bool) -> str:
    """A member written anew, indented like its siblings (or on one line among one-liners)."""
    body = json.dumps(value, ensure_ascii=False, indent=None if one_line else unit)
    if not one_line:
        body = body.replace("\n", "\n" + indent)
    return (json.dumps(key, ensure_ascii=False) + ": " if isinstance(key, str) else "") + body


def _spliced(text: str, start: int, end: int, old: Any, new: Any, unit: int | str) -> str:
    """``new`` written over ``text[start:end]`` (which holds ``old``), changing only what changed:
    members that stay keep their text and the separators between them."""
    if old == new:
        return text[start:end]
    objects = isinstance(old, dict) and isinstance(new, dict)
    arrays = isinstance(old, list) and isinstance(new, list)
    if not (objects or arrays) or not old:
        indent = _indent_before(text, start)
        return json.dumps(new, ensure_ascii=False, indent=unit).replace("\n", "\n" + indent)
    members = _members(text, start, end)
    one_line = "\n" not in text[start:end]
    indent = "" if one_line else _indent_before(text, members[0][1])
    separator = ", " if one_line else ",\n" + indent
    parts: list[str] = []
    previous, kept = start, -2  # both set by the first kept member before they are read
    for item in _plan(old, new, objects):
        if item[0] == "old":
            number, value = item[1], item[2]
            key, begin, value_at, finish = members[number]
            if parts:
                parts.append(text[previous:begin] if number == kept + 1 else separator)
            spliced = _spliced(text, value_at, finish, old[key], value, unit)
            parts.append(text[begin:value_at] + spliced)
            previous, kept = finish, number
        else:
            parts += [separator] if parts else []
            parts.append(_fresh(item[2], item[1], unit, indent, one_line))
            kept = -2  # what follows takes a fresh separator
    if not parts:
        return text[start] + text[end - 1]
    opening = text[start + 1 : members[0][1]]
    closing = text[members[-1][3] : end - 1].lstrip(",")
    return text[start] + opening + "".join(parts) + closing + text[end - 1]


def _plan(old: Any, new: Any, objects: bool) -> list[tuple[str, Any, Any]]:
    """The members of ``new`` in order: ("old", index of the member of ``old`` it continues,
    value) or ("new", key or None, value)."""
    plan: list[tuple[str, Any, Any]] = []
    if objects:
        keys = list(old)
        plan = [("old", keys.index(k), v) for k, v in new.items() if k in old]
        return plan + [("new", k, v) for k, v in new.items() if k not in old]

    canonical = lambda items: [json.dumps(i, sort_keys=True) for i in items]  # noqa: E731
    matcher = SequenceMatcher(None, canonical(old), canonical(new), autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal" or (op == "replace" and a2 - a1 == b2 - b1):
            plan += [("old", a1 + n, new[b1 + n]) for n in range(b2 - b1)]
        else:
            plan += [("new", None, value) for value in new[b1:b2]]
    return plan


PLUGIN = "purlin-resume"  # our Claude Code plugin's name (plugin/.claude-plugin/plugin.json)


def plugin_enabled(settings: dict[str, Any]) -> str | None:
    """The id (``purlin-resume@MARKETPLACE``) under which ``enabledPlugins`` turns our plugin on,
    else None. A value is ``true`` or a list of versions; ``false`` turns it off."""
    enabled = settings.get("enabledPlugins")
    if not isinstance(enabled, dict):
        return None
    for key, value in enabled.items():
        turned_on = value is True or (isinstance(value, list) and bool(value))
        if isinstance(key, str) and key.partition("@")[0] == PLUGIN and turned_on:
            return key
    return None


def cleanup_period_days(settings: dict[str, Any]) -> int | None:
    return integer(settings.get("cleanupPeriodDays"))
