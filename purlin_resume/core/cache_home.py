"""Where purlin-resume keeps what it can rebuild: ``$XDG_CACHE_HOME/purlin-resume``, or
``~/.cache/purlin-resume`` when the variable is unset or empty; and how a kept file is read and
written there.

A kept file is never needed for a right answer, only for a fast one, and whoever can write it
can change what a later process believes: it is read only when it is a regular file of this
user's that no one else may write, in such a folder, opened without following a link or waiting
on a FIFO; it is written 0600 into a 0700 folder and replaced whole by a rename (a reader sees
the old file or the new one; of two writers the last wins), so it needs no lock.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from hashlib import sha256
from typing import BinaryIO

EDGE = 4096  # the bytes ``edges`` checks at each end


def folder() -> str:
    """The user's cache folder of purlin-resume (it may not exist yet)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "purlin-resume")


def _private(info: os.stat_result) -> bool:
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022


def _as_is(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)


def open_kept(path: str | os.PathLike) -> BinaryIO | None:
    """The kept file ``path`` opened for reading, or None when it is absent or not to be
    believed (see the module's description)."""
    try:
        if not _private(os.lstat(os.path.dirname(os.fspath(path)))):
            return None
        kept = open(path, "rb", opener=_as_is)  # noqa: SIM115 - handed to the caller
    except OSError:
        return None
    info = os.fstat(kept.fileno())
    if stat.S_ISREG(info.st_mode) and _private(info):
        return kept
    kept.close()
    return None


def keep(path: str | os.PathLike, pieces: Iterable[bytes]) -> bool:
    """Replace the kept file ``path`` with ``pieces`` at once; False, with nothing written,
    when its folder is not this user's alone. OSError when writing fails."""
    path = os.fspath(path)
    where, name = os.path.split(path)
    os.makedirs(where, mode=0o700, exist_ok=True)
    info = os.lstat(where)
    if not (stat.S_ISDIR(info.st_mode) and _private(info)):
        return False  # a link, or a folder others may write into: nothing is kept there
    if info.st_mode & 0o077:
        os.chmod(where, 0o700)  # ours and readable by others: made private
    temporary = os.path.join(where, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            for piece in pieces:
                out.write(piece)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return True


def edges(handle: BinaryIO, offset: int) -> list[str]:
    """Checksums of the first and of the last ``EDGE`` bytes before ``offset`` of a file only
    ever appended to (a log, a transcript): what was kept of it up to ``offset`` still holds
    while these (and its device and inode) are the same."""
    handle.seek(0)
    head = handle.read(min(offset, EDGE))
    handle.seek(max(0, offset - EDGE))
    tail = handle.read(offset - max(0, offset - EDGE))
    return [sha256(part).hexdigest()[:32] for part in (head, tail)]
