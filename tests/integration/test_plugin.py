"""The Claude Code plugin in ``plugin/`` and the marketplace at the repository's root.

Checked twice: by schema checks written from Claude Code's plugin documentation (the plugin
manifest reference, the marketplace reference, the hooks, MCP and skills pages), and by the real
client (``claude plugin validate``, then ``/plugin marketplace add`` + ``/plugin install`` from a
copy of the repository). The plugin's hooks equal what ``install`` writes, and its MCP server is
the one ``install --mcp`` registers.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from purlin_resume.claude import settings as claude_settings
from purlin_resume.integration import installation
from tests import claude_code

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugin"
MARKETPLACE = ROOT / ".claude-plugin" / "marketplace.json"

# -- schema checks, from the documentation ------------------------------------------------------
# Plugin manifest reference: name is required, kebab-case; version is semver; component paths
# are relative, start with "./", never use "..", forward slashes only.
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
SEMVER = re.compile(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
MANIFEST_KEYS = {
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "commands",
    "agents",
    "skills",
    "hooks",
    "mcpServers",
    "outputStyles",
    "lspServers",
    "userConfig",
    "$schema",
}
PATH_KEYS = ("commands", "agents", "skills", "hooks", "mcpServers", "outputStyles")
# Hooks reference: the events a hooks file may name; a plugin's hooks file wraps them in "hooks".
HOOK_EVENTS = {
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "PermissionRequest",
}
# Marketplace reference: names reserved for official marketplaces.
RESERVED = {
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
}


def _component_path(value: str, where: str) -> list[str]:
    problems = []
    if not value.startswith("./"):
        problems.append(f"{where}: {value!r} must start with ./")
    if ".." in Path(value).parts:
        problems.append(f"{where}: {value!r} must not use ..")
    if "\\" in value:
        problems.append(f"{where}: {value!r} must use forward slashes")
    return problems


def manifest_problems(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return ["plugin.json: not an object"]
    problems = [f"plugin.json: unknown key {k}" for k in data if k not in MANIFEST_KEYS]
    if not isinstance(data.get("name"), str) or not KEBAB.match(data["name"]):
        problems.append("plugin.json: name is required, kebab-case")
    if "version" in data and not (
        isinstance(data["version"], str) and SEMVER.match(data["version"])
    ):
        problems.append("plugin.json: version must be semantic (MAJOR.MINOR.PATCH)")
    author = data.get("author")
    if author is not None and not (
        isinstance(author, str)
        or (isinstance(author, dict) and isinstance(author.get("name"), str))
    ):
        problems.append("plugin.json: author is a string or an object with a name")
    if "keywords" in data and not all(isinstance(k, str) for k in data["keywords"]):
        problems.append("plugin.json: keywords are strings")
    for key in PATH_KEYS:
        value = data.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                problems += _component_path(item, f"plugin.json {key}")
    return problems


def marketplace_problems(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return ["marketplace.json: not an object"]
    problems = []
    name = data.get("name")
    if not isinstance(name, str) or not KEBAB.match(name) or name in RESERVED:
        problems.append("marketplace.json: name is required, kebab-case, not reserved")
    owner = data.get("owner")
    if not isinstance(owner, dict) or not isinstance(owner.get("name"), str):
        problems.append("marketplace.json: owner with a name is required")
    plugins = data.get("plugins")
    if not isinstance(plugins, list) or not plugins:
        return [*problems, "marketplace.json: plugins must list the plugins"]
    for entry in plugins:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            problems.append("marketplace.json: each plugin entry needs a name")
            continue
        source = entry.get("source")
        if isinstance(source, str):
            problems += _component_path(source, f"plugin {entry['name']} source")
        elif not (isinstance(source, dict) and isinstance(source.get("source"), str)):
            problems.append(f"plugin {entry['name']}: source is a ./path or a source object")
    return problems


def hooks_problems(data: Any) -> list[str]:
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        return ["hooks.json: the events go under a top-level 'hooks' object"]
    problems = []
    for event, groups in data["hooks"].items():
        if event not in HOOK_EVENTS:
            problems.append(f"hooks.json: unknown event {event}")
        if not isinstance(groups, list):
            problems.append(f"hooks.json: {event} must be a list of matcher groups")
            continue
        for group in groups:
            if "matcher" in group and not isinstance(group["matcher"], str):
                problems.append(f"hooks.json: {event} matcher must be a string")
            for hook in group.get("hooks") or [None]:
                if not isinstance(hook, dict) or hook.get("type") != "command":
                    problems.append(f"hooks.json: {event} hooks are {{type: command, ...}}")
                elif not isinstance(hook.get("command"), str) or not hook["command"].strip():
                    problems.append(f"hooks.json: {event} command must be a string")
                elif "timeout" in hook and not isinstance(hook["timeout"], (int, float)):
                    problems.append(f"hooks.json: {event} timeout is a number of seconds")
    return problems


def mcp_problems(data: Any) -> list[str]:
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict) or not servers:
        return [".mcp.json: servers go under 'mcpServers'"]
    problems = []
    for name, server in servers.items():
        if not isinstance(server, dict) or not isinstance(server.get("command"), str):
            problems.append(f".mcp.json: {name} needs a command (stdio)")
        elif not all(isinstance(a, str) for a in server.get("args", [])):
            problems.append(f".mcp.json: {name} args are strings")
    return problems


def frontmatter(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path}: no frontmatter"
    return yaml.safe_load(text.split("---\n", 2)[1])


def skill_problems(folder: Path) -> list[str]:
    """Skills: SKILL.md with a name (lowercase letters, digits, hyphens; at most 64) and a
    description (at most 1024 characters) that says what it does and when to use it."""
    meta = frontmatter(folder / "SKILL.md")
    problems = []
    name = meta.get("name")
    if not isinstance(name, str) or not KEBAB.match(name) or len(name) > 64:
        problems.append(f"{folder.name}: name must be lowercase-hyphenated, at most 64")
    elif name != folder.name:
        problems.append(f"{folder.name}: name {name} differs from its folder")
    description = meta.get("description")
    if not isinstance(description, str) or not 20 <= len(description) <= 1024:
        problems.append(f"{folder.name}: description is required, at most 1024 characters")
    elif "use when" not in description.lower():
        problems.append(f"{folder.name}: description does not say when to use it")
    return problems


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_plugin_files_follow_the_documented_schema():
    assert manifest_problems(_load(PLUGIN / ".claude-plugin" / "plugin.json")) == []
    assert marketplace_problems(_load(MARKETPLACE)) == []
    assert hooks_problems(_load(PLUGIN / "hooks" / "hooks.json")) == []
    assert mcp_problems(_load(PLUGIN / ".mcp.json")) == []
    skills = sorted(p for p in (PLUGIN / "skills").iterdir() if p.is_dir())
    assert [s.name for s in skills] == [
        "hand-off-before-context-runs-out",
        "resume-interrupted-subagents",
        "resurrect-earlier-work",
    ]
    for folder in skills:
        assert skill_problems(folder) == []
    for command in (PLUGIN / "commands").rglob("*.md"):
        assert frontmatter(command).get("description"), command


def test_the_schema_checks_catch_what_the_documentation_forbids(tmp_path):
    assert manifest_problems({"name": "My Plugin", "version": "1.0", "hooks": "../x.json"}) == [
        "plugin.json: name is required, kebab-case",
        "plugin.json: version must be semantic (MAJOR.MINOR.PATCH)",
        "plugin.json hooks: '../x.json' must start with ./",
        "plugin.json hooks: '../x.json' must not use ..",
    ]
    assert manifest_problems({"name": "ok", "commands": ["/abs/commands"], "colour": 1}) == [
        "plugin.json: unknown key colour",
        "plugin.json commands: '/abs/commands' must start with ./",
    ]
    assert marketplace_problems({"name": "claude-code-plugins", "plugins": [{"name": "x"}]}) == [
        "marketplace.json: name is required, kebab-case, not reserved",
        "marketplace.json: owner with a name is required",
        "plugin x: source is a ./path or a source object",
    ]
    assert hooks_problems({"PreToolUse": []}) == [
        "hooks.json: the events go under a top-level 'hooks' object"
    ]
    assert hooks_problems({"hooks": {"OnSave": [{"hooks": [{"type": "shell"}]}]}}) == [
        "hooks.json: unknown event OnSave",
        "hooks.json: OnSave hooks are {type: command, ...}",
    ]
    assert mcp_problems({"servers": {}}) == [".mcp.json: servers go under 'mcpServers'"]
    bad = tmp_path / "Bad_Skill"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: Bad_Skill\ndescription: short\n---\nbody\n")
    assert skill_problems(bad) == [
        "Bad_Skill: name must be lowercase-hyphenated, at most 64",
        "Bad_Skill: description is required, at most 1024 characters",
    ]


def test_the_plugin_hooks_equal_what_install_writes(repo, cli):
    result = cli("install")
    assert result.exit_code == 0, result.stderr
    written = json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]

    plugin_hooks = _load(PLUGIN / "hooks" / "hooks.json")["hooks"]

    assert plugin_hooks == written == claude_settings.merged({})["hooks"]
    for event, groups in plugin_hooks.items():
        for group in groups:
            for hook in group["hooks"]:
                assert claude_settings.is_ours(hook), (event, hook)


def test_the_plugin_mcp_server_is_the_one_install_registers(repo, cli):
    result = cli("install", "--mcp")
    assert result.exit_code == 0, result.stderr

    registered = json.loads((repo / ".mcp.json").read_text())["mcpServers"]

    plugin = _load(PLUGIN / ".mcp.json")["mcpServers"]
    assert registered == plugin == {installation.MCP_SERVER: installation.MCP_ENTRY}


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"mcpServers": {', "invalid JSON"),
        ('{"mcpServers": []}', "'mcpServers' is an object"),
    ],
)
def test_a_broken_mcp_file_is_one_line_and_left_as_it_was(repo, cli, text, words):
    (repo / ".mcp.json").write_text(text)
    result = cli("install", "--mcp")
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert words in lines[0]
    assert ".mcp.json" in lines[0]
    assert (repo / ".mcp.json").read_text() == text


def test_the_plugin_commands_are_the_ones_install_writes(repo, cli):
    assert cli("install").exit_code == 0
    installed = sorted(
        p.relative_to(repo / ".claude" / "commands").as_posix()
        for p in (repo / ".claude" / "commands").rglob("*.md")
    )
    shipped = sorted(
        p.relative_to(PLUGIN / "commands").as_posix() for p in (PLUGIN / "commands").rglob("*.md")
    )
    assert installed == shipped == ["gsd/resume-task.md", "pl-resume.md", "resurrect.md"]


# -- the real client ----------------------------------------------------------------------------


def test_the_real_client_validates_plugin_and_marketplace(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    version = claude_code.run(home, "--version")
    assert version.stdout.split()[0] == claude_code.PINNED or not _in_ci(), version.stdout

    plugin = claude_code.run(home, "plugin", "validate", str(PLUGIN), "--strict")
    market = claude_code.run(home, "plugin", "validate", str(MARKETPLACE), "--strict")
    report = json.loads(claude_code.run(home, "plugin", "validate", str(PLUGIN), "--json").stdout)

    assert plugin.returncode == 0, plugin.stdout + plugin.stderr
    assert market.returncode == 0, market.stdout + market.stderr
    assert report["success"] is True
    assert report["manifest"]["errors"] == []
    provided = {h["event"]: h["command"] for h in report["provides"]["hooks"]}
    assert provided == {o.event: o.command() for o in claude_settings.HOOKS}


def test_a_broken_manifest_fails_the_real_validator(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    broken = tmp_path / "broken"
    shutil.copytree(PLUGIN, broken)
    (broken / ".claude-plugin" / "plugin.json").write_text('{"name": "Not Kebab", "version": 3}')

    done = claude_code.run(home, "plugin", "validate", str(broken))

    assert done.returncode != 0
    assert manifest_problems(_load(broken / ".claude-plugin" / "plugin.json"))


def _in_ci() -> bool:
    import os

    return os.environ.get("CI") == "true"


def _clone_like(tmp_path: Path) -> Path:
    """What a clone of this repository holds: its tracked and new, unignored files."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    clone = tmp_path / "clone"
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    return clone


