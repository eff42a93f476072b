"""Compressed copies of a session's transcripts, kept after Claude Code deletes the originals.

Claude Code removes transcripts after 30 days by default (``cleanupPeriodDays``). Bookmarking an
agent copies its whole session (the session file, its ``<session>/subagents/`` folder and any
``agent-<id>.jsonl`` of it beside the sessions) into ``<Claude data folder>/history/archive/
<session id>.tar.gz``, paths kept relative to the Claude data folder. When the originals are gone
the archive is unpacked into the user cache folder, which then reads like a Claude data folder.
Unpacking accepts only regular files under ``projects/`` with no ``..``: nothing else leaves it.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path, PurePosixPath

from purlin_resume.claude.catalog import Catalog, session_paths
from purlin_resume.claude.layout import SessionFile
from purlin_resume.core import store
from purlin_resume.core.errors import CorruptFile

FOLDER = "archive"


def archive_path(history: Path, session_id: str) -> Path:
    return Path(history) / FOLDER / f"{session_id}.tar.gz"


def create(history: Path, catalog: Catalog, session: SessionFile) -> Path:
    """Write (or refresh) the archive of ``session``; returns its path."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for path in session_paths(catalog, session):
            name = path.relative_to(catalog.root).as_posix()
            tar.add(str(path), arcname=name, recursive=False)
    target = archive_path(history, session.id)
    store.private_folder(target.parent)  # raw transcripts, secrets and all: owner only
    store.write_bytes(target, buffer.getvalue())
    return target


def _safe_name(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return bool(parts) and parts[0] == "projects" and ".." not in parts and not name.startswith("/")


def unpack(archive: Path, cache: Path) -> Path:
    """The archive unpacked under ``cache`` (a Claude data folder); reused while up to date."""
    archive = Path(archive)
    target = Path(cache) / archive.name.removesuffix(".tar.gz")
    stamp = target / ".unpacked"
    mtime = archive.stat().st_mtime_ns
    if stamp.is_file() and store.read_text(stamp).strip() == str(mtime):
        return target

    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile() or not _safe_name(member.name):
                    continue
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                unpacked = target / member.name
                store.private_folder(unpacked.parent)
                store.write_bytes(unpacked, handle.read())
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorruptFile(archive, f"not a readable archive: {exc}") from None
    store.private_folder(target / "projects")
    store.write_text(stamp, f"{mtime}\n")
    return target
