"""The top-level ``--help`` page, kept once rendered: replaying it needs neither Typer nor Rich.

Building it means importing every command module, Typer and Rich and laying out every panel;
what comes out depends only on what the key below covers, so the same key gives the same bytes:

- this package's files (path, size, modification time of every ``.py``) and version;
- the interpreter; Typer's and Rich's files (path, size, time) and the ``.dist-info`` names
  of the packages installed next to them (an upgrade of any of them changes the key);
- the command line, the program name it was started as, and the whole environment (``COLUMNS``,
  ``TERM``, ``NO_COLOR``, ``FORCE_COLOR`` ... all of it, less the shell's own book-keeping);
- for standard input, output and error: terminal or not, and the terminal's size; the output
  encoding.

The page lives in ``$XDG_CACHE_HOME/purlin-resume/help.txt`` (``~/.cache`` by default): its
first line is the key, the rest the page. One file, overwritten when the key changes, read and
written as every kept file is (``core/cache_home.py``: a link, or a file others may write, is
not believed); a file that cannot be read or written only means rendering again.
"""

from __future__ import annotations

import contextlib
import os
import sys
from hashlib import sha256

from purlin_resume.core import cache_home

FILE_NAME = "help.txt"
# Set by the shell around every command, read by nothing that renders help.
_SHELL_BOOKKEEPING = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
_RENDERERS = ("typer", "rich")


def cache_file() -> str:
    return os.path.join(cache_home.folder(), FILE_NAME)


def _package_files(top: str) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                info = os.stat(path)
                found.append(f"{os.path.relpath(path, top)}:{info.st_size}:{info.st_mtime_ns}")
    return found


def _renderers() -> list[str]:
    """Where Typer (Click comes inside it) and Rich are installed, their files, and what else is
    installed next to them."""
    found = []
    for name in _RENDERERS:
        for entry in sys.path:
            folder = os.path.join(entry or ".", name)
            if os.path.isfile(os.path.join(folder, "__init__.py")):
                found.append(os.path.abspath(folder))
                found += _package_files(folder)
                found += sorted(n for n in os.listdir(entry or ".") if n.endswith(".dist-info"))
                break
        else:
            found.append(f"{name}: not found")
    return found


def _terminal() -> list[str]:
    found = []
    for fd in (0, 1, 2):
        try:
            size = tuple(os.get_terminal_size(fd))
        except (OSError, ValueError):
            size = None
        found.append(f"{fd}:{os.isatty(fd)}:{size}")
    out = sys.stdout
    found.append(f"{getattr(out, 'encoding', None)}:{getattr(out, 'errors', None)}")
    return found


def key(args: list[str]) -> str:
    from purlin_resume import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    main = sys.modules.get("__main__")
    parts = [
        __version__,
        sys.version,
        sys.executable,
        repr(sys.argv[:1] + args),
        repr(getattr(main, "__package__", None)),
        *_package_files(package),
        *_renderers(),
        *(f"{k}={v}" for k, v in sorted(os.environ.items()) if k not in _SHELL_BOOKKEEPING),
        *_terminal(),
    ]
    return sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def replay(key_: str) -> bool:
    """Print the page kept under ``key_``; False when there is none (or none to believe:
    ``cache_home.open_kept``)."""
    kept = cache_home.open_kept(cache_file())
    if kept is None:
        return False
    try:
        with kept:
            if kept.readline() != key_.encode("ascii") + b"\n":
                return False
            page = kept.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    sys.stdout.write(page)
    sys.stdout.flush()
    return True


def keep(key_: str, page: str) -> None:
    """Keep ``page`` under ``key_`` (``cache_home.keep``: private to the user, replaced whole,
    never half-written); a page that cannot be kept is rendered again next time."""
    with contextlib.suppress(OSError, UnicodeEncodeError):
        cache_home.keep(cache_file(), [f"{key_}\n{page}".encode()])


class Recorder:
    """Standard output as it is, also noting the text written to it. Anything that reaches for
    the stream's byte buffer writes around the record: the page is then not kept."""

    def __init__(self, stream):
        self._stream = stream
        self.written: list[str] = []
        self.complete = True

    def write(self, text: str) -> int:
        done = self._stream.write(text)  # raises for bytes (Click probes the stream that way)
        self.written.append(text)
        return done

    def __getattr__(self, name: str):
        if name == "buffer":
            self.complete = False
        return getattr(self._stream, name)


def render(args: list[str], run) -> None:
    """Run ``run`` (Typer printing the page) with standard output recorded; keep the page when
    it finished cleanly."""
    encoding = str(getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "")
    if encoding != "utf8":  # Click may write around a stream in another encoding: no recording
        run()
        return
    page_key = key(args)
    if replay(page_key):
        return
    recorder = Recorder(sys.stdout)
    sys.stdout = recorder
    finished = False  # an interruption or an error leaves a page that must not be replayed
    try:
        run()
        finished = True
    except SystemExit as exc:
        finished = exc.code in (0, None)
        raise
    finally:
        sys.stdout = recorder._stream
        if finished and recorder.complete and recorder.written:
            keep(page_key, "".join(recorder.written))
