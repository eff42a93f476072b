"""Scripted stand-ins for the model APIs of Codex CLI, Gemini CLI and opencode, on 127.0.0.1.

One server answers three wire protocols, each streamed as server-sent events the way the real
service streams it:

- ``POST .../responses``: the OpenAI Responses API (Codex CLI);
- ``POST .../chat/completions``: the OpenAI Chat Completions API (opencode's OpenAI-compatible
  provider);
- ``POST .../models/<model>:streamGenerateContent`` (and ``:generateContent``): the Gemini API
  (Gemini CLI, through ``GOOGLE_GEMINI_BASE_URL``).

Each request is answered from the script: the first unused ``Reply`` whose ``when`` matches the
request's whole text gives a text, one tool call, or both; a request no reply matches gets a short
text. A reply may ``hang`` until ``release()`` (an interrupted turn). Every request body is kept
in ``log``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from tests.field.scripted_model import Answering, _Server

_ids = itertools.count(1)


@dataclass
class Reply:
    when: str  # a mark the request's text must hold ("" = any request)
    text: str = ""
    tool: str | None = None  # a function to call
    args: Any = field(default_factory=dict)  # or a function of the request body
    namespace: str | None = None  # the tool's namespace (Responses API)
    hang: bool = False
    last: bool = False  # match only when the mark is in the newest message
    tokens: int = 120  # the prompt tokens the reply reports using (a high count: a full context)
    side: bool = False  # answers a side request (one without tools: a title, a summary)
    used: bool = False


@dataclass
class Logged:
    path: str
    body: dict[str, Any]
    reply: int | None
    at: float = field(default_factory=time.time)


def _all_text(value: Any) -> str:
    """Every string inside a request body, joined (what a mark is looked for in)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_all_text(v) for k, v in value.items() if k not in ("tools",))
    if isinstance(value, list):
        return "\n".join(_all_text(v) for v in value)
    return ""


def _newest(body: dict[str, Any]) -> str:
    """The text of the newest message or input item of a request."""
    for key in ("input", "messages", "contents"):
        items = body.get(key)
        if isinstance(items, list) and items:
            return _all_text(items[-1])
    return ""


class ScriptedAPIs:
    """``with ScriptedAPIs() as api:``; ``api.url`` is the base URL for every client."""

    def __init__(self):
        self.replies: list[Reply] = []
        self.log: list[Logged] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.hung = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def reply(self, when: str, text: str = "", tool: str | None = None, **kw: Any) -> ScriptedAPIs:
        args = kw.pop("args", {})
        self.replies.append(Reply(when, text, tool, args, **kw))
        return self

    def release(self) -> None:
        self._released.set()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ScriptedAPIs:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()

    def pick(self, body: dict[str, Any]) -> int | None:
        whole, newest = _all_text(body), _newest(body)
        side = not body.get("tools")  # a title, a summary: the default reply unless scripted
        with self._lock:
            for index, reply in enumerate(self.replies):
                if reply.used or reply.side != side:
                    continue
                if reply.when in (newest if reply.last else whole):
                    reply.used = True
                    return index
        return None

    def _handler(self):
        api = self

        class Handler(Answering):
            def do_GET(self):
                path = self.path.split("?")[0]
                if path.endswith("/models"):
                    return self._json(
                        200,
                        {
                            "object": "list",
                            "data": [{"id": "scripted-model", "object": "model"}],
                            "models": [],
                        },
                    )
                self._json(404, {"error": {"message": f"not found: {path}"}})

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                path = self.path.split("?")[0]
                if not any(
                    path.endswith(end)
                    for end in (
                        "/responses",
                        "/chat/completions",
                        ":streamGenerateContent",
                        ":generateContent",
                    )
                ):
                    with api._lock:
                        api.log.append(Logged(self.path, body, None))
                    if path.endswith(":countTokens"):
                        return self._json(200, {"totalTokens": 10})
                    return self._json(404, {"error": {"message": f"not found: {path}"}})
                index = api.pick(body)
                with api._lock:
                    api.log.append(Logged(self.path, body, index))
                reply = api.replies[index] if index is not None else Reply("", text="OK.")
                if reply.hang:
                    api.hung.set()
                    api._released.wait()
                if path.endswith("/responses"):
                    self._stream(_responses_events(body, reply))
                elif path.endswith("/chat/completions"):
                    self._stream(_chat_events(body, reply), named=False, done=True)
                elif path.endswith(":streamGenerateContent"):
                    self._stream(_gemini_events(body, reply), named=False)
                else:
                    self._json(200, _gemini_chunk(body, reply))

        return Handler


