"""Our hooks in Codex CLI and Gemini CLI (``install --cli codex|gemini``), so their agents land
in the registry and the agent history as Claude Code's do.

Both CLIs read hooks in Claude Code's shape (event → matcher groups → commands):

| CLI | file (project / ``--user``) | events we register | no hook for |
|---|---|---|---|
| Codex CLI 0.171 | ``.codex/hooks.json`` / ``$CODEX_HOME/hooks.json`` | SessionStart, SessionEnd, SubagentStart, SubagentStop, PreCompact (its rollout is the transcript) | — |
| Gemini CLI 0.61 | ``.gemini/settings.json`` / ``$GEMINI_CLI_HOME/.gemini/settings.json`` | SessionStart, SessionEnd, PreCompress (its chat file is the transcript; only ``/compress``'s counts: the automatic one comes before every request) | subagents: no subagent event, and BeforeTool/AfterTool carry no call id to tie a start to its end |

Codex CLI runs a hook someone added to its files only after the user trusted it (``/hooks`` in
its screen, once per hook as written); Codex also loads a project's ``.codex/`` only when the
project is trusted. Each command names its CLI (``purlin-resume hook EVENT --cli codex``), which
the registry records.
"""

from __future__ import annotations

import os
from pathlib import Path

from purlin_resume.agentcli.names import CODEX, GEMINI
from purlin_resume.claude import settings as claude_settings
from purlin_resume.claude.settings import OurHook
from purlin_resume.core.errors import UsageError
from purlin_resume.core.project import Project
from purlin_resume.integration import installation
from purlin_resume.integration.installation import Plan, Target

HOOKS: dict[str, tuple[OurHook, ...]] = {
    CODEX: (
        OurHook("SessionStart", "session-start", None, 60, CODEX),
        OurHook("SessionEnd", "session-end", None, 3, CODEX),  # Codex allows it 3 s at most
        OurHook("SubagentStart", "subagent-start", None, 30, CODEX),
        OurHook("SubagentStop", "subagent-stop", None, 30, CODEX),
        OurHook("PreCompact", "pre-compact", None, 60, CODEX),
    ),
    GEMINI: (
        OurHook("SessionStart", "session-start", None, 60_000, GEMINI),
        OurHook("SessionEnd", "session-end", None, 10_000, GEMINI),
        OurHook("PreCompress", "pre-compact", None, 60_000, GEMINI),
    ),
}
FILES = {CODEX: (".codex", "hooks.json"), GEMINI: (".gemini", "settings.json")}


def _user_folder(cli: str) -> Path:
    if cli == CODEX:
        home = os.environ.get("CODEX_HOME")
        return Path(home) if home else Path.home() / ".codex"
    home = os.environ.get("GEMINI_CLI_HOME")
    return (Path(home) if home else Path.home()) / ".gemini"


def target(cli: str, project: Project | None) -> Target:
    """Where ``cli`` reads our hooks: the project's folder of it, else the user's."""
    if cli not in HOOKS:
        raise UsageError(f"--cli takes {', '.join(HOOKS)} (Claude Code: leave --cli out)")
    folder = project.root / FILES[cli][0] if project is not None else _user_folder(cli)
    return Target(folder, project)


def _path(cli: str, where: Target) -> Path:
    return where.claude_dir / FILES[cli][1]


def plan_install(cli: str, where: Target, executable: str = claude_settings.COMMAND) -> Plan:
    plan = Plan(where)
    change = installation.document_change(
        where,
        _path(cli, where),
        installation.read_settings,
        lambda data: claude_settings.merged(data, executable, HOOKS[cli]),
    )
    if change is not None:
        plan.changes.append(change)
    if where.project is not None:
        plan.changes += installation.project_changes(where.project)
    if cli == CODEX:
        plan.left.append("Codex CLI runs new hooks once you trust them: open /hooks in codex")
    return plan


def plan_uninstall(cli: str, where: Target) -> Plan:
    plan = Plan(where)
    change = installation.document_change(
        where, _path(cli, where), installation.read_settings, claude_settings.removed
    )
    if change is not None:
        plan.changes.append(change)
    return plan
