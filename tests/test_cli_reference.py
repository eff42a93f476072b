"""docs/cli.md is what the reference generator prints from the command line as it is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = "python -m purlin_resume.cli.reference > docs/cli.md"


def test_the_cli_reference_is_up_to_date():
    printed = subprocess.run(
        [sys.executable, "-m", "purlin_resume.cli.reference"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    kept = (ROOT / "docs" / "cli.md").read_text()
    assert kept == printed, f"docs/cli.md is out of date: run `{REGENERATE}`"


def test_the_reference_names_every_command():
    printed = (ROOT / "docs" / "cli.md").read_text()
    for command in ("save", "resume-task", "transcript", "resurrect done", "revive", "stall check"):
        assert f"### `purlin-resume {command}`" in printed
