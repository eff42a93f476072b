"""A scripted stand-in for the Anthropic Messages API, served on 127.0.0.1.

The real ``claude`` talks to it through ``ANTHROPIC_BASE_URL``. Each ``POST /v1/messages`` is
answered from the test's script: the first unused ``Step`` whose ``when`` matches the request
gives the reply, streamed as server-sent events the way the real API streams them. A request no
step matches gets a short text reply (and is marked ``scripted=False`` in the log), so the
client's side requests (titles, summaries) never stall a test. ``count_tokens`` is served, every
request body is logged, and a step may ``delay`` its reply or ``hang`` until released, to stand
for a slow or cut-off subagent.

Requests are told apart by the conversation they belong to: ``conversation("MARK")`` matches
requests whose first user message holds MARK (the prompt of the session, or of a subagent: the
``prompt`` of its Agent tool_use). ``last_user("MARK")`` matches on the newest user message.
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Request = dict[str, Any]
Matcher = Callable[[Request], bool]


def _texts(content: Any) -> list[str]:
    """Every text a message content holds, tool results included."""
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            out.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            out += _texts(block.get("content"))
    return out


def user_texts(request: Request) -> list[str]:
    """The text of each user message of a request, in order."""
    return [
        "\n".join(_texts(m.get("content")))
        for m in request.get("messages", [])
        if m.get("role") == "user"
    ]


def typed(request: Request) -> str:
    """What the user typed in the newest user message: its text blocks except the
    ``<system-reminder>`` context Claude Code adds."""
    messages = [m for m in request.get("messages", []) if m.get("role") == "user"]
    if not messages:
        return ""
    content = messages[-1].get("content")
    blocks = (
        [content]
        if isinstance(content, str)
        else [
            b.get("text", "")
            for b in content or []
            if isinstance(b, dict) and b.get("type") == "text"
        ]
    )
    return "\n".join(b for b in blocks if not b.lstrip().startswith("<system-reminder>"))


def request_text(request: Request) -> str:
    """Everything a request shows the model: system prompt and every message's text."""
    system = request.get("system")
    parts = _texts(system) if isinstance(system, list) else [system or ""]
    for message in request.get("messages", []):
        parts += _texts(message.get("content"))
    return "\n".join(parts)


def conversation(mark: str) -> Matcher:
    """Requests of the conversation whose first user message holds ``mark``."""

    def match(request: Request) -> bool:
        texts = user_texts(request)
        return bool(texts) and mark in texts[0] and bool(request.get("tools"))

    match.__name__ = f"conversation({mark!r})"
    return match


def last_user(mark: str) -> Matcher:
    """Requests whose newest user message holds ``mark``."""

    def match(request: Request) -> bool:
        texts = user_texts(request)
        return bool(texts) and mark in texts[-1]

    match.__name__ = f"last_user({mark!r})"
    return match


def any_request(request: Request) -> bool:
    return True


# Reply content ---------------------------------------------------------------------------------


def text(value: str) -> dict:
    return {"type": "text", "text": value}


_tool_ids = itertools.count(1)


def tool_use(name: str, **input: Any) -> dict:
    return {
        "type": "tool_use",
        "id": f"toolu_field{next(_tool_ids):08d}",
        "name": name,
        "input": input,
    }


def bash(command: str, description: str = "Run a command") -> dict:
    return tool_use("Bash", command=command, description=description)


def agent(description: str, prompt: str, subagent_type: str = "general-purpose") -> dict:
    return tool_use("Agent", description=description, prompt=prompt, subagent_type=subagent_type)


def send_message(to: str, message: str) -> dict:
    """SendMessage to agent ``to`` (both versions take a ``summary``; 2.1.197 requires it)."""
    return tool_use("SendMessage", to=to, summary="continue the stopped work", message=message)


@dataclass
class Step:
    """One scripted reply: the content blocks of one assistant message."""

    when: Matcher
    content: list[dict]
    delay: float = 0.0  # seconds before the reply starts
    hang: bool = False  # hold the request until ``ScriptedModel.release()`` or shutdown
    error: int | None = None  # answer with this HTTP status and an API error instead
    used: bool = False


@dataclass
class Logged:
    """One request the stand-in received, and which step answered it."""

    path: str
    headers: dict[str, str]
    body: Request
    step: int | None  # index in the script, None when no step matched
    at: float = field(default_factory=time.time)

    @property
    def scripted(self) -> bool:
        return self.step is not None

    @property
    def text(self) -> str:
        return request_text(self.body)

    @property
    def session_id(self) -> str | None:
        return self.headers.get("x-claude-code-session-id")


