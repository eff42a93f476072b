"""Where Claude Code keeps its transcripts on disk.

``<claude dir>/projects/<folder>/`` holds one folder per working directory (its name encodes the
path lossily, so it is never decoded: the real path is the ``cwd`` the records carry). In it:

- ``<session id>.jsonl``: a session;
- ``agent-<agent id>.jsonl`` beside the sessions: a subagent (Claude Code 2.0.x);
- ``<session id>/subagents/agent-<agent id>.jsonl``: a subagent (2.1.2 and later), with an
  optional ``agent-<agent id>.meta.json``;
- ``agent-acompact-*.jsonl`` in either place: a compaction run, not an agent.

Claude Code 1.0.x kept subagents inline in the session file (records with ``isSidechain``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from purlin_resume.core import store
from purlin_resume.core.errors import NotFound

AGENT_PREFIX = "agent-"
COMPACTION_PREFIX = "acompact"
SUFFIX = ".jsonl"
# Claude Code's command-line flags that hand a recorded session back to it
RESUME_FLAG = "--resume"
FORK_FLAG = "--fork-session"
SESSION_FLAG = "--session-id"


def config_dir(explicit: Path | None = None) -> tuple[Path, str]:
    """``--claude-dir``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``, and which one it was.

    The folder may not exist yet (a fresh machine): callers that read transcripts use
    ``claude_dir``, which insists on ``projects/``.
    """
    if explicit is not None:
        return Path(explicit).expanduser(), "--claude-dir"
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(os.environ["CLAUDE_CONFIG_DIR"]).expanduser(), "CLAUDE_CONFIG_DIR"
    return Path.home() / ".claude", "the default"


def child_environment(explicit: Path | None = None) -> dict[str, str]:
    """What an agent we start must be told to read the same data folder: ``CLAUDE_CONFIG_DIR``
    when the folder was named (``--claude-dir`` or ``$CLAUDE_CONFIG_DIR``), nothing when it is the
    default. Naming the default is not the same as leaving it unset: Claude Code then reads its
    own settings (``.claude.json``: the login, onboarding, trusted folders) from inside that
    folder instead of the home folder, and starts as if it had never been set up."""
    folder, source = config_dir(explicit)
    return {} if source == "the default" else {"CLAUDE_CONFIG_DIR": str(folder.absolute())}


def claude_dir(explicit: Path | None = None) -> Path:
    """``--claude-dir``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``; it must hold projects/."""
    folder, source = config_dir(explicit)
    if not (folder / "projects").is_dir():
        raise NotFound(
            f"no Claude Code transcripts in {folder} ({source}): it has no projects/ folder; "
            "pass --claude-dir or set CLAUDE_CONFIG_DIR"
        )
    return folder


def history_dir(explicit: Path | None = None) -> Path:
    """``<Claude data folder>/history``: the resurrection log, global bookmarks, the archive."""
    return config_dir(explicit)[0] / "history"


class SessionFile(NamedTuple):
    """A session's place on disk; its JSONL file may be gone while its subagents remain."""

    id: str
    folder: Path
    stem: str | None = None  # the file's name when it is not the session id (a renamed copy)

    @property
    def path(self) -> Path:
        return self.folder / f"{self.stem or self.id}{SUFFIX}"

    @property
    def subagents_dir(self) -> Path:
        return self.folder / self.id / "subagents"

    @property
    def exists(self) -> bool:
        return self.path.is_file()


class AgentFile(NamedTuple):
    """A subagent's (or compaction run's) own JSONL file."""

    id: str
    path: Path
    session_id: str | None  # known from the folder in the 2.1 layout; else from its records

    @property
    def is_compaction(self) -> bool:
        return self.id.startswith(COMPACTION_PREFIX)

    @property
    def meta_path(self) -> Path:
        return self.path.with_name(f"{AGENT_PREFIX}{self.id}.meta.json")

    @property
    def layout(self) -> str:
        return "subagents-folder" if self.path.parent.name == "subagents" else "beside-sessions"


def project_folders(root: Path) -> list[Path]:
    base = Path(root) / "projects"
    with os.scandir(base) as entries:  # the kind of each entry without a stat
        names = sorted(entry.name for entry in entries if store.is_folder(entry))
    return [base / name for name in names]


def listable(folder: Path) -> bool:
    """May this user list ``folder`` (one ``sudo claude`` made root's may not)?"""
    return os.access(folder, os.R_OK | os.X_OK)


def leave_unlisted(current: Path, folders: list[str], refused: list[Path] | None) -> None:
    """Take the folders of ``current`` this user may not list out of a walk's ``folders``
    (``store.walk``); they go to ``refused``, when given."""
    unlisted = [name for name in folders if not listable(current / name)]
    folders[:] = [name for name in folders if name not in unlisted]
    if refused is not None:
        refused += [current / name for name in unlisted]


def unlisted(root: Path) -> list[Path]:
    """The project folders of the Claude data folder ``root`` this user may not list (what a
    search passes over)."""
    try:
        return [folder for folder in project_folders(root) if not listable(folder)]
    except OSError:  # no projects/ folder (one it may not list: the command says so)
        return []


def refused_line(refused: list[Path]) -> str:
    """One line naming the folders passed over as this user may not list them ("": none)."""
    if not refused:
        return ""
    more = len(refused) - 1
    others = f" (and {more} more folder{'s' if more > 1 else ''})" if more else ""
    return (
        f"{refused[0]}{others}: Permission denied; the conversations there are not read: "
        "make it readable for you"
    )


def _agent_id(path: Path) -> str | None:
    return _agent_id_in(path.name)


def _agent_id_in(name: str) -> str | None:
    if name.startswith(AGENT_PREFIX) and name.endswith(SUFFIX):
        return name[len(AGENT_PREFIX) : -len(SUFFIX)] or None
    return None


def session_files(folder: Path) -> list[SessionFile]:
    """Every session of a project folder, including one whose file is gone but not its agents."""
    ids: set[str] = set()
    with os.scandir(folder) as entries:
        for child in entries:
            name = child.name
            if store.is_file(child):
                if name.endswith(SUFFIX) and _agent_id_in(name) is None:
                    ids.add(name[: -len(SUFFIX)])
            elif store.is_folder(child) and os.path.isdir(os.path.join(child.path, "subagents")):
                ids.add(name)
    folder = Path(folder)
    return [SessionFile(session_id, folder) for session_id in sorted(ids)]


def agent_files(folder: Path, refused: list[Path]) -> list[AgentFile]:
    """Every agent file of a project folder, in both the 2.0.x and the 2.1 layout; a folder of
    subagents this user may not list goes to ``refused``."""
    found: list[AgentFile] = []
    folder = Path(folder)
    for child in sorted(folder.iterdir()):
        if child.is_file():
            agent_id = _agent_id(child)
            if agent_id:
                found.append(AgentFile(agent_id, child, None))
        elif (child / "subagents").is_dir():
            if not listable(child / "subagents"):
                refused.append(child / "subagents")
                continue
            for inner in sorted((child / "subagents").iterdir()):
                agent_id = _agent_id(inner)
                if agent_id and inner.is_file():
                    found.append(AgentFile(agent_id, inner, child.name))
    return found
