"""The team tables, in SQLite's dialect (the local index) and MySQL's (a team server).

``resurrection_log`` holds seed 000's TR-2 columns with their types and indexes; ``bookmarks``
TR-6's fields. Additions, never renames: ``uuid`` (the row's key, which never repeats: the
primary key, since readable ids do repeat across teammates, projects and clocks set back),
``member`` (whose row it is), ``bookmark_uuid`` (the foreign key to ``bookmarks``, in place of
TR-2's on ``bookmark_id``, which is not unique), the TR-1 additions the statistics read (agent
type, latency) and, in both tables, ``extra`` (a row's other fields as JSON, such as the agent
CLI of a bookmark of another CLI's session; schema 3 added it to ``bookmarks``). ``context_packs`` holds what
``bookmark share`` publishes (deleted with its bookmark), ``row_versions`` the hash of every
row version a teammate sent (so an older copy is never sent again over a newer one), and
``purlin_team`` the schema version.
"""

from __future__ import annotations

VERSION = 3
# what brings a server's tables of an earlier schema version to this one
UPGRADES = {"2": ("ALTER TABLE bookmarks ADD COLUMN extra TEXT",)}
META = "purlin_team"
INT_RANGE = (-(2**31), 2**31 - 1)

LOG_COLUMNS = (
    # name, SQLite type, MySQL type
    ("uuid", "TEXT PRIMARY KEY", "CHAR(36) PRIMARY KEY"),
    ("member", "TEXT NOT NULL", "VARCHAR(64) NOT NULL"),
    ("resurrection_id", "TEXT NOT NULL", "VARCHAR(64) NOT NULL"),
    ("bookmark_id", "TEXT", "VARCHAR(64)"),
    ("bookmark_uuid", "TEXT", "CHAR(36)"),
    ("resurrected_from_agent_id", "TEXT", "VARCHAR(64) NOT NULL"),
    ("resurrected_from_session_id", "TEXT", "VARCHAR(64) NOT NULL"),
    ("resurrected_from_hostname", "TEXT", "VARCHAR(255) NOT NULL"),
    ("resurrected_from_project", "TEXT", "TEXT NOT NULL"),
    ("resurrected_as_agent_id", "TEXT", "VARCHAR(64) NOT NULL"),
    ("resurrected_at", "TEXT NOT NULL", "DATETIME(3) NOT NULL"),
    ("resurrected_in_session", "TEXT", "VARCHAR(64) NOT NULL"),
    ("resurrected_in_project", "TEXT", "TEXT NOT NULL"),
    ("resurrected_by", "TEXT", "VARCHAR(255) NOT NULL"),
    ("resurrection_mode", "TEXT", "VARCHAR(32) NOT NULL"),
    ("query", "TEXT", "TEXT"),
    ("context_extraction_method", "TEXT", "VARCHAR(32) NOT NULL"),
    ("context_size_tokens", "INT", "INT"),
    ("outcome", "TEXT", "VARCHAR(32) NOT NULL"),
    ("outcome_reason", "TEXT", "TEXT"),
    ("notes", "TEXT", "TEXT"),
    ("new_agent_duration_ms", "INT", "INT"),
    ("new_agent_tool_calls", "INT", "INT"),
    ("created_at", "TEXT", "DATETIME(3) DEFAULT CURRENT_TIMESTAMP(3)"),
    ("resurrected_from_agent_type", "TEXT", "VARCHAR(64)"),
    ("latency_ms", "INT", "INT"),
    ("extra", "TEXT", "TEXT"),
)
LOG_INDEXES = (
    ("idx_resurrected_at", "resurrected_at"),
    ("idx_bookmark", "bookmark_uuid"),
    ("idx_outcome", "outcome"),
    ("idx_mode", "resurrection_mode"),
    ("idx_from_agent", "resurrected_from_agent_id"),
    ("idx_log_member", "member"),
)
BOOKMARK_COLUMNS = (
    ("uuid", "TEXT PRIMARY KEY", "CHAR(36) PRIMARY KEY"),
    ("member", "TEXT NOT NULL", "VARCHAR(64) NOT NULL"),
    ("bookmark_id", "TEXT NOT NULL", "VARCHAR(64) NOT NULL"),
    ("name", "TEXT NOT NULL", "VARCHAR(80) NOT NULL"),
    ("description", "TEXT", "TEXT"),
    ("session_id", "TEXT", "VARCHAR(64) NOT NULL"),
    ("agent_id", "TEXT", "VARCHAR(64)"),
    ("project_path", "TEXT", "TEXT"),
    ("hostname", "TEXT", "VARCHAR(255)"),
    ("tags", "TEXT", "TEXT"),
    ("created_at", "TEXT", "DATETIME(3)"),
    ("resurrection_count", "INT", "INT NOT NULL DEFAULT 0"),
    ("last_resurrected", "TEXT", "DATETIME(3)"),
    ("scope", "TEXT", "VARCHAR(16)"),
    ("extra", "TEXT", "TEXT"),
)
BOOKMARK_INDEXES = (("idx_bookmark_name", "name"), ("idx_bookmark_member", "member"))
PACK_COLUMNS = (
    ("bookmark_uuid", "TEXT PRIMARY KEY", "CHAR(36) PRIMARY KEY"),
    ("member", "TEXT NOT NULL", "VARCHAR(64) NOT NULL"),
    ("shared_at", "TEXT NOT NULL", "DATETIME(3) NOT NULL"),
    ("method", "TEXT", "VARCHAR(32) NOT NULL"),
    ("tokens", "INT", "INT"),
    ("pack", "BLOB NOT NULL", "LONGBLOB NOT NULL"),
)
VERSION_COLUMNS = (
    ("version", "TEXT PRIMARY KEY", "CHAR(40) PRIMARY KEY"),
    ("member", "TEXT NOT NULL", "VARCHAR(64) NOT NULL"),
    ("uuid", "TEXT NOT NULL", "CHAR(36) NOT NULL"),
)
DATETIMES = frozenset({"resurrected_at", "created_at", "last_resurrected", "shared_at"})
INTS = frozenset(
    {
        "context_size_tokens",
        "new_agent_duration_ms",
        "new_agent_tool_calls",
        "latency_ms",
        "resurrection_count",
        "tokens",
    }
)
TABLES = {
    "bookmarks": BOOKMARK_COLUMNS,
    "resurrection_log": LOG_COLUMNS,
    "context_packs": PACK_COLUMNS,
    "row_versions": VERSION_COLUMNS,
}


