"""Fixtures of the field tests: the real Claude Code against the scripted model.

Every field test runs once per Claude Code version (``claude_code``, see ``harness.versions``).
They are slow (the real client, a few seconds a run), so they run only with ``--field``
(``.ci/run`` passes it). A version that is not installed skips its tests, naming the command
that installs it; in CI (``CI=true``) it fails them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import missing_binary
from tests.field.harness import Field, versions
from tests.field.scripted_model import ScriptedModel


@pytest.fixture(scope="session", params=versions(), ids=str)
def claude_code(request):
    version = request.param
    if version.binary is None or not version.binary.exists():
        missing_binary(f"Claude Code {version}", f"tests/field/install-claude-code {version}")
    return version


@pytest.fixture
def field(claude_code, tmp_path, request):
    """A fresh HOME and project with the scripted model; see ``tests/field/harness.py``.
    Whatever the test's outcome, every process it started is stopped afterwards.

    With ``$PURLIN_FIELD_OBSERVE`` set to a folder, what each test saw of Claude Code is written
    there as ``<test>.json`` (``tests/field/latest`` compares versions with it).
    """
    with ScriptedModel() as model:
        field = Field(tmp_path / "field", claude_code, model)
        try:
            yield field
        finally:
            field.stop_all()
        folder = os.environ.get("PURLIN_FIELD_OBSERVE")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            out = Path(folder) / f"{request.node.name}.json"
            out.write_text(json.dumps(field.observe(), indent=1))
