"""Which projects the user trusted: their decision, kept outside any repository.

A project's status command (``status_command`` in ``.purlin/config.json``, by default
``tools/cdd/status.sh``) is code from the repository, and so are the settings that name a
program or loosen protection (``config.NEEDS_TRUST``: ``agent_command``, ``tmux_socket``,
``redact.allow`` ...). A cloned repository or a checked-out branch could run anything through
them, so they apply only to a project the user trusted with ``purlin-resume trust``, as direnv
does with ``direnv allow``. Trust is kept in ``$XDG_DATA_HOME/purlin-resume/trust.json`` (else
``~/.local/share/…``), keyed by the project's real path and a hash of the command line, the
content of the file it names in the project, and those settings and its own redaction patterns
(which a trusted project runs unbounded) as the project writes them (``config.BOUND_BY_TRUST``).
Change any and the project must be trusted again. An agent cannot trust for the user: ``trust``
refuses to run in Claude Code's shell (``$CLAUDECODE``).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import Any, Protocol

from purlin_resume.core import clock, store
from purlin_resume.core.errors import CorruptFile
from purlin_resume.core.project import Project


class Settings(Protocol):
    """What trust reads of a project's settings (``config.Settings`` has both)."""

    @property
    def status_command(self) -> str: ...
    @property
    def asked(self) -> Mapping[str, Any]: ...


FILE_NAME = "trust.json"
VERSION = 1
AGENT_SHELL_ENV = "CLAUDECODE"  # set by Claude Code in the shell its agent runs commands in


def path(env: Mapping[str, str] = os.environ) -> Path:
    return store.user_folder("data", env=env) / FILE_NAME


@dataclass(frozen=True)
class Command:
    """The status command as it would run now, and its hash."""

    text: str
    digest: str
    missing: bool = False  # it names a script of the project that is not there


def command(project: Project, settings: Settings) -> Command:
    """The configured status command and the hash trust is keyed by (with the project's
    ``BOUND_BY_TRUST`` settings as written, when it writes any)."""
    text = settings.status_command.strip()
    digest = sha256(text.encode("utf-8"))
    try:
        first = shlex.split(text)[:1]
    except ValueError:
        first = []
    local = project.root / first[0] if first else None
    if local is not None and local.is_file():
        digest.update(b"\0" + local.read_bytes())
    if settings.asked:
        digest.update(b"\0settings\0" + json.dumps(settings.asked, sort_keys=True).encode())
    # a path in the project (not a program on PATH) that is not there
    missing = local is not None and "/" in first[0] and not local.is_file()
    return Command(text, digest.hexdigest(), missing=missing)


def _key(project: Project) -> str:
    return os.path.realpath(project.root)


def _checked(file: Path, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("projects"), dict):
        raise CorruptFile(file, "the top level must be an object with 'projects'")
    return data


def trusted(project: Project, settings: Settings, env: Mapping[str, str] = os.environ) -> bool:
    """True when the user trusted this project's status command as it is now."""
    file = path(env)
    if not file.exists():
        return False
    record = _checked(file, store.read_json(file))["projects"].get(_key(project))
    return isinstance(record, dict) and record.get("sha256") == command(project, settings).digest


def allow(project: Project, settings: Settings, env: Mapping[str, str] = os.environ) -> Command:
    """Trust this project's status command as it is now."""
    now = command(project, settings)

    def change(data: Any) -> None:
        _checked(file, data)["projects"][_key(project)] = {
            "command": now.text,
            "sha256": now.digest,
            "trusted_at": clock.iso(),
        }

    file = path(env)
    store.update_json(file, change, default={"version": VERSION, "projects": {}})
    return now


def revoke(project: Project, env: Mapping[str, str] = os.environ) -> bool:
    """Forget the trust in this project; True when it was trusted."""
    file = path(env)
    if not file.exists():
        return False
    found = []

    def change(data: Any) -> None:
        found.append(_checked(file, data)["projects"].pop(_key(project), None))

    store.update_json(file, change)
    return found[0] is not None
