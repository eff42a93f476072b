"""``purlin-resume doctor``: is everything in place for capture to happen by itself?

Each finding names a check, its status (``ok``, ``warn`` or ``error``), what was found and how
to fix it. Checks: slash commands and hooks installed and current (project or user level), or
carried by the enabled purlin-resume plugin (hooks in a settings file as well are reported: they
would record every event twice), the
subagent matchers cover ``Agent`` and ``Task``, Claude Code's ``cleanupPeriodDays`` against the
age of interrupted agents and of bookmarked agents with no archive (their transcripts are deleted
after that many days; a bookmark whose archive exists is safe; a transcript file's age is its
modification time), git, tmux and
``purlin-resume`` on PATH, the MCP server (when the plugin or a ``.mcp.json`` declares it) answers
``initialize`` as Claude Code would start it, ``.purlin/cache/`` ignored, every state file readable, failures
recorded in ``.purlin/cache/hook.log``, and whether the project's status command is trusted to
run (when the project has one: a configured command, or the default script present).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from purlin_resume.agentcli import programs
from purlin_resume.agentcli.names import CLAUDE
from purlin_resume.agents import registry
from purlin_resume.checkpoints import lifecycle as checkpoints
from purlin_resume.claude import layout
from purlin_resume.claude import settings as claude_settings
from purlin_resume.claude.catalog import Catalog, session_paths
from purlin_resume.core import clock, config, gitrepo
from purlin_resume.core.errors import CorruptFile, PurlinError, system_refusal
from purlin_resume.core.project import Project
from purlin_resume.core.terminal_text import one_line
from purlin_resume.history import agent_history as history
from purlin_resume.integration import hook_call, installation
from purlin_resume.resurrection import bookmarks

OK, WARN, ERROR = "ok", "warn", "error"
RISK_MARGIN_DAYS = 7
MCP_ANSWER_SECONDS = 15.0
INITIALIZE_REQUEST = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "doctor"},
    },
}


@dataclass(frozen=True)
class Finding:
    check: str
    status: str
    message: str
    fix: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)


def _settings_files(project: Project) -> list[tuple[str, Path]]:
    user = installation.user_target().settings_path
    return [
        ("project", project.root / ".claude" / "settings.json"),
        ("local", project.root / ".claude" / "settings.local.json"),
        ("user", user),
    ]


def _commands(project: Project) -> list[Finding]:
    findings = []
    places = [
        installation.project_target(project).commands_dir,
        installation.user_target().commands_dir,
    ]
    for name, text in installation.command_templates().items():
        found = [p / name for p in places if (p / name).is_file()]
        if not found:
            findings.append(
                Finding(
                    "commands",
                    ERROR,
                    f"/{name[:-3].replace('/', ':')} is not installed",
                    "run 'purlin-resume install' (or 'install --user')",
                )
            )
        elif all(f.read_text(encoding="utf-8", errors="replace") != text for f in found):
            findings.append(
                Finding(
                    "commands",
                    WARN,
                    f"{found[0]} differs from the current version",
                    "run 'purlin-resume install' to update it",
                )
            )
    if not findings:
        findings.append(Finding("commands", OK, "slash commands installed and current"))
    return findings


def _plugin(parsed: dict[str, dict]) -> tuple[str, str] | None:
    """(plugin id, where) when our Claude Code plugin is enabled in some settings file."""
    for where, data in parsed.items():
        found = claude_settings.plugin_enabled(data)
        if found:
            return found, where
    return None


def _plugin_hooks(parsed: dict[str, dict], plugin: tuple[str, str]) -> list[Finding]:
    """With the plugin enabled its hooks run; ours in a settings file as well would record
    every event twice."""
    twice = [
        where
        for where, data in parsed.items()
        if any(g is not None for g in claude_settings.installed(data).values())
    ]
    if twice:
        user = " --user" if twice == ["user"] else ""
        return [
            Finding(
                "hooks",
                WARN,
                f"hooks registered twice: by the plugin {plugin[0]} and in the "
                f"{', '.join(twice)} settings, so every event is recorded twice",
                f"take them out of settings.json with 'purlin-resume uninstall{user}' "
                "(the plugin keeps its own)",
            )
        ]
    return [Finding("hooks", OK, f"hooks come from the plugin {plugin[0]} ({plugin[1]} settings)")]


def _hooks(project: Project, parsed: dict[str, dict]) -> list[Finding]:
    plugin = _plugin(parsed)
    if plugin is not None:
        return _plugin_hooks(parsed, plugin)
    findings = []
    for ours in claude_settings.HOOKS:
        installed = [
            (where, claude_settings.installed(data)[ours.event]) for where, data in parsed.items()
        ]
        groups = [(where, g) for where, g in installed if g is not None]
        if not groups:
            findings.append(
                Finding(
                    "hooks",
                    ERROR,
                    f"no {ours.event} hook of ours",
                    "run 'purlin-resume install' (or 'install --user')",
                )
            )
            continue
        where, group = groups[0]
        if not claude_settings.current(group, ours):
            findings.append(
                Finding(
                    "hooks",
                    WARN,
                    f"the {ours.event} hook in the {where} settings is out of date",
                    "run 'purlin-resume install' to update it",
                )
            )
        if ours.matcher is not None and not claude_settings.matcher_covers_agent(
            group.get("matcher")
        ):
            findings.append(
                Finding(
                    "matchers",
                    ERROR,
                    f"the {ours.event} matcher {group.get('matcher')!r} misses Agent or Task "
                    "(the subagent tool is Agent since Claude Code 2.1.63, Task before)",
                    f"set it to {claude_settings.SUBAGENT_MATCHER!r}: run 'purlin-resume install'",
                )
            )
    if not findings:
        findings.append(
            Finding("hooks", OK, "hooks installed and current; matchers cover Agent and Task")
        )
    return findings


def _cleanup_days(parsed: dict[str, dict]) -> tuple[int, str]:
    """Claude Code's ``cleanupPeriodDays`` (local, project, then user settings) and its wording."""
    for where in ("local", "project", "user"):
        days = claude_settings.cleanup_period_days(parsed.get(where, {}))
        if days is not None:
            return days, f"cleanupPeriodDays is {days}"
    days = claude_settings.DEFAULT_CLEANUP_DAYS
    return days, f"cleanupPeriodDays is {days} (default)"


