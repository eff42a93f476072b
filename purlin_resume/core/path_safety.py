"""Which folders a resurrection may read from (SEC-2): allowed roots, no ``..``, no symlink escape.

A path given on the command line (``--from``) or taken from a bookmark is refused when it holds
a ``..`` component, when it lies outside every allowed root, or when it lies inside one only as
written but a symbolic link takes it outside (the real path is what is checked). Allowed roots
come from the ``allowed_roots`` setting (default: the home folder); ``~`` is expanded. A
resurrection also allows the current repository and, unless ``allow_own_projects`` is off, the
project the user's own transcript records (``folders``): the user ran Claude Code there,
wherever it lies (``/srv``, ``/work``, a mounted disk).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePath

from purlin_resume.core import config
from purlin_resume.core.errors import UsageError


class Refused(UsageError):
    """A path SEC-2 refuses (exit 2); a resurrection logs it."""


def roots(configured: Iterable[str]) -> list[Path]:
    """The allowed roots, expanded and with their own symlinks resolved."""
    return [Path(os.path.realpath(os.path.expanduser(root))) for root in configured]


def folders(known: Iterable[str | os.PathLike[str] | None]) -> list[Path]:
    """Folders allowed besides the roots (the transcript's own project, the current repository),
    taken as written: a symbolic link among them does not carry the permission elsewhere."""
    return [Path(os.path.abspath(os.fspath(folder))) for folder in known if folder]


def _inside(path: Path, allowed: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in allowed)


def checked(raw: str | os.PathLike[str], allowed: list[Path], what: str = "path") -> Path:
    """The real absolute path of ``raw``, or Refused (exit 2) naming why it is refused."""
    text = os.fspath(raw)
    shown = ", ".join(dict.fromkeys(str(root) for root in allowed)) or "none configured"
    hint = f"to allow it, add the folder: {config.where_to_set('allowed_roots')}"
    if ".." in PurePath(text).parts:
        raise Refused(f"{what} {text}: '..' is not allowed; give the folder itself")
    written = Path(os.path.abspath(os.path.expanduser(text)))
    real = Path(os.path.realpath(written))
    if _inside(real, allowed):
        return real
    if _inside(written, allowed):
        raise Refused(
            f"{what} {text}: a symbolic link leads to {real}, outside the allowed folders "
            f"({shown}); {hint}"
        )
    raise Refused(f"{what} {text}: outside the allowed folders ({shown}); {hint}")
