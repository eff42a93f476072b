"""The processes above this one: which Claude Code process a hook, or a ``git commit``, runs under.

Claude Code runs a hook command through a shell, and an agent's ``git commit`` runs under the
Bash tool's shell, so the agent's own process is the nearest ancestor that is not a shell (or
``git``, or ``pre-commit``'s Python). Read from ``/proc``; where there is none, the parent is all
we can tell.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "fish", "ksh", "busybox", "env", "timeout"})


def _stat_text(pid: int) -> str | None:
    """``/proc/PID/stat``, or None where /proc does not tell (no /proc, the process gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None


def _after_name(text: str) -> list[str]:
    return text[text.rfind(")") + 2 :].split()  # the name, in parentheses, may hold anything


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` from the third (the state) on, or None."""
    text = _stat_text(pid)
    return _after_name(text) if text is not None else None


def _stat(pid: int) -> tuple[str, int] | None:
    """(command name, parent pid) of ``pid`` from ``/proc``, or None."""
    text = _stat_text(pid)
    if text is None:
        return None
    try:
        return text[text.find("(") + 1 : text.rfind(")")], int(_after_name(text)[1])
    except (IndexError, ValueError):
        return None


def ancestors(pid: int | None = None) -> Iterator[tuple[int, str]]:
    """(pid, command name) of each process above ``pid`` (default: this one), nearest first."""
    current = os.getpid() if pid is None else pid
    seen = {current}
    while True:
        stat = _stat(current)
        if stat is None:
            if current == os.getpid():
                parent = os.getppid()
                if parent > 1:
                    yield parent, ""
            return
        parent = stat[1]
        if parent <= 1 or parent in seen:
            return
        seen.add(parent)
        parent_stat = _stat(parent)
        yield parent, parent_stat[0] if parent_stat else ""
        current = parent


def agent_pid(skip: frozenset[str] = SHELLS) -> int | None:
    """The nearest ancestor that is not a shell: the Claude Code process running this hook."""
    for pid, name in ancestors():
        if name and name in skip:
            continue
        return pid
    return None


def naming(text: str) -> list[int]:
    """The processes (not this one) whose command line holds ``text`` as one of its
    arguments: e.g. an agent CLI that resumed a session by its id."""
    found: list[int] = []
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:  # no /proc: nothing to name
        return found
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if text.encode() in arguments:
            found.append(int(entry.name))
    return found
