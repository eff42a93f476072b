"""One real Claude Code kept running, as an agent in a user's terminal is.

``claude -p --input-format stream-json`` reads user messages from stdin one after the other in
one process: ``say`` sends one and waits for its result, so ``/clear`` (a new session in the same
process) and ``/compact`` happen as they do in the interactive client, and several clients can
work in one project at once::

    with LiveClient(field, env={"PURLIN_ROLE": "qa"}) as agent:
        agent.say("MARK save where we are")
        agent.say("/clear")
        agent.session_id        # the session the client runs now
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import Any

from tests.field.harness import DEFAULT_TOOLS, Field


class LiveClient:
    def __init__(self, field: Field, *, env: dict | None = None, tools: str = DEFAULT_TOOLS):
        argv = [str(field.binary), "-p", "--input-format", "stream-json"]
        argv += ["--output-format", "stream-json", "--verbose", "--allowedTools", tools]
        self.process = subprocess.Popen(
            argv,
            cwd=field.project,
            env={**field.env, **(env or {})},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.records: list[dict[str, Any]] = []
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                self._lines.put(json.loads(line))
            except ValueError:
                continue
        self._lines.put(None)

    def send(self, text: str) -> None:
        """Send one user message without waiting for its answer."""
        message = {"role": "user", "content": [{"type": "text", "text": text}]}
        self._write({"type": "user", "message": message})

    def interrupt(self, timeout: float = 60) -> None:
        """Stop what the client is doing, as Esc does in the terminal, and wait until the client
        acknowledges it (a stopped turn still ends with a ``result`` record, which the next
        ``say`` may return)."""
        request = {"subtype": "interrupt"}
        self._write({"type": "control_request", "request_id": "interrupt", "request": request})
        while True:
            record = self._lines.get(timeout=timeout)
            if record is None:
                raise AssertionError("the client ended before acknowledging the interrupt")
            self.records.append(record)
            response = record.get("response") or {}
            if (
                record.get("type") == "control_response"
                and response.get("request_id") == "interrupt"
            ):
                return

    def _write(self, record: dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(record) + "\n")
        self.process.stdin.flush()

    def say(self, text: str, timeout: float = 120) -> dict[str, Any]:
        """Send one user message (a prompt or a slash command); its ``result`` record."""
        self.send(text)
        return self._result(repr(text), timeout)

    def _result(self, what: str, timeout: float) -> dict[str, Any]:
        while True:
            record = self._lines.get(timeout=timeout)
            if record is None:
                raise AssertionError(f"the client ended before answering {what}")
            self.records.append(record)
            if record.get("type") == "result":
                return record

    @property
    def session_id(self) -> str | None:
        return next((r["session_id"] for r in reversed(self.records) if r.get("session_id")), None)

    def close(self, timeout: float = 60) -> int:
        if self.process.stdin and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait(10)

    def __enter__(self) -> LiveClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
