"""Instructions, not milliseconds: the short commands of issue 19's table counted by valgrind.

    .venv/bin/python benchmarks/instructions.py [--only NAME ...]

The machine's pace swings by half from one minute to the next (other jobs share its two cores),
which hides a change of 5 % in wall time behind the noise of any number of runs. The number of
instructions a process executes does not swing: valgrind's ``callgrind`` counts them (one run of
each command; hash randomisation off), so two versions compare exactly, and the ratio to
``python -c pass`` counted the same way says how much a command does beyond starting Python.
Time is not instructions (a cache miss, a system call and a disk read cost no instruction here,
and work on the other core counts although it takes no wall time): ``scale.py`` remains the
measure of the goals; this is the measure of a change.

A process the command forks (``find`` walks the transcripts' folders in one while it loads) is
counted on its own line: its instructions run on the other core, beside the command's. Programs
the command starts (``git``) are not counted.

Rows (``--only``): ``pass`` (the anchor), ``version``, ``find`` (1,000 sessions),
``stall`` (``stall check`` on the 10,000-file repository), ``sessions`` (``sessions --all``
over 120 sessions). Each command runs once before it is counted, so every row is warm (the
search index built, the listing and the redaction expression kept). The data is scale.py's,
generated on first use.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402
import stall_check  # noqa: E402

ROWS = ("pass", "version", "find", "stall", "sessions")


def counted(argv: list[str], cwd: Path | None = None, env: dict | None = None) -> list[int]:
    """Instructions of the process ``argv`` runs and of each process it forks, its own first."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "cg.%p")
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
            cwd=cwd,
            env={**(env or os.environ), "PYTHONHASHSEED": "0"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if done.returncode not in (0, 3):  # 3: stall check found the agent stalled
            raise SystemExit(f"{' '.join(argv)} failed under valgrind:\n{done.stderr[-2000:]}")
        files = sorted(Path(folder).iterdir(), key=lambda p: int(p.name.split(".")[-1]))
        return [_summary(path) for path in files]


def _summary(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"no summary in {path}")


def commands(only: set[str]) -> dict[str, tuple[list[str], Path | None, dict | None]]:
    """Each row's command line, folder and environment."""
    table: dict[str, tuple[list[str], Path | None, dict | None]] = {
        "pass": (scale.PASS, None, None),
        "version": ([scale.SCRIPT, "--version"], None, None),
    }
    if "find" in only:
        root = scale.corpus(1000)
        argv = [scale.SCRIPT, "find", scale.FIND_QUERY, "--claude-dir", str(root)]
        table["find"] = (argv, None, scale.cached_env("find-warm"))
    if "stall" in only:
        root = scale.stall_repository(10_000)
        table["stall"] = ([scale.SCRIPT, "stall", "check", stall_check.AGENT, "--json"], root, None)
    if "sessions" in only:
        root = scale.corpus(120)
        argv = [scale.SCRIPT, "sessions", "--all", "--claude-dir", str(root)]
        table["sessions"] = (argv, None, scale.cached_env("sessions"))
    return {name: table[name] for name in ROWS if name in only or name == "pass"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=ROWS, help="a row (repeatable)")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    only = set(args.only or ROWS)
    print(f"{scale.installed_version()} · Python {sys.version.split()[0]}")
    print("| command | instructions (millions) | forked beside it | x python -c pass |")
    print("|---|---|---|---|")
    anchor = None
    for name, (command, cwd, env) in commands(only).items():
        # warm: the search index built, the kept listing and redaction expression written
        subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=False)
        own, *forked = counted(command, cwd, env)
        anchor = anchor or own
        beside = " + ".join(f"{n / 1e6:.0f}" for n in forked) or ""
        print(f"| {name} | {own / 1e6:.0f} | {beside} | {own / anchor:.1f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
