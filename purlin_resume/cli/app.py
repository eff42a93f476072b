"""The Typer application every command group registers on, and its error handling."""

from __future__ import annotations

import os
import sys
from contextlib import suppress

import typer
from typer.core import TyperGroup

from purlin_resume.cli import version_line
from purlin_resume.cli.common import error_line, start
from purlin_resume.core.errors import FAILED, READER_GONE, USAGE, PurlinError, system_refusal


def _fail(message: str, code: int) -> typer.Exit:
    error_line(message)
    return typer.Exit(code)


def _misused(exc: typer.TyperException, where: str, code: int) -> typer.Exit:
    """The usage line for ``exc``, pointing at the help of the command it names (else ``where``)."""
    where = getattr(getattr(exc, "ctx", None), "command_path", None) or where
    return _fail(f"{exc.format_message()} (see '{where} --help')", code)


class PurlinGroup(TyperGroup):
    """Turns expected failures into one line on stderr and the right exit code. Every command
    group is one, so a group run bare prints its help and the line saying what is missing."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except typer.TyperException as exc:
            where = f"{parent.command_path} {info_name}" if parent else info_name
            raise _misused(exc, where, USAGE) from None

    def parse_args(self, ctx, args):
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            shown = ctx.get_help()  # rich prints the help itself and returns ""
            if shown:
                typer.echo(shown)
            raise _fail(f"missing command (see '{ctx.command_path} --help')", USAGE)
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except PurlinError as exc:
            raise _fail(exc.message, exc.exit_code) from None
        except BrokenPipeError:  # the reader stopped early (``| head``): nothing to report
            with suppress(OSError, ValueError):  # nor at exit, when the rest is flushed
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(READER_GONE) from None
        except OSError as exc:  # a read-only folder, a full disk: writes are atomic
            raise _fail(system_refusal(exc, "nothing was changed there"), FAILED) from None
        except typer.TyperException as exc:  # usage errors of a subcommand
            raise _misused(exc, ctx.command_path, exc.exit_code) from None


app = typer.Typer(
    cls=PurlinGroup,
    name="purlin-resume",
    help="Continuity for AI coding agents: checkpoints, agent history, transcripts and revival.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    no_redact: bool = typer.Option(
        False, "--no-redact", help="Print secrets as they are (output is redacted by default)."
    ),
) -> None:
    """Continuity for AI coding agents: checkpoints, agent history, transcripts and revival."""
    start(no_redact)
