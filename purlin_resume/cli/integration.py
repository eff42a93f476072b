"""`install`, `uninstall`, `hook`, `git-hook` and `doctor`: Claude Code and git call us."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

# ruff: noqa: UP045 - Typer reads the annotations at runtime on Python 3.10
from purlin_resume.claude.hooks import EVENTS
from purlin_resume.cli.app import app
from purlin_resume.cli.common import (
    echo_error,
    outgoing,
    print_json,
    print_text,
    project_for,
)
from purlin_resume.cli.options import (
    ClaudeDirOption,
    JsonOption,
    ProjectOption,
)
from purlin_resume.core import config
from purlin_resume.core import trust as trust_mod
from purlin_resume.core.errors import UsageError
from purlin_resume.core.project import locate
from purlin_resume.integration import cli_hooks, githooks, hook_call, installation
from purlin_resume.integration import doctor as doctor_mod
from purlin_resume.integration.githook_names import NAMES as GIT_HOOKS
from purlin_resume.mcp import server

PANEL = "Claude Code and git"
UserOption = Annotated[
    bool,
    typer.Option(
        "--user", help="The user's Claude Code folder (~/.claude) instead of the project's."
    ),
]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Print the diff of what would change; change nothing.")
]
CliOption = Annotated[
    Optional[str],
    typer.Option(
        "--cli",
        help="Another agent CLI's hooks instead: codex (.codex/hooks.json) or gemini "
        "(.gemini/settings.json); with --user, the user's.",
        show_default=False,
    ),
]


def _cli_target(cli: str, project: Path | None, user: bool) -> installation.Target:
    if user and project is not None:
        raise UsageError("--project and --user exclude each other: choose one target")
    return cli_hooks.target(cli, None if user else project_for(project))


def _target(project: Path | None, user: bool) -> installation.Target:
    if user and project is not None:
        raise UsageError("--project and --user exclude each other: choose one target")
    return installation.user_target() if user else installation.project_target(project_for(project))


def _report(plan: installation.Plan, dry_run: bool, as_json: bool, verb: str) -> None:
    files = [plan.target.label(c.path) for c in plan.changes]
    if as_json:
        print_json(
            {
                "target": str(plan.target.claude_dir),
                "dry_run": dry_run,
                "changed": files,
                "left": plan.left,
                "diff": plan.diff(),
            }
        )
        return
    if dry_run:
        print_text(plan.diff() or "Nothing to change.")
    elif files:
        print_text(f"{verb}: " + ", ".join(files))
    else:
        print_text(
            "Nothing to change: already "
            + ("installed." if verb == "Installed" else "uninstalled.")
        )
    for line in plan.left:
        print_text(f"Left: {line}")


def _carry_out(
    planner, target: installation.Target, dry_run: bool, as_json: bool, verb: str
) -> None:
    plan = planner(target)
    if not dry_run:
        plan.apply()
    _report(plan, dry_run, as_json, verb)


@app.command(rich_help_panel=PANEL)
def install(
    project: ProjectOption = None,
    user: UserOption = False,
    mcp: Annotated[
        bool,
        typer.Option(
            "--mcp",
            help="Also register the MCP server (purlin-resume mcp): the project's .mcp.json, "
            "or with --user the user's .claude.json.",
        ),
    ] = False,
    cli: CliOption = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
) -> None:
    """Install the slash commands and the hooks into Claude Code (project by default; no hooks while the plugin is enabled); --cli codex|gemini: our hooks into that CLI."""
    if cli is not None:
        if mcp:
            raise UsageError("--mcp registers the MCP server with Claude Code: leave out --cli")
        where = _cli_target(cli, project, user)
        _carry_out(lambda t: cli_hooks.plan_install(cli, t), where, dry_run, as_json, "Installed")
        return

    def planner(target: installation.Target) -> installation.Plan:
        return installation.plan_install(target, mcp=mcp)

    _carry_out(planner, _target(project, user), dry_run, as_json, "Installed")


@app.command(rich_help_panel=PANEL)
def uninstall(
    project: ProjectOption = None,
    user: UserOption = False,
    cli: CliOption = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
) -> None:
    """Remove our hooks and slash commands; every other setting and hook stays as it is."""
    if cli is not None:
        where = _cli_target(cli, project, user)
        _carry_out(lambda t: cli_hooks.plan_uninstall(cli, t), where, dry_run, as_json, "Removed")
        return
    _carry_out(installation.plan_uninstall, _target(project, user), dry_run, as_json, "Removed")


@app.command(rich_help_panel=PANEL)
def hook(
    event: Annotated[
        str,
        typer.Argument(metavar="EVENT", help=f"One of: {', '.join(EVENTS)}.", show_default=False),
    ],
    cli: Annotated[
        Optional[str],
        typer.Option("--cli", help="The agent CLI that calls (codex, gemini).", show_default=False),
    ] = None,
) -> None:
    """Handle one Claude Code hook call (payload JSON on stdin). Always exits 0; failures go to .purlin/cache/hook.log."""
    hook_call.handle(event, ["--cli", cli] if cli else [])


@app.command(name="git-hook", rich_help_panel=PANEL)
def git_hook(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help=f"One of: {', '.join(GIT_HOOKS)}.", show_default=False),
    ],
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FILE", help="Files to check (default: the staged ones).", show_default=False
        ),
    ] = None,
    project: ProjectOption = None,
) -> None:
    """Run one git hook: agent-history, no-cache, no-secrets (pre-commit) or post-commit."""
    if name not in GIT_HOOKS:
        raise UsageError(f"unknown git hook {name!r} (known: {', '.join(GIT_HOOKS)})")
    where = project_for(project)
    if name == "post-commit":
        try:
            verdict = githooks.run(where, name, [], os.environ)
        except Exception as exc:  # noqa: BLE001 -- a post-commit hook never fails the commit
            hook_call.log_failure(
                where.root, "git post-commit", None, hook_call.failure_line(exc), exc
            )
            return
    else:
        verdict = githooks.run(where, name, list(files or []), os.environ)
    for problem in verdict.problems:  # a file's name, a history's value: redacted as all output
        echo_error(outgoing(problem))
    if not verdict.ok:
        raise typer.Exit(1)


@app.command(name="mcp", rich_help_panel=PANEL)
def mcp_command(claude_dir: ClaudeDirOption = None) -> None:
    """Serve the MCP tools on stdin/stdout (Claude Code starts it)."""
    server.serve(claude_dir)


@app.command(rich_help_panel=PANEL)
def doctor(project: ProjectOption = None, as_json: JsonOption = False) -> None:
    """Check that commands, hooks, tools and state files are in place; each finding says how to fix it."""
    where = locate(project)
    config.applied(where)  # a config that does not load is a finding; the other checks still run
    findings = doctor_mod.examine(where)
    failed = any(f.status == doctor_mod.ERROR for f in findings)
    if as_json:
        print_json({"ok": not failed, "findings": [f.to_dict() for f in findings]})
    else:
        marks = {doctor_mod.OK: "ok  ", doctor_mod.WARN: "warn", doctor_mod.ERROR: "FAIL"}
        for f in findings:
            print_text(
                f"{marks[f.status]} {f.check}: {f.message}" + (f" -> {f.fix}" if f.fix else "")
            )
    if failed:
        raise typer.Exit(1)


@app.command(rich_help_panel=PANEL)
def trust(
    revoke: Annotated[
        bool, typer.Option("--revoke", help="Forget the trust: hooks stop running the command.")
    ] = False,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Let hooks and restores run this project's status command (code from the repository).

    Its settings that run a program or loosen protection (agent_command, tmux_socket,
    redact.allow ...) apply too; trust prints them. Kept outside the repository, keyed by the
    project's path and the hash of the command and those settings: a change must be trusted again.
    """
    where = project_for(project)
    if not revoke and os.environ.get(trust_mod.AGENT_SHELL_ENV):
        raise UsageError(
            "trust is your decision, not an agent's: run 'purlin-resume trust' in your own "
            f"terminal (this shell has ${trust_mod.AGENT_SHELL_ENV} set, so Claude Code runs it)"
        )
    if revoke:
        was = trust_mod.revoke(where)
        config.apply_redaction(config.load(where))  # its own patterns, revoked, run no more
        if as_json:
            print_json({"project": str(where.root), "trusted": False, "was_trusted": was})
        else:
            print_text(f"{where.root}: {'no longer trusted' if was else 'was not trusted'}\n")
        return
    settings = config.load(where)
    command = trust_mod.allow(where, settings)
    granted = {config.written_as(k): _as_written(v) for k, v in settings.asked.items()}
    if as_json:
        print_json(
            {
                "project": str(where.root),
                "trusted": True,
                "status_command": command.text,
                "sha256": command.digest,
                "settings": granted,
                "file": str(trust_mod.path()),
            }
        )
        return
    shown = command.text or "(none configured)"
    runs = f"hooks and restores run its status command {shown} (sha256 {command.digest[:12]})"
    runs += " until it changes"
    if command.missing:  # its hash is of the name only: a script put there later is not trusted
        runs = (
            f"its status command {shown} is not in the project (sha256 {command.digest[:12]}): "
            "one put there later runs only after you trust the project again"
        )
    applied = "".join(f"  {name} = {value!r}\n" for name, value in granted.items())
    print_text(
        f"{where.root}: trusted; {runs}\n"
        + (f"and its own settings apply:\n{applied}" if applied else "")
    )


def _as_written(value: Any) -> Any:
    """A setting's value as a config file writes it (lists, not tuples)."""
    return [_as_written(v) for v in value] if isinstance(value, tuple) else value
