"""What each kind of id may look like, checked where the id enters (argument, payload, file).

Ids come from places we do not control: a hook payload, a committed ``agent-history.json`` on a
branch, an environment variable. They end up in file names and in commands we print for the
agent to run, so each kind has one pattern, and a value outside it is refused where it enters.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Kind(NamedTuple):
    """A kind of id and the shape a valid one has."""

    name: str
    pattern: str  # compiled on first use (``re`` keeps it): a hook checks one kind, not all
    shape: str  # what a valid one looks like, for the error message

    def valid(self, value: object) -> bool:
        return isinstance(value, str) and re.fullmatch(self.pattern, value) is not None

    def problem(self, value: object) -> str | None:
        """None when ``value`` is a valid id of this kind, else one line saying why not."""
        if self.valid(value):
            return None
        shown = repr(value)  # a longer one by its length: a token cut short is not redacted
        shown = shown if len(shown) <= 80 else f"of {len(shown)} characters"
        return f"{self.name} {shown} is not valid ({self.shape})"


# the ids Claude Code makes (a session's UUID, an agent's hex id, a tool call's ``toolu_…``):
# no redaction rule finds a secret in one (a test holds them to it)
CLIENT_MADE = (
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|a?[0-9a-f]{6,24}"
    r"|toolu_[A-Za-z0-9]{20,32}"
)


def secret_in(value: str) -> str | None:
    """The kind of secret ``value`` holds by the redaction rules, or None. An id holding one is
    refused where it enters: it would name a file or a record in clear, and redacted it is no
    longer the id."""
    if re.fullmatch(CLIENT_MADE, value):  # naming an agent loads no rules
        return None
    from purlin_resume.core import redact  # only for an id of another shape

    found = redact.find(value)
    return found[0].kind if found else None


_WORD = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"
_WORD_SHAPE = "a letter or digit first, then letters, digits, '.', '_' and '-', at most 128"
AGENT = Kind(  # GSD and Claude Code agent ids (a2898e3), tool use ids (toolu_…), successors
    "agent id", _WORD, _WORD_SHAPE
)
SESSION = Kind(  # Claude Code session ids are UUIDs; tests and users name them freely
    "session id", _WORD, _WORD_SHAPE
)
COMMIT = Kind(  # a git commit id: abbreviated or whole, SHA-1 (40) or SHA-256 (64)
    "commit id", r"[0-9a-fA-F]{7,64}", "7 to 64 hex digits"
)
RESURRECTION = Kind("resurrection id", r"res-\d{4}-\d{2}-\d{2}-\d{3,}", "res-YYYY-MM-DD-NNN")
BOOKMARK = Kind("bookmark id", r"bmk-\d{4}-\d{2}-\d{2}-g?\d{3,}", "bmk-YYYY-MM-DD-NNN, or -gNNN")
BOOKMARK_NAME = Kind(
    "bookmark name",
    r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}",
    "letters, digits, '.', '_' or '-', at most 80, starting with a letter or digit",
)
