"""MCP over stdio: JSON-RPC 2.0, one message a line, for a server that offers tools.

``serve`` answers ``initialize``, ``ping``, ``tools/list`` and ``tools/call`` and ignores
notifications. A ``Tool`` is a plain function: its signature (type hints and defaults) is the
input schema (built and checked with msgspec), its docstring the description. A call's
arguments that do not fit (an argument the schema does not declare among them), a ``ToolError``
or any other failure come back as a tool result marked ``isError`` with one line, never a
traceback; the server keeps answering.

Only the standard library and msgspec are imported here: the server answers at once.
"""

from __future__ import annotations

import inspect
import json
import sys
import typing
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import msgspec

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


class ToolError(Exception):
    """A failure the model is told about in one line (bad argument, unknown id, ...)."""


class Tool:
    """A function offered to the model as an MCP tool."""

    def __init__(self, function: Callable[..., Any]):
        self.function = function
        self.name = function.__name__
        self.description = inspect.getdoc(function) or self.name
        hints = typing.get_type_hints(function)
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        for name, parameter in inspect.signature(function).parameters.items():
            if parameter.default is inspect.Parameter.empty:
                fields.append((name, hints[name]))
            else:
                fields.append((name, hints[name], parameter.default))
        self.arguments = msgspec.defstruct(
            f"{self.name}_arguments", fields, forbid_unknown_fields=True
        )

    def describe(self) -> dict[str, Any]:
        (_,), components = msgspec.json.schema_components([self.arguments])
        schema = components[self.arguments.__name__]
        schema.pop("title", None)
        return {"name": self.name, "description": self.description, "inputSchema": schema}

    def call(self, arguments: Any) -> dict[str, Any]:
        """The ``tools/call`` result: the function's answer as JSON text, or an error line."""
        unknown = self.undeclared(arguments)
        if unknown:
            return _failed(unknown)
        try:
            given = msgspec.convert(arguments or {}, self.arguments)
            answer = self.function(**msgspec.structs.asdict(given))
        except msgspec.ValidationError as exc:
            return _failed(f"{self.name}: {exc}")
        except ToolError as exc:
            return _failed(str(exc))
        except Exception as exc:  # noqa: BLE001 - the model gets one line; the server lives on
            return _failed(f"{self.name} failed: {type(exc).__name__}: {exc}")
        text = json.dumps(answer, indent=2, ensure_ascii=False)
        return {"content": [{"type": "text", "text": text}], "isError": False}

    def undeclared(self, arguments: Any) -> str | None:
        """The error line for arguments the input schema does not declare, or None."""
        if not isinstance(arguments, dict):
            return None  # msgspec says what an argument list must be
        declared = self.arguments.__struct_fields__
        unknown = [name for name in arguments if name not in declared]
        if not unknown:
            return None
        shown = ", ".join(_quoted(name) for name in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        return (
            f"{self.name}: unknown argument{'s' if len(unknown) > 1 else ''} {shown}{more} "
            f"(it accepts: {', '.join(declared)})"
        )


def _quoted(name: str) -> str:
    """An argument's name as a caller sent it: redacted, then cut, then quoted so that no
    control character is shown raw."""
    from purlin_resume.core import redact

    text = redact.redact(name).text
    return json.dumps(text[:40]) + ("…" if len(text) > 40 else "")


def _failed(line: str) -> dict[str, Any]:
    from purlin_resume.core import redact

    text = redact.redact(" ".join(line.split())).text
    return {"content": [{"type": "text", "text": text}], "isError": True}


def answer(
    message: Any, name: str, version: str, instructions: str, tools: Mapping[str, Tool]
) -> dict[str, Any] | None:
    """The reply to one JSON-RPC message, or None for a notification."""
    if (
        not isinstance(message, dict)
        or not isinstance(message.get("method"), str)
        or not isinstance(message.get("id"), (str, int, float, type(None)))
    ):
        known = message.get("id") if isinstance(message, dict) else None  # echoed when it is one
        return _error(
            known if isinstance(known, (str, int)) and not isinstance(known, bool) else None,
            INVALID_REQUEST,
            "not a JSON-RPC request",
        )
    if "id" not in message:
        return None  # notifications/initialized, notifications/cancelled ...
    method, params = message["method"], message.get("params") or {}
    if not isinstance(params, dict):
        return _error(message["id"], INVALID_PARAMS, "params must be an object")
    if method == "initialize":
        asked = params.get("protocolVersion")
        result: dict[str, Any] = {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": name, "version": version},
            "instructions": instructions,
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": [tool.describe() for tool in tools.values()]}
    elif method == "tools/call":
        named = params.get("name")
        tool = tools.get(named) if isinstance(named, str) else None
        if tool is None:
            shown = _quoted(named) if isinstance(named, str) else "(not a string)"
            result = _failed(f"unknown tool {shown}; tools/list names them")
        else:
            result = tool.call(params.get("arguments"))
    else:
        return _error(message["id"], METHOD_NOT_FOUND, f"method not found: {method}")
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def _error(request_id: Any, code: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}}


def serve(
    name: str,
    version: str,
    instructions: str,
    tools: Mapping[str, Tool],
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> None:
    """Answer each message read from ``stdin`` on ``stdout`` until ``stdin`` closes."""
    for line in stdin:
        if not line.strip():
            continue
        reply: dict[str, Any] | None
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested too deep
            reply = _error(None, PARSE_ERROR, "not JSON")
        else:
            reply = answer(message, name, version, instructions, tools)
        if reply is not None:
            stdout.write(_line(reply))
            stdout.flush()


def _line(reply: dict[str, Any]) -> str:
    """``reply`` as one line of JSON that UTF-8 can carry: a lone surrogate (half a character,
    from an argument's ``\\ud800`` or a transcript cut mid-emoji) becomes U+FFFD."""
    from purlin_resume.core.store import whole_characters

    return whole_characters(json.dumps(reply, ensure_ascii=False)) + "\n"
