"""Renders the Jinja templates shipped in templates/."""

from __future__ import annotations

import json
import shlex
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from purlin_resume.core.resources import data_dir

if TYPE_CHECKING:
    import jinja2


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    import jinja2  # on first render: the SessionStart hook loads this module, rarely renders

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=shown,
    )
    # every value printed inside a command a reader may run goes through ``|shell``
    env.filters["shell"] = lambda value: shlex.quote(str(value))
    env.filters["count"] = counted
    return env


def shown(value: Any) -> Any:
    """A value read from a document as a reader should see it: a list as its items joined with
    ``; ``, an object as JSON, anything else as it is (never Python's own rendering)."""
    if isinstance(value, (list, tuple)):
        return "; ".join(str(shown(item)) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def counted(count: int, one: str, many: str | None = None) -> str:
    """``1 item``, ``2 items``: a number with its noun (``{{ n | count("item") }}``)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def render(name: str, **context: Any) -> str:
    """Render ``templates/<name>`` with ``context``."""
    return environment().get_template(name).render(**context)
