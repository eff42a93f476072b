"""Renders the Jinja templates shipped in templates/."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2

from purlin_resume.resources import data_dir


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    """Render ``templates/<name>`` with ``context``."""
    return environment().get_template(name).render(**context)
