"""JSON text written as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it
(``core/json_text``): the same characters for any JSON value, at any nesting level."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from purlin_resume.core import json_text

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text())
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner) | st.tuples(inner, inner),
    max_leaves=25,
)


@settings(max_examples=300)
@given(_VALUES, st.integers(min_value=0, max_value=6))
def test_the_text_is_what_json_writes(value, level):
    text = json.dumps(value, indent=2, ensure_ascii=False)
    assert json_text.dumps(value, level) == text.replace("\n", "\n" + "  " * level)


def test_awkward_values_are_written_as_json_writes_them():
    class Number(int):
        pass

    values = [
        {"lone": "\ud800 half", "controls": "\x00\x1f\x7f\u2028", "quote": '"\\'},
        {7: "int key", None: "none key", 2.5: "float key", True: "bool key"},
        [float("nan"), float("inf"), -0.0, 10**40, Number(3)],
        ({}, [], ()),
    ]
    for value in values:
        assert json_text.dumps(value, 2) == json.dumps(value, indent=2, ensure_ascii=False).replace(
            "\n", "\n    "
        )


def test_nesting_deeper_than_python_recurses_fails_as_json_fails():
    deep: list = []
    inner = deep
    for _ in range(5000):
        inner.append([])
        inner = inner[0]
    for write in (json_text.dumps, lambda v: json.dumps(v, indent=2)):
        try:
            write(deep)
        except RecursionError:
            continue
        raise AssertionError("expected RecursionError")
