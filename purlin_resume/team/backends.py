"""The two places team tables live: an embedded Dolt database (doltlite) and a MySQL-wire
server (a Dolt SQL server, or any MySQL/MariaDB without version control), behind one small
interface: rows in, rows out, commit, history."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from purlin_resume.core.errors import PurlinError, UsageError
from purlin_resume.team import engine, schema

KEYS = {"resurrection_log": "resurrection_id", "bookmarks": "bookmark_id"}
KEYS["context_packs"] = "bookmark_id"
KEYS[schema.META] = "name"


class TeamError(PurlinError):
    """The team database cannot do what was asked; local files are untouched."""


class Database:
    """Rows in and out of the team tables; subclasses speak one wire."""

    mark = "?"
    versioned = True

    def __init__(self, connection: Any, author: str):
        self.connection = connection
        self.author = author

    # the dialect: how an insert that meets an existing key updates it
    on_conflict = ""
    incoming = ""

    def _upsert_sql(self, table: str, columns: Sequence[str]) -> str:
        key = KEYS[table]
        updates = ", ".join(f"{c} = {self.incoming.format(column=c)}" for c in columns if c != key)
        marks = ", ".join("?" for _ in columns)
        return (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}) "
            f"{self.on_conflict.format(key=key)} {updates}"
        )

    def to_db(self, name: str, value: Any) -> Any:
        return value

    def from_db(self, name: str, value: Any) -> Any:
        return value

    # rows
    def query(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        cursor = self.connection.cursor()
        cursor.execute(sql.replace("?", self.mark), tuple(params))
        names = [d[0] for d in cursor.description or ()]
        return [
            {n: self.from_db(n, v) for n, v in zip(names, values, strict=False)}
            for values in cursor.fetchall()
        ]

    def execute(self, sql: str, params: Iterable[Any] = ()) -> None:
        self.connection.cursor().execute(sql.replace("?", self.mark), tuple(params))

    def upsert(self, table: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        columns = [c for c in rows[0] if not (c == "created_at" and rows[0][c] is None)]
        sql = self._upsert_sql(table, columns).replace("?", self.mark)
        values = [tuple(self.to_db(c, row.get(c)) for c in columns) for row in rows]
        self.connection.cursor().executemany(sql, values)

    def tables(self) -> set[str]:
        raise NotImplementedError

    def create_schema(self) -> None:
        for statement in schema.statements(mysql=self.mark == "%s"):
            self.execute(statement)
        self.upsert(schema.META, [{"name": "schema_version", "value": str(schema.VERSION)}])

    def schema_version(self) -> int | None:
        """The schema version the tables say; None when they are not a team database's."""
        if schema.META not in self.tables():
            return None
        found = self.query(f"SELECT value FROM {schema.META} WHERE name = 'schema_version'")
        try:
            return int(found[0]["value"]) if found else None
        except ValueError:
            return None

    # transactions and history
    def begin(self) -> None:
        self.execute("BEGIN")

    def end(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        self.execute("ROLLBACK")

    def commit(self, message: str) -> str | None:
        """A Dolt commit of everything changed, by this teammate; None when nothing changed."""
        raise NotImplementedError

    def log(self, limit: int) -> list[dict[str, Any]]:
        return []

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a broken connection
            self.connection.close()


def _nothing_to_commit(exc: Exception) -> bool:
    return "nothing to commit" in str(exc).lower()


class Embedded(Database):
    """A teammate's own Dolt database file (doltlite), with ``origin`` as its remote."""

    def __init__(self, path: Path, author: str):
        sqlite3 = engine.sqlite()
        self.errors = sqlite3
        super().__init__(sqlite3.connect(str(path), timeout=30, isolation_level=None), author)

    on_conflict = "ON CONFLICT({key}) DO UPDATE SET"
    incoming = "excluded.{column}"

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        cursor = self.connection.execute(sql, tuple(params))
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]

    def tables(self) -> set[str]:
        return {r["name"] for r in self.query("SELECT name FROM sqlite_master WHERE type='table'")}

    def call(self, function: str, *args: str) -> Any:
        marks = ", ".join("?" for _ in args)
        return self.query(f"SELECT {function}({marks}) AS result", args)[0]["result"]

    def commit(self, message: str) -> str | None:
        try:
            return self.call("dolt_commit", "-A", "-m", message, "--author", self.author)
        except self.errors.Error as exc:
            if _nothing_to_commit(exc):
                return None
            raise

    def head(self) -> str | None:
        found = self.query("SELECT commit_hash FROM dolt_log LIMIT 1")
        return found[0]["commit_hash"] if found else None

    def log(self, limit: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT commit_hash, committer, email, date, message FROM dolt_log LIMIT ?", (limit,)
        )


