"""Where the shipped templates/ and instructions/ are: in the wheel, or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """``templates`` or ``instructions``: the copy inside an installed wheel, else the checkout's."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name
