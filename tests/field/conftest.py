"""Fixtures of the field tests: the real Claude Code against the scripted model.

Without the pinned binary these tests skip on a developer machine; in CI (``CI=true``) a missing
binary fails the run (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.field.harness import PINNED, Field, claude_binary
from tests.field.scripted_model import ScriptedModel


@pytest.fixture(scope="session")
def claude_code():
    binary = claude_binary()
    if binary is None or not binary.exists():
        message = f"Claude Code {PINNED} is not installed: run .ci/run, or set PURLIN_FIELD_CLAUDE"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture
def field(claude_code, tmp_path, request):
    """A fresh HOME and project with the scripted model; see ``tests/field/harness.py``.

    With ``$PURLIN_FIELD_OBSERVE`` set to a folder, what each test saw of Claude Code is written
    there as ``<test>.json`` (``tests/field/latest`` compares versions with it).
    """
    with ScriptedModel() as model:
        field = Field(tmp_path / "field", claude_code, model)
        yield field
        folder = os.environ.get("PURLIN_FIELD_OBSERVE")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            out = Path(folder) / f"{request.node.name}.json"
            out.write_text(json.dumps(field.observe(), indent=1))