# ---------------------------------------------------------------------------------------------
# MySQL wire

_DSN = re.compile(r"^mysql://")


def parse_dsn(dsn: str) -> dict[str, Any]:
    """``mysql://user[:password]@host[:port]/database[?unix_socket=PATH]`` as PyMySQL's keywords."""
    if not _DSN.match(dsn or "") or any(ord(ch) < 32 or ord(ch) == 127 for ch in dsn):
        raise UsageError(f"--dsn {shown_dsn(dsn)!r}: give mysql://user[:password]@host[:port]/db")
    parts = urlsplit(dsn)
    database = parts.path.lstrip("/")
    if not parts.username or not re.fullmatch(r"[A-Za-z0-9_$-]{1,64}", database):
        raise UsageError(
            f"--dsn {shown_dsn(dsn)!r}: name a user and a database: mysql://user@host:3306/db"
        )
    try:
        port = parts.port or 3306
    except ValueError:
        raise UsageError(f"--dsn {shown_dsn(dsn)!r}: the port is not a number") from None
    options: dict[str, Any] = {
        "user": unquote(parts.username),
        "password": unquote(parts.password or ""),
        "host": parts.hostname or "localhost",
        "port": port,
        "database": database,
    }
    socket = parse_qs(parts.query).get("unix_socket")
    if socket:
        options["unix_socket"] = socket[0]
    return options


def shown_dsn(dsn: str | None) -> str:
    """A DSN fit to print: without its password."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1@", dsn or "")


def _iso(value: Any) -> Any:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        text = moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
        return (text[:-4] if text.endswith(".000") else text) + "Z"
    return value


class Server(Database):
    """Tables on a MySQL-wire server; commits are Dolt commits when the server is Dolt."""

    mark = "%s"

    def __init__(self, dsn: str, author: str, timeout: int = 10):
        pymysql = engine.pymysql()
        options = parse_dsn(dsn)
        import os

        options["password"] = os.environ.get("PURLIN_TEAM_PASSWORD", options["password"])
        try:
            connection = pymysql.connect(
                **options, connect_timeout=timeout, autocommit=True, charset="utf8mb4"
            )
        except pymysql.err.OperationalError as exc:
            code = exc.args[0] if exc.args else None
            where = shown_dsn(dsn)
            if code == 1045:
                raise TeamError(
                    f"{where}: access denied: check the user and password "
                    "(in the DSN or $PURLIN_TEAM_PASSWORD)"
                ) from None
            if code in (1044, 1049):
                raise TeamError(
                    f"{where}: no such database on that server, or the user may not use it; "
                    "create it and grant the user access"
                ) from None
            raise TeamError(f"cannot reach {where}: {exc.args[-1] if exc.args else exc}") from None
        except (pymysql.err.MySQLError, OSError) as exc:
            raise TeamError(f"cannot reach {shown_dsn(dsn)}: {exc}") from None
        super().__init__(connection, author)
        self.errors = pymysql
        try:
            self.query("SELECT dolt_version() AS v")
            self.versioned = True
        except pymysql.err.MySQLError:
            self.versioned = False

    on_conflict = "ON DUPLICATE KEY UPDATE"
    incoming = "VALUES({column})"

    def to_db(self, name: str, value: Any) -> Any:
        if name in schema.DATETIMES and isinstance(value, str) and value:
            from purlin_resume.core import clock

            moment = clock.parse(value)
            return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] if moment else None
        return value

    def from_db(self, name: str, value: Any) -> Any:
        if isinstance(value, bytes) and name != "pack":
            return value.decode("utf-8", "replace")
        return _iso(value)

    def tables(self) -> set[str]:
        return {next(iter(r.values())) for r in self.query("SHOW TABLES")}

    def begin(self) -> None:
        self.connection.begin()

    def end(self) -> None:
        self.connection.commit()

    def rollback(self) -> None:
        self.connection.rollback()

    def commit(self, message: str) -> str | None:
        if not self.versioned:
            return None
        try:
            found = self.query(
                "CALL DOLT_COMMIT('-A', '-m', ?, '--author', ?)", (message, self.author)
            )
        except self.errors.err.MySQLError as exc:
            if _nothing_to_commit(exc):
                return None
            raise
        return next(iter(found[0].values())) if found else None

    def log(self, limit: int) -> list[dict[str, Any]]:
        if not self.versioned:
            return []
        return self.query(
            "SELECT commit_hash, committer, email, date, message FROM dolt_log LIMIT ?", (limit,)
        )
