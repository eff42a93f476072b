"""Where a resurrection works: the Claude data folder, the history, the cache, the bookmark
shelves and the settings of the project (``Environment``), for a command (``environment_here``)
or for given folders (``environment``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from purlin_resume.claude import layout
from purlin_resume.claude.catalog import Catalog
from purlin_resume.core import cache_home, config, path_safety
from purlin_resume.core.config import Settings
from purlin_resume.core.project import Project, locate, toplevel_here
from purlin_resume.resurrection import bookmarks, log
from purlin_resume.resurrection.bookmarks import Shelves


@dataclass
class Environment:
    """Where a resurrection reads and writes, and the settings it follows."""

    claude_root: Path  # the Claude data folder (it may have no projects/ folder left)
    history: Path
    cache: Path
    shelves: Shelves
    settings: Settings
    project_root: Path | None  # the project the new agent works in
    host: str = field(default_factory=lambda: _hostname())
    data_env: dict[str, str] = field(default_factory=dict)  # layout.child_environment

    @property
    def log(self) -> Path:
        return self.history / log.FILE_NAME

    @property
    def allowed(self) -> list[Path]:
        return path_safety.roots(self.settings.allowed_roots)

    def has_transcripts(self) -> bool:
        return (self.claude_root / "projects").is_dir()

    def live_catalog(self):
        return Catalog(self.claude_root) if self.has_transcripts() else None


def environment(
    claude_dir: Path | None, project_root: Path | None, settings: Settings | None = None
) -> Environment:
    root, _ = layout.config_dir(claude_dir)
    history = root / "history"
    local = project_root / ".purlin" / bookmarks.FILE_NAME if project_root else None
    shelves = Shelves(local, history / bookmarks.FILE_NAME)
    return Environment(
        root,
        history,
        Path(cache_home.folder()),
        shelves,
        settings or Settings(),
        project_root,
        data_env=layout.child_environment(claude_dir),
    )


def environment_here(claude_dir: Path | None, project: Path | None) -> Environment:
    """The environment of a command: the project ``project`` names (else the git top-level of
    the working folder, when there is one) with its settings, whose redaction rules apply from
    now on (what the command keeps in caches is redacted by them)."""
    if project is not None:
        root: Path | None = locate(project).root
    else:
        root = toplevel_here()  # a deleted working folder: no project
    settings = config.load(Project(root) if root is not None else None)
    config.apply_redaction(settings)
    return environment(claude_dir, root, settings)


def _hostname() -> str:
    return os.uname().nodename  # gethostname(2), without importing socket
