"""``install`` and ``uninstall``: our slash commands and hooks in a project's (or the user's) Claude Code.

What ``install`` writes, under the target folder (``<project>/.claude`` or the Claude Code
folder, ``$CLAUDE_CONFIG_DIR`` else ``~/.claude``):

- ``commands/<name>.md`` for every slash command of the Claude Code plugin (``plugin/commands/``);
- our hooks merged into ``settings.json`` (see ``claude.settings``);
- for a project also: ``/.purlin/cache/`` in ``.gitignore`` and ``.planning/agent-history.json``.

A plan is a list of ``Change``s (a file's text before and after); nothing is written until it is
applied, so ``--dry-run`` prints exactly what would change. Running ``install`` twice changes
nothing the second time. ``uninstall`` removes our hooks and the command files still as we wrote
them (a command someone edited is left and named); it keeps the agent history and the
``.gitignore`` line, which hold the project's state rather than our installation.

A ``settings.json`` that removing our hooks leaves empty (``{}``) is deleted, with its lock file:
it held nothing but our hooks (any setting of the user's, even an empty ``env``, keeps it
non-empty), so it is the file ``install`` created, or one with no content of its own. Deciding
on the emptied document needs no record of the install, and never deletes a setting: a file that
had other content keeps it, minus our hooks.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from purlin_resume.claude import settings as claude_settings
from purlin_resume.core import gitrepo, resources, store
from purlin_resume.core.errors import CorruptFile, PurlinError, system_refusal
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history

CACHE_IGNORE = ".purlin/cache/"


@dataclass(frozen=True)
class Target:
    """Where Claude Code reads our files: a project's ``.claude`` or the user's Claude folder."""

    claude_dir: Path
    project: Project | None = None

    @property
    def base(self) -> Path:
        return self.project.root if self.project else self.claude_dir

    @property
    def settings_path(self) -> Path:
        return self.claude_dir / "settings.json"

    @property
    def commands_dir(self) -> Path:
        return self.claude_dir / "commands"

    def label(self, path: Path) -> str:
        try:
            return Path(path).relative_to(self.base).as_posix()
        except ValueError:
            return str(path)


def project_target(project: Project) -> Target:
    return Target(project.root / ".claude", project)


def user_target() -> Target:
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Target(Path(configured).expanduser() if configured else Path.home() / ".claude")


@dataclass
class Change:
    """One file's text before and after (None: absent); ``apply`` writes it."""

    path: Path
    before: str | None
    after: str | None
    apply: Callable[[], object] = field(repr=False, default=lambda: None)  # its result unused
    note: str = ""


@dataclass
class Plan:
    target: Target
    changes: list[Change] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # files kept on purpose, with why

    def diff(self) -> str:
        self._kept_in_project()
        out: list[str] = []
        for change in self.changes:
            name = self.target.label(change.path)
            out += difflib.unified_diff(
                (change.before or "").splitlines(keepends=True),
                (change.after or "").splitlines(keepends=True),
                fromfile="/dev/null" if change.before is None else f"a/{name}",
                tofile="/dev/null" if change.after is None else f"b/{name}",
            )
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)

    def _kept_in_project(self) -> None:
        """A project's files are written only inside it: a link committed in the repository
        (``.claude/commands/x.md`` -> ``~/.bashrc``) must not lead a write out of it."""
        if self.target.project is None:
            return  # the user's own folders: their links (dotfiles) are followed
        for change in self.changes:
            store.kept_inside(
                change.path, self.target.project.root, fix="remove the link; nothing was changed"
            )

    def apply(self) -> None:
        """Write each change in turn; a write that fails stops the rest and names what was
        written before it (each file is written whole or not at all)."""
        self._kept_in_project()
        written: list[str] = []
        for change in self.changes:
            try:
                change.apply()
            except OSError as exc:
                done = f"written before it: {', '.join(written) or 'nothing'}"
                raise PurlinError(
                    system_refusal(exc, f"{done}; the rest was not written", change.path)
                ) from None
            written.append(self.target.label(change.path))


def command_templates() -> dict[str, str]:
    """Every shipped slash command: path under ``commands/`` -> text."""
    folder = resources.commands_dir()
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*.md"))
    }


def _read(path: Path) -> str | None:
    try:
        return store.read_text(path)
    except PurlinError:
        if path.exists():
            raise
        return None