def _interrupted_at_risk(project: Project, days: int, now: datetime) -> list[str]:
    try:
        interrupted = history.load(project).latest_with(history.INTERRUPTED)
    except (PurlinError, OSError):
        interrupted = []
    at_risk = []
    for entry in interrupted:
        spawned = clock.parse(entry.timestamp)
        if spawned is not None and (now - spawned).days >= days - RISK_MARGIN_DAYS:
            at_risk.append(f"{entry.agent_id} ({(now - spawned).days} days)")
    return at_risk


def _shelves(project: Project) -> bookmarks.Shelves:
    """The project's bookmarks and the global ones (``<Claude data folder>/history``)."""
    global_ = layout.history_dir() / bookmarks.FILE_NAME
    return bookmarks.Shelves(project.root / ".purlin" / bookmarks.FILE_NAME, global_)


def _bookmark_files(catalog, mark: bookmarks.Bookmark) -> list[Path]:
    """The transcript files of a bookmark's session; [] when they are gone."""
    try:
        target = catalog.resolve(mark.session_id, kinds=("session",))
    except PurlinError:
        return []
    assert target.session is not None
    return [path for path in session_paths(catalog, target.session) if path.exists()]


def _bookmarks_at_risk(project: Project, days: int, now: datetime) -> tuple[list[str], list[str]]:
    """(at risk, lost): bookmarks with no archive whose oldest transcript file is within
    ``RISK_MARGIN_DAYS`` of deletion, and those whose transcripts are already gone."""
    claude_root = layout.config_dir()[0]
    history_dir = claude_root / "history"
    try:
        marks = _shelves(project).all()
    except (PurlinError, OSError):
        return [], []  # named by the state check
    unarchived = [m for m in marks if not (m.archive and (history_dir / m.archive).is_file())]
    if not unarchived:
        return [], []
    catalog = Catalog(claude_root) if (claude_root / "projects").is_dir() else None
    at_risk, lost = [], []
    for mark in unarchived:
        files = _bookmark_files(catalog, mark) if catalog is not None else []
        if not files:
            lost.append(mark.name)
            continue
        oldest = min(path.stat().st_mtime for path in files)
        age = (now - datetime.fromtimestamp(oldest, tz=timezone.utc)).days
        if age >= days - RISK_MARGIN_DAYS:
            at_risk.append(f"{mark.name} ({age} days)")
    return at_risk, lost


