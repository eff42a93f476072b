"""Compressed copies of a session's transcripts, kept after Claude Code deletes the originals.

Claude Code removes transcripts after 30 days by default (``cleanupPeriodDays``). Bookmarking an
agent copies its whole session (the session file, its ``<session>/subagents/`` folder and any
``agent-<id>.jsonl`` of it beside the sessions) into ``<Claude data folder>/history/archive/
<session id>.tar.gz``, paths kept relative to the Claude data folder. When the originals are gone
the archive is unpacked into the user cache folder, which then reads like a Claude data folder.
Unpacking accepts only regular files under ``projects/`` with no ``..``: nothing else leaves it.
"""

from __future__ import annotations

import errno
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from purlin_resume.claude import layout
from purlin_resume.claude.catalog import (
    Catalog,
    Opened,
    Target,
    open_resolved,
    open_target,
    session_paths,
)
from purlin_resume.claude.layout import SessionFile
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.core import store
from purlin_resume.core.errors import CorruptFile, NotFound, PurlinError
from purlin_resume.core.project import toplevel_here
from purlin_resume.crosscli import sessions as crosscli
from purlin_resume.resurrection.environment import Environment, environment

FOLDER = "archive"


def archive_path(history: Path, session_id: str) -> Path:
    return Path(history) / FOLDER / f"{session_id}.tar.gz"


def create(history: Path, catalog: Catalog, session: SessionFile) -> Path:
    """Write (or refresh) the archive of ``session``; returns its path. What a file's link
    leads to is archived (a link would outlive nothing); what is no regular file (a FIFO) holds
    no transcript and is left out; a file that cannot be read (another user's) fails it,
    named (PurlinError); the archive's own writing fails with its ``OSError``."""
    target = archive_path(history, session.id)
    store.private_folder(target.parent)  # raw transcripts, secrets and all: owner only
    with (
        store.rewritten(target) as out,
        tarfile.open(fileobj=out, mode="w:gz", compresslevel=6) as tar,
    ):
        for path in session_paths(catalog, session):
            try:
                handle = store.open_regular(path)  # closed by the with below
            except OSError as exc:
                if exc.errno in (errno.EINVAL, errno.EISDIR, errno.ELOOP, errno.ENOENT):
                    continue  # no regular file: no transcript in it
                raise PurlinError(f"cannot read {path}: {exc.strerror or exc}") from None
            with handle:
                name = path.relative_to(catalog.root).as_posix()
                tar.addfile(tar.gettarinfo(arcname=name, fileobj=handle), handle)
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
                with store.rewritten(unpacked) as out:
                    shutil.copyfileobj(handle, out)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise CorruptFile(archive, f"not a readable archive: {exc}") from None
    store.private_folder(target / "projects")
    store.write_text(stamp, f"{mtime}\n")
    return target


def archives(env: Environment, session: str) -> list[Path]:
    folder = env.history / FOLDER
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.tar.gz") if p.name.startswith(session))


def open_archived(env: Environment, identifier: str, options=None):
    """The conversation ``identifier`` names (a session or agent id, or a prefix) read from the
    archive of a bookmarked session, for when Claude Code has deleted its transcripts; None
    when no bookmark of it has an archive. ``transcript`` and ``export`` read it as
    ``resurrect`` does."""

    for catalog in _archived_catalogs(env, identifier):
        try:
            opened = open_target(catalog, identifier, options)
        except PurlinError:
            continue
        if opened.transcript is not None:
            return opened
    return None


def archived_session(claude_dir: Path | None, identifier: str) -> tuple[Catalog, Target] | None:
    """The session ``identifier`` names (an id or a prefix) in the archive a bookmark of the
    project here keeps of it, with the archive's catalog (``agents`` of a session Claude Code
    deleted); None when no bookmark's archive holds it."""
    env = environment(claude_dir, toplevel_here())
    for catalog in _archived_catalogs(env, identifier):
        try:
            return catalog, catalog.resolve(identifier, kinds=("session",))
        except PurlinError:
            continue
    return None


def _archived_catalogs(env: Environment, identifier: str) -> Iterator[Catalog]:
    """The unpacked archives of the bookmarked sessions ``identifier`` may name (a session or
    an agent id, or a prefix of one)."""
    wanted = identifier.strip().removeprefix("agent-")
    if not wanted:
        return
    sessions = dict.fromkeys(
        mark.session_id
        for mark in env.shelves.all()
        if mark.session_id.startswith(wanted) or (mark.agent_id or "").startswith(wanted)
    )
    for session_id in sessions:
        for path in archives(env, session_id):
            yield Catalog(unpack(path, env.cache / "archive"))


def open_conversation(claude_dir: Path | None, identifier: str, options=None):
    """The conversation ``identifier`` names, read from Claude Code's folder, or, when its
    transcript (or the folder) is gone, from the archive a bookmark of it keeps; with the id of
    the session whose archive it was read from (None: read from Claude Code's folder)."""

    catalog = None
    try:
        catalog = Catalog(layout.claude_dir(claude_dir))
        target = catalog.resolve(identifier)
    except NotFound as claude_missed:
        archived = _archived_here(claude_dir, identifier, options)
        if archived is not None:
            return archived
        try:
            return _other_cli(identifier, options), None
        except NotFound as other_missed:
            if catalog is None:  # no Claude Code folder: say where else it was looked for
                raise NotFound(f"{other_missed.message}; {claude_missed.message}") from None
            raise claude_missed from None
    opened = open_resolved(catalog, target, options)
    if opened.transcript is None:
        return _archived_here(claude_dir, identifier, options) or (opened, None)
    why = opened.transcript.stats.unreadable  # no permission, a FIFO: not an empty conversation
    if why:
        archived = _archived_here(claude_dir, identifier, options)
        if archived is None:
            raise PurlinError(f"cannot read {target.file or identifier}: {why}")
        return archived
    return opened, None


def _other_cli(identifier: str, options):
    """The conversation of Codex CLI, Gemini CLI or opencode ``identifier`` names (NotFound:
    none does)."""

    found = crosscli.open_conversation(identifier, options or ReadOptions())
    target = Target(found.kind, found.session.id, None)
    return Opened(target, None, found.conversation.transcript)  # type: ignore[arg-type]


def _archived_here(claude_dir: Path | None, identifier: str, options):
    """(what ``open_archived`` finds with the bookmarks of the project here, its session id),
    or None."""
    env = environment(claude_dir, toplevel_here())
    opened = open_archived(env, identifier, options)
    if opened is None:
        return None
    return opened, opened.target.session.id if opened.target.session else identifier
