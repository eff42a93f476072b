"""The environment a resurrection, bookmark or team command reads and writes in, for the
command modules that need one."""

from __future__ import annotations

from pathlib import Path

from purlin_resume.cli.common import warn_of_trust
from purlin_resume.resurrection import environment
from purlin_resume.resurrection.environment import Environment


def environment_here(claude_dir: Path | None, project: Path | None) -> Environment:
    """``resurrection.environment.environment_here`` (its redaction rules apply from now on),
    saying in one line a trust file that cannot be read."""
    env = environment.environment_here(claude_dir, project)
    warn_of_trust(env.settings)
    return env
