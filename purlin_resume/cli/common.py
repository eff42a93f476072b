"""What the command modules share: output (redacted, made safe for a terminal), the checks of
a few common options."""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from purlin_resume.core import cache_home, config, gitrepo, redact
from purlin_resume.core.errors import UsageError
from purlin_resume.core.project import Project, locate, working_folder
from purlin_resume.core.store import whole_characters
from purlin_resume.core.terminal_text import displayed, one_line


def checked_output(path: Path | None) -> Path | None:
    """``-o FILE``: a file name in an existing folder (a usage error otherwise)."""
    if path is None:
        return None
    path = path.expanduser()
    if not path.is_absolute() and working_folder() is None:
        raise UsageError(f"-o {path}: the working folder no longer exists; give an absolute path")
    if path.is_dir():
        raise UsageError(f"-o {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise UsageError(f"-o {path}: the folder {path.parent} does not exist")
    return path


def project_for(explicit: Path | None) -> Project:
    """The project a command works on (``--project``, else the working folder's); its settings'
    redaction rules apply from now on, to what the command writes as to what it prints. A trust
    file that cannot be read is said in one line: the command goes on as for an untrusted
    project."""
    found = locate(explicit)
    settings = config.load(found)
    config.apply_redaction(settings)
    warn_of_trust(settings)
    return found


def warn_of_trust(settings: config.Settings) -> None:
    """One line when the trust file cannot be read (the command goes on as untrusted)."""
    if settings.trust_note:
        warning_line(settings.trust_note)


def archived_line(session_id: str) -> None:
    """The line saying a conversation is read from a bookmark's archive (its transcript is
    gone), on standard error."""
    read = f"the transcript is gone: read from the archive of session {session_id}"
    echo_error(outgoing(one_line(read)))


def warning_line(message: str) -> None:
    """``warning: MESSAGE`` on one line of standard error, redacted as every output is."""
    echo_error(outgoing(f"warning: {one_line(message)}"))


def note_line(message: str) -> None:
    """``note: MESSAGE`` on one line of standard error, redacted as every output is."""
    echo_error(outgoing(f"note: {one_line(message)}"))


class Output:
    """What the CLI prints passes through redaction unless ``--no-redact`` was given."""

    redact = True


def _redaction():
    """The redaction module, set up with the working folder's project's patterns and
    allow-list (the user's own outside a project) unless the command set it up already."""
    if not redact.configured():
        try:
            root = gitrepo.toplevel(Path.cwd())
        except OSError:  # the working folder is gone: no project, no project settings
            root = None
        config.apply_redaction(config.load(Project(root) if root is not None else None))
    return redact


def _report(counts: dict[str, int]) -> None:
    if counts:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
        echo_error(f"redacted {sum(counts.values())} secret(s): {kinds}")


def _with(counts: dict[str, int], also: dict[str, int] | None) -> dict[str, int]:
    merged = dict(counts)
    for kind, number in (also or {}).items():
        merged[kind] = merged.get(kind, 0) + number
    return merged


def redacted(data: Any, also: dict[str, int] | None = None) -> Any:
    """``data`` (JSON-like, or dataclasses such as a transcript) with its text values redacted
    before anything renders or serialises it; as it is when redaction is off. ``also``: what
    was redacted in it earlier (a cache keeps values redacted), reported with the rest."""
    if not Output.redact:
        return data
    clean, counts = _redaction().redact_data(data)
    _report(_with(counts, also))
    return clean


class Redaction:
    """Redaction of output written piece by piece: ``data`` on each value before it is
    serialised, ``outgoing`` on each piece of text; the counts are summed and ``report``-ed once."""

    def __init__(self) -> None:
        self.values: Counter[str] = Counter()
        self.text: Counter[str] = Counter()

    def data(self, data: Any) -> Any:
        clean, counts = self.cleaner()(data)
        self.values.update(counts)
        return clean

    @staticmethod
    def cleaner() -> Callable[[Any], tuple[Any, dict[str, int]]]:
        """What redacts a value value by value and says what it redacted (nothing counted
        here); loads the project's rules first."""
        if not Output.redact:
            return _as_is
        return _redaction().redact_data

    def outgoing(self, text: str) -> str:
        clean, counts = self.checked(text)
        self.counted(counts)
        return clean

    def counted(self, counts: dict[str, int]) -> None:
        self.text.update(counts)

    @staticmethod
    def checked(text: str) -> tuple[str, dict[str, int]]:
        """``text`` about to leave the tool redacted, and what was redacted (nothing counted
        here)."""
        if not Output.redact:
            return text, {}
        done = _redaction().redact(text)
        return done.text, done.counts

    def report(self) -> None:
        _report(dict(self.values))
        _report(dict(self.text))


def _as_is(data: Any) -> tuple[Any, dict[str, int]]:
    return data, {}


class Terminal:
    """Whether standard output is a terminal (asked once): text from transcripts, branches and
    files is shown there without the escape sequences and control characters a terminal would
    act on; a pipe or a file gets the bytes unchanged."""

    _is: bool | None = None

    @classmethod
    def shown(cls, text: str) -> str:
        if cls._is is None:
            try:
                cls._is = sys.stdout.isatty()
            except (AttributeError, ValueError):
                cls._is = False
        if not cls._is:
            return text

        return displayed(text)


def utf8(stream) -> bool:
    """Whether ``stream`` writes UTF-8 (``None``: no stream at all, so no)."""
    encoding = str(getattr(stream, "encoding", "") or "").lower()
    return encoding.replace("-", "").replace("_", "") == "utf8"


def _write(stream, text: str, nl: bool) -> None:
    """Write ``text`` as ``click.echo`` does (what Typer prints with): to a stream that is not a
    terminal without ANSI styles, then flush. A stream in another encoding than UTF-8 goes
    through Click itself (it wraps an ASCII stream again in UTF-8)."""
    if stream is None:
        return
    if not utf8(stream):
        typer.echo(text, file=stream, nl=nl)
        return
    if nl:
        text += "\n"
    if text:
        try:
            terminal = stream.isatty()
        except Exception:  # noqa: BLE001 (Click's own test: anything raised means "no")
            terminal = False
        if not terminal:
            text = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", text)
        try:
            stream.write(text)
        except UnicodeEncodeError:  # a lone surrogate: see ``store.encoded``
            stream.write(whole_characters(text))
    stream.flush()


def error_line(message: str) -> None:
    """``error: MESSAGE`` on one line of standard error, whatever the message holds (a path or
    an id with a newline, escape sequences from a file name), redacted (a message may quote a
    command or a line of a file)."""
    shown = redact.redact(message).text if Output.redact else message
    echo_error(f"error: {one_line(shown)}")


def start(no_redact: bool) -> None:
    """What the top-level options set for the command that runs."""
    Output.redact = not no_redact
    redact.forget()  # the project's redaction settings are read again for this run


def echo(text: str, nl: bool = True) -> None:
    """Print ``text`` (already redacted) to standard output, as ``Terminal.shown`` allows."""
    _write(sys.stdout, Terminal.shown(text), nl)


def echo_error(text: str) -> None:
    """One line (already redacted) on standard error."""
    _write(sys.stderr, text, True)


def print_json(data: Any, also: dict[str, int] | None = None) -> None:
    """One JSON document: values redacted before serialising, the document checked again."""
    text = json.dumps(
        redacted(json.loads(json.dumps(data, default=str)), also), indent=2, ensure_ascii=False
    )
    echo(outgoing(text))


def outgoing(text: str, also: dict[str, int] | None = None) -> str:
    """Text about to leave the tool (printed or written to -o FILE), redacted unless told not to.

    Whatever it holds was redacted value by value before it was rendered; this is the second
    net over the final text (the rules also find secrets in escaped text)."""
    if not Output.redact:
        return text
    done = _redaction().redact(text)
    _report(_with(done.counts, also))
    return done.text


class Printout(Redaction):
    """A long output printed exactly as one ``print_text`` or ``print_json`` would print it,
    made a piece at a time: each piece is redacted as it comes (whole records per piece) and
    kept in a spooled file, so memory stays flat; ``send`` reports the redactions (once, as one
    call would) and prints the pieces. Use it as a context manager (the spool is closed)."""

    SPOOL_BYTES = 4 << 20

    def __init__(self) -> None:
        super().__init__()
        # surrogatepass: a lone surrogate (half a character) is kept to be printed as ``echo``
        # prints it (U+FFFD)
        self.spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115 (closed by __exit__)
            self.SPOOL_BYTES, "w+", encoding="utf-8", errors="surrogatepass"
        )

    def __enter__(self) -> Printout:
        return self

    def __exit__(self, *exc: object) -> None:
        self.spool.close()

    def data(self, data: Any) -> Any:
        """``data`` as ``print_json`` would serialise it: through JSON, redacted value by value."""
        return super().data(json.loads(json.dumps(data, default=str)))

    def add(self, text: str) -> None:
        self.spool.write(self.outgoing(text))

    def send(self, head: str = "", tail: str = "") -> None:
        """Print ``head`` (redacted), the pieces, then ``tail`` (redacted)."""
        head, tail = self.outgoing(head), self.outgoing(tail)
        self.report()
        self.spool.seek(0)
        echo(head, nl=False)
        while piece := self.spool.read(1 << 20):
            echo(piece, nl=False)
        echo(tail, nl=False)


def user_cache() -> Path | None:
    """The user cache folder, where what was read is kept redacted; None when output is not
    redacted (nothing is kept then). The project's rules are loaded first."""
    if not Output.redact:
        return None
    _redaction()  # the project's rules, before anything is redacted for the cache

    return Path(cache_home.folder())


def print_text(text: str, also: dict[str, int] | None = None) -> None:
    """Print text as is (briefings contain brackets that rich markup would eat), redacted."""
    text = outgoing(text, also)
    echo(text, nl=not text.endswith("\n"))
