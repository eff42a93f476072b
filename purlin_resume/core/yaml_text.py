"""YAML as read from a file someone else may have written (a checkpoint's fields, a config):
safe types only, no aliases (a few lines of them expand to gigabytes: the alias bomb), and no
nesting deeper than Python recurses. Every failure is a ``yaml.YAMLError`` with one line."""

from __future__ import annotations

from typing import Any

import yaml


class _Loader(yaml.SafeLoader):
    """``SafeLoader`` that refuses every alias (``*name``) where it meets it."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.YAMLError(f"aliases (*name) are not accepted (line {mark.line + 1})")
        return super().compose_node(parent, index)


def load(text: str) -> Any:
    """The document in ``text`` (None when it is empty)."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (a SafeLoader)
    except RecursionError:
        raise yaml.YAMLError("nested too deeply to read") from None
