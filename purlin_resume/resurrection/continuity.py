"""The part of a resurrection prompt that carries work across agent CLIs: which CLI the
expertise came from and which one the new agent runs in, the project and branch it works on
now, and its progress as git tells it (never as the old session claims it): the branch, the
last commit, the uncommitted files, and the commits made since the original agent was last
active. Rendered from ``templates/prompts/continuity.md.j2`` and appended to the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.agentcli.programs import label
from purlin_resume.core import clock, gitrepo, templating
from purlin_resume.core.errors import PurlinError

TEMPLATE = "prompts/continuity.md.j2"
LISTED = 40


@dataclass
class Progress:
    """The project's state in git, read now."""

    project: str | None
    branch: str | None = None
    last_commit: str | None = None
    uncommitted: list[str] = field(default_factory=list)
    since: str | None = None  # the original agent's last activity
    commits_since: list[str] | None = None  # None: the time is not known
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def progress(root: Path | None, last_active: str | None) -> Progress:
    """What git says of ``root`` now; the commits after ``last_active`` (ISO 8601 UTC)."""
    if root is None:
        return Progress(None, error="not in a git project")
    found = Progress(str(root), since=last_active)
    try:
        found.branch = gitrepo.branch(root)
        found.last_commit = next(iter(gitrepo.recent_commits(root, 1)), None)
        found.uncommitted = gitrepo.status_lines(root)
        moment = clock.parse(last_active) if last_active else None
        if moment is not None:
            found.commits_since = [
                f"{c.sha[:7]} {c.message.splitlines()[0] if c.message else ''}".rstrip()
                for c in gitrepo.commits_since(root, int(moment.timestamp()))
            ]
    except PurlinError as exc:
        found.error = exc.message
    return found


def section(source_cli: str | None, target_cli: str, state: Progress) -> str:
    """The continuity section of the prompt."""
    return templating.render(
        TEMPLATE,
        source=label(source_cli),
        target=label(target_cli),
        crossing=source_cli != target_cli,
        p=state,
        limit=LISTED,
    )
