"""benchmarks/scale.py still runs against the installed code (its cheap rows, small sizes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import need_binary

SCALE = Path(__file__).resolve().parents[1] / "benchmarks" / "scale.py"


def test_scale_quick_prints_its_rows_with_goals(tmp_path):
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
            assert cells[4], row
            assert cells[5] in ("met", "MISSED"), row  # a goal and its verdict
    assert "QUICK" in done.stdout
    assert (tmp_path / "scale" / "log-1000" / "claude" / "history").is_dir()


def test_scale_refuses_an_unknown_row():
    done = subprocess.run(
        [sys.executable, str(SCALE), "--only", "everything"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "invalid choice: 'everything'" in done.stderr


def test_instructions_counts_a_command_against_python_starting(tmp_path):
    """benchmarks/instructions.py counts with valgrind (installed by .ci/run)."""
    need_binary("valgrind", "apt-get install valgrind")
    done = subprocess.run(
        [sys.executable, str(SCALE.with_name("instructions.py")), "--only", "version"],
        capture_output=True,
        text=True,
        env={**os.environ, "PURLIN_BENCH_WORK": str(tmp_path)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = {
        cells[0]: cells
        for line in done.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| command")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    assert list(rows) == ["pass", "version"]
    assert rows["pass"][3] == "1.0x"
    assert int(rows["version"][1]) > int(rows["pass"][1]) > 1  # millions of instructions


def test_readers_quick_measures_each_reader_against_the_floor(tmp_path):
    readers = SCALE.with_name("readers.py")
    done = subprocess.run(
        [sys.executable, str(readers), "--quick", "--only", "codex"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| codex")]
    assert len(rows) == 1
    assert rows[0].count("|") == 10


def test_no_finding_of_a_resurrection_prompt_is_narration():
    """benchmarks/findings.py (one of run.py's quality measures) on the real fixtures."""
    done = subprocess.run(
        [sys.executable, str(SCALE.with_name("findings.py"))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split("  ")[1].strip(): line for line in done.stdout.splitlines() if "  " in line}
    narration = rows["findings lines that are narration (hybrid)"]
    assert " 0%  0 of " in narration
    assert "2 of 2" in rows["sessions with a compaction: its summary in the prompt"]
