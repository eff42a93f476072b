"""The ``Agent-Id`` trailer: how a commit message names the agents that made it."""

from __future__ import annotations

import re

TRAILER = "Agent-Id"
_TRAILER = re.compile(rf"^{TRAILER}:[ \t]*(\S+)[ \t]*$", re.M | re.I)


def trailer_agents(message: str) -> list[str]:
    """The agent ids named by ``Agent-Id:`` trailers of a commit message."""
    return _TRAILER.findall(message or "")