def _read_json(path: Path) -> tuple[str | None, object]:
    """(text, parsed) of a JSON file of Claude Code's; an empty object when absent or empty;
    CorruptFile when it does not parse (deep nesting included)."""
    text = _read(path)
    if text is None or not text.strip():
        return text, {}
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptFile(path, f"invalid JSON at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise CorruptFile(path, "JSON nested too deeply to read") from None


def read_settings(path: Path) -> tuple[str | None, dict]:
    """(text, parsed) of a settings.json; an empty object when absent; CorruptFile when broken."""
    text, data = _read_json(path)
    try:
        return text, claude_settings.check(data)
    except claude_settings.NotSettings as exc:
        raise CorruptFile(path, str(exc)) from None


def document_change(
    target: Target,
    path: Path,
    read: Callable[[Path], tuple[str | None, dict]],
    transform: Callable[[dict], dict],
) -> Change | None:
    """The change ``transform`` makes to the JSON document at ``path`` (None: none). Written
    under the file's lock from what the file holds then; emptied by us, it is deleted."""
    before, data = read(path)
    new = transform(data)
    if new == data and before is not None:
        return None
    if not new and before is None:
        return None
    after = claude_settings.dump(new, like=before) if new else None

    def write() -> None:
        real = Path(os.path.realpath(path))  # a link (dotfiles) stays a link: its file is changed
        if target.project is not None:
            gitrepo.exclude_state_files(real.parent, real.name + ".lock")

        def change(text: str | None) -> str | None:
            data = read(path)[1] if text is not None else {}
            new = transform(data)
            if not new:  # emptied by us (it held only our part): delete it; else leave it be
                return None if data else text
            return claude_settings.dump(new, like=text)

        store.update_text(real, change)

    return Change(path, before, after, write)


def _settings_change(target: Target, transform: Callable[[dict], dict]) -> Change | None:
    return document_change(target, target.settings_path, read_settings, transform)


# ---------------------------------------------------------------------------------------------
# the MCP server registration (``install --mcp``) and the plugin

MCP_SERVER = "purlin-resume"
MCP_ENTRY = {"command": claude_settings.COMMAND, "args": ["mcp"]}  # as plugin/.mcp.json has it


def mcp_path(target: Target) -> Path:
    """Where Claude Code reads MCP servers: the project's ``.mcp.json`` (project scope), or the
    user's ``.claude.json`` (in ``$CLAUDE_CONFIG_DIR`` when set, else the home folder)."""
    if target.project is not None:
        return target.project.root / ".mcp.json"
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured).expanduser() if configured else Path.home()) / ".claude.json"


def read_mcp(path: Path) -> tuple[str | None, dict]:
    """(text, parsed) of a ``.mcp.json`` / ``.claude.json``; CorruptFile when broken."""
    text, data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise CorruptFile(path, "expected an object whose 'mcpServers' is an object")
    return text, data


def with_mcp(data: dict) -> dict:
    servers = dict(data.get("mcpServers") or {})
    servers[MCP_SERVER] = dict(MCP_ENTRY)
    return {**data, "mcpServers": servers}


def without_mcp(data: dict) -> dict:
    servers = dict(data.get("mcpServers") or {})
    if servers.get(MCP_SERVER) is None:
        return data
    del servers[MCP_SERVER]
    rest = {k: v for k, v in data.items() if k != "mcpServers"}
    return {**rest, "mcpServers": servers} if servers else rest


def enabled_plugin(target: Target) -> tuple[str, Path] | None:
    """(plugin id, settings file) when our Claude Code plugin is enabled where the target's
    Claude Code reads settings (for a project also the user's); it then carries the hooks."""
    paths = [target.settings_path]
    if target.project is not None:
        paths += [target.claude_dir / "settings.local.json", user_target().settings_path]
    for path in paths:
        try:
            data = read_settings(path)[1]
        except PurlinError:
            continue
        found = claude_settings.plugin_enabled(data)
        if found:
            return found, path
    return None


def project_changes(project: Project) -> list[Change]:
    changes = []
    root = project.root
    if gitrepo.toplevel(root) is not None and not gitrepo.is_ignored(root, CACHE_IGNORE):
        ignore = root / ".gitignore"
        before = _read(ignore)
        text = before or ""
        if text and not text.endswith("\n"):
            text += "\n"
        changes.append(
            Change(
                ignore,
                before,
                text + "/" + CACHE_IGNORE + "\n",
                lambda: gitrepo.ensure_ignored(root, CACHE_IGNORE),
            )
        )
    if not history.path(project).exists():
        changes.append(
            Change(
                history.path(project),
                None,
                store.dump_json(history.template()),
                lambda: history.init(project),
            )
        )
    return changes


def plan_install(
    target: Target, executable: str = claude_settings.COMMAND, mcp: bool = False
) -> Plan:
    plan = Plan(target)
    plugin = enabled_plugin(target)
    if plugin is not None:  # the plugin carries both: ours too would show and record twice
        plan.left.append(
            f"commands and hooks: the plugin {plugin[0]} is enabled ({plugin[1]}) and carries "
            "them; not written to commands/ and settings.json"
        )
    else:
        for name, text in command_templates().items():
            path = target.commands_dir / name
            before = _read(path)
            if before != text:
                plan.changes.append(
                    Change(path, before, text, functools.partial(_write_command, path, text))
                )
        change = _settings_change(target, lambda data: claude_settings.merged(data, executable))
        if change is not None:
            plan.changes.append(change)
    if mcp:
        change = document_change(target, mcp_path(target), read_mcp, with_mcp)
        if change is not None:
            plan.changes.append(change)
    if target.project is not None:
        plan.changes += project_changes(target.project)
    return plan


def _write_command(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    store.write_output(path, text)


def plan_uninstall(target: Target) -> Plan:
    plan = Plan(target)
    for name, text in command_templates().items():
        path = target.commands_dir / name
        before = _read(path)
        if before is None:
            continue
        if before != text:
            plan.left.append(f"{target.label(path)}: changed since it was installed, left in place")
            continue
        plan.changes.append(
            Change(
                path, before, None, functools.partial(store.remove, path, up_to=target.claude_dir)
            )
        )
    change = _settings_change(target, claude_settings.removed)
    if change is not None:
        plan.changes.append(change)
    change = document_change(target, mcp_path(target), read_mcp, without_mcp)
    if change is not None:
        plan.changes.append(change)
    return plan
