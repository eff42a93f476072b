"""SHA-256 from Python's own module makes the digests ``hashlib`` makes (kept file names, help
keys and redaction placeholders depend on them)."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from purlin_resume.core.digest import sha256


@given(st.binary(max_size=5000))
def test_the_digest_is_hashlibs(data):
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_digest_fed_in_parts_is_the_digest_of_the_whole():
    whole = sha256(b"ab" * 70_000)
    parts = sha256()
    for _ in range(70_000):
        parts.update(b"ab")
    assert parts.hexdigest() == whole.hexdigest() == hashlib.sha256(b"ab" * 70_000).hexdigest()
