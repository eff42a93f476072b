"""The only code that writes state files.

Every write takes a lock file beside its target (``<name>.lock``), writes a temporary file in
the same folder, fsyncs it, replaces the target with ``os.replace`` and fsyncs the folder, so a
reader sees either the old state or the new one, never a mix. JSONL logs are appended under the
same lock with fsync. A target that does not parse is never overwritten.

State lives in a project's ``.purlin`` or ``.planning`` folder, or in the Claude data folder's
``history``. A state path (file, lock or folder on the way) that a symbolic link takes out of the
folder holding that one (the project, the data folder) is refused before anything is read or
written: a branch or a clone could otherwise point ``.purlin/cache`` at any file of the user's.

The files an agent CLI keeps (its data folder, sessions, chats, rollouts) are read through
``open_regular`` and ``walk``: symbolic links are followed there, as the user may keep any of
them elsewhere, but only a regular file is read.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO, Literal

from purlin_resume.core.errors import CorruptFile, NotFound, PurlinError, system_refusal

LOCK_TIMEOUT_SECONDS = 30.0
STATE_FOLDERS = frozenset({".purlin", ".planning", "history"})
_MISSING: Any = object()
_umask: int | None = None
# The XDG base folders: the variable naming each, and its default under the home folder.
_USER_FOLDERS = {
    "config": ("XDG_CONFIG_HOME", ".config"),
    "data": ("XDG_DATA_HOME", os.path.join(".local", "share")),
    "cache": ("XDG_CACHE_HOME", ".cache"),
}


def user_folder(
    kind: Literal["config", "data", "cache"],
    program: str = "purlin-resume",
    env: Mapping[str, str] = os.environ,
) -> Path:
    """``program``'s folder of the user's ``kind``: under ``$XDG_CONFIG_HOME``,
    ``$XDG_DATA_HOME`` or ``$XDG_CACHE_HOME``, else (unset or empty) under ``~/.config``,
    ``~/.local/share`` or ``~/.cache``. It may not exist yet."""
    variable, default = _USER_FOLDERS[kind]
    base = env.get(variable) or os.path.join(os.path.expanduser("~"), default)
    return Path(base) / program


def user_settings(env: Mapping[str, str] = os.environ) -> Path:
    """The user's own settings file (``config``'s)."""
    return user_folder("config", env=env) / "config.json"


def lock_path(target: Path) -> Path:
    """The lock file that guards ``target``."""
    return target.with_name(target.name + ".lock")


def confined(*targets: Path) -> None:
    """Refuse (PurlinError) a state path that a symbolic link takes out of the folder holding its
    ``.purlin``, ``.planning`` or ``history`` folder; paths outside such a folder pass."""
    for target in targets:
        parts = Path(target).parts
        anchors = [i for i, part in enumerate(parts[:-1]) if part in STATE_FOLDERS]
        if not anchors:
            continue
        kept_inside(target, Path(*parts[: anchors[-1]]) if anchors[-1] else Path("."))


def kept_inside(
    target: Path, base: Path, way: str = "a symbolic link", fix: str = "remove the link"
) -> None:
    """Refuse (PurlinError) ``target`` when its real path is not ``base`` or inside it; the
    message says what leads it out (``way``) and what to do (``fix``)."""
    if not inside(target, base):
        real, inner = os.path.realpath(target), os.path.realpath(base)
        raise PurlinError(f"refusing {target}: {way} leads it to {real}, outside {inner}; {fix}")


def inside(target: Path, base: Path) -> bool:
    """Is the real path of ``target`` (links followed) ``base`` or inside it?"""
    inner, real = os.path.realpath(base), os.path.realpath(target)
    return real == inner or real.startswith(inner.rstrip(os.sep) + os.sep)


@contextmanager
def locked(target: Path, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[None]:
    """Hold the lock of ``target`` (creating its folder) for the duration of the block."""
    target = Path(target)
    confined(target, lock_path(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    # here: read-only commands (stall check, transcript) take no lock and skip its loading
    from filelock import FileLock, Timeout

    lock = FileLock(str(lock_path(target)), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise PurlinError(
            f"{target} is locked by another process ({lock_path(target)}); try again"
        ) from None
    try:
        yield
    finally:
        lock.release()


def _default_mode() -> int:
    global _umask
    if _umask is None:
        _umask = os.umask(0o022)
        os.umask(_umask)
    return 0o666 & ~_umask


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale_temps(target: Path) -> None:
    # Writers hold the lock while their temp file exists, so under the lock any temp file of
    # this target was left by a writer that died.
    for stale in target.parent.glob(f".{target.name}.*.tmp"):
        with suppress(OSError):
            stale.unlink()


def private_folder(folder: Path) -> Path:
    """Create ``folder`` (with its parents) readable by its owner only (0700), or make it so.

    Files written into a private folder are private too (0600), whatever the umask, and an
    existing one is tightened on its next write: this is where conversation content is kept.
    An existing folder that belongs to another user or that others may write into is refused
    (anyone could have made it, to read or replace what is put there), and so is a symbolic
    link, but one that stays inside the project's state folders (``confined``), and a file.
    """
    folder = Path(folder)
    confined(folder)  # a link out of the project's state folders: refused before mkdir follows it
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        try:
            created.mkdir(mode=0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise PurlinError(system_refusal(exc, "cannot create it", created)) from None
    folder = missing[0] if missing else folder
    confined(folder)  # and one planted meanwhile
    problem = _not_private(folder)
    if problem:
        raise PurlinError(f"refusing {folder}: it {problem}; remove it and run the command again")
    return folder


def _not_private(folder: Path) -> str | None:
    """Why ``folder`` cannot be a private folder (None: it is one now, tightened if need be)."""
    if folder.is_symlink() and not STATE_FOLDERS & set(folder.parts):
        return "is a symbolic link"
    try:
        info = folder.stat()
    except OSError as exc:  # a link to nothing
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if info.st_uid != os.geteuid():
        return f"belongs to user id {info.st_uid}, not to you"
    if info.st_mode & 0o022:
        return f"is open to others (mode {stat.S_IMODE(info.st_mode):o})"
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return None


def _private(folder: Path) -> bool:
    try:
        return not folder.stat().st_mode & 0o077
    except OSError:
        return False


def _mode(target: Path, private: bool) -> int:
    """The mode a rewritten ``target`` gets: its own, or 0600 when it holds private content."""
    if private or _private(target.parent):
        return 0o600
    return target.stat().st_mode & 0o777 if target.exists() else _default_mode()


def _replace(target: Path, data: bytes, private: bool = False) -> None:
    """Atomically replace ``target`` with ``data``; the caller holds the lock."""
    with _replacing(target, private) as out:
        out.write(data)


@contextmanager
def _replacing(target: Path, private: bool = False) -> Iterator[Any]:
    """A temporary file beside ``target`` that replaces it when the block ends without error
    (and is removed when it does not)."""
    mode = _mode(target, private)
    _remove_stale_temps(target)
    fd, tmp = _temporary(target)
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def _temporary(target: Path) -> tuple[int, str]:
    """A new file beside ``target`` (``.<name>.<random>.tmp``, 0600), opened."""
    return tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)


def encoded(text: str) -> bytes:
    """``text`` as UTF-8. A lone surrogate (half of a character: JSON can carry one, and a tool
    output cut short leaves one) cannot be written as UTF-8; it becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return whole_characters(text).encode("utf-8")


