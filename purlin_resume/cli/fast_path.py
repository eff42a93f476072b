"""Commands run without Typer when their command line is plain.

Importing Typer (Click comes inside it) and building a command takes longer than some commands
take to do their work. A command declared with ``app.runs`` does nothing but call its work
function, which lives in a module that does not import Typer. ``parse_plans.json`` holds what
Typer makes of the parameters of each such command (generated from Typer by running this
module; a test checks it is current).

When every word of the command line is one the plan reads plainly (the command's options, each
at most once, ``--opt=value`` or ``--opt value``, its arguments, the last of which may take
every word left, values Typer would accept as they are), the work function is called here, with
the values Typer would have passed. Anything else goes to Typer, which parses the line and
reports any error as it always has: ``--help``, an unknown or repeated option, a value that
starts with ``-``, a number out of range, a choice not offered, a path Click would refuse, shell
completion, an output stream that is not UTF-8.
Errors raised by the work itself are reported as ``PurlinGroup`` reports them.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

TYPE_CHECKING = False  # (``typing`` is not loaded for this: short commands do without it)
if TYPE_CHECKING:
    from typing import Any

PLANS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parse_plans.json")
# The one top-level option a plain command line may carry, before the command.
NO_REDACT = "--no-redact"


class NotPlain(Exception):
    """The command line needs Typer."""


def run(args: list[str]) -> bool:
    """Run the command ``args`` names without Typer and return True; False (having done
    nothing) when Typer must parse the line."""
    at = 0
    while at < len(args) and args[at] == NO_REDACT:
        at += 1
    try:
        plan, words = _plan(args[at:])
        values = _read(plan, words)
    except NotPlain:
        return False
    _call(plan["run"], values, no_redact=at > 0)
    return True


def _plan(args: list[str]) -> tuple[dict, list[str]]:
    """The plan of the command ``args`` start with, and the words after its name."""
    from purlin_resume.cli.common import utf8

    if not args or not (utf8(sys.stdout) and utf8(sys.stderr)):
        raise NotPlain
    import json

    try:
        with open(PLANS_FILE, encoding="utf-8") as kept:
            plans = json.load(kept)
    except (OSError, ValueError):
        raise NotPlain from None
    if not isinstance(plans, dict):
        raise NotPlain
    for length in (2, 1):
        plan = plans.get(" ".join(args[:length]))
        if plan is not None:
            return plan, args[length:]
    raise NotPlain


def _read(plan: dict, words: list[str]) -> dict[str, Any]:
    """The values of the command's parameters, as Typer would pass them."""
    options = {name: param for param in plan["params"] for name in param.get("opts", ())}
    offs = {name: param for param in plan["params"] for name in param.get("off", ())}
    arguments = [param for param in plan["params"] if param["kind"] == "argument"]
    values: dict[str, Any] = {}
    given = iter(words)
    for word in given:
        if not word.startswith("-") or word == "-":
            if not arguments:
                raise NotPlain  # one argument too many
            param = arguments[0]
            if param.get("many"):  # the last argument, taking every word left (Click's nargs=-1)
                values.setdefault(param["name"], []).append(_converted(param, word))
                continue
            values[param["name"]] = _converted(arguments.pop(0), word)
            continue
        name, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        param = options.get(name) or offs.get(name)
        if param is None or param["name"] in values:
            raise NotPlain
        if param["kind"] == "flag":
            if equals:
                raise NotPlain
            values[param["name"]] = name in param["opts"]
            continue
        if not equals:
            value = next(given, None)
            if value is None or value.startswith("-"):
                raise NotPlain
        values[param["name"]] = _converted(param, value)
    for param in plan["params"]:
        if param["name"] not in values:
            if param["required"]:
                raise NotPlain
            default = param["default"]
            plain = default is None or param["kind"] == "flag"
            values[param["name"]] = default if plain else _converted(param, str(default))
    return values


def _converted(param: dict, value: str) -> Any:
    """``value`` as Typer passes it for ``param``; NotPlain where Click would refuse it."""
    kind = param["type"]
    if kind == "str":
        return value
    if kind == "path":
        try:
            os.stat(value)
        except (OSError, ValueError):
            return Path(value)
        if not os.access(value, os.R_OK):  # Click's "is not readable"
            raise NotPlain
        return Path(value)
    if kind in ("int", "float"):
        try:
            number = int(value) if kind == "int" else float(value)
        except ValueError:
            raise NotPlain from None
        low, high = param.get("min"), param.get("max")
        if (low is not None and number < low) or (high is not None and number > high):
            raise NotPlain
        return number
    if kind == "choice" and value in param["choices"]:
        return _attribute(param["enum"])(value)
    raise NotPlain


def _attribute(where: str) -> Any:
    from importlib import import_module

    module, _, name = where.partition(":")
    return getattr(import_module(module), name)


def _call(work: str, values: dict[str, Any], no_redact: bool) -> None:
    """Call ``work`` as Typer's command would, and end as Typer ends: errors the tool expects
    on one line with their exit code, an interruption with 130, a closed pipe with 1. The
    interpreter's own teardown is then skipped (``_skip_teardown``)."""
    try:
        _work(work, values, no_redact)
    except SystemExit as end:
        _skip_teardown(end.code)
        raise
    _skip_teardown(0)


