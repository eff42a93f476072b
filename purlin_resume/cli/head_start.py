"""Work a command starts before it loads what it needs (its own modules, and Typer when the
command line is not plain): loading takes most of a short command's time, and the work runs on
another core meanwhile.

- ``stall check``: the ``git log`` and ``git status`` of the agent's work tree, started with
  nothing loaded but ``os`` and ``json`` (``agents/git_ahead``); the command takes them back
  with ``git_ahead.taken`` once its arguments are parsed.

``begin`` reads what the work needs (the agent, ``--project``, ``--claude-dir``) from the raw
arguments. The work is used only where it is exactly what the command would do itself (the same
work tree at the same moment, ``GitWork.serves``), so a misread argument costs time, never a different answer.
"""

from __future__ import annotations


def _command_line(
    args: list[str], command: list[str], valued: tuple[str, ...], flags: tuple[str, ...]
) -> tuple[list[str], dict[str, str]] | None:
    """(the arguments, the valued options' values) of ``[--no-redact] COMMAND ...`` where every
    option is one of ``valued`` (``--opt value`` or ``--opt=value``) or ``flags``, in any order
    (``--`` ends them); None for anything else: another command, ``--help``, an option this does
    not know (the command decides what it means)."""
    at = 0
    while at < len(args) and args[at] == "--no-redact":
        at += 1
    if args[at : at + len(command)] != command:
        return None
    words: list[str] = []
    values: dict[str, str] = {}
    rest = iter(args[at + len(command) :])
    for arg in rest:
        name, equals, value = arg.partition("=")
        if arg == "--":
            words += list(rest)
        elif arg in flags:
            continue
        elif name in valued:
            value = value if equals else next(rest, None)
            if value is None:
                return None
            values[name] = value
        elif arg.startswith("-"):
            return None
        else:
            words.append(arg)
    return words, values


def stall_check_arguments(args: list[str]) -> tuple[str, str | None] | None:
    """(agent, --project or None) of ``[--no-redact] stall check AGENT [--json] [--lookback N]
    [--project DIR]`` in any order, ``--opt=value`` forms included; None for anything else."""
    found = _command_line(args, ["stall", "check"], ("--lookback", "--project"), ("--json",))
    if found is None or len(found[0]) != 1:
        return None
    return found[0][0], found[1].get("--project")


def begin(args: list[str]) -> None:
    """Nothing is started ahead of a command any more: the command does its own work."""
