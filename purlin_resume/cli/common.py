"""Options and output shared by the command modules."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from purlin_resume.errors import UsageError

if TYPE_CHECKING:
    from purlin_resume.project import Project


ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="Project folder (default: the git top-level of the working directory).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
ClaudeDirOption = Annotated[
    Path | None,
    typer.Option(
        "--claude-dir",
        help="Claude data folder (default: $CLAUDE_CONFIG_DIR, else ~/.claude).",
        show_default=False,
    ),
]
TmuxSocketOption = Annotated[
    str | None,
    typer.Option(
        "--tmux-socket",
        help="tmux server: a socket name (as tmux -L) or a path (as tmux -S); "
        "default: the tmux_socket setting, else the current server.",
        show_default=False,
    ),
]


def tmux_server(spec: str | None):
    """``--tmux-socket`` as a ``tmux.Server``; None when not given."""
    from purlin_resume import tmux
    from purlin_resume.errors import PurlinError

    if spec is None:
        return None
    try:
        return tmux.Server.parse(spec)
    except PurlinError as exc:
        raise UsageError(f"--tmux-socket: {exc.message}") from None


def checked_output(path: Path | None) -> Path | None:
    """``-o FILE``: a file name in an existing folder (a usage error otherwise)."""
    if path is None:
        return None
    path = path.expanduser()
    if path.is_dir():
        raise UsageError(f"-o {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise UsageError(f"-o {path}: the folder {path.parent} does not exist")
    return path


def project_for(explicit: Path | None) -> Project:
    from purlin_resume.project import locate

    return locate(explicit)


class Output:
    """What the CLI prints passes through redaction unless ``--no-redact`` was given."""

    redact = True
    configured = False


def _redaction():
    """The redaction module, set up once with the project's own patterns and allow-list."""
    from purlin_resume import redact

    if not Output.configured:
        Output.configured = True
        from purlin_resume import config, gitrepo
        from purlin_resume.project import Project

        redact.configure()  # the built-in rules, until a config adds its own
        try:
            root = gitrepo.toplevel(Path.cwd())
        except OSError:  # the working folder is gone: no project, no project settings
            root = None
        if root is not None:
            config.load(Project(root))  # a config's resume.redact section takes effect here
    return redact


def builtin_redaction() -> None:
    """Redact output with the built-in rules only: for a command that goes on without a usable
    config (the stall watch fails open), where the config's own patterns cannot be read."""
    from purlin_resume import redact

    redact.configure()
    Output.configured = True


def _report(counts: dict[str, int]) -> None:
    if counts:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
        typer.echo(f"redacted {sum(counts.values())} secret(s): {kinds}", err=True)


def redacted(data: Any) -> Any:
    """``data`` (JSON-like, or dataclasses such as a transcript) with its text values redacted
    before anything renders or serialises it; as it is when redaction is off."""
    if not Output.redact:
        return data
    clean, counts = _redaction().redact_data(data)
    _report(counts)
    return clean


class Redaction:
    """Redaction of output written piece by piece: ``data`` on each value before it is
    serialised, ``outgoing`` on each piece of text; the counts are summed and ``report``-ed once."""

    def __init__(self) -> None:
        self.values: Counter[str] = Counter()
        self.text: Counter[str] = Counter()

    def data(self, data: Any) -> Any:
        if not Output.redact:
            return data
        clean, counts = _redaction().redact_data(data)
        self.values.update(counts)
        return clean

    def outgoing(self, text: str) -> str:
        if not Output.redact:
            return text
        done = _redaction().redact(text)
        self.text.update(done.counts)
        return done.text

    def report(self) -> None:
        _report(dict(self.values))
        _report(dict(self.text))


def print_json(data: Any) -> None:
    """One JSON document: values redacted before serialising, the document checked again."""
    text = json.dumps(
        redacted(json.loads(json.dumps(data, default=str))), indent=2, ensure_ascii=False
    )
    typer.echo(outgoing(text))


def outgoing(text: str) -> str:
    """Text about to leave the tool (printed or written to -o FILE), redacted unless told not to.

    Whatever it holds was redacted value by value before it was rendered; this is the second
    net over the final text (the rules also find secrets in escaped text)."""
    if not Output.redact:
        return text
    done = _redaction().redact(text)
    _report(done.counts)
    return done.text


def print_text(text: str) -> None:
    """Print text as is (briefings contain brackets that rich markup would eat), redacted."""
    text = outgoing(text)
    typer.echo(text, nl=not text.endswith("\n"))
