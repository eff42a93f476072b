"""Agent-history files as tests write and read them by hand (the way GSD tooling would)."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
GSD_EXAMPLE = DATA / "gsd-agent-history-v1.2.json"


def history_path(root: Path) -> Path:
    return root / ".planning" / "agent-history.json"


def entry(agent_id: str, status: str = "spawned", **fields) -> dict:
    """A full GSD entry with every schema field."""
    base = {
        "agent_id": agent_id,
        "task_description": f"task of {agent_id}",
        "phase": "02",
        "plan": "01",
        "segment": None,
        "timestamp": "2026-01-15T14:22:10Z",
        "status": status,
        "completion_timestamp": None,
        "execution_mode": "sequential",
        "parallel_group": None,
        "granularity": "plan",
        "depends_on": None,
        "files_modified": None,
        "checkpoints_skipped": None,
        "task_results": None,
    }
    base.update(fields)
    return base


def write_history(root: Path, entries: list[dict], max_entries=50, **top) -> Path:
    path = history_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"version": "1.2", "max_entries": max_entries, "entries": entries, **top}
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def read_history(root: Path) -> dict:
    return json.loads(history_path(root).read_text())


def statuses(root: Path) -> list[tuple[str, str]]:
    return [(e["agent_id"], e["status"]) for e in read_history(root)["entries"]]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the project outside .git, except lock files (taken even to read safely)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts and not p.name.endswith(".lock")
    }


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in result.stderr + result.stdout
    return lines[0]
