"""The command-line reference, docs/cli.md, made from the Typer application: every command and
group in the order of ``purlin-resume --help``, with its help, usage, arguments and options.

    python -m purlin_resume.cli.reference > docs/cli.md
"""

from __future__ import annotations

import re
import sys
from typing import Any

import typer

from purlin_resume.cli.commands import app

PROGRAM = "purlin-resume"
REGENERATE = "python -m purlin_resume.cli.reference > docs/cli.md"

HEADER = f"""# Command-line reference

Every command of `{PROGRAM}` with its arguments and options, as `{PROGRAM} COMMAND --help`
prints them. This page is generated from the command line itself:
`{REGENERATE}` (`tests/test_cli_reference.py` fails when it is out of date). Every read
command also takes `--json` and prints one JSON document; exit codes are 0 done, 1 failed
(an id or prefix that names more than one thing is a failure), 2 usage error (a command group
run without a command prints its help, then `error: missing command`).
"""


def reference() -> str:
    """The whole reference as Markdown."""
    root: Any = typer.main.get_command(app)
    root_context = typer.Context(root, info_name=PROGRAM)
    parts = [HEADER, "## Global options\n", _usage(root, root_context)]
    parts.append(_parameters(root, root_context))
    for panel, names in _panels(root).items():
        commands = [root.commands[name] for name in names]
        parts.append(f"## {panel}\n")
        parts.append("".join(f"- `{c.name}`: {_summary(c)}\n" for c in commands))
        for command in commands:
            parts.extend(_command(command, _context(command, command.name, root_context)))
    return "\n".join(part.rstrip("\n") + "\n" for part in parts)


def _panels(root: Any) -> dict[str, list[str]]:
    """Top-level command names by help panel, panels in the order their first command comes."""
    panels: dict[str, list[str]] = {}
    for name, command in root.commands.items():
        if not command.hidden:
            panel = getattr(command, "rich_help_panel", None)
            panel = panel if isinstance(panel, str) else "Other commands"
            panels.setdefault(panel, []).append(name)
    return panels


def _command(command: Any, context: Any) -> list[str]:
    """The section of one command, then of each command of a group."""
    form = f" (the `{context.info_name}` form)" if command.hidden else ""
    path = context.parent.command_path if command.hidden else context.command_path
    parts = [f"### `{path}`{form}\n", _text(command.help or ""), _usage(command, context)]
    parts.append(_parameters(command, context))
    for name, sub in getattr(command, "commands", {}).items():
        parts.extend(_command(sub, _context(sub, name, context)))
    return [part for part in parts if part]


def _context(command: Any, name: str, parent: Any) -> Any:
    return typer.Context(command, parent=parent, info_name=name)


def _usage(command: Any, context: Any) -> str:
    path = context.parent.command_path if command.hidden else context.command_path
    pieces = [path, command.options_metavar]
    for parameter in command.params:
        if parameter.param_type_name == "argument" and not parameter.hidden:
            name = _argument(parameter)
            pieces.append(f"{{{name}}}" if parameter.required else f"[{name}]")
    pieces.append(getattr(command, "subcommand_metavar", None))
    return f"```text\n{' '.join(piece for piece in pieces if piece)}\n```\n"


def _parameters(command: Any, context: Any) -> str:
    rows = []
    for parameter in command.params:
        record = None if getattr(parameter, "hidden", False) else parameter.get_help_record(context)
        if record:
            rows.append(f"| `{_cell(_name(parameter, record[0]))}` | {_cell(_text(record[1]))} |\n")
    if not rows:
        return ""
    arguments = any(p.param_type_name == "argument" for p in command.params)
    kind = "argument or option" if arguments else "option"
    return f"| {kind} | meaning |\n|---|---|\n" + "".join(rows)


def _name(parameter: Any, printed: str) -> str:
    """The first column of a parameter's row, the same whichever Typer release prints it: an
    argument by its name, an option by its names and the type of one value."""
    if parameter.param_type_name == "argument":
        return _argument(parameter)
    return re.sub(r"<list\[(.*)\]>", r"<\1>", printed)


def _argument(parameter: Any) -> str:
    """An argument's name, with ``...`` when it takes any number of values."""
    name = parameter.metavar or parameter.name
    return name if parameter.nargs == 1 or name.endswith("...") else f"{name}..."


def _summary(command: Any) -> str:
    first = _text(command.help or "").split("\n\n")[0].strip()
    return first.split(". ")[0].rstrip(".") + "."


def _text(help_text: str) -> str:
    """Help text as Markdown paragraphs: lines joined, Click's ``\\b`` markers dropped."""
    paragraphs = help_text.replace("\b", "").strip().split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip()) + "\n"


def _cell(text: str) -> str:
    return text.strip().replace("|", "\\|").replace("\n", " ")


def main() -> None:
    sys.stdout.write(reference())


if __name__ == "__main__":
    main()