def whole_characters(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def write_text(target: Path, text: str) -> None:
    """Replace ``target`` with ``text`` (UTF-8, ``encoded``) atomically, under its lock."""
    target = Path(target)
    with locked(target):
        _replace(target, encoded(text))


def write_output(target: Path, text: str) -> None:
    """Write a file the user asked for (``-o FILE``): replaced atomically, no lock file left beside it.

    Output files are written whole and never read back by us, so they need no lock.
    A target that exists and is not a regular file (``/dev/null``, a FIFO, a terminal), or is a
    symbolic link (``/dev/stdout``), is written through directly, never replaced; a folder is
    refused.
    """
    with output_file(target) as write:
        write(encoded(text))


@contextmanager
def output_file(target: Path) -> Iterator[Callable[[bytes], None]]:
    """``write_output`` piece by piece: the block gets a ``write(data)``; the target is replaced
    when the block ends without error, and left as it was when it does not."""
    target = Path(target)
    if target.is_dir():
        raise PurlinError(f"cannot write {target}: it is a folder; give a file name")
    if not target.parent.is_dir():
        raise PurlinError(f"cannot write {target}: the folder {target.parent} does not exist")

    def failed(exc: OSError) -> PurlinError:
        return PurlinError(f"cannot write {target}: {exc.strerror or exc}")

    try:
        if target.is_symlink() or (target.exists() and not stat.S_ISREG(target.stat().st_mode)):
            opened: Any = open(target, "wb")  # noqa: SIM115 - a device, a pipe, a link: kept
        else:
            opened = _replacing(target)
        with opened as out:

            def write(data: bytes) -> None:
                try:
                    out.write(data)
                except OSError as exc:
                    raise failed(exc) from None

            yield write
    except OSError as exc:
        raise failed(exc) from None


def read_text(target: Path) -> str:
    """The UTF-8 text of ``target``; NotFound when absent, CorruptFile when not text or not a
    regular file (a FIFO is refused, never waited on)."""
    return decoded(Path(target), read_bytes(target))


def read_bytes(target: Path) -> bytes:
    """What ``target`` holds; NotFound when absent, CorruptFile when not a regular file."""
    target = Path(target)
    confined(target)
    try:
        with open_regular(target) as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):  # (a file where a folder on the way is)
        raise NotFound(f"{target} does not exist") from None
    except IsADirectoryError:
        raise PurlinError(f"{target} is a folder, not a file") from None
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ELOOP):
            raise
        raise CorruptFile(target, exc.strerror or "not a regular file") from None


