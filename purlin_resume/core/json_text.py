"""JSON text indented by two spaces, byte for byte as ``json.dumps(value, indent=2,
ensure_ascii=False)`` writes it, several times faster.

With an indent, ``json`` encodes in Python, one generator per container and one yield per
token; this writes the same text with one function call per value, strings quoted by ``json``'s
own encoder in C. Anything it is not sure to write alike (a number type of its own, a key that
is not text, a container nested deeper than Python recurses) is left to ``json.dumps``.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _quoted  # json's own (in C)
from typing import Any

_WORDS = {None: "null", True: "true", False: "false"}


class _Unsure(Exception):
    """A value this module does not write: ``json.dumps`` writes the whole."""


def dumps(value: Any, level: int = 0) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, its lines after the first indented
    by ``level`` more steps of two spaces (as a value nested that deep in a document)."""
    parts: list[str] = []
    try:
        _write(value, "\n" + "  " * level, parts)
    except (_Unsure, RecursionError):
        text = json.dumps(value, indent=2, ensure_ascii=False)
        return text.replace("\n", "\n" + "  " * level) if level and "\n" in text else text
    return "".join(parts)


def _write(value: Any, newline: str, parts: list[str]) -> None:
    kind = type(value)
    if kind is str:
        parts.append(_quoted(value))
    elif kind is dict:
        if not value:
            parts.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Unsure
            parts.append(separator)
            parts.append(_quoted(key))
            parts.append(": ")
            _write(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            parts.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            parts.append(separator)
            _write(item, inner, parts)
            separator = "," + inner
        parts.append(newline + "]")
    elif value is None or kind is bool:
        parts.append(_WORDS[value])
    elif kind is int:
        parts.append(int.__repr__(value))
    else:  # floats (NaN and infinities have names of their own), subclasses, the rest
        raise _Unsure
