"""``records.lines_holding``: the lines of a file that hold a marker, found block by block,
the same as reading every line and testing it, whatever the blocks cut through."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from purlin_resume.claude import records

MARKERS = (b"\\u", b'tool_use"')


def every_line_holding(data: bytes, markers: tuple[bytes, ...]) -> list[bytes]:
    return [line for line in data.splitlines(keepends=True) if any(m in line for m in markers)]


pieces = st.sampled_from([b"\\u", b'tool_use"', b"\\", b"u", b"tool_use", b'"', b"x" * 7, b"\n"])


@settings(max_examples=300, deadline=None)
@given(chunks=st.lists(pieces, max_size=60), block=st.integers(1, 24))
def test_the_same_lines_as_testing_every_line(tmp_path_factory, chunks, block):
    data = b"".join(chunks)
    path = tmp_path_factory.mktemp("lines") / "t.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(records, "_READ_BUFFER", block)
        found = list(records.lines_holding(path, MARKERS))
    assert found == every_line_holding(data, MARKERS)


def test_a_line_longer_than_many_blocks_and_a_last_line_without_newline(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "_READ_BUFFER", 4096)
    long_line = b'{"type":"tool_use"' + b"x" * 50_000 + b"}\n"
    data = b"plain\n" + long_line + b"plain\n" * 3 + b"last \\u0074 without newline"
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)

    assert list(records.lines_holding(path, MARKERS)) == [
        long_line,
        b"last \\u0074 without newline",
    ]


def test_a_file_that_cannot_be_read_raises(tmp_path: Path):
    with pytest.raises(OSError):
        list(records.lines_holding(tmp_path / "gone.jsonl", MARKERS))


def test_a_fifo_in_the_files_place_is_refused_without_waiting(tmp_path):
    """A hook's payload may name a FIFO as the transcript: opening it would wait for a writer
    (run in a child with a time limit, so a wait fails the test instead of hanging it)."""
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from purlin_resume.claude import records\n"
        "try:\n"
        "    list(records.lines_holding(Path(sys.argv[1]), (b'x',)))\n"
        "except OSError as refused:\n"
        "    print('refused', refused.strerror)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(fifo)], capture_output=True, text=True, timeout=20
    )
    assert done.stdout.strip() == "refused not a regular file", done.stderr
