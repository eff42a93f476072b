"""Record the fixture sessions of Codex CLI, Gemini CLI and opencode with the real CLIs.

    python -m tests.field.record_sessions [codex gemini opencode codex-compaction opencode-compaction]

Each CLI runs offline against ``ScriptedAPIs`` in a private HOME under
``/tmp/purlin-field-record/<name>`` (a fixed place, so the paths the sessions record stay the
same from one recording to the next); what it wrote is then copied into ``tests/fixtures/<name>``
as it is (opencode's database through SQLite's backup, so its write-ahead log is folded in).
``<cli>-compaction`` is one session whose context the CLI compacts (``record_compaction``);
``gemini-resumed`` the same, resumed once the clock's minute has turned.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

from tests.field import other_clis

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDING = Path("/tmp/purlin-field-record")


def _codex(codex_home: Path, target: Path) -> None:
    shutil.rmtree(target / "sessions", ignore_errors=True)
    shutil.copytree(codex_home / "sessions", target / "sessions")


def _gemini(folder: Path, target: Path) -> None:
    shutil.rmtree(target / "tmp", ignore_errors=True)
    shutil.copytree(folder / "tmp", target / "tmp")
    shutil.copy2(folder / "projects.json", target / "projects.json")


def _opencode(folder: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    copy = target / "opencode.db"
    copy.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{folder / 'opencode.db'}?mode=ro", uri=True)
    with sqlite3.connect(copy) as out:
        source.backup(out)
    out.close()
    source.close()


COPIES = {"codex": _codex, "gemini": _gemini, "opencode": _opencode}
NAMES = (
    "codex",
    "gemini",
    "opencode",
    "codex-compaction",
    "gemini-compaction",
    "opencode-compaction",
    "gemini-resumed",
)


def record(name: str) -> None:
    cli, _, kind = name.partition("-")
    if kind == "resumed":  # resumed in a later minute: the session's second file
        recorded = other_clis.record_compaction(cli, RECORDING / name, later_minute=True)
    elif kind:
        recorded = other_clis.record_compaction(cli, RECORDING / name)
    else:
        recorded = other_clis.record(cli, RECORDING / name)
    COPIES[cli](recorded, FIXTURES / name)


def main(names: list[str]) -> None:
    for name in names or NAMES:
        cli = name.partition("-")[0]
        if not other_clis.installed(cli):
            print(f"{cli}: not installed at {other_clis.BINARIES[cli]}", file=sys.stderr)
            continue
        record(name)
        print(f"{name} {other_clis.version(cli)}: recorded into {FIXTURES / name}")


if __name__ == "__main__":
    main(sys.argv[1:])
