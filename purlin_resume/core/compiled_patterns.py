"""Large regular expressions compiled once per interpreter instead of once per process.

The redaction scanner's combined expression is tens of kilobytes of alternatives: ``re.compile``
spends about 40 ms parsing it, which every process that prints would pay. What the parse yields
(the engine's code words and the group names) depends only on the expression and on the
interpreter, so it is kept in ``<cache>/patterns/`` and handed straight back to the engine, which
checks the code before it runs it (``_sre.compile``); that takes well under a millisecond. The
file is named by a checksum of both and holds the expression itself, which must be the one asked
for: a checksum needs no cryptographic library loaded (which costs more than the rest).
Assembling such an expression from its rules takes milliseconds as well: ``compiled_from`` keeps
it under the module that assembles it, so a process that finds it kept assembles nothing.

Anything unusual falls back to ``re.compile``: another implementation than CPython, a file that
is damaged, or one ``cache_home`` does not believe (a symbolic link, a FIFO, owned by someone
else or writable by others), a folder that cannot be written.
"""

from __future__ import annotations

import binascii
import contextlib
import marshal
import os
import re
import sys
from collections.abc import Callable

from purlin_resume.core import cache_home

TYPE_CHECKING = False  # (``typing`` is not loaded for this: short commands do without it)
if TYPE_CHECKING:
    from typing import Any

try:  # CPython's engine and the two halves of its compiler
    import _sre
    from re import _compiler, _parser
except ImportError:  # pragma: no cover - other implementations
    _sre = None


def folder() -> str:
    return os.path.join(cache_home.folder(), "patterns")


class Later:
    """``re.compile(source, flags)`` when first used (a search, a match...): for the many small
    expressions a module holds that most runs never need."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source, self.flags = source, flags

    def __getattr__(self, name: str) -> Any:
        found = getattr(re.compile(self.source, self.flags), name)
        setattr(self, name, found)  # found here from now on
        return found


def compiled(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, from the cache when it holds the compiled form."""
    if _sre is None or sys.implementation.name != "cpython":
        return re.compile(source, flags)
    path = os.path.join(folder(), _key(source.encode("utf-8", "surrogatepass"), flags))
    return _kept(path, lambda: source, flags, source)


def compiled_from(build: Callable[[], str], made_by: str, flags: int = 0) -> re.Pattern[str]:
    """``compiled(build(), flags)`` without calling ``build`` when the cache holds what it
    returned for the code in the file ``made_by`` (the module that builds the expression): kept
    by a checksum and the size of that file, as Python keeps a module's compiled code by the
    time and size of its source, so a changed module builds and keeps its expression afresh."""
    if _sre is None or sys.implementation.name != "cpython":
        return re.compile(build(), flags)
    try:
        with open(made_by, "rb") as handle:
            code = handle.read()
    except OSError:
        return compiled(build(), flags)
    return _kept(os.path.join(folder(), "built-" + _key(code, flags)), build, flags, None)


def _kept(path: str, make: Callable[[], str], flags: int, source: str | None) -> re.Pattern[str]:
    """The expression kept at ``path`` (which must be ``source`` when that is given), else the
    one ``make`` returns, compiled and kept there."""
    found = _read(path, source)
    if found is not None:
        try:
            return _sre.compile(*found)
        except (TypeError, ValueError, RuntimeError, OverflowError):
            pass  # not this engine's code: compiled afresh and replaced below
    source = make()
    try:
        parts = _compile(source, flags)
        pattern = _sre.compile(source, *parts)
    except Exception:  # a bad expression (re.compile says why), or other compiler internals
        return re.compile(source, flags)
    _write(path, source, parts)
    return pattern


def _key(data: bytes, flags: int) -> str:
    interpreter = f"{sys.version}\0{sys.implementation.cache_tag}\0{_sre.MAGIC}\0{flags}\0"
    text = interpreter.encode() + data
    return f"{binascii.crc32(text):08x}-{len(text)}"


def _compile(source: str, flags: int) -> tuple:
    """What ``re.compile`` hands the engine: flags, code words, groups and their names."""
    parsed = _parser.parse(source, flags)
    code = [int(word) for word in _compiler._code(parsed, flags)]  # some are named constants
    names = dict(parsed.state.groupdict)
    index = [None] * parsed.state.groups
    for name, number in names.items():
        index[number] = name
    return (int(flags | parsed.state.flags), code, parsed.state.groups - 1, names, tuple(index))


def _shape_ok(parts: object) -> bool:
    if not (isinstance(parts, tuple) and len(parts) == 5):
        return False
    flags, code, groups, names, index = parts
    return (
        isinstance(flags, int)
        and isinstance(code, list)  # of ints: the engine refuses anything else
        and isinstance(groups, int)
        and isinstance(names, dict)
        and isinstance(index, tuple)
    )


def _read(path: str, source: str | None) -> tuple | None:
    """(expression, *parts) kept at ``path``; None when they are missing, damaged, or of
    another expression than ``source`` (whose checksum is the same), when that is given."""
    kept = cache_home.open_kept(path)
    if kept is None:
        return None
    try:
        with kept:
            whole = marshal.loads(kept.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(whole, tuple) and len(whole) == 6 and isinstance(whole[0], str)):
        return None
    if source is not None and whole[0] != source:
        return None
    return whole if _shape_ok(whole[1:]) else None


def _write(path: str, source: str, parts: tuple) -> None:
    """Keep ``parts`` of ``source`` at ``path``; silently not when it cannot."""
    with contextlib.suppress(OSError, ValueError):
        cache_home.keep(path, [marshal.dumps((source, *parts))])
