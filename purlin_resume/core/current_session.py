"""Which Claude Code session the running command belongs to.

``--session`` wins; in a hook, the payload's ``session_id``; else ``$PURLIN_SESSION_ID`` (an
explicit override), else ``$CLAUDE_CODE_SESSION_ID`` (what Claude Code sets for its hooks and
for the commands its agent runs, since 2.1.132), else ``$CLAUDE_SESSION_ID`` (what older
slash commands pass on from their ``${CLAUDE_SESSION_ID}`` text), else none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from purlin_resume.core import ids
from purlin_resume.core.errors import UsageError

SESSION_ENV = ("PURLIN_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")


def from_environment(env: Mapping[str, str] | None = None) -> str | None:
    """The session named by the environment, or None."""
    env = os.environ if env is None else env
    return next((env[name].strip() for name in SESSION_ENV if (env.get(name) or "").strip()), None)


def resolve(explicit: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """``explicit`` when given, else the environment's session."""
    return explicit if explicit else from_environment(env)


def checked(explicit: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """``--session``, else the session the environment names; checked to be a safe name (it
    names files). An empty ``--session ""`` (a slash command whose ``${CLAUDE_SESSION_ID}`` was
    not filled in) counts as not given."""
    value = resolve(explicit, env)
    if value is None:
        return None
    if not ids.SESSION.valid(value) or value.endswith(".md"):
        raise UsageError(f"session id '{value}' is not usable as a name: {ids.SESSION.shape}")
    if kind := ids.secret_in(value):
        raise UsageError(f"that session id holds a secret ({kind}); it would name a file")
    return value