def decoded(target: Path, data: bytes) -> str:
    """``data`` (what ``target`` holds) as UTF-8 text; CorruptFile naming ``target`` when it
    is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFile(target, f"not UTF-8 text at byte {exc.start}") from None


def open_regular(path: Path, buffering: int = -1) -> BinaryIO:
    """``path`` opened for reading, through any symbolic links, when what it leads to is a
    regular file; else ``OSError`` saying why. A FIFO, a device or a socket is refused without
    waiting for a writer (opened non-blocking, then looked at), a folder too, and a loop of
    links is named as one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "a loop of symbolic links", str(path)) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "a folder, not a file", str(path))
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return os.fdopen(fd, "rb", buffering=buffering)


def is_file(entry: os.DirEntry) -> bool:
    """Whether a folder's ``entry`` leads (through links) to a regular file; a link that leads
    nowhere or into a loop does not."""
    try:
        return entry.is_file()
    except OSError:
        return False


def is_folder(entry: os.DirEntry) -> bool:
    """Whether a folder's ``entry`` leads (through links) to a folder (as ``is_file``)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def walk(top: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    """Each folder under ``top`` (``top`` first, top-down) with the sorted names of its folders
    and files, as ``os.walk`` gives them but through symbolic links to folders. A folder
    reached again (a link back up, two links to one place) is passed over, so a loop of links
    ends there; a link that leads nowhere is among the files. The caller prunes the walk by
    editing the list of folders it is given."""
    seen: set[tuple[int, int]] = set()
    for current, folders, files in os.walk(top, followlinks=True):
        try:
            info = os.stat(current)
        except OSError:  # gone since it was listed
            folders.clear()
            continue
        if (info.st_dev, info.st_ino) in seen:
            folders.clear()
            continue
        seen.add((info.st_dev, info.st_ino))
        folders.sort()
        yield Path(current), folders, sorted(files)


def dump_json(data: Any) -> str:
    """The house JSON layout: two-space indent, UTF-8 kept, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def read_json(target: Path, default: Any = _MISSING) -> Any:
    """Parse ``target`` as JSON; ``default`` (copied) when it is absent, if given."""
    return _document(Path(target), default)[1]


