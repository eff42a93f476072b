"""Shared set-up for the dashboard tests: the app behind the ASGI test client, a resurrection log."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from purlin_resume.core.project import Project  # noqa: E402
from purlin_resume.web import security, views  # noqa: E402
from purlin_resume.web.app import create_app  # noqa: E402

PORT = 8765
ORIGIN = f"http://127.0.0.1:{PORT}"


def board(root: Path, claude_dir: Path | None = None) -> tuple[TestClient, security.Guard]:
    """The dashboard of ``root`` as the browser at the printed URL reaches it."""
    guard = security.Guard("127.0.0.1", PORT)
    app = create_app(views.Scope(Project(root), claude_dir), guard)
    return TestClient(app, base_url=ORIGIN, follow_redirects=False), guard


def resurrection(number: int, day: str, **values) -> dict:
    entry = {
        "resurrection_id": f"res-{day}-{number:03d}",
        "bookmark_id": None,
        "resurrected_from_agent_id": "agent-a1b2c3d",
        "resurrected_from_session_id": "session-xyz789",
        "resurrected_from_hostname": "build-host",
        "resurrected_from_project": "/srv/beads",
        "resurrected_as_agent_id": f"agent-new{number}",
        "resurrected_at": f"{day}T15:00:00.000Z",
        "resurrected_in_session": "session-current",
        "resurrected_in_project": "/srv/api-gateway",
        "resurrected_by": "tester",
        "resurrection_mode": "bookmark",
        "query": "beads-architecture-expert",
        "context_extraction_method": "hybrid",
        "context_size_tokens": 4500,
        "outcome": "success",
        "outcome_reason": None,
        "notes": None,
        "new_agent_duration_ms": 45000,
        "new_agent_tool_calls": 12,
        "resurrected_from_agent_type": "architect",
        "latency_ms": 900 + number,
    }
    entry.update(values)
    return entry


def write_log(claude: Path, entries: list[dict], tail: str = "") -> Path:
    log = claude / "history" / "resurrection-log.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(json.dumps(e) + "\n" for e in entries) + tail)
    return log


def sample_log(claude: Path) -> Path:
    """A week of resurrections: three modes, a failure with its reason, two agent types."""
    entries = [
        resurrection(1, "2026-02-03"),
        resurrection(2, "2026-02-03", resurrection_mode="fuzzy"),
        resurrection(
            3,
            "2026-02-05",
            resurrection_mode="direct",
            outcome="failure",
            outcome_reason="transcript file is gone",
            resurrected_from_agent_id="agent-f00d",
            resurrected_from_agent_type="builder",
            context_size_tokens=12000,
        ),
        resurrection(4, "2026-02-09", resurrected_in_project="/srv/beads"),
    ]
    return write_log(claude, entries)