# OpenAI Responses API --------------------------------------------------------------------------


def _arguments(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return reply.args(body) if callable(reply.args) else reply.args


def _responses_events(body: dict[str, Any], reply: Reply):
    number = next(_ids)
    response_id = f"resp_field{number:06d}"
    model = body.get("model", "scripted-model")
    base = {"id": response_id, "object": "response", "created_at": int(time.time()), "model": model}
    yield {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}}
    output: list[dict[str, Any]] = []
    if reply.text:
        item = {
            "type": "message",
            "id": f"msg_field{number:06d}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
        }
        yield {
            "type": "response.output_item.added",
            "output_index": len(output),
            "item": {**item, "content": []},
        }
        yield {
            "type": "response.output_text.delta",
            "item_id": item["id"],
            "output_index": len(output),
            "content_index": 0,
            "delta": reply.text,
        }
        yield {"type": "response.output_item.done", "output_index": len(output), "item": item}
        output.append(item)
    if reply.tool:
        item = {
            "type": "function_call",
            "id": f"fc_field{number:06d}",
            "call_id": f"call_field{number:06d}",
            "name": reply.tool,
            "arguments": json.dumps(_arguments(body, reply)),
            "status": "completed",
        }
        if reply.namespace:
            item["namespace"] = reply.namespace
        yield {"type": "response.output_item.added", "output_index": len(output), "item": item}
        yield {"type": "response.output_item.done", "output_index": len(output), "item": item}
        output.append(item)
    usage = {
        "input_tokens": reply.tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 12,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.tokens + 12,
    }
    yield {
        "type": "response.completed",
        "response": {**base, "status": "completed", "output": output, "usage": usage},
    }


# OpenAI Chat Completions -----------------------------------------------------------------------


def _chat_events(body: dict[str, Any], reply: Reply):
    number = next(_ids)
    base = {
        "id": f"chatcmpl-field{number:06d}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "scripted-model"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {
            **base,
            "type": "chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    yield chunk({"role": "assistant", "content": ""})
    if reply.text:
        yield chunk({"content": reply.text})
    if reply.tool:
        call = {
            "index": 0,
            "id": f"call_field{number:06d}",
            "type": "function",
            "function": {"name": reply.tool, "arguments": json.dumps(_arguments(body, reply))},
        }
        yield chunk({"tool_calls": [call]})
    usage = {
        "prompt_tokens": reply.tokens,
        "completion_tokens": 12,
        "total_tokens": reply.tokens + 12,
    }
    yield chunk({}, "tool_calls" if reply.tool else "stop", usage=usage)


# Gemini API ------------------------------------------------------------------------------------


def _gemini_chunk(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    if reply.tool:
        parts.append({"functionCall": {"name": reply.tool, "args": _arguments(body, reply)}})
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0, "finishReason": "STOP"}
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": reply.tokens,
            "candidatesTokenCount": 12,
            "totalTokenCount": reply.tokens + 12,
        },
        "modelVersion": "gemini-2.5-pro",
        "responseId": f"field{next(_ids):06d}",
    }


def _gemini_events(body: dict[str, Any], reply: Reply):
    chunk = _gemini_chunk(body, reply)
    chunk["type"] = "chunk"
    yield chunk
