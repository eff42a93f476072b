"""The real Codex CLI, Gemini CLI and opencode sessions of ``tests/fixtures``, put where each
CLI keeps them under a test's HOME, and secrets made at run time to plant in them."""

from __future__ import annotations

import os
import random
import shutil
import string
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CODEX_PARENT = "01a21c25-417b-7443-871d-4ed48be33283"
CODEX_CHILD = "01a21c25-43fa-7ce1-bf6f-255341946556"
CODEX_SHELL = "01a21c25-3856-72b2-af61-b2807cc1fe09"
CODEX_STOPPED = "01a21c25-4dd1-7e23-bc01-9ca06d7f2934"
GEMINI_SHELL = "445d2a96-f739-4418-b95b-cc287cf9b98a"
GEMINI_PARENT = "c3a2a7b1-d538-4874-ba38-cfd91718b2a1"
GEMINI_CHILD = "9308853c-bbdb-42a3-897e-f20d970ffdd1"
OPENCODE_SHELL = "ses_de3d9a777ffe7l06BWfS7DgRkB"
OPENCODE_PARENT = "ses_de3d8f520ffeuO3E4BOX4HMO4j"
OPENCODE_CHILD = "ses_de3d898fdffedMLJOEJnPAzXXQ"
CODEX_COMPACTED = "01a21cd9-cd43-7590-bfe9-42fd844638df"
OPENCODE_COMPACTED = "ses_de325e75fffeqZLTwTOZXRxHsR"
GEMINI_COMPACTED = "b72513e1-4cf1-4bff-af7e-6828f222fd8d"
SUMMARY = "FIELD-SUMMARY: the user asked for the git log; it shows one commit, start."


def home() -> Path:
    return Path(os.environ["HOME"])


def codex_home() -> Path:
    target = home() / ".codex"
    if not target.exists():
        shutil.copytree(FIXTURES / "codex", target)
    return target


def gemini_home() -> Path:
    return gemini_home_from("gemini")


def gemini_home_from(fixture: str) -> Path:
    """The recorded Gemini CLI data ``tests/fixtures/<fixture>``, copied to ``~/.gemini``."""
    target = home() / ".gemini"
    if not target.exists():
        shutil.copytree(FIXTURES / fixture, target)
    return target


def opencode_home() -> Path:
    target = Path(os.environ["XDG_DATA_HOME"]) / "opencode"
    if not target.exists():
        shutil.copytree(FIXTURES / "opencode", target)
    return target


def compaction_home(cli: str) -> Path:
    """The recorded session with a compaction of ``cli`` (codex, gemini, opencode), copied under
    HOME where the CLI keeps its data."""
    where = {
        "codex": home() / ".codex",
        "gemini": home() / ".gemini",
        "opencode": Path(os.environ["XDG_DATA_HOME"]) / "opencode",
    }
    target = where[cli]
    if not target.exists():
        shutil.copytree(FIXTURES / f"{cli}-compaction", target)
    return target


def rollout(thread: str) -> Path:
    return next(codex_home().rglob(f"rollout-*{thread}.jsonl"))


def aws_key() -> str:
    """An access key id shaped as AWS makes them (made here, so none is in the repository)."""
    rng = random.Random(38)
    return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