def _cleanup(project: Project, parsed: dict[str, dict], now: datetime) -> list[Finding]:
    days, setting = _cleanup_days(parsed)
    raise_it = "raise cleanupPeriodDays in ~/.claude/settings.json (e.g. 365)"
    findings = []
    interrupted = _interrupted_at_risk(project, days, now)
    if interrupted:
        findings.append(
            Finding(
                "cleanup",
                WARN,
                f"{setting}: Claude Code will soon delete the transcripts of interrupted agents "
                + ", ".join(interrupted),
                f"{raise_it}, or resume them now with 'purlin-resume resume-task'",
            )
        )
    at_risk, lost = _bookmarks_at_risk(project, days, now)
    if at_risk:
        findings.append(
            Finding(
                "cleanup",
                WARN,
                f"{setting}: Claude Code will soon delete the transcripts of bookmarked agents "
                "that have no archive: " + ", ".join(at_risk),
                f"{raise_it}, or archive them now: 'purlin-resume bookmark rm NAME', then "
                "'purlin-resume bookmark add NAME --session SESSION [--agent AGENT]'",
            )
        )
    if lost:
        findings.append(
            Finding(
                "cleanup",
                WARN,
                "bookmarks whose transcripts are gone and that have no archive: " + ", ".join(lost),
                "they cannot be resurrected: remove them with 'purlin-resume bookmark rm NAME'",
            )
        )
    findings += _unreadable_cleanup(parsed)
    if not findings:
        findings.append(
            Finding(
                "cleanup",
                OK,
                f"{setting}; no interrupted or bookmarked agent's transcript is at risk",
            )
        )
    return findings


def _unreadable_cleanup(parsed: dict[str, dict]) -> list[Finding]:
    """A ``cleanupPeriodDays`` that is no number of days, in whichever settings hold one."""
    return [
        Finding(
            "cleanup",
            WARN,
            f"cleanupPeriodDays {value!r} in the {where} settings is no number of days: it is "
            "not taken as one",
            "write a whole number of days, e.g. 365",
        )
        for where in ("local", "project", "user")
        if "cleanupPeriodDays" in parsed.get(where, {})
        and claude_settings.cleanup_period_days(parsed[where]) is None
        for value in [parsed[where]["cleanupPeriodDays"]]
    ]


def _tools() -> list[Finding]:
    out = []
    for tool, why in (
        ("git", "agent history, checkpoints and git hooks need it"),
        ("tmux", "revival and stall watch drive agents through it"),
        ("purlin-resume", "the hooks in settings.json call it by name"),
    ):
        if shutil.which(tool):
            out.append(Finding("tools", OK, f"{tool} found"))
        else:
            out.append(
                Finding(
                    "tools",
                    ERROR if tool != "tmux" else WARN,
                    f"{tool} is not on PATH ({why})",
                    f"install {tool}"
                    if tool != "purlin-resume"
                    else "install purlin-resume with pipx (or put its venv's bin on PATH)",
                )
            )
    return out


def _mcp_declarations(project: Project, plugin: tuple[str, str] | None) -> list[tuple[str, dict]]:
    """(who declares it, its entry) for each declaration of our MCP server Claude Code reads."""
    declared = [(f"the plugin {plugin[0]}", installation.MCP_ENTRY)] if plugin else []
    for target in (installation.project_target(project), installation.user_target()):
        path = installation.mcp_path(target)
        try:
            entry = (
                installation.read_mcp(path)[1].get("mcpServers", {}).get(installation.MCP_SERVER)
            )
        except (PurlinError, OSError):
            continue  # the state checks name a broken file
        if isinstance(entry, dict):
            declared.append((str(path), entry))
    return declared