def limits(table: str) -> dict[str, int]:
    """The longest text each VARCHAR/CHAR column of ``table`` takes on a server."""
    found = {}
    for name, _, mysql_type in TABLES[table]:
        if mysql_type.startswith(("VARCHAR(", "CHAR(")):
            found[name] = int(mysql_type.split("(", 1)[1].split(")", 1)[0])
    return found


def statements(mysql: bool) -> list[str]:
    """Every statement that creates the schema, in order."""
    dialect = 2 if mysql else 1
    fks = {
        "resurrection_log": "FOREIGN KEY (bookmark_uuid) REFERENCES bookmarks(uuid) "
        "ON DELETE SET NULL",
        "context_packs": "FOREIGN KEY (bookmark_uuid) REFERENCES bookmarks(uuid) ON DELETE CASCADE",
    }
    indexes = {"resurrection_log": LOG_INDEXES, "bookmarks": BOOKMARK_INDEXES}
    options = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4" if mysql else ""
    made = [
        f"CREATE TABLE {META} (name {'VARCHAR(64)' if mysql else 'TEXT'} PRIMARY KEY, "
        f"value TEXT NOT NULL){options}"
    ]
    after = []
    for table, columns in TABLES.items():
        body = [f"    {name} {types[dialect - 1]}" for name, *types in columns]
        if mysql and table in fks:
            body.append(f"    {fks[table]}")
        for index, column in indexes.get(table, ()):
            if mysql:
                body.append(f"    INDEX {index} ({column})")
            else:
                after.append(f"CREATE INDEX {index} ON {table}({column})")
        made.append(f"CREATE TABLE {table} (\n" + ",\n".join(body) + f"\n){options}")
    return made + after
