"""The team tables on a MySQL-wire server (Dolt sql-server, MySQL, MariaDB), through PyMySQL.

A sync sends the rows whose version the server has not had from this teammate
(``row_versions``), in one transaction per table; a value a column cannot take is clamped
(numbers to INT's range, texts to their column's length), and a row the server still refuses is
left out with one line, so no row can block the others. On Dolt each teammate writes on a branch
of their own (``purlin/<member>``), commits only there, and merges it into ``main``: a Dolt
commit holds one teammate's changes. The password comes from the 0600 ``team.json`` or
``$PURLIN_TEAM_PASSWORD``; it is never printed.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from purlin_resume.core import clock
from purlin_resume.core.errors import UsageError
from purlin_resume.team import TeamError, TeamUnavailable, refuse_secrets, rows, schema

PASSWORD_ENV = "PURLIN_TEAM_PASSWORD"
MAX_PASSWORD = 4096  # bytes a password file may hold


def shown_dsn(dsn: str | None) -> str:
    """A DSN fit to print: without its password (which may hold ``@`` and ``:``)."""
    return re.sub(r"^(mysql://[^:/@]*):.*@(?=[^@]*$)", r"\1@", dsn or "")


def has_password(dsn: str) -> bool:
    return shown_dsn(dsn) != dsn


def with_password(dsn: str, password: str) -> str:
    head, rest = dsn.split("://", 1)
    user, _, place = rest.rpartition("@")
    return f"{head}://{user.split(':', 1)[0]}:{quote(password, safe='')}@{place}"


def parse_dsn(dsn: str) -> dict[str, Any]:
    """``mysql://user[:password]@host[:port]/database[?unix_socket=PATH]`` as PyMySQL's
    keywords."""
    bad = UsageError(f"--dsn {shown_dsn(dsn)!r}: give mysql://user@host[:port]/database")
    if not (dsn or "").startswith("mysql://"):
        raise bad
    refuse_secrets(shown_dsn(dsn), "--dsn")
    head, _, place = dsn[len("mysql://") :].rpartition("@")
    user, _, password = head.partition(":")
    parts = urlsplit("mysql://" + place)
    database = parts.path.lstrip("/")
    if not user or not re.fullmatch(r"[A-Za-z0-9_$-]{1,64}", database):
        raise bad
    try:
        port = parts.port or 3306
    except ValueError:
        raise UsageError(f"--dsn {shown_dsn(dsn)!r}: the port is not a number") from None
    options: dict[str, Any] = {
        "user": unquote(user),
        "password": unquote(password),
        "host": parts.hostname or "localhost",
        "port": port,
        "database": database,
    }
    socket = parse_qs(parts.query).get("unix_socket")
    if socket:
        options["unix_socket"] = socket[0]
    return options


def _pymysql() -> Any:
    try:
        import pymysql
    except ImportError:
        raise TeamUnavailable() from None
    return pymysql


class Server:
    """One connection to the team server, as one teammate."""

    mysql = True

    def __init__(self, dsn: str, member: str, timeout: int = 10):
        pymysql = _pymysql()
        self.errors = pymysql.err
        options = parse_dsn(dsn)
        options["password"] = options["password"] or os.environ.get(PASSWORD_ENV, "")
        where = shown_dsn(dsn)
        try:
            self.connection = pymysql.connect(
                **options, connect_timeout=timeout, autocommit=True, charset="utf8mb4"
            )
        except pymysql.err.OperationalError as exc:
            code = exc.args[0] if exc.args else None
            if code == 1045:
                raise TeamError(f"{where}: access denied: check the user and password") from None
            if code in (1044, 1049):
                raise TeamError(
                    f"{where}: no such database on that server, or the user may not use it; "
                    "create it and grant the user access"
                ) from None
            raise TeamError(f"cannot reach {where}: {exc.args[-1] if exc.args else exc}") from None
        except (pymysql.err.MySQLError, OSError) as exc:
            raise TeamError(f"cannot reach {where}: {exc}") from None
        self.member = member
        self.where = where
        self.execute("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'")
        try:
            self.tuples("SELECT dolt_version()")
            self.versioned = True
        except pymysql.err.MySQLError:
            self.versioned = False

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a broken connection
            self.connection.close()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.connection.cursor().execute(sql, tuple(params))

    def tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        cursor = self.connection.cursor()
        cursor.execute(sql.replace("?", "%s"), tuple(params))
        return [tuple(_plain(v) for v in row) for row in cursor.fetchall()]

    def dicts(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self.connection.cursor()
        cursor.execute(sql.replace("?", "%s"), tuple(params))
        names = [d[0] for d in cursor.description or ()]
        return [
            {n: (v if n == "pack" else _plain(v)) for n, v in zip(names, row, strict=True)}
            for row in cursor.fetchall()
        ]

    # the schema

    def prepare(self) -> bool:
        """Create the tables when the database has none; True when it made them."""
        tables = {r[0] for r in self.tuples("SHOW TABLES")}
        made = False
        if schema.META not in tables:
            if tables & set(schema.TABLES):
                raise TeamError(
                    f"{self.where} holds tables of another kind; use a database of its own"
                )
            for statement in schema.statements(mysql=True):
                self.execute(statement)
            self.execute(
                f"INSERT INTO {schema.META} VALUES ('schema_version', %s)", (str(schema.VERSION),)
            )
            self.dolt_commit("create the purlin-resume team tables")
            made = True
        found = self.tuples(f"SELECT value FROM {schema.META} WHERE name = 'schema_version'")
        if found and found[0][0] in schema.UPGRADES:
            found = self._upgrade(found[0][0])
        if not found or found[0][0] != str(schema.VERSION):
            raise TeamError(
                f"{self.where} holds team tables of schema {found[0][0] if found else '?'}, "
                f"this purlin-resume writes schema {schema.VERSION}: use the same version"
            )
        return made

    def _upgrade(self, version: str) -> list[tuple]:
        """Tables of an earlier schema brought to this one (columns added, nothing renamed)."""
        for statement in schema.UPGRADES[version]:
            self.execute(statement)
        self.execute(
            f"UPDATE {schema.META} SET value = %s WHERE name = 'schema_version'",
            (str(schema.VERSION),),
        )
        self.dolt_commit(f"upgrade the purlin-resume team tables to schema {schema.VERSION}")
        return [(str(schema.VERSION),)]

    # writing

    def sent(self) -> set[str]:
        return {
            r[0]
            for r in self.tuples(
                "SELECT version FROM row_versions WHERE member = %s", (self.member,)
            )
        }

    def write(
        self,
        table: str,
        found: Iterable[dict[str, Any]],
        versions: Callable[[dict[str, Any]], str],
        warn: Callable[[str], None],
    ) -> int:
        """Upsert ``found`` into ``table`` with their versions; how many went in."""
        limits = schema.limits(table)
        made = [(rows.columns(table, row, limits), versions(row)) for row in found]
        made = [(_to_db(table, r), v) for r, v in made]
        if not made:
            return 0
        try:
            self._upsert(table, made)
            return len(made)
        except self.errors.MySQLError:
            self.connection.rollback()
        written = 0
        for one in made:  # one by one: only the row the server refuses stays out
            try:
                self._upsert(table, [one])
                written += 1
            except self.errors.MySQLError as exc:
                self.connection.rollback()
                warn(
                    f"{table} row {one[0].get('uuid') or one[0].get('bookmark_uuid')} "
                    f"left out: the server refused it ({' '.join(str(exc.args[-1]).split())})"
                )
        return written

    def _upsert(self, table: str, made: list[tuple[dict[str, Any], str]]) -> None:
        names = list(made[0][0])
        key = schema.TABLES[table][0][0]
        updates = ", ".join(f"{n} = VALUES({n})" for n in names if n != key)
        sql = (
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('%s' for _ in names)}) "
            f"ON DUPLICATE KEY UPDATE {updates}"
        )
        self.connection.begin()
        cursor = self.connection.cursor()
        cursor.executemany(sql, [tuple(r[n] for n in names) for r, _ in made])
        cursor.executemany(
            "INSERT IGNORE INTO row_versions (version, member, uuid) VALUES (%s, %s, %s)",
            [(v, self.member, r.get("uuid") or r.get("bookmark_uuid")) for r, v in made],
        )
        self.connection.commit()

    def remove(self, table: str, keys: list[tuple[str, str]]) -> None:
        """Delete this teammate's removed or purged rows of ``table`` (a bookmark's shared
        context goes with it), given as (uuid, version of the removal)."""
        if not keys:
            return
        self.connection.begin()
        cursor = self.connection.cursor()
        cursor.executemany(
            f"DELETE FROM {table} WHERE uuid = %s AND member = %s",
            [(key, self.member) for key, _ in keys],
        )
        cursor.executemany(
            "INSERT IGNORE INTO row_versions (version, member, uuid) VALUES (%s, %s, %s)",
            [(version, self.member, key) for key, version in keys],
        )
        self.connection.commit()

    def purge_member(self) -> int:
        """Delete every row of this teammate (on Dolt, committed on their branch and merged);
        how many rows went."""
        branch = self.on_own_branch()
        self.connection.begin()
        cursor = self.connection.cursor()
        count = 0
        for table in ("context_packs", "resurrection_log", "bookmarks", "row_versions"):
            cursor.execute(f"DELETE FROM {table} WHERE member = %s", (self.member,))
            count += cursor.rowcount if table in ("resurrection_log", "bookmarks") else 0
        self.connection.commit()
        self.merge_into_main(branch, f"{self.member}: every row purged")
        return count

    # Dolt

    def dolt_commit(self, message: str) -> None:
        if not self.versioned:
            return
        try:
            self.execute(
                "CALL DOLT_COMMIT('-A', '-m', %s, '--author', %s)",
                (message, f"{self.member} <{self.member}@purlin-resume>"),
            )
        except self.errors.MySQLError as exc:
            if "nothing to commit" not in str(exc).lower():
                raise

    def on_own_branch(self) -> str | None:
        """On Dolt: this session on ``purlin/<member>`` with ``main`` merged in."""
        if not self.versioned:
            return None
        branch = f"purlin/{self.member}"
        known = self.tuples("SELECT name FROM dolt_branches WHERE name = %s", (branch,))
        if not known:
            self.execute("CALL DOLT_BRANCH(%s, 'main')", (branch,))
        self.execute("CALL DOLT_CHECKOUT(%s)", (branch,))
        self.execute("CALL DOLT_MERGE('main')")
        return branch

    def merge_into_main(self, branch: str | None, message: str) -> None:
        if branch is None:
            return
        self.dolt_commit(message)
        self.execute("CALL DOLT_CHECKOUT('main')")
        self.execute("CALL DOLT_MERGE(%s)", (branch,))

    def history(self, limit: int) -> list[dict[str, Any]]:
        if not self.versioned:
            raise TeamError(
                f"{self.where} keeps no history (it is not a Dolt server): the tables are "
                "shared, the commits are not"
            )
        return self.dicts(
            "SELECT commit_hash, committer, date, message FROM dolt_log LIMIT %s", (limit,)
        )

    def pack(self, key: str) -> bytes | None:
        found = self.dicts("SELECT pack FROM context_packs WHERE bookmark_uuid = %s", (key,))
        return bytes(found[0]["pack"]) if found else None


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        text = moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
        return text + "Z"
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if hasattr(value, "is_integer") and not isinstance(value, float):  # Decimal from SUM
        return int(value) if value == int(value) else float(value)
    return value


def _to_db(table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A row as the server takes it: times as DATETIME(3) texts, the server's own
    ``created_at`` on a log row, an empty text for a missing NOT NULL one."""
    made = dict(row)
    for name in schema.DATETIMES & set(made):
        value = made[name]
        moment = clock.parse(value) if isinstance(value, str) and value else None
        made[name] = moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] if moment else None
    if table == "resurrection_log":
        made.pop("created_at", None)
    for name, _, mysql_type in schema.TABLES[table]:
        if name in made and made[name] is None and "NOT NULL" in mysql_type:
            if name in schema.DATETIMES:
                made[name] = "1970-01-01 00:00:00.000"
            else:
                made[name] = 0 if name in schema.INTS else ""
    return made
