"""Every agent CLI's real sessions under the test's HOME."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import FIXTURES
from tests.other_cli_data import codex_home, gemini_home, home, opencode_home


@pytest.fixture
def every_cli():
    shutil.copytree(FIXTURES, home() / ".claude", ignore=shutil.ignore_patterns("NOTICE.md"))
    codex_home(), gemini_home(), opencode_home()
