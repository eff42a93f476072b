"""The three roles an agent can have, and how to recognise them."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from purlin_resume.core.errors import UsageError

ROLES = ("architect", "builder", "qa")
ROLE_ENV = "PURLIN_ROLE"  # the role an agent was started in (by its user, revive, resurrect)

# "You are the Architect", "You are the **Builder**", "you are the QA agent", ...
_MARKER = re.compile(r"\byou\s+are\s+the\s+\**\s*(architect|builder|qa)\b", re.IGNORECASE)


def display_name(role: str) -> str:
    """``Architect``, ``Builder`` or ``QA``."""
    return "QA" if role == "qa" else role.capitalize()


def with_article(role: str) -> str:
    """``an Architect``, ``a Builder``, ``a QA``: a role's name as it reads in a sentence."""
    name = display_name(role)
    return f"{'an' if name[:1].lower() in 'aeio' else 'a'} {name}"


def _known(value: str) -> str | None:
    """``value`` as a role's name (any case, spaces around), None when it names none."""
    role = value.strip().lower()
    return role if role in ROLES else None


def from_environment(env: Mapping[str, str] = os.environ) -> str | None:
    """The role ``$PURLIN_ROLE`` names; None when it names none."""
    return _known(env.get(ROLE_ENV, ""))


def parse_role(value: str) -> str:
    """A role name as given to ``restore``; anything else is a usage error that lists the roles
    and, as /pl-resume's argument may also be ``save``, how to save."""
    role = _known(value)
    if role is None:
        raise UsageError(
            f"unknown role '{value}': valid roles are {', '.join(ROLES)} "
            "(to save a checkpoint: 'purlin-resume save', /pl-resume save)"
        )
    return role


def required_role(value: str | None) -> str:
    """The role a checkpoint is saved for (``save --role``); missing or unknown is a usage error."""
    given = (value or "").strip().lower()
    if not given:
        raise UsageError("--role is required (architect, builder or qa)")
    role = _known(given)
    if role is None:
        raise UsageError(f"--role {given}: valid roles are {', '.join(ROLES)}")
    return role


def restore_role(value: str | None) -> str | None:
    """The role ``restore`` is given, None when it is to be found; ``save`` and anything else
    that is not a role are usage errors."""
    if value is None:
        return None
    if value.strip().lower() == "save":
        raise UsageError(
            "'save' writes a checkpoint: run 'purlin-resume save --role ROLE ...'; "
            "restore takes architect, builder or qa"
        )
    return parse_role(value)


def markers_in(text: str) -> list[str]:
    """The roles that identity markers in a system prompt name, in role order."""
    found = {match.lower() for match in _MARKER.findall(text)}
    return [role for role in ROLES if role in found]


def detect_from_system_prompt(text: str) -> str | None:
    """The role named by identity markers in a system prompt; None when absent or ambiguous."""
    found = markers_in(text)
    return found[0] if len(found) == 1 else None


def undetected(system_prompt: str | None) -> UsageError:
    """The error when no role is given, none can be found and nobody can be asked."""
    markers = markers_in(system_prompt) if system_prompt else []
    found = (
        f"the system prompt names {len(markers)} roles ({' and '.join(markers)})"
        if len(markers) > 1
        else "none found in the system prompt"
    )
    return UsageError(
        f"no role given and {found}: run 'purlin-resume restore ROLE' "
        f"with ROLE one of {', '.join(ROLES)}"
    )
