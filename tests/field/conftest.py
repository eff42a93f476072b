"""Fixtures of the field tests: the real Claude Code against the scripted model.

Without the pinned binary these tests skip on a developer machine; in CI (``CI=true``) a missing
binary fails the run (``.ci/run`` installs it).
"""

from __future__ import annotations

import os

import pytest

from tests.field.harness import PINNED, Field, claude_binary
from tests.field.scripted_model import ScriptedModel


@pytest.fixture(scope="session")
def claude_code():
    binary = claude_binary()
    if binary is None or not binary.exists():
        message = (
            f"Claude Code {PINNED} is not installed: run .ci/run, or set PURLIN_FIELD_CLAUDE"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture
def field(claude_code, tmp_path):
    with ScriptedModel() as model:
        yield Field(tmp_path / "field", claude_code, model)
