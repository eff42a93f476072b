"""Every command group run bare prints its help, then one line saying a command is missing."""

from __future__ import annotations

import pytest
import typer

from purlin_resume.cli import commands  # noqa: F401  (registers every command)
from purlin_resume.cli.app import app


def _groups(group, path=()):
    """The path of every command group under ``group`` that shows its help when run bare."""
    if group.no_args_is_help:
        yield path
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _groups(command, (*path, name))


GROUPS = list(_groups(typer.main.get_command(app)))


def test_the_groups_are_found():
    bare = {("history",), ("redact",), ("bookmark",), ("stall",), ("team",), ("resurrect",)}
    assert {(), *bare} <= set(GROUPS)


@pytest.mark.parametrize("path", GROUPS, ids=lambda path: " ".join(path) or "purlin-resume")
def test_a_group_run_bare_prints_its_help_and_names_what_is_missing(cli, path):
    result = cli(*path)
    named = " ".join(("purlin-resume", *path))
    assert result.exit_code == 2
    assert "Usage:" in result.stdout
    assert result.stderr == f"error: missing command (see '{named} --help')\n"


@pytest.mark.parametrize("group", ["team", "resurrect", "history"])
def test_a_wrong_option_of_a_group_names_the_whole_command(cli, group):
    result = cli(group, "--bogus")
    assert result.exit_code == 2
    assert result.stderr.endswith(f"(see 'purlin-resume {group} --help')\n")