def _skip_teardown(status: object) -> None:
    """Once the interpreter reaches its exit handlers (after every ``finally`` of the caller),
    end the process with ``status`` as soon as its output is flushed: the command is done, and
    tearing down the 130 modules a command loads, one object at a time, costs several
    milliseconds. Exit handlers registered before this one do not run (the package registers
    none; a module that needs one must run its work before returning instead), nor do the
    finalizers of objects still alive (a program started with ``core/spawned`` and never read
    ends on its own). A status that is not a number exits the ordinary way (Python prints it)."""
    status = 0 if status is None else status
    if type(status) is not int:
        return
    import atexit

    atexit.register(_exit_now, status)


def _exit_now(status: int) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # the ordinary exit reports it
    os._exit(status)


def _work(work: str, values: dict[str, Any], no_redact: bool) -> None:
    from purlin_resume.cli import common
    from purlin_resume.core.errors import PurlinError

    common.collect_from_here()
    common.start(no_redact)
    try:
        _attribute(work)(**values)
    except PurlinError as exc:
        common.error_line(exc.message)
        raise SystemExit(exc.exit_code) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout, sys.stderr = _Pacified(sys.stdout), _Pacified(sys.stderr)
        raise SystemExit(1) from None


class _Pacified:
    """A stream whose reader is gone: flushing it at exit says nothing (as Click does)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


# -- the plans, from Typer ----------------------------------------------------------------------


def plans_from_typer() -> dict[str, dict]:
    """What Typer makes of every command declared with ``app.runs``."""
    import typer.main
    from typer.utils import get_params_from_function

    from purlin_resume.cli.commands import app

    plans: dict[str, dict] = {}

    def walk(command, path: list[str], groups: list) -> None:
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*path, name], [*groups, command] if path else groups)
        work = getattr(command.callback, "runs", None)
        if work is None:
            return
        if any(group.callback is not None for group in groups):
            raise ValueError(f"{' '.join(path)}: a group above it has work of its own")
        declared = get_params_from_function(command.callback)
        params = [_param(p, declared[p.name].annotation) for p in command.params]
        arguments = [p for p in params if p["kind"] == "argument"]
        if any(p.get("many") for p in arguments[:-1]):
            raise ValueError(f"{' '.join(path)}: an argument of many words before another")
        plans[" ".join(path)] = {"run": work, "params": params}

    walk(typer.main.get_command(app), [], [])  # (the top level's work: ``common.start``)
    return plans


def _param(param, annotation) -> dict:
    """One parameter as the plan reads it; a parameter it cannot read plainly is an error
    (its command must then not be declared with ``runs``)."""
    from enum import Enum

    from typer._click import types
    from typer._types import TyperChoice
    from typer.models import TyperPath

    enum = None
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        enum = f"{annotation.__module__}:{annotation.__qualname__}"

    many = param.param_type_name == "argument" and param.nargs == -1
    unplain = (
        param.callback is not None
        or param.envvar
        or param.is_eager
        or not param.expose_value
        or param.multiple
        or (param.nargs != 1 and not many)
        or (many and not param.required)
        or getattr(param, "prompt", None)
        or getattr(param, "count", False)
    )
    if unplain:
        raise ValueError(f"{param.name}: a callback, envvar, prompt or several values")
    found: dict[str, Any] = {"name": param.name, "required": param.required}
    if many:
        found["many"] = True  # every argument word left, as a list
    kind = param.type
    if getattr(param, "is_flag", False):
        if not param.is_bool_flag or not isinstance(param.default, bool):
            raise ValueError(f"{param.name}: a flag that is not a plain on/off")
        found.update(kind="flag", opts=param.opts, off=param.secondary_opts)
        found["default"] = param.default
        return found
    found["kind"] = "argument" if param.param_type_name == "argument" else "option"
    if found["kind"] == "option":
        found["opts"] = param.opts
    default = param.default
    if isinstance(default, Enum):
        default = default.value
    if default is not None and not isinstance(default, (str, int)):
        raise ValueError(f"{param.name}: a default the plan does not keep ({default!r})")
    found["default"] = default  # converted as a value given would be (as Click does)
    if isinstance(kind, TyperPath):
        checks = (kind.exists, kind.writable, kind.resolve_path, kind.allow_dash, kind.type)
        if any(checks) or not (kind.file_okay and kind.dir_okay and kind.readable):
            raise ValueError(f"{param.name}: a path Click checks more than for reading")
        found["type"] = "path"
    elif isinstance(kind, (types.IntParamType, types.FloatParamType)):
        if getattr(kind, "clamp", False) or getattr(kind, "min_open", False):
            raise ValueError(f"{param.name}: a clamped or open range")
        if getattr(kind, "max_open", False):
            raise ValueError(f"{param.name}: an open range")
        number = "int" if isinstance(kind, types.IntParamType) else "float"
        found.update(type=number, min=getattr(kind, "min", None), max=getattr(kind, "max", None))
    elif kind is types.STRING:
        found["type"] = "str"
    elif isinstance(kind, TyperChoice) and kind.case_sensitive and enum is not None:
        found.update(type="choice", choices=[str(choice) for choice in kind.choices], enum=enum)
    else:
        raise ValueError(f"{param.name}: a type the plan does not read ({kind!r})")
    return found


if __name__ == "__main__":
    import json

    text = json.dumps(plans_from_typer(), indent=2, ensure_ascii=False) + "\n"
    with open(PLANS_FILE, "w", encoding="utf-8") as plans_file:
        plans_file.write(text)
    print(f"wrote {PLANS_FILE}")
