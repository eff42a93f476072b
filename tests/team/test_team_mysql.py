"""The MySQL-wire path of team sharing, against a real MariaDB server from Debian's packages,
started here on a unix socket in a temp dir (no network). MariaDB has no Dolt history, so this
checks the tables, the commands and the values no row may block the others with."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pymysql
import pytest

from tests.conftest import FIXTURES, missing_binary
from tests.core.test_redact import PLANTED
from tests.team_setup import teammate

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
        missing_binary("mariadb-server", "apt-get install mariadb-server")
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
    return f"mysql://teammate@localhost/{name}?unix_socket={socket}", root, name


def _join(who, dsn: str, password: str = PASSWORD):
    who.extra_env["PURLIN_TEAM_PASSWORD"] = password
    try:
        return who("team", "init", "--dsn", dsn)
    finally:
        del who.extra_env["PURLIN_TEAM_PASSWORD"]


@pytest.mark.slow
def test_three_teammates_share_one_server_with_the_tr2_tables(tmp_path, database):
    dsn, root, name = database
    team = [teammate(tmp_path, n) for n in ("alice", "bob", "carol")]
    created = _join(team[0], dsn)
    assert created.code == 0, created.stderr
    assert "created" in created.stdout, created.stderr
    assert PASSWORD not in created.stdout + created.stderr
    config = team[0].history / "team" / "team.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    for who in team[1:]:
        assert _join(who, dsn).code == 0
    for who in team:
        who.ok(*TMUX_EXPERT, "--description", f"token {PLANTED['github-token']}")
        who.ok("resurrect", "tmux-expert", "--yes")
        first = who.log()[0]["resurrection_id"]
        # a value INT cannot hold is clamped: it blocks nothing
        who.ok("resurrect", "done", first, "--outcome", "partial", "--duration-ms", "3000000000")
    for who in team:
        who.ok("team", "sync")
    logs = [w.ok("resurrections", "--team", "--json").json()["resurrections"] for w in team]
    marks = [w.ok("bookmark", "list", "--team", "--json").json()["bookmarks"] for w in team]
    assert logs[0] == logs[1] == logs[2]
    assert marks[0] == marks[1] == marks[2]
    assert len(logs[0]) == 3
    assert len(marks[0]) == 3
    assert {e["new_agent_duration_ms"] for e in logs[0]} == {2**31 - 1}
    assert {e["uuid"] for e in logs[0]} == {e["uuid"] for w in team for e in w.log()}
    stats = team[1].ok("resurrections", "stats", "--team", "--json").json()
    assert stats["total"] == 3
    assert stats["success_rate_by_mode"]["bookmark"]["total"] == 3

    with root.cursor() as cursor:  # TR-2's columns, keyed by uuid
        cursor.execute(f"SHOW CREATE TABLE {name}.resurrection_log")
        ddl = cursor.fetchone()[1]
        cursor.execute(f"SELECT description FROM {name}.bookmarks")
        descriptions = [row[0] for row in cursor.fetchall()]
    assert "FOREIGN KEY (`bookmark_uuid`) REFERENCES `bookmarks` (`uuid`)" in ddl
    assert "`resurrected_at` datetime(3) NOT NULL" in ddl
    assert "KEY `idx_from_agent`" in ddl
    assert all(PLANTED["github-token"] not in d for d in descriptions)

    # share, find, resurrect; then rm + add: the old context is gone with its bookmark
    team[0].ok("bookmark", "share", "tmux-expert")
    team[0].ok("team", "sync")
    found = team[1].ok("find", "--team", "tmux", "--json").json()["results"]
    (alices,) = [m for m in found if m["shared"]]
    revived = team[1].ok("resurrect", alices["uuid"], "--team", "--json").json()
    assert "a7be2f0" in revived["prompt"]
    team[0].ok("bookmark", "rm", "tmux-expert")
    team[0].ok(*TMUX_EXPERT)
    team[0].ok("team", "sync")
    with root.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {name}.context_packs")
        assert cursor.fetchone()[0] == 0
    no_history = team[1]("team", "log")
    assert no_history.code == 1
    assert "keeps no history" in no_history.error()
    assert team[2].ok("team", "status", "--json").json()["unsent"] == 0

    # purge: one resurrection of bob's, then everything of carol's (who leaves the team)
    bobs = team[1].log()[0]
    team[1].ok("team", "purge", bobs["resurrection_id"])
    for who in team[:2]:  # nothing is sent twice, nor the purged row again
        assert who.ok("team", "sync", "--json").json()["sent"]["resurrections"] == 0
    gone = team[2].ok("team", "purge", "--all", "--json").json()
    assert gone["left"]
    assert gone["purged"] == 2
    with root.cursor() as cursor:
        cursor.execute(f"SELECT uuid, member FROM {name}.resurrection_log")
        left = dict(cursor.fetchall())
        cursor.execute(f"SELECT COUNT(*) FROM {name}.bookmarks WHERE member LIKE 'carol-%%'")
        assert cursor.fetchone()[0] == 0
    assert bobs["uuid"] not in left
    assert len(left) == 2
    assert not any(member.startswith("carol-") for member in left.values())
    assert team[2]("team", "status").code == 1


@pytest.mark.slow
def test_bad_dsns_are_one_line_each_and_leave_nothing(tmp_path, database, mariadb):
    dsn, _, name = database
    frank = teammate(tmp_path, "frank", transcripts=False)
    cases = [
        (dsn, "wrong-password", "access denied"),
        (dsn.replace(f"/{name}?", "/no_such_db?"), PASSWORD, "no such database"),
        (
            dsn.replace("unix_socket=", f"unix_socket={tmp_path}/nothing.sock&x="),
            PASSWORD,
            "cannot reach",
        ),
    ]
    for url, password, words in cases:
        done = _join(frank, url, password)
        assert done.code == 1, (url, done.stderr)
        assert words in done.error(), (url, done.stderr)
        assert PASSWORD not in done.stderr
        assert "wrong-password" not in done.stderr
        assert not (frank.history / "team" / "team.json").exists()
    in_url = frank("team", "init", "--dsn", dsn.replace("teammate@", f"teammate:{PASSWORD}@"))
    assert in_url.code == 2
    assert PASSWORD not in in_url.stderr
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n")
    frank.ok("team", "init", "--dsn", dsn, "--password-file", str(secret))
    listed = frank.ok("team", "status", "--json").json()
    assert listed["transport"] == "mysql"
    assert listed["versioned"] is False
    assert PASSWORD not in json.dumps(listed)


@pytest.mark.slow
def test_a_server_of_schema_2_is_upgraded_and_keeps_a_bookmarks_cli(tmp_path, database):
    dsn, root, name = database
    alice, bob = teammate(tmp_path, "alice"), teammate(tmp_path, "bob")
    assert _join(alice, dsn).code == 0
    with root.cursor() as cursor:  # the tables as schema 2 made them
        cursor.execute(f"ALTER TABLE {name}.bookmarks DROP COLUMN extra")
        cursor.execute(f"UPDATE {name}.purlin_team SET value = '2'")
    codex_home = tmp_path / "codex-home"
    shutil.copytree(FIXTURES.parent / "codex", codex_home)
    alice.extra_env["CODEX_HOME"] = str(codex_home)
    alice.ok("bookmark", "add", "codex-work", "--session", "01a21c25-3856")
    alice.ok("team", "sync")
    assert _join(bob, dsn).code == 0
    bob.ok("team", "sync")
    (mark,) = bob.ok("bookmark", "list", "--team", "--json").json()["bookmarks"]
    assert mark["cli"] == "codex"
    with root.cursor() as cursor:
        cursor.execute(f"SELECT value FROM {name}.purlin_team")
        assert cursor.fetchone()[0] == "3"