def _mcp_problem(command: list[str], cwd: Path) -> str | None:
    """Why ``command`` does not answer ``initialize`` as an MCP server on stdio; None if it does."""
    if shutil.which(command[0]) is None:
        return f"{command[0]} is not on PATH"
    try:
        done = subprocess.run(
            command,
            input=json.dumps(INITIALIZE_REQUEST) + "\n",
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=MCP_ANSWER_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return f"no answer to initialize within {MCP_ANSWER_SECONDS:.0f} s"
    except OSError as exc:
        return exc.strerror or str(exc)
    for line in done.stdout.splitlines():
        try:
            if "result" in json.loads(line):
                return None
        except (ValueError, TypeError):
            continue
    said = [line for line in done.stderr.splitlines() if line.strip()]
    return (
        one_line(said[-1]) if said else f"it ended (exit code {done.returncode}) without answering"
    )


def _mcp(project: Project, plugin: tuple[str, str] | None) -> list[Finding]:
    """Does the MCP server Claude Code would start answer? (Claude Code shows a server that
    cannot start only under /mcp.)"""
    declared = _mcp_declarations(project, plugin)
    if not declared:
        return []
    where, entry = declared[0]
    command = [str(entry.get("command") or ""), *[str(a) for a in entry.get("args") or []]]
    shown = " ".join(command)
    ours = installation.MCP_ENTRY
    from_project = where == str(installation.mcp_path(installation.project_target(project)))
    if from_project and {key: entry.get(key) for key in ours} != ours:
        return [_mcp_not_started(shown, where)]
    problem = _mcp_problem(command, project.root) if command[0] else "no command given"
    if problem is None:
        return [Finding("mcp", OK, f"the MCP server ({shown}, declared by {where}) answers")]
    fix = (
        "pipx install purlin-resume (or put its venv's bin on PATH)"
        if "not on PATH" in problem
        else "pipx reinstall purlin-resume, then run 'purlin-resume doctor' again"
    )
    return [
        Finding(
            "mcp",
            ERROR,
            f"the MCP server ({shown}, declared by {where}) cannot start: {problem}",
            fix,
        )
    ]


def _mcp_not_started(shown: str, where: str) -> Finding:
    """A project's committed file names its own program for our server: not run from here."""
    return Finding(
        "mcp",
        WARN,
        f"the MCP server declared by {where} runs '{one_line(shown)}', not 'purlin-resume mcp':"
        " not started (a repository's own file may name any program)",
        "read that entry; 'purlin-resume install --mcp' writes the usual one",
    )


def _state(project: Project, settings_errors: list[Finding]) -> list[Finding]:
    findings = list(settings_errors)
    readers = [
        (
            "agent history",
            lambda: history.load(project) if history.path(project).exists() else None,
        ),
        ("agent registry", lambda: registry.load(project)),
        ("settings", lambda: config.load(project)),
        ("bookmarks", lambda: _shelves(project).all()),
    ]
    for name, read in readers:
        try:
            read()
        except (PurlinError, OSError) as exc:
            findings.append(_unread(exc, "fix or move the file aside", f"{name}: "))
    for live in checkpoints.live(project):
        if live.error:
            findings.append(Finding("state", ERROR, f"checkpoint: {live.error}"))  # names the fix
    if gitrepo.toplevel(project.root) is not None and not gitrepo.is_ignored(
        project.root, installation.CACHE_IGNORE
    ):
        findings.append(
            Finding(
                "state",
                WARN,
                ".purlin/cache/ is not ignored by git",
                "run 'purlin-resume install' (it adds /.purlin/cache/ to .gitignore)",
            )
        )
    findings += _hook_failures(project)
    if not findings:
        findings.append(Finding("state", OK, "every state file is readable"))
    return findings


def _unread(exc: PurlinError | OSError, fix: str, what: str = "") -> Finding:
    """A state file that could not be read: broken (``fix``), or refused by the system (a file
    of another user: the line says what to do)."""
    if isinstance(exc, CorruptFile):  # its message says what to do: ``fix`` says it here
        return Finding("state", ERROR, what + exc.problem, fix)
    if isinstance(exc, PurlinError):
        return Finding("state", ERROR, what + exc.message, fix)
    return Finding("state", ERROR, what + system_refusal(exc))


def _hook_failures(project: Project) -> list[Finding]:
    """The hook failures logged (how many, and the latest), if any."""
    log = project.cache_dir / hook_call.LOG_NAME
    if not log.is_file():
        return []
    count, last = hook_call.failures(log)
    if not count:
        return []
    detail = "no line readable"
    if last:
        detail = f"latest: {last.get('time')} {last.get('event')}: {last.get('error')}"
    return [
        Finding(
            "hook log",
            WARN,
            f"{count} hook failure(s) logged; {detail}",
            f"read {log}, fix the cause, then delete the file",
        )
    ]


def _trust(project: Project, settings: config.Settings | None) -> list[Finding]:
    """What trust decides in the project: its status command (``_status_command``), the
    settings its config sets that do not apply (``_ignored``)."""
    if settings is None:
        return []  # the settings finding says why
    return _status_command(project, settings) + _ignored(project, settings)


def _agent_program(settings: config.Settings | None) -> list[Finding]:
    """Is the program of ``resume.agent_command`` on PATH (revival and resurrection start
    agents with it)?"""
    if settings is None:
        return []  # the settings finding says why
    shown = one_line(settings.agent_command)  # maybe the project's: no escapes
    if programs.program(CLAUDE).not_on_path(settings.agent_command) is None:
        return [Finding("tools", OK, f"the agent command '{shown}' can start")]
    return [
        Finding(
            "tools",
            WARN,
            f"the agent command '{shown}' is not on PATH (revive and resurrect start agents "
            "with it)",
            f"install Claude Code, or {config.how_to_set(settings, 'agent_command')}",
        )
    ]


def _status_command(project: Project, settings: config.Settings) -> list[Finding]:
    """Is the project's status command trusted to run (``purlin-resume trust``)?"""
    text = settings.status_command.strip()
    default = config.Settings().status_command
    if not text or (text == default and not (project.root / default).is_file()):
        return []  # nothing that would run
    if settings.trust_note:
        return []  # ``_ignored`` names the trust file that cannot be read
    shown = one_line(text)  # code from the repository: no escapes, no line breaks
    if settings.trusted:
        return [Finding("trust", OK, f"the status command '{shown}' is trusted")]
    return [
        Finding(
            "trust",
            WARN,
            f"the status command '{shown}' is not trusted (new, or changed since trusted): "
            "restore and the hooks do not run it",
            "read it, then run 'purlin-resume trust' in the project, in your own shell",
        )
    ]


def _ignored(project: Project, settings: config.Settings) -> list[Finding]:
    """The protected settings of the project's config that do not apply as it is not trusted
    (``config.NEEDS_TRUST``), and the paths refused as they lead outside the project."""
    findings = []
    if settings.trust_note:  # the trust file cannot be read: every project counts as untrusted
        findings.append(Finding("trust", ERROR, settings.trust_note))  # the note names the fix
    findings += [
        Finding(
            "trust",
            WARN,
            f"{settings.source} sets {config.written_as(key)}: ignored, the project is not trusted",
            config.where_to_set(key),
        )
        for key in settings.held_back
    ]
    for key in config.PATH_SETTINGS:
        try:
            config.project_path(project, settings, key)
        except PurlinError as exc:
            findings.append(Finding("trust", WARN, f"resume.{key}: {exc.message}"))
    return findings


def examine(project: Project, now: datetime | None = None) -> list[Finding]:
    moment = now or clock.now()
    parsed: dict[str, dict] = {}
    settings_errors = []
    for where, path in _settings_files(project):
        try:
            text, data = installation.read_settings(path)
        except (PurlinError, OSError) as exc:
            settings_errors.append(_unread(exc, "fix the JSON by hand"))
            continue
        if text is not None:
            parsed[where] = data
    plugin = _plugin(parsed)
    try:
        settings: config.Settings | None = config.load(project)
    except (PurlinError, OSError):
        settings = None  # ``_state`` names why
    commands = (
        [Finding("commands", OK, f"slash commands come from the plugin {plugin[0]}")]
        if plugin is not None
        else _commands(project)
    )
    return [
        *commands,
        *_hooks(project, parsed),
        *_cleanup(project, parsed, moment),
        *_tools(),
        *_agent_program(settings),
        *_mcp(project, plugin),
        *_state(project, settings_errors),
        *_trust(project, settings),
    ]