def _document(target: Path, default: Any) -> tuple[str | None, Any]:
    """``target``'s text and its JSON parsed; (None, a copy of ``default``) when it is absent
    and a default is given, else NotFound."""
    try:
        text = read_text(target)
    except NotFound:
        if default is _MISSING:
            raise
        return None, copy.deepcopy(default)
    return text, parse_json(target, text)


def parse_json(target: Path, text: str) -> Any:
    """``text`` (what ``target`` holds) parsed as JSON; CorruptFile naming ``target`` when it
    does not parse."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptFile(target, f"invalid JSON at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:  # a hostile file: thousands of nested brackets
        raise CorruptFile(target, "JSON nested too deeply to read") from None


def write_json(target: Path, data: Any) -> None:
    """Replace ``target`` with ``data`` as JSON, atomically and under its lock."""
    write_text(target, dump_json(data))


def update_text(
    target: Path, change: Callable[[str | None], str | None], private: bool = False
) -> str | None:
    """Read-modify-write a text file under its lock: ``change`` gets the text (None when absent).

    When ``change`` returns None the file is deleted (under the lock), and its lock file after;
    when it returns the text as it is, nothing is written. ``private``: the file is 0600 even
    outside a private folder.
    """
    target = Path(target)
    with locked(target):
        try:
            current: str | None = read_text(target)
        except NotFound:
            current = None
        new = change(current)
        if new is not None:
            if new != current or (private and not _private(target)):
                _replace(target, encoded(new), private)
            return new
        if current is not None:
            target.unlink()
            _fsync_dir(target.parent)
    _drop_lock(target)
    return None


def _drop_lock(target: Path) -> None:
    """Delete the lock file of a file that is gone, so nothing of ours stays behind it."""
    with suppress(FileNotFoundError):
        lock_path(target).unlink()


def update_json(target: Path, change: Callable[[Any], Any], default: Any = _MISSING) -> Any:
    """Read-modify-write ``target`` under its lock and return the new state.

    ``change`` receives the parsed document (or a copy of ``default`` when the file is absent)
    and returns the new document, or None when it changed the one it was given in place. If the
    file does not parse, or ``change`` raises, or the new document is written as the file is
    already, nothing is written.
    """
    target = Path(target)
    with locked(target):
        text, data = _document(target, default)
        result = change(data)
        new = data if result is None else result
        out = dump_json(new)
        if out != text:
            _replace(target, encoded(out))
        return new


def append_jsonl(target: Path, record: Any) -> None:
    """Append ``record`` as one JSON line, under the lock, fsynced.

    A last line cut short by a crash is closed with a newline first, so the new record always
    stands on a line of its own.
    """
    target = Path(target)
    with locked(target):
        _append_line(target, record)


def jsonl_rows(text: str | None) -> list[dict[str, Any]]:
    """The objects of JSON-lines ``text``, in order; a line that does not parse (one cut short
    by a crash) is skipped. Lines end at ``\n`` only: a row written with its text kept (UTF-8,
    not escaped) may hold U+2028 or U+0085, which ``str.splitlines`` would also cut at."""
    rows = []
    for line in (text or "").split("\n"):
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def move(source: Path, destination: Path) -> Path:
    """Move ``source`` to ``destination`` atomically under the source's lock.

    An existing destination is never replaced: a numeric suffix is added instead. Returns the
    path the file now has.
    """
    source, destination = Path(source), Path(destination)
    confined(destination)
    with locked(source):
        if not source.exists():
            raise NotFound(f"{source} does not exist")
        destination.parent.mkdir(parents=True, exist_ok=True)
        final = destination
        counter = 1
        while True:
            try:
                os.link(source, final)  # fails instead of replacing an existing file
                break
            except FileExistsError:
                final = destination.with_name(f"{destination.stem}-{counter}{destination.suffix}")
                counter += 1
        os.unlink(source)
        _fsync_dir(final.parent)
        if final.parent != source.parent:
            _fsync_dir(source.parent)
    _drop_lock(source)  # the file is gone: its lock file must not pile up beside the others
    return final


def create_json(target: Path, data: Any) -> bool:
    """Write ``data`` as JSON to ``target`` only if it does not exist yet; True when written.

    The check and the write happen under the lock, so of several processes exactly one creates it.
    """
    target = Path(target)
    with locked(target):
        if target.exists():
            return False
        _replace(target, encoded(dump_json(data)))
        return True


def remove(target: Path, up_to: Path | None = None) -> bool:
    """Delete a file we wrote whole (an installed command); True when it was there.

    Its lock file goes with it, and folders left empty by the removal are removed too, up to
    (not including) ``up_to``.
    """
    target = Path(target)
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    _fsync_dir(target.parent)
    _drop_lock(target)
    if up_to is not None:
        folder, stop = target.parent, Path(up_to)
        while folder != stop and stop in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent
    return True


def write_bytes(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data`` atomically, under its lock (archives, binary caches)."""
    with rewritten(target) as out:
        out.write(data)


