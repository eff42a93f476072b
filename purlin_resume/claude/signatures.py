"""The signature of each session's files under a Claude data folder: the size, mtime and inode of
its own file, of those in its ``subagents/`` folder and of the ``agent-*.jsonl`` files beside the
sessions of its project folder, and how this release reads them (``READING``). The search
index and the kept ``sessions`` listing read a session again only when its signature changed.
"""

from __future__ import annotations

import os

from purlin_resume.claude.layout import AGENT_PREFIX, SUFFIX
from purlin_resume.core import store

# How sessions are read: a new value has every session read again once by the caches that kept
# an older reading. 2: bytes that are not UTF-8 kept as U+FFFD (a line was lost), unknown
# content blocks counted.
READING = "reading 2"


def of(root: str | os.PathLike) -> dict[str, tuple[str, str, str]]:
    """session file path -> (project folder, session id, signature of all its files), for the
    resolved folder ``root``."""
    return _walk(root)


def _walk(root: str | os.PathLike) -> dict[str, tuple[str, str, str]]:
    """``of``, read from the folders: plain ``os.scandir`` strings, no ``Path`` (this
    runs before every search and listing, over every file; making a ``Path`` of each folder
    took a quarter of its time)."""
    found: dict[str, tuple[str, str, str]] = {}
    suffix, agent_prefix = SUFFIX, AGENT_PREFIX
    try:
        with os.scandir(os.path.join(root, "projects")) as folders:
            project_folders = [entry.path for entry in folders if store.is_folder(entry)]
    except OSError:
        return found
    for folder in project_folders:
        sessions: dict[str, list[str]] = {}
        beside: list[str] = []
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.endswith(suffix) and store.is_file(entry):
                    mark = _mark(name, entry)
                    if name.startswith(agent_prefix):
                        beside.append(mark)
                    else:
                        sessions.setdefault(name[: -len(suffix)], []).append(mark)
                elif store.is_folder(entry):
                    try:
                        inner = os.scandir(entry.path + "/subagents")
                    except OSError:
                        continue
                    marks = sessions.setdefault(name, [])
                    with inner:
                        for item in inner:
                            if store.is_file(item):
                                marks.append("s/" + _mark(item.name, item))
        shared = sorted(beside)
        for session_id, marks in sessions.items():
            signature = "|".join([READING, *sorted(marks), *shared])
            found[f"{folder}/{session_id}{suffix}"] = (folder, session_id, signature)
    return found


def _mark(name: str, entry: os.DirEntry) -> str:
    try:
        stat = entry.stat()
    except OSError:  # gone between the listing and the stat
        return f"{name}:gone"
    return f"{name}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}"
