"""Loading the embedded Dolt engine: ``doltlite`` before ``sqlite3``, and never a re-exec.

``import doltlite`` makes libdoltlite the SQLite of the whole process, but only when it comes
before the first ``import sqlite3``; after it, doltlite would re-execute the interpreter. So
this module checks first: when ``sqlite3`` is already loaded without Dolt's functions, it
refuses with one line instead. doltlite marks the environment as bootstrapped; that mark would
make a child process skip its own bootstrap, so it is taken out again.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

from purlin_resume.team import TeamUnavailable

_MARK = "_DOLTLITE_BOOTSTRAPPED"


def _has_dolt(module: ModuleType) -> bool:
    try:
        module.connect(":memory:").execute("SELECT dolt_version()").fetchone()
    except Exception:  # noqa: BLE001 -- plain SQLite: no such function
        return False
    return True


def sqlite() -> ModuleType:
    """The ``sqlite3`` module, backed by doltlite."""
    if "sqlite3" in sys.modules or "_sqlite3" in sys.modules:
        import sqlite3

        if _has_dolt(sqlite3):
            return sqlite3
        raise TeamUnavailable(
            "this process loaded SQLite before doltlite; run the team command on its own "
            "(purlin-resume team ...)"
        )
    os.environ.pop(_MARK, None)  # inherited from a parent: not true of this process
    try:
        import doltlite  # noqa: F401 -- loads libdoltlite ahead of sqlite3
    except ImportError:
        raise TeamUnavailable() from None
    except Exception as exc:  # noqa: BLE001 -- DoltliteLoadError and OS errors
        raise TeamUnavailable(f"doltlite cannot load here: {' '.join(str(exc).split())}") from None
    finally:
        os.environ.pop(_MARK, None)
    import sqlite3

    if not _has_dolt(sqlite3):
        raise TeamUnavailable(
            "doltlite loaded but SQLite has no Dolt functions; this Python links SQLite "
            "statically (see the doltlite README)"
        )
    return sqlite3


def pymysql() -> ModuleType:
    try:
        import pymysql
    except ImportError:
        raise TeamUnavailable() from None
    return pymysql
