"""The three roles an agent can have, and how to recognise them."""

from __future__ import annotations

import re

from purlin_resume.core.errors import UsageError

ROLES = ("architect", "builder", "qa")
RESTORE_OPTIONS = ("save", *ROLES)

# "You are the Architect", "You are the **Builder**", "you are the QA agent", ...
_MARKER = re.compile(r"\byou\s+are\s+the\s+\**\s*(architect|builder|qa)\b", re.IGNORECASE)


def display_name(role: str) -> str:
    """``Architect``, ``Builder`` or ``QA``."""
    return "QA" if role == "qa" else role.capitalize()


def with_article(role: str) -> str:
    """``an Architect``, ``a Builder``, ``a QA``: a role's name as it reads in a sentence."""
    name = display_name(role)
    return f"{'an' if name[:1].lower() in 'aeio' else 'a'} {name}"


def parse_role(value: str) -> str:
    """A role name as given on the command line; anything else is a usage error."""
    role = value.strip().lower()
    if role not in ROLES:
        raise UsageError(
            f"unknown option '{value}': valid options are {', '.join(RESTORE_OPTIONS)}"
        )
    return role


def markers_in(text: str) -> list[str]:
    """The roles that identity markers in a system prompt name, in role order."""
    found = {match.lower() for match in _MARKER.findall(text)}
    return [role for role in ROLES if role in found]


def detect_from_system_prompt(text: str) -> str | None:
    """The role named by identity markers in a system prompt; None when absent or ambiguous."""
    found = markers_in(text)
    return found[0] if len(found) == 1 else None
