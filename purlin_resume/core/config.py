"""Project settings: the ``resume`` section of ``.purlin/config.json`` (or config.yaml).

``.purlin/config.json`` is shared with the rest of the Purlin toolchain, so purlin-resume reads
its own settings from the ``resume`` object and leaves every other key alone. Defaults:

| setting | default | meaning |
|---|---|---|
| status_command | ``tools/cdd/status.sh`` | regenerates the Critic report on restore (path relative to the project); runs only in a trusted project (``trust``) |
| status_timeout | 60 | seconds the status command may run |
| critic_report | ``CRITIC_REPORT.md`` | the Critic report read on restore |
| main_branches | ``["main", "master"]`` | branches that get the main-branch command table |
| interrupt_after_minutes | 120 | age after which a spawned agent whose session cannot be checked counts as interrupted |
| agent_command | ``claude`` | the command that starts a new agent (revival, resurrection) |
| agent_session_flag | ``--session-id`` | option that hands a revived agent its new session id (empty: none) |
| agent_ready_text | ``? for shortcuts`` or ``shift+tab to cycle`` | text the agent shows when it waits for input (revival waits for it); texts separated by a bar: any of them |
| agent_ready_timeout | 60 | seconds a new agent may take to show ``agent_ready_text`` |
| inject_settle_seconds | 0.5 | pause between pasting text into a pane and pressing Enter |
| tmux_socket | ``""`` | tmux server socket for agents (empty: the default server) |
| tmux_session | ``purlin-agents`` | tmux session for new agent windows when not run inside tmux |
| persona_dir | ``.purlin/personas`` | ``<role>.md`` files: the persona injected first into a revived agent |
| agent_workspace | ``.purlin/agents/{agent}`` | an agent's status.json, devlogs/ and inbox/processed/ |
| plan_file | ``""`` | Markdown plan whose first open ``- [ ]`` item is the next task in a resume prompt |
| stall_lookback_minutes | 60 | activity older than this does not make an agent active |
| stall_threshold | 0.5 | confidence at or above which an agent counts as active |
| stall_fail_open | true | when detection fails, allow the resume prompt (false: hold it back) |
| stall_cooldown_minutes | 30 | least time between two nudges of one agent |
| stall_max_nudges | 3 | nudges of one agent without activity in between, then no more |
| watch_interval | 300 | seconds between two passes of ``watch`` |
| allowed_roots | ``["~"]`` | folders a resurrection may read a project or ``--from`` path under (SEC-2) |
| allow_own_projects | true | a project your own transcripts record is allowed wherever it lies (``..`` and symbolic links leaving it are still refused); false: only ``allowed_roots`` and the current repository |
| mcp_projects | ``[]`` | projects besides the session's own that the MCP tools may be given as ``project`` |
| context_warn_tokens | 10000 | a resurrection context above this many tokens is warned about |
| context_confirm_tokens | 20000 | above this many tokens a resurrection asks before going on |
| full_context_turns | 10 | the ``full`` context method is meant for agents of at most this many turns |
| context_cache_seconds | 300 | how long an extracted resurrection context is reused |
| redact | ``{}`` | ``extra``: more secret patterns, each a regex or ``{"kind": …, "pattern": …}`` (a group ``s`` marks the secret); ``allow``: regexes a found secret may fully match to be left as it is |

The user's own settings, in the same shape, are in ``$XDG_CONFIG_HOME/purlin-resume/config.json``
(else ``~/.config/…``); a project's file overrides them. A committed file is not trusted: the
settings that run a program or loosen protection (``NEEDS_TRUST``) are taken from a project only
once the user trusted it as it is now (``trust``); until then they come from the user's file or
the defaults (``Settings.held_back`` names those left out). A project may always add redaction
patterns; an untrusted project's run only under RE2 (linear time), else not at all. A path
setting (``PATH_SETTINGS``) written to lead outside the project (absolute, ``..``) is taken only
from the user's file or a trusted project, and a symbolic link in the project never leads one
outside; ``project_path`` refuses the rest. A trust file
that cannot be read counts as no trust (``Settings.trust_note`` says why).

Every setting is checked against the type of its default: a number must be positive, a list
must hold strings. A new setting needs only its field here and its row above.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from purlin_resume.core import redact, store, trust
from purlin_resume.core.errors import CorruptFile, PurlinError
from purlin_resume.core.project import Project

# settings that run a program, choose whose tmux server gets typed into, loosen protection, or
# say how long a command waits for the program (a committed file could make it wait for days)
NEEDS_TRUST = (
    "agent_command",
    "agent_session_flag",
    "agent_ready_text",
    "agent_ready_timeout",
    "tmux_socket",
    "allowed_roots",
    "allow_own_projects",
    "mcp_projects",
    "redact_allow",
)
# settings naming a path in the project: outside it only when the user's or a trusted project's
PATH_SETTINGS = ("critic_report", "persona_dir", "agent_workspace", "plan_file")
# what trust is bound to: those, and the project's patterns, which run unbounded once trusted
BOUND_BY_TRUST = (*NEEDS_TRUST, *PATH_SETTINGS, "redact_extra")


@dataclass(frozen=True)
class Settings:
    """The ``resume`` settings of a project (the module's description lists each one)."""

    status_command: str = "tools/cdd/status.sh"
    status_timeout: float = 60.0
    critic_report: str = "CRITIC_REPORT.md"
    main_branches: tuple[str, ...] = ("main", "master")
    interrupt_after_minutes: float = 120.0
    agent_command: str = "claude"
    agent_session_flag: str = "--session-id"
    # Claude Code's idle footer: "? for shortcuts" in manual mode, "(shift+tab to cycle)" in the
    # other modes (auto mode is the default since 2.1.x)
    agent_ready_text: str = "? for shortcuts|shift+tab to cycle"
    agent_ready_timeout: float = 60.0
    inject_settle_seconds: float = 0.5
    tmux_socket: str = ""
    tmux_session: str = "purlin-agents"
    persona_dir: str = ".purlin/personas"
    agent_workspace: str = ".purlin/agents/{agent}"
    plan_file: str = ""
    stall_lookback_minutes: float = 60.0
    stall_threshold: float = 0.5
    stall_fail_open: bool = True
    stall_cooldown_minutes: float = 30.0
    stall_max_nudges: int = 3
    watch_interval: float = 300.0
    allowed_roots: tuple[str, ...] = ("~",)
    allow_own_projects: bool = True
    mcp_projects: tuple[str, ...] = ()
    context_warn_tokens: int = 10000
    context_confirm_tokens: int = 20000
    full_context_turns: int = 10
    context_cache_seconds: int = 300
    recommend_threshold: float = 35.0
    recommend_in_briefing: bool = True
    redact_extra: tuple[tuple[str, str], ...] = ()
    redact_allow: tuple[str, ...] = ()
    # an untrusted project's own patterns: run only under RE2 (``redact.Scanner``)
    redact_bounded: tuple[tuple[str, str], ...] = ()
    source: Path | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    # the ``BOUND_BY_TRUST`` settings as the project's file writes them
    asked: dict[str, Any] = field(default_factory=dict)
    held_back: tuple[str, ...] = ()  # the ``NEEDS_TRUST`` ones not applied: not trusted
    # the ``PATH_SETTINGS`` the user chose (their file, a trusted project): may lead outside
    own_paths: tuple[str, ...] = ()
    trusted: bool = False  # the user trusted the project as it is now (its status command runs)
    trust_note: str | None = None  # why trust could not be read (then the project is untrusted)

    def role_settings(self, role: str) -> dict[str, Any]:
        """What the shared config says about one role (Purlin's ``agents.<role>``)."""
        agents = self.raw.get("agents")
        found = agents.get(role) if isinstance(agents, dict) else None
        return found if isinstance(found, dict) else {}


def _parse(path: Path) -> dict[str, Any]:
    text = store.read_text(path)
    try:
        return _parse_text(path, text)
    except RecursionError:  # a hostile file: thousands of nested brackets
        raise CorruptFile(path, "nested too deeply to read") from None


def _parse_text(path: Path, text: str) -> dict[str, Any]:
    if path.suffix == ".json":
        try:
            data = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as exc:
            import yaml  # only for YAML: the hooks read config.json, the usual file

            from purlin_resume.core import yaml_text

            # JSON is YAML too; a hand-written config.json in YAML is accepted.
            try:
                data = yaml_text.load(text)
            except yaml.YAMLError:
                raise CorruptFile(path, f"invalid JSON at line {exc.lineno}") from None
    else:
        import yaml

        from purlin_resume.core import yaml_text

        try:
            data = yaml_text.load(text) or {}
        except yaml.YAMLError as exc:
            raise CorruptFile(path, f"invalid YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise CorruptFile(path, "the top level must be an object")
    return data


def _value(path: Path, key: str, default: Any, value: Any) -> Any:
    """``value`` checked against the type of the setting's default (the one rule for all)."""
    where = f"{path}: resume.{key}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise PurlinError(f"{where} must be true or false")
    elif isinstance(default, (int, float)):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not 0 < value < math.inf:  # not NaN nor Infinity (JSON, YAML take them)
            raise PurlinError(f"{where} must be a positive number")
        if isinstance(default, int) and not isinstance(value, int):
            raise PurlinError(f"{where} must be a positive whole number")
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise PurlinError(f"{where} must be a string")
        if key == "agent_command" and not _shell_words(value):
            raise PurlinError(f"{where} must be a command: shell words, every quote closed")
    elif isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PurlinError(f"{where} must be a list of strings")
        return tuple(value)
    return value


def _shell_words(text: str) -> list[str]:
    """``text`` split as a shell splits a command; none when it cannot be (a quote left open)."""
    try:
        return shlex.split(text)
    except ValueError:
        return []


def _pattern(path: Path, where: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise PurlinError(f"{path}: {where} must be a regular expression (a string)")
    try:
        re.compile(value)
    except re.error as exc:
        raise PurlinError(f"{path}: {where} is not a valid regular expression: {exc}") from None
    return value


def _redaction(path: Path, section: Any) -> dict[str, Any]:
    """``resume.redact``: ``extra`` patterns and an ``allow`` list, checked one by one."""
    if not isinstance(section, dict) or set(section) - {"extra", "allow"}:
        raise PurlinError(f"{path}: resume.redact must be an object with 'extra' and 'allow' lists")
    extra, allow = section.get("extra", []), section.get("allow", [])
    if not isinstance(extra, list) or not isinstance(allow, list):
        raise PurlinError(f"{path}: resume.redact.extra and resume.redact.allow must be lists")
    patterns = []
    for number, item in enumerate(extra):
        where = f"resume.redact.extra[{number}]"
        if isinstance(item, dict):
            kind = item.get("kind", "custom")
            if not isinstance(kind, str):
                raise PurlinError(f"{path}: {where}.kind must be a string")
            patterns.append((kind, _pattern(path, f"{where}.pattern", item.get("pattern"))))
        else:
            patterns.append(("custom", _pattern(path, where, item)))
    allowed = [_pattern(path, f"resume.redact.allow[{n}]", a) for n, a in enumerate(allow)]
    return {"redact_extra": tuple(patterns), "redact_allow": tuple(allowed)}


_DEFAULTS = {f.name: f.default for f in fields(Settings)}
_DERIVED = ("source", "raw", "asked", "held_back", "own_paths", "trusted", "trust_note")
# what a file may set (its ``redact`` object is read into the ``redact_`` ones)
_SETTABLE = {
    name: default
    for name, default in _DEFAULTS.items()
    if name not in _DERIVED and not name.startswith("redact_")
}


def _check(path: Path, values: dict[str, Any]) -> dict[str, Any]:
    values = dict(values)
    redaction = _redaction(path, values.pop("redact")) if "redact" in values else {}
    unknown = sorted(set(values) - set(_SETTABLE))
    if unknown:
        known = ", ".join(sorted([*_SETTABLE, "redact"]))
        raise PurlinError(f"{path}: unknown setting resume.{unknown[0]} (known: {known})")
    return {
        key: _value(path, key, _SETTABLE[key], value) for key, value in values.items()
    } | redaction


def _section(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checked ``resume`` settings of one file, and the whole file."""
    raw = _parse(path)
    section = raw.get("resume", {})
    if not isinstance(section, dict):
        raise PurlinError(f"{path}: 'resume' must be an object of settings")
    return _check(path, section), raw


def _merged(user: dict[str, Any], project: dict[str, Any], trusted: bool) -> dict[str, Any]:
    """The project's settings over the user's; an untrusted project's ``NEEDS_TRUST`` ones left
    out and its redaction patterns kept apart; redaction patterns and allow-lists add up."""
    values = user | {k: v for k, v in project.items() if trusted or k not in NEEDS_TRUST}
    extra = project.get("redact_extra", ())
    values["redact_extra"] = user.get("redact_extra", ()) + (extra if trusted else ())
    values["redact_bounded"] = () if trusted else extra
    values["redact_allow"] = user.get("redact_allow", ()) + (
        project.get("redact_allow", ()) if trusted else ()
    )
    return values


def load(project: Project | None) -> Settings:
    """Settings of ``project`` over the user's own (None: the user's only); defaults where
    neither says."""
    mine = store.user_settings()
    user = _section(mine)[0] if mine.is_file() else {}
    path = project.settings_file if project is not None else None
    own = tuple(k for k in PATH_SETTINGS if k in user)
    if project is None:
        return Settings(**user, source=mine if user else None, own_paths=own)
    written, raw = _section(path) if path is not None else ({}, {})
    path = path or (mine if user else None)
    asked = {k: written[k] for k in BOUND_BY_TRUST if written.get(k, _DEFAULTS[k]) != _DEFAULTS[k]}
    settings = Settings(
        **_merged(user, written, True),
        source=path,
        raw=raw,
        asked=asked,
        own_paths=tuple(k for k in PATH_SETTINGS if k in user or k in written),
    )
    note = None
    try:
        if trust.trusted(project, settings):
            return replace(settings, trusted=True)
    except CorruptFile as exc:  # no trust can be read: as for a project never trusted
        note = (
            f"{exc.path} is corrupt ({exc.reason}), left untouched: going on as for an "
            "untrusted project (fix or move it aside, then trust again)"
        )
    return Settings(
        **_merged(user, written, False),
        source=path,
        raw=raw,
        asked=asked,
        held_back=tuple(k for k in asked if k in NEEDS_TRUST),
        own_paths=tuple(k for k in own if k not in written),
        trust_note=note,
    )


def project_path(project: Project, settings: Settings, key: str, value: str = "") -> Path:
    """``value`` (by default the path setting ``key`` itself) under the project's root; refused
    (PurlinError) when it leads outside the project: written so (absolute, ``..``) unless the
    user chose it (their own file, a trusted project), or through a symbolic link in the
    project, which no trust covers."""
    written = value or getattr(settings, key)
    path = project.root / written
    if Path(written).is_absolute() or ".." in Path(written).parts:
        if key in settings.own_paths:  # the user wrote where it leads
            return path
        store.kept_inside(
            path, project.root, f"resume.{key} of {settings.source}", where_to_set(key)
        )
    else:  # a link in the project (a later pull may add one) never leads it out
        store.kept_inside(path, project.root, "a symbolic link", "remove the link")
    return path


def apply_redaction(settings: Settings) -> None:
    """Redact from now on with the built-in rules and what ``settings`` add: the user's own
    patterns and allow-list, a trusted project's, an untrusted project's patterns under a time
    bound."""
    redact.configure(settings.redact_extra, settings.redact_allow, settings.redact_bounded)


def how_to_set(settings: Settings, key: str) -> str:
    """What a message tells the user about a setting: where to set it, or, when the project's
    own was held back, that trusting the project applies it."""
    if key in settings.held_back:
        return (
            f"the project's {written_as(key)} applies once you trust the project "
            "(run 'purlin-resume trust' in your own terminal)"
        )
    return where_to_set(key)


def written_as(key: str) -> str:
    """A setting as a file writes it: ``resume.agent_command``, ``resume.redact.allow``."""
    return "resume." + (key.replace("_", ".", 1) if key.startswith("redact_") else key)


def where_to_set(key: str) -> str:
    """Where a setting takes effect: one that needs trust (``NEEDS_TRUST``, ``PATH_SETTINGS``
    leading outside the project) only from the user's file or a project the user trusted."""
    if key in NEEDS_TRUST or key in PATH_SETTINGS:
        return (
            f"set {written_as(key)} in {store.user_settings()}, or in the project's .purlin/config.json "
            "and run 'purlin-resume trust' in your own terminal"
        )
    return f"set {written_as(key)} in .purlin/config.json"


def load_or_defaults(project: Project) -> tuple[Settings, str | None]:
    """The settings, or the defaults with one line saying why the config could not be used:
    for what must fail open (hooks, the stall watch), never for a command the user runs."""
    try:
        return load(project), None
    except PurlinError as exc:
        return Settings(), f"{exc.message}; using the default settings"


def applied(project: Project) -> tuple[Settings, str | None]:
    """``load_or_defaults``, whose redaction rules apply from now on: for a process that fails
    open and writes the project's files (a hook, doctor, the stall watch)."""
    settings, unusable = load_or_defaults(project)
    apply_redaction(settings)
    return settings, unusable
