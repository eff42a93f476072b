"""Where the shipped templates/, instructions/ and slash commands are: in the wheel, or in a source
checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


def data_dir(name: str) -> Path:
    """``templates`` or ``instructions``: the copy inside an installed wheel, else the checkout's."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def commands_dir() -> Path:
    """The slash commands: the wheel's copy, else the checkout's Claude Code plugin (``plugin/``,
    which the plugin and ``install`` share)."""
    installed = _PACKAGE / "_data" / "templates" / "claude" / "commands"
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / "plugin" / "commands"