class ScriptedModel:
    """The stand-in server. ``with ScriptedModel() as model:``; ``model.url`` for the client."""

    def __init__(self):
        self.steps: list[Step] = []
        self.log: list[Logged] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._hung = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # script ------------------------------------------------------------------------------------
    def reply(self, when: Matcher, *content: dict, delay: float = 0.0, hang: bool = False):
        """Add a step: the next request ``when`` matches gets an assistant message of ``content``."""
        self.steps.append(Step(when, list(content) or [text("Done.")], delay, hang))
        return self

    def fail(self, when: Matcher, status: int = 400, message: str = "scripted failure"):
        """Add a step: the next request ``when`` matches gets the API error ``status`` (a 4xx
        is not retried by the client)."""
        self.steps.append(Step(when, [text(message)], error=status))
        return self

    def release(self) -> None:
        """Let every hanging request go (they then end with their scripted reply)."""
        self._released.set()

    def wait_hung(self, timeout: float = 60) -> bool:
        """Wait until a ``hang`` step holds a request."""
        return self._hung.wait(timeout)

    # log ---------------------------------------------------------------------------------------
    @property
    def messages(self) -> list[Logged]:
        """The ``/v1/messages`` requests (not ``count_tokens``), in arrival order."""
        with self._lock:
            return [r for r in self.log if r.path.split("?")[0] == "/v1/messages"]

    def unused(self) -> list[str]:
        return [getattr(s.when, "__name__", repr(s.when)) for s in self.steps if not s.used]

    def requests_after(self, step: int) -> list[Logged]:
        """Requests that arrived after the one step ``step`` answered."""
        answered = [r for r in self.messages if r.step == step]
        if not answered:
            return []
        return [r for r in self.messages if r.at > answered[0].at]

    # server ------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()

    def _pick(self, body: Request) -> int | None:
        with self._lock:
            for index, step in enumerate(self.steps):
                if not step.used and step.when(body):
                    step.used = True
                    return index
        return None

    def _handler(self):
        model = self

        class Handler(Answering):
            def do_GET(self):
                self._json(
                    404, {"type": "error", "error": {"type": "not_found_error", "message": "none"}}
                )

            do_HEAD = do_GET

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                path = self.path.split("?")[0]
                headers = {k.lower(): v for k, v in self.headers.items()}
                if path.endswith("/count_tokens"):
                    with model._lock:
                        model.log.append(Logged(self.path, headers, body, None))
                    tokens = max(1, len(json.dumps(body)) // 4)
                    return self._json(200, {"input_tokens": tokens})
                index = model._pick(body) if path == "/v1/messages" else None
                with model._lock:
                    model.log.append(Logged(self.path, headers, body, index))
                if path != "/v1/messages":
                    return self._json(
                        404,
                        {"type": "error", "error": {"type": "not_found_error", "message": path}},
                    )
                step = model.steps[index] if index is not None else Step(any_request, [text("OK.")])
                if step.hang:
                    model._hung.set()
                    model._released.wait()
                if step.delay:
                    time.sleep(step.delay)
                if step.error is not None:
                    kind = "invalid_request_error" if step.error < 500 else "api_error"
                    message = step.content[0].get("text", "")
                    error = {"type": kind, "message": message}
                    return self._json(step.error, {"type": "error", "error": error})
                message_id = f"msg_field{index if index is not None else 'x'}_{len(model.log):04d}"
                name = body.get("model", "claude")
                if body.get("stream"):
                    self._stream(_events(message_id, name, step.content))
                else:
                    self._json(200, _message(message_id, name, step.content))

        return Handler


class Answering(BaseHTTPRequestHandler):
    """How the stand-ins answer: a JSON document, or server-sent events as the model APIs
    stream them (each event named by its ``type``, unless ``named`` is false; ``done``: the
    ``[DONE]`` line Chat Completions ends with)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _json(self, status: int, document: dict):
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events, named: bool = True, done: bool = False):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for event in events:
                head = f"event: {event['type']}\n" if named else ""
                if not named:
                    event = {k: v for k, v in event.items() if k != "type"}
                self.wfile.write(f"{head}data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            if done:
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # a client that hung up is no error here
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def _stop_reason(content: list[dict]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"


def _usage(output: int) -> dict:
    return {
        "input_tokens": 50,
        "output_tokens": output,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(message_id: str, model_name: str, content: list[dict]) -> dict:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model_name,
        "content": content,
        "stop_reason": _stop_reason(content),
        "stop_sequence": None,
        "usage": _usage(10),
    }


def _events(message_id: str, model_name: str, content: list[dict]):
    start = _message(message_id, model_name, [])
    start.update(stop_reason=None, usage=_usage(1))
    yield {"type": "message_start", "message": start}
    for index, block in enumerate(content):
        if block["type"] == "text":
            yield {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            }
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": block["text"]},
            }
        else:
            yield {
                "type": "content_block_start",
                "index": index,
                "content_block": {**block, "input": {}},
            }
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
            }
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": _stop_reason(content), "stop_sequence": None},
        "usage": {"output_tokens": 10},
    }
    yield {"type": "message_stop"}
