"""The transcript line decoder reads every line exactly as ``json.loads`` does: the same
objects for what it parses, the same failure for what it does not; but a line that is JSON
apart from bytes that are not UTF-8, which it reads with those bytes as U+FFFD."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from purlin_resume.claude import records
from purlin_resume.claude.transcript import read
from tests.conftest import FIXTURES

HOSTILE = [
    b'{"a":NaN,"b":Infinity,"c":-Infinity}',  # json.loads accepts them
    b'{"a":1e400}',  # a float too big: inf
    b'{"a":123456789012345678901234567890,"b":-98765432109876543210987654321}',
    b'{"a":"\\ud800 lone surrogate"}',
    b'{"a":"\xed\xa0\x80"}',  # a surrogate written as UTF-8 bytes
    b'\xef\xbb\xbf{"a":1}',  # a byte order mark
    b'{"a":1,"a":2}',  # a repeated key: the last one wins
    b'{"a":"\\u0000\\u001b[31m$(rm -rf ~)\\n"}',
    b'{"a":-0.0,"b":1E5,"c":0.1e-7,"d":[[],{}]}',
    b'  {"a":1}\r\n',
    b"[1,2]",
]
FAILING = [
    b'{"a":"x\x01y"}',  # a raw control character in a string
    b'{"a":1,}',
    b'{"a":1}\x00\x00',
    b'{"a":1}{"b":2}',
    b"{'a':1}",
    b"[" * 100_000 + b"]" * 100_000,  # deeper than either parser goes
    b"",
]


def _same(left, right) -> bool:
    if isinstance(left, float) and math.isnan(left):
        return isinstance(right, float) and math.isnan(right)
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and list(left) == list(right)
            and all(_same(left[k], right[k]) for k in left)
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(_same(a, b) for a, b in zip(left, right, strict=True))
        )
    return type(left) is type(right) and left == right


def test_hostile_lines_decode_as_json_loads_decodes_them():
    decode = records.line_decoder()
    for line in HOSTILE:
        assert _same(decode(line), json.loads(line)), line


def test_lines_json_loads_rejects_are_rejected_with_its_errors():
    decode = records.line_decoder()
    for line in FAILING:
        errors = []
        for parse in (json.loads, decode):
            try:
                parse(line)
            except (ValueError, RecursionError) as exc:
                errors.append(type(exc))
        assert len(errors) == 2, line[:40]
        assert errors[0] is errors[1], line[:40]


NOT_UTF8 = [
    (b'{"a":"x\xffy"}', {"a": "x\ufffdy"}),
    (b'{"a":"cut \xe2\x82","b":1}\n', {"a": "cut \ufffd", "b": 1}),  # a character cut short
    (b'\xef\xbb\xbf{"a":"\xc0\xaf"}', {"a": "\ufffd\ufffd"}),  # a byte order mark before
]


@pytest.mark.parametrize("parse", [records.parsed, records.line_decoder()])
def test_a_line_that_is_json_but_for_bytes_that_are_not_utf8_reads_them_as_u_fffd(parse):
    """Regression: such a line was malformed, and its whole record (a turn) was lost."""
    for line, expected in NOT_UTF8:
        with pytest.raises(UnicodeDecodeError):
            json.loads(line)
        assert parse(line) == expected, line
    with pytest.raises(ValueError):  # no JSON once read so: as malformed as ever
        parse(b'{"a":\xff}')


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.booleans())
def test_any_json_decodes_as_json_loads_decodes_it(value, ascii_only):
    line = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass") + b"\n"
    assert _same(records.line_decoder()(line), json.loads(line))


def test_every_fixture_line_decodes_as_json_loads_decodes_it():
    decode = records.line_decoder()
    files = sorted(FIXTURES.glob("projects/**/*.jsonl"))
    assert files
    for path in files:
        for line in path.read_bytes().splitlines(keepends=True):
            try:
                expected = json.loads(line)
            except (ValueError, RecursionError):
                continue
            assert _same(decode(line), expected), (path.name, line[:80])


def test_a_transcript_with_odd_numbers_and_a_lone_surrogate_still_reads(tmp_path):
    lines = [
        {"type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00.000Z",
         "message": {"role": "user", "content": "first \ud83d half of an emoji"}},
        {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"id": "m1", "role": "assistant",
                     "content": [{"type": "text", "text": "answered"}],
                     "usage": {"input_tokens": 10**25, "output_tokens": float("nan")}}},
    ]  # fmt: skip
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in lines))
    main = read(path, "odd").main
    assert main.stats.malformed == 0
    assert main.stats.records == 2
    assert main.turns[0].text == "first \ud83d half of an emoji"
    assert main.turns[1].text == "answered"
    assert main.last_usage_tokens == 10**25


def test_a_usage_count_of_true_is_no_token(tmp_path):
    record = {"type": "assistant", "uuid": "a1", "timestamp": "2026-01-01T00:00:01.000Z",
              "message": {"id": "m1", "role": "assistant",
                          "content": [{"type": "text", "text": "answered"}],
                          "usage": {"input_tokens": True, "output_tokens": 7}}}  # fmt: skip
    path = tmp_path / "bool.jsonl"
    path.write_bytes(json.dumps(record).encode() + b"\n")
    assert read(path, "bool").main.last_usage_tokens == 7
