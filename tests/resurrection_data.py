"""Synthetic Claude data folders for the resurrection tests."""

from __future__ import annotations

import json
from pathlib import Path

from tests.claude_records import Conversation, text, tool, write_jsonl


def session(
    claude: Path, session_id: str, cwd: str, turns: list[tuple[str, str]], tail: bytes = b""
) -> Path:
    """A session file of user/agent text turns (``("user", "…")`` / ``("agent", "…")``)."""
    talk = Conversation(session_id, cwd=cwd)
    records = []
    for number, (who, said) in enumerate(turns):
        if who == "user":
            records.append(talk.user(said))
        else:
            records.append(talk.assistant(f"msg_{number:04d}", text(said)))
    folder = claude / "projects" / ("-" + cwd.strip("/").replace("/", "-"))
    return write_jsonl(folder / f"{session_id}.jsonl", records, tail)


def session_with_error(
    claude: Path, session_id: str, cwd: str, error: str = "ImportError: no module named foo"
) -> Path:
    talk = Conversation(session_id, cwd=cwd)
    records = [
        talk.user("run the tests"),
        talk.assistant("msg_1", text("Running them."), tool("toolu_1", "Bash", command="pytest")),
        talk.result("toolu_1", error),
        talk.assistant("msg_2", text("I found that the import fails; the root cause is a typo.")),
    ]
    records[2]["message"]["content"][0]["is_error"] = True
    folder = claude / "projects" / ("-" + cwd.strip("/").replace("/", "-"))
    return write_jsonl(folder / f"{session_id}.jsonl", records)


def session_with_command(
    claude: Path, session_id: str, cwd: str, command: str, answer: str
) -> Path:
    """A session whose agent runs ``command`` (Bash), then answers ``answer``."""
    talk = Conversation(session_id, cwd=cwd)
    records = [
        talk.user("check the database"),
        talk.assistant("msg_1", tool("toolu_1", "Bash", command=command)),
        talk.result("toolu_1", "ok"),
        talk.assistant("msg_2", text(answer)),
    ]
    folder = claude / "projects" / ("-" + cwd.strip("/").replace("/", "-"))
    return write_jsonl(folder / f"{session_id}.jsonl", records)


def write_config(root: Path, **settings) -> None:
    """The project's settings, trusted by the user as written (as ``purlin-resume trust`` does)."""
    (root / ".purlin").mkdir(exist_ok=True)
    (root / ".purlin" / "config.json").write_text(json.dumps({"resume": settings}))
    trust_project(root)


def trust_project(root: Path) -> None:
    """What ``purlin-resume trust`` records for the project as it is now."""
    from purlin_resume.core import config, trust
    from purlin_resume.core.project import Project

    trust.allow(Project(root), config.load(Project(root)))
