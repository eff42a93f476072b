"""Where purlin-resume keeps what it can rebuild: ``$XDG_CACHE_HOME/purlin-resume``, or
``~/.cache/purlin-resume`` when the variable is unset or empty."""

from __future__ import annotations

import os


def folder() -> str:
    """The user's cache folder of purlin-resume (it may not exist yet)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "purlin-resume")