@pytest.mark.slow
def test_two_commands_install_the_plugin_and_doctor_and_install_see_it(
    tmp_path, repo, cli, monkeypatch
):
    home = tmp_path / "home"
    home.mkdir()
    clone = _clone_like(tmp_path)

    added = claude_code.run(home, "plugin", "marketplace", "add", str(clone))
    installed = claude_code.run(home, "plugin", "install", "purlin-resume@purlin-resume")

    assert added.returncode == 0, added.stdout + added.stderr
    assert installed.returncode == 0, installed.stdout + installed.stderr
    config = home / ".claude"
    settings = json.loads((config / "settings.json").read_text())
    assert claude_settings.plugin_enabled(settings) == "purlin-resume@purlin-resume"
    records = json.loads((config / "plugins" / "installed_plugins.json").read_text())
    [entry] = records["plugins"]["purlin-resume@purlin-resume"]
    cached = Path(entry["installPath"])
    assert _load(cached / "hooks" / "hooks.json") == _load(PLUGIN / "hooks" / "hooks.json")
    assert (cached / "skills" / "resurrect-earlier-work" / "SKILL.md").is_file()
    assert not (cached / "tests").exists()  # only the plugin folder is installed
    # purlin-resume sees the plugin: install leaves the hooks to it, doctor reports it once.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    result = cli("install", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert ".claude/settings.json" not in report["changed"]
    assert not (repo / ".claude" / "commands").exists()  # the plugin's commands only: not twice
    assert any("purlin-resume@purlin-resume" in line for line in report["left"])
    doctor = json.loads(cli("doctor", "--json").stdout)
    hooks = [f for f in doctor["findings"] if f["check"] in ("hooks", "plugin")]
    assert any(f["status"] == "ok" and "plugin" in f["message"] for f in hooks), hooks
    assert not any(f["status"] == "error" for f in hooks), hooks