@contextmanager
def rewritten(target: Path) -> Iterator[Any]:
    """``write_bytes`` piece by piece, for what is too big to hold: the block gets a binary
    file under ``target``'s lock, which replaces ``target`` when the block ends without error."""
    target = Path(target)
    with locked(target), _replacing(target) as out:
        yield out


def append_jsonl_made(target: Path, make: Callable[[], Any]) -> Any:
    """Append the record ``make()`` returns (it may read ``target``), both under the lock, so no
    other writer comes between what it read and what is appended. Returns the record."""
    target = Path(target)
    with locked(target):
        record = make()
        _append_line(target, record)
    return record


def append_jsonl_sequenced(
    target: Path, counter: Path, make: Callable[[Any, Callable[[int], bytes]], tuple[Any, Any]]
) -> Any:
    """Append one record whose id comes from a small counter file, both under ``target``'s lock.

    ``make(state, tail)`` gets the counter's JSON (None when the counter is absent) and a
    function returning the last ``n`` bytes of the log (to recover a lost counter without reading
    the whole log); it returns ``(record, new_state)``. The counter is replaced atomically, then
    the record appended and fsynced. Returns the record. A counter that does not parse raises
    CorruptFile and nothing is written.
    """
    target, counter = Path(target), Path(counter)

    def tail(size: int) -> bytes:
        try:
            with open(target, "rb") as handle:
                end = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, end - size))
                return handle.read()
        except FileNotFoundError:
            return b""

    confined(counter)
    with locked(target):
        state = read_json(counter, None)
        record, new_state = make(state, tail)
        _replace(counter, encoded(dump_json(new_state)))
        _append_line(target, record)
    return record


def _append_line(target: Path, record: Any) -> None:
    """Append ``record`` as one JSON line and fsync, or nothing; the caller holds the lock."""
    line = encoded(json.dumps(record, ensure_ascii=False, separators=(",", ":"))) + b"\n"
    created = not target.exists()
    private = _private(target.parent)
    fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600 if private else 0o666)
    try:
        if private and os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        try:
            while line:  # a full disk writes part of it, then fails
                line = line[os.write(fd, line) :]
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, size)  # no record half written
            raise
    finally:
        os.close(fd)
    if created:
        _fsync_dir(target.parent)
