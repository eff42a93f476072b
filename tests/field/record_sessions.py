"""Record the fixture sessions of Codex CLI, Gemini CLI and opencode with the real CLIs.

    python -m tests.field.record_sessions [codex gemini opencode]

Each CLI runs offline against ``ScriptedAPIs`` in a private HOME under
``/tmp/purlin-field-record/<cli>`` (a fixed place, so the paths the sessions record stay the
same from one recording to the next); what it wrote is then copied into ``tests/fixtures/<cli>``
as it is (opencode's database through SQLite's backup, so its write-ahead log is folded in).
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

from tests.field import other_clis

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDING = Path("/tmp/purlin-field-record")


def codex() -> None:
    codex_home = other_clis.record_codex(RECORDING / "codex")
    target = FIXTURES / "codex"
    shutil.rmtree(target / "sessions", ignore_errors=True)
    shutil.copytree(codex_home / "sessions", target / "sessions")


def gemini() -> None:
    folder = other_clis.record_gemini(RECORDING / "gemini")
    target = FIXTURES / "gemini"
    shutil.rmtree(target / "tmp", ignore_errors=True)
    shutil.copytree(folder / "tmp", target / "tmp")
    shutil.copy2(folder / "projects.json", target / "projects.json")


def opencode() -> None:
    folder = other_clis.record_opencode(RECORDING / "opencode")
    target = FIXTURES / "opencode"
    target.mkdir(parents=True, exist_ok=True)
    copy = target / "opencode.db"
    copy.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{folder / 'opencode.db'}?mode=ro", uri=True)
    with sqlite3.connect(copy) as out:
        source.backup(out)
    out.close()
    source.close()


RECORDERS = {"codex": codex, "gemini": gemini, "opencode": opencode}


def main(names: list[str]) -> None:
    for name in names or list(RECORDERS):
        if not other_clis.installed(name):
            print(f"{name}: not installed at {other_clis.BINARIES[name]}", file=sys.stderr)
            continue
        RECORDERS[name]()
        print(f"{name} {other_clis.version(name)}: recorded into {FIXTURES / name}")


if __name__ == "__main__":
    main(sys.argv[1:])
