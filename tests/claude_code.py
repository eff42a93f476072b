"""The real Claude Code client for the tests that need it (``claude plugin validate``, install).

``.ci/run`` installs the pinned version into ``.ci/node``; ``PURLIN_TEST_CLAUDE`` names another
binary. Without one a test skips on a developer machine and fails in CI (``CI=true``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PINNED = (ROOT / ".ci" / "claude-code-version").read_text().strip()


def binary() -> str:
    for candidate in (
        os.environ.get("PURLIN_TEST_CLAUDE"),
        str(ROOT / ".ci" / "node" / "bin" / "claude"),
        shutil.which("claude"),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    message = f"Claude Code {PINNED} is not installed (run .ci/run, or set PURLIN_TEST_CLAUDE)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


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