def test_doctor_reports_hooks_registered_by_both_plugin_and_install(repo, cli):
    assert cli("install").exit_code == 0
    settings_path = repo / ".claude" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings_path.write_text(json.dumps({**settings, "enabledPlugins": {"purlin-resume@x": True}}))

    doctor = json.loads(cli("doctor", "--json").stdout)
    again = cli("install", "--json")

    [hooks] = [f for f in doctor["findings"] if f["check"] == "hooks"]
    assert hooks["status"] == "warn"
    assert "registered twice" in hooks["message"]
    assert "purlin-resume uninstall" in hooks["fix"]
    assert json.loads(again.stdout)["changed"] == []  # install adds nothing beside the plugin
    settings_path.write_text(json.dumps({**settings, "enabledPlugins": {"purlin-resume@x": False}}))
    off = json.loads(cli("doctor", "--json").stdout)
    assert [f["status"] for f in off["findings"] if f["check"] == "hooks"] == ["ok"]


def test_install_writes_no_commands_while_the_plugin_is_enabled(repo, cli):
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"enabledPlugins": {"purlin-resume@x": True}}))
    result = cli("install")
    assert result.exit_code == 0, result.stderr
    assert not (repo / ".claude" / "commands").exists()
    settings.write_text(json.dumps({"enabledPlugins": {"purlin-resume@x": False}}))
    assert cli("install").exit_code == 0
    assert (repo / ".claude" / "commands" / "pl-resume.md").is_file()
