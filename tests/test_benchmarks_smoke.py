"""benchmarks/scale.py still runs against the installed code (its cheap rows, small sizes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

SCALE = Path(__file__).resolve().parents[1] / "benchmarks" / "scale.py"


def test_scale_quick_prints_its_rows_with_goals(tmp_path):
    if not FIXTURES.is_dir():
        pytest.skip(f"real transcripts not found at {FIXTURES}")
    if not Path(sys.executable).with_name("purlin-resume").exists():
        pytest.skip("purlin-resume is not installed next to this interpreter")
    done = subprocess.run(
        [sys.executable, str(SCALE), "--quick", "--runs", "1", "--only", "resurrections"],
        capture_output=True,
        text=True,
        env={**os.environ, "PURLIN_BENCH_WORK": str(tmp_path)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| `")]
    assert [row.split("|")[1].strip().split("`")[1] for row in rows] == [
        "resurrections",
        "resurrections stats",
        "resurrections --since 1d",
        "resurrections",  # the run that makes the cache
        "resurrections",  # the run right after a line was appended
    ]
    for number, row in enumerate(rows):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[1].endswith(("ms", "MiB")), row  # a median was measured
        if number < 3:
            assert cells[4] and cells[5] in ("met", "MISSED"), row  # a goal and its verdict
    assert "QUICK" in done.stdout
    assert (tmp_path / "scale" / "log-1000" / "claude" / "history").is_dir()


def test_scale_refuses_an_unknown_row():
    done = subprocess.run(
        [sys.executable, str(SCALE), "--only", "everything"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "invalid choice: 'everything'" in done.stderr
