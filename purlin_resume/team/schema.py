"""The team tables, in SQLite's dialect (doltlite) and MySQL's (a Dolt SQL server).

``resurrection_log`` is seed 000's TR-2 table column for column, with its indexes and its
foreign key to ``bookmarks``; ``bookmarks`` carries TR-6's fields. Additions, never renames:
``member`` (whose row it is), the local id the row came from, the TR-1 additions the
statistics read (agent type, latency) and ``extra`` (the other additions as JSON);
``removed_at`` on a bookmark (rows are never deleted, so no merge meets a foreign key to a
missing bookmark). ``context_packs`` holds what ``bookmark share`` publishes, and
``purlin_team`` the schema version.
"""

from __future__ import annotations

VERSION = 1
META = "purlin_team"

LOG_COLUMNS = (
    # name, SQLite type, MySQL type
    ("resurrection_id", "VARCHAR(64) PRIMARY KEY", "VARCHAR(64) PRIMARY KEY"),
    ("bookmark_id", "VARCHAR(64)", "VARCHAR(64)"),
    ("resurrected_from_agent_id", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("resurrected_from_session_id", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("resurrected_from_hostname", "VARCHAR(255) NOT NULL", "VARCHAR(255) NOT NULL"),
    ("resurrected_from_project", "TEXT NOT NULL", "TEXT NOT NULL"),
    ("resurrected_as_agent_id", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("resurrected_at", "TEXT NOT NULL", "DATETIME(3) NOT NULL"),
    ("resurrected_in_session", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("resurrected_in_project", "TEXT NOT NULL", "TEXT NOT NULL"),
    ("resurrected_by", "VARCHAR(255) NOT NULL", "VARCHAR(255) NOT NULL"),
    ("resurrection_mode", "VARCHAR(32) NOT NULL", "VARCHAR(32) NOT NULL"),
    ("query", "TEXT", "TEXT"),
    ("context_extraction_method", "VARCHAR(32) NOT NULL", "VARCHAR(32) NOT NULL"),
    ("context_size_tokens", "INT", "INT"),
    ("outcome", "VARCHAR(32) NOT NULL", "VARCHAR(32) NOT NULL"),
    ("outcome_reason", "TEXT", "TEXT"),
    ("notes", "TEXT", "TEXT"),
    ("new_agent_duration_ms", "INT", "INT"),
    ("new_agent_tool_calls", "INT", "INT"),
    (
        "created_at",
        "TEXT DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        "DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3)",
    ),
    ("member", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("local_resurrection_id", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("resurrected_from_agent_type", "VARCHAR(64)", "VARCHAR(64)"),
    ("latency_ms", "INT", "INT"),
    ("extra", "TEXT", "TEXT"),
)
LOG_INDEXES = (
    ("idx_resurrected_at", "resurrected_at"),
    ("idx_bookmark", "bookmark_id"),
    ("idx_outcome", "outcome"),
    ("idx_mode", "resurrection_mode"),
    ("idx_from_agent", "resurrected_from_agent_id"),
)
BOOKMARK_COLUMNS = (
    ("bookmark_id", "VARCHAR(64) PRIMARY KEY", "VARCHAR(64) PRIMARY KEY"),
    ("name", "VARCHAR(80) NOT NULL", "VARCHAR(80) NOT NULL"),
    ("description", "TEXT", "TEXT"),
    ("session_id", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("agent_id", "VARCHAR(64)", "VARCHAR(64)"),
    ("project_path", "TEXT", "TEXT"),
    ("hostname", "VARCHAR(255)", "VARCHAR(255)"),
    ("tags", "TEXT", "TEXT"),
    ("created_at", "TEXT", "DATETIME(3)"),
    ("resurrection_count", "INT NOT NULL DEFAULT 0", "INT NOT NULL DEFAULT 0"),
    ("last_resurrected", "TEXT", "DATETIME(3)"),
    ("member", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("local_bookmark_id", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("scope", "VARCHAR(16)", "VARCHAR(16)"),
    ("removed_at", "TEXT", "DATETIME(3)"),
)
BOOKMARK_INDEXES = (("idx_bookmark_name", "name"),)
PACK_COLUMNS = (
    ("bookmark_id", "VARCHAR(64) PRIMARY KEY", "VARCHAR(64) PRIMARY KEY"),
    ("member", "VARCHAR(64) NOT NULL", "VARCHAR(64) NOT NULL"),
    ("shared_at", "TEXT NOT NULL", "DATETIME(3) NOT NULL"),
    ("method", "VARCHAR(32) NOT NULL", "VARCHAR(32) NOT NULL"),
    ("tokens", "INT", "INT"),
    ("redactions", "TEXT", "TEXT"),
    ("pack", "BLOB NOT NULL", "LONGBLOB NOT NULL"),
)
DATETIMES = frozenset(
    {"resurrected_at", "created_at", "last_resurrected", "removed_at", "shared_at"}
)
LOG_NAMES = tuple(name for name, _, _ in LOG_COLUMNS)
BOOKMARK_NAMES = tuple(name for name, _, _ in BOOKMARK_COLUMNS)
PACK_NAMES = tuple(name for name, _, _ in PACK_COLUMNS)


def _table(name: str, columns, dialect: int, tail: list[str]) -> str:
    body = [f"    {column} {types[dialect - 1]}" for column, *types in columns]
    options = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4" if dialect == 2 else ""
    return f"CREATE TABLE {name} (\n" + ",\n".join([*body, *tail]) + "\n)" + options


def statements(mysql: bool) -> list[str]:
    """Every statement that creates the schema, in order."""
    dialect = 2 if mysql else 1
    fk = "FOREIGN KEY (bookmark_id) REFERENCES bookmarks(bookmark_id) ON DELETE SET NULL"
    if mysql:
        log_tail = [f"    {fk}"] + [f"    INDEX {i} ({c})" for i, c in LOG_INDEXES]
        mark_tail = [f"    INDEX {i} ({c})" for i, c in BOOKMARK_INDEXES]
        pack_tail = [
            "    FOREIGN KEY (bookmark_id) REFERENCES bookmarks(bookmark_id) ON DELETE CASCADE"
        ]
        indexes: list[str] = []
    else:
        log_tail = [f"    {fk}"]
        mark_tail = []
        pack_tail = [
            "    FOREIGN KEY (bookmark_id) REFERENCES bookmarks(bookmark_id) ON DELETE CASCADE"
        ]
        indexes = [f"CREATE INDEX {i} ON resurrection_log({c})" for i, c in LOG_INDEXES] + [
            f"CREATE INDEX {i} ON bookmarks({c})" for i, c in BOOKMARK_INDEXES
        ]
    key = "VARCHAR(64) PRIMARY KEY" if mysql else "TEXT PRIMARY KEY"
    return [
        f"CREATE TABLE {META} (name {key}, value TEXT NOT NULL)"
        + (" DEFAULT CHARSET=utf8mb4" if mysql else ""),
        _table("bookmarks", BOOKMARK_COLUMNS, dialect, mark_tail),
        _table("resurrection_log", LOG_COLUMNS, dialect, log_tail),
        _table("context_packs", PACK_COLUMNS, dialect, pack_tail),
        *indexes,
    ]
