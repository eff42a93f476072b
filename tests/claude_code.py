"""The real Claude Code client for the tests that need it (``claude plugin validate``, install).

The pinned version the field tests run first (``tests/field/CLAUDE_CODE_VERSIONS``, installed by
``.ci/run``; ``PURLIN_FIELD_CLAUDE`` names another). Without it a test skips, naming the command
that installs it, and fails in CI (``CI=true``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import missing_binary
from tests.field.harness import PINNED, claude_binary


def binary() -> str:
    found = claude_binary()
    if found is not None and found.is_file() and os.access(found, os.X_OK):
        return str(found)
    missing_binary(f"Claude Code {PINNED}", f"tests/field/install-claude-code {PINNED}")


def environment(home: Path) -> dict[str, str]:
    """An isolated user for the client: its own home and Claude folder, no network chatter."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def run(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [binary(), *args],
        env=environment(home),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
