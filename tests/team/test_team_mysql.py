"""The MySQL-wire path of team sharing, against a real MariaDB server from Debian's packages,
started here on a unix socket in a temp dir (no network). MariaDB has no Dolt history, so this
checks the tables and commands; the commits themselves are the doltlite tests' part."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.core.test_redact import PLANTED
from tests.team_setup import require_team_extra, teammate

require_team_extra()
import pymysql  # noqa: E402

PASSWORD = "Pw0rd-" + PLANTED["github-token"][-12:]
TMUX_EXPERT = ["bookmark", "add", "tmux-expert", "--session", "8463", "--agent", "a7be2f0"]


def _binary(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def mariadb():
    server = _binary("mariadbd", "mysqld")
    install = _binary("mariadb-install-db", "mysql_install_db")
    if server is None or install is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mariadb-server is not installed in CI (.ci/run installs it)")
        pytest.skip("mariadb-server is not installed (apt-get install mariadb-server)")
    folder = Path(tempfile.mkdtemp(prefix="prm-", dir="/tmp"))  # socket paths must stay short
    data, socket = folder / "data", folder / "sock"
    as_root = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run(
        [
            install,
            "--no-defaults",
            f"--datadir={data}",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            *as_root,
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    process = subprocess.Popen(
        [
            server,
            "--no-defaults",
            f"--datadir={data}",
            f"--socket={socket}",
            "--skip-networking",
            f"--pid-file={folder / 'pid'}",
            f"--log-error={folder / 'error.log'}",
            *as_root,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    root = None
    deadline = time.monotonic() + 60
    while root is None:
        try:
            root = pymysql.connect(unix_socket=str(socket), user="root", autocommit=True)
        except pymysql.err.MySQLError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise
            time.sleep(0.2)
    with root.cursor() as cursor:
        cursor.execute("CREATE USER 'teammate'@'localhost' IDENTIFIED BY %s", (PASSWORD,))
    yield root, socket
    root.close()
    process.terminate()
    process.wait(timeout=60)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def database(mariadb, request):
    root, socket = mariadb
    name = "team_" + request.node.name.split("[")[0][-40:].replace("-", "_")
    with root.cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        cursor.execute(f"CREATE DATABASE {name}")
        cursor.execute(f"GRANT ALL ON {name}.* TO 'teammate'@'localhost'")
    return f"mysql://teammate:{PASSWORD}@localhost/{name}?unix_socket={socket}", root, name


@pytest.mark.slow
def test_two_teammates_share_one_server_with_the_same_tables_and_commands(tmp_path, database):
    dsn, root, name = database
    alice, bob = teammate(tmp_path, "alice"), teammate(tmp_path, "bob")
    created = alice.ok("team", "init", "--dsn", dsn)
    assert "created" in created.stdout and PASSWORD not in created.stdout + created.stderr
    config = alice.history / "team" / "team.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    bob.ok("team", "init", "--dsn", dsn)
    for who in (alice, bob):
        who.ok(*TMUX_EXPERT, "--description", f"token {PLANTED['github-token']}")
        who.ok("resurrect", "tmux-expert", "--yes")
        who.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
        first = who.log()[0]["resurrection_id"]
        who.ok("resurrect", "done", first, "--outcome", "partial", "--reason", "ran out of time")
    for who in (alice, bob):
        who.ok("team", "sync")

    logs = [w.ok("resurrections", "--team", "--json").json()["resurrections"] for w in (alice, bob)]
    marks = [w.ok("bookmark", "list", "--team", "--json").json()["bookmarks"] for w in (alice, bob)]
    assert logs[0] == logs[1] and marks[0] == marks[1]
    assert len(logs[0]) == 4 and len(marks[0]) == 2
    # the fixture's projects are not on this machine: every resurrection of them is partial
    assert sorted(e["outcome"] for e in logs[0]) == ["partial"] * 4
    assert all(e["resurrected_at"].endswith("Z") for e in logs[0])
    assert {e["local_resurrection_id"] for e in logs[0]} == {
        e["resurrection_id"] for e in alice.log()
    }
    stats = bob.ok("resurrections", "stats", "--team", "--json").json()
    assert stats["total"] == 4 and stats["top_failure_reasons"][0]["count"] == 2

    with root.cursor() as cursor:  # the server holds TR-2's table, foreign key included
        cursor.execute(f"SHOW CREATE TABLE {name}.resurrection_log")
        ddl = cursor.fetchone()[1]
        cursor.execute(f"SELECT description FROM {name}.bookmarks")
        descriptions = [row[0] for row in cursor.fetchall()]
    assert "FOREIGN KEY (`bookmark_id`) REFERENCES `bookmarks`" in ddl
    assert "`resurrected_at` datetime(3) NOT NULL" in ddl and "KEY `idx_from_agent`" in ddl
    assert all(PLANTED["github-token"] not in d for d in descriptions)

    alice.ok("bookmark", "share", "tmux-expert")
    found = bob.ok("find", "--team", "tmux", "--json").json()["results"]
    alices = [m for m in found if m["shared"]]
    assert len(alices) == 1
    revived = bob.ok("resurrect", alices[0]["bookmark_id"], "--team", "--json").json()
    assert "a7be2f0" in revived["prompt"]
    no_history = bob("team", "log")
    assert no_history.code == 1 and "keeps no Dolt history" in no_history.error()


@pytest.mark.slow
def test_bad_dsns_are_one_line_each_and_leave_nothing(tmp_path, database, mariadb):
    dsn, _, name = database
    _, socket = mariadb
    frank = teammate(tmp_path, "frank", transcripts=False)
    cases = [
        (dsn.replace(PASSWORD, "wrong-password"), "access denied"),
        (dsn.replace(f"/{name}?", "/no_such_db?"), "no such database"),
        (
            f"mysql://teammate:{PASSWORD}@localhost/{name}?unix_socket={tmp_path}/nothing.sock",
            "cannot reach",
        ),
    ]
    for url, words in cases:
        done = frank("team", "init", "--dsn", url)
        assert done.code == 1 and words in done.error(), (url, done.stderr)
        assert PASSWORD not in done.stderr and "wrong-password" not in done.stderr
        assert not (frank.history / "team" / "team.json").exists()
    frank.ok("team", "init", "--dsn", dsn)
    listed = json.loads(frank.ok("team", "status", "--json").stdout)
    assert listed["backend"] == "mysql" and listed["versioned"] is False
    assert PASSWORD not in json.dumps(listed)
