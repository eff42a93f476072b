"""Builders for synthetic Claude Code transcripts, and an independent count of a real one."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

_SKIPPED = (  # command output and caveats are not turns
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
)


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    path.write_bytes(body + tail)
    return path


class Conversation:
    """Makes records with fresh uuids and increasing timestamps, chained by parentUuid."""

    def __init__(self, session_id: str, cwd: str = "/srv/demo", version: str = "2.1.39"):
        self.session_id, self.cwd, self.version = session_id, cwd, version
        self.count = 0
        self.last: str | None = None

    def _base(self, kind: str, **extra: Any) -> dict[str, Any]:
        self.count += 1
        uuid = f"{self.session_id[:8]}-0000-4000-8000-{self.count:012d}"
        record = {
            "parentUuid": self.last,
            "isSidechain": False,
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": f"2026-01-01T10:{self.count // 60:02d}:{self.count % 60:02d}.000Z",
        }
        record.update(extra)
        self.last = uuid
        return record

    def user(self, content: Any, **extra: Any) -> dict[str, Any]:
        return self._base("user", message={"role": "user", "content": content}, **extra)

    def assistant(self, message_id: str, *blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
        message = {"id": message_id, "role": "assistant", "content": list(blocks)}
        return self._base("assistant", message=message, **extra)

    def result(self, tool_use_id: str, text: str, outcome: Any = None, **extra: Any) -> dict:
        block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
        if outcome is not None:
            extra["toolUseResult"] = outcome
        return self.user([block], **extra)

    def system(self, subtype: str, **extra: Any) -> dict[str, Any]:
        return self._base("system", subtype=subtype, **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool(tool_id: str, name: str, **data: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": data}


def recorded_session_id(path: Path) -> str:
    """The session id a session file's records carry (its name when none does)."""
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("sessionId"), str):
            return record["sessionId"]
    return path.stem


def _loads(line: bytes) -> Any:
    """``json.loads``; a line that is JSON but for bytes that are not UTF-8 with those as U+FFFD."""
    try:
        return json.loads(line)
    except UnicodeDecodeError:
        return json.loads(line.decode("utf-8-sig", "replace"))


def independent_counts(path: Path, sidechains: bool = False) -> dict[str, Any]:
    """Turns, tool calls by tool, compactions and malformed lines of one conversation file,
    counted straight from the JSON (``sidechains``: count the sidechain records instead)."""
    seen: set[str] = set()
    malformed = 0
    said: dict[str, bool] = {}
    user_turns = 0
    tools: Counter = Counter()
    compactions = 0
    for line in Path(path).read_bytes().split(b"\n"):  # JSONL lines end at a newline only
        if not line.strip():
            continue
        try:
            record = _loads(line)
        except ValueError:
            malformed += 1
            continue
        if not isinstance(record, dict):
            malformed += 1
            continue
        uuid = record.get("uuid")
        if uuid in seen:
            continue
        if uuid:
            seen.add(uuid)
        if bool(record.get("isSidechain")) != sidechains:
            continue
        kind = record.get("type")
        message = record.get("message") or {}
        if kind == "system" and record.get("subtype") == "compact_boundary":
            compactions += 1
        elif kind == "system" and "<command-name>" in str(record.get("content", "")):
            user_turns += 1
        elif kind == "assistant":
            blocks = [b for b in message.get("content") or [] if isinstance(b, dict)]
            spoke = any(b.get("type") == "text" and b.get("text", "").strip() for b in blocks)
            calls = [b["name"] for b in blocks if b.get("type") == "tool_use"]
            tools.update(calls)
            said[message["id"]] = said.get(message["id"], False) or spoke or bool(calls)
        elif kind == "user" and not record.get("isMeta") and not record.get("isCompactSummary"):
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(
                    b.get("text", "")
                    for b in content
                    if isinstance(b, dict) and b.get("type") == "text"
                )
            if content and content.strip() and not content.lstrip().startswith(_SKIPPED):
                user_turns += 1
    return {
        "turns": user_turns + sum(said.values()),
        "tools": dict(tools),
        "compactions": compactions,
        "malformed": malformed,
    }


def agent_transcript(
    path: Path, agent_id: str, prompt: str, edits: list[str], answer: str | None
) -> Path:
    """A 2.1-style subagent transcript: its prompt, one Edit/Write per file, then its answer
    (or, with no answer, an interruption)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "type": "user",
            "agentId": agent_id,
            "isSidechain": True,
            "uuid": "u0",
            "message": {"role": "user", "content": prompt},
        }
    ]
    for n, name in enumerate(edits):
        rows.append(
            {
                "type": "assistant",
                "uuid": f"a{n}",
                "isSidechain": True,
                "message": {
                    "id": f"m{n}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"t{n}",
                            "name": "Write" if n % 2 else "Edit",
                            "input": {"file_path": name},
                        }
                    ],
                },
            }
        )
        rows.append(
            {
                "type": "user",
                "uuid": f"r{n}",
                "isSidechain": True,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}],
                },
            }
        )
    if answer is not None:
        rows.append(
            {
                "type": "assistant",
                "uuid": "end",
                "isSidechain": True,
                "message": {
                    "id": "mend",
                    "role": "assistant",
                    "content": [{"type": "text", "text": answer}],
                },
            }
        )
    else:
        rows.append(
            {
                "type": "user",
                "uuid": "int",
                "isSidechain": True,
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
