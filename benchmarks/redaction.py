"""Redaction speed on real transcripts.

    .venv/bin/python benchmarks/redaction.py [--runs 5] [--against REF [--instructions]]

Prints, as medians of ``--runs`` runs (CPU time of this process, so other load on the machine
counts less):

1. throughput over whole real transcripts, the way the product redacts them: every text value
   of every record of every fixture file, one call per value (target >= 40 MB/s);
2. the same over each file's raw text as one string;
3. a 0.5 MB and a 50 MB string cut from that text: seconds per MB of the big one over the small
   one (target <= 1.5x: no slower per byte on large strings);
4. the same over each distinct text value once (the scanner alone, without ``redact_data``
   looking at a repeated value once);
5. adversarial 2 MB strings (a place where a rule may start every few characters): seconds per
   MB against ordinary text of the same size, and against themselves at 1 MB (linear: 1x);
6. start-up: a fresh process's first two calls (plain text, then a secret-named key) against
   the same calls again (wall time, ``sys.executable``); and a whole fresh process that
   redacts one 200-character task (what a hook does) against ``python -c pass``, and against
   one that only imports the module (wall and CPU time, medians of processes taken in turn,
   the modules read from bytecode as installed);
7. the anchor: one pass of ``re`` finding two literal characters over the same text, the least
   a scan of the text by the regular expression engine costs.

``--against REF`` (a commit, a branch: ``main``) measures instead 1, 2 and 4 with this tree's
code and with REF's (``git archive``), each in fresh processes taken in turn, and prints this
tree's throughput over REF's (the rules' budget: at least 0.8x), then 6's fresh process with
each tree's code.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from purlin_resume.core import redact  # noqa: E402

FIXTURES = Path(
    os.environ.get("PURLIN_FIXTURES")
    or Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "claude"
)


def median(action, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return statistics.median(times)


def values(data) -> list[str]:
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return found


ADVERSARIAL = {  # a rule may start every few characters; nothing to redact
    '"a_" repeated': "a_",
    '"sk-" repeated': "x sk-",
    '"key=" repeated': "key=",
    '"Key=" repeated': "Key=",
    '"sudo -S" repeated': "sudo -S ",
    '"AKIA" repeated': "AKIA",
    '"token=" repeated': "token=",  # a secret-named key at every place, its value 16 KB long
    '"/user:" repeated': "/user:",
    '"secret_access_key" repeated': "aws configure set a secret_access_key ",
}
STARTUP = """
import sys, time
sys.path.insert(0, sys.argv[1])
from purlin_resume.core import redact
started = time.perf_counter()
redact.redact("nothing to see here")
redact.redact("PASSWORD=hunter2xyz")
first = time.perf_counter() - started
started = time.perf_counter()
redact.redact("nothing to see here")
redact.redact("PASSWORD=hunter2xyz")
print(first, time.perf_counter() - started)
"""


def startup(runs: int) -> tuple[float, float]:
    """Medians of the first two calls in a fresh process, and of the same two calls again."""
    root = str(Path(__file__).resolve().parents[1])
    firsts, agains = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", STARTUP, root], capture_output=True,
                             text=True, check=True).stdout.split()  # fmt: skip
        firsts.append(float(out[0]))
        agains.append(float(out[1]))
    return statistics.median(firsts), statistics.median(agains)


TASK = (
    "Refactor the session cache: move the index build into resurrection/search_index.py, keep "
    "find's output unchanged, run tests/claude/test_sessions_cache.py -x and report which "
    "fixtures changed (offline)"
)
FIRST_USE = "import sys; sys.path.insert(0, {root!r}); from purlin_resume.core import redact"


def first_use(runs: int, roots: dict[str, Path]) -> dict[str, tuple[float, float]]:
    """Medians (wall and CPU seconds) of fresh processes, taken in turn: ``python -c pass``,
    and per root one importing redaction and one redacting ``TASK`` once. The modules are
    read from their compiled bytecode, as an installed package's are (each root's is written
    first, whatever ``PYTHONDONTWRITEBYTECODE`` says)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    codes = {"pass": "pass"}
    for name, root in roots.items():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "purlin_resume")],
                       check=True, env=env)  # fmt: skip
        codes[f"{name}: import"] = FIRST_USE.format(root=str(root))
        codes[f"{name}: first redact"] = codes[f"{name}: import"] + f"; redact.redact({TASK!r})"
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
    for _ in range(runs):
        for name, code in codes.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            times[name].append((wall, cpu))
    return {
        name: (statistics.median(w for w, _ in each), statistics.median(c for _, c in each))
        for name, each in times.items()
    }


def print_first_use(medians: dict[str, tuple[float, float]]) -> None:
    wall_floor, cpu_floor = medians["pass"]
    print(f"fresh process, first redact of a {len(TASK)}-character text (medians; CPU: user+sys):")
    for name, (wall, cpu) in medians.items():
        print(
            f"  {name:<28} wall {wall * 1e3:5.0f} ms {wall / wall_floor:4.1f}x  "
            f"CPU {cpu * 1e3:5.0f} ms {cpu / cpu_floor:4.1f}x python -c pass"
        )


THROUGHPUT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from purlin_resume.core import redact
texts, strings = json.loads(open(sys.argv[2]).read())
distinct = list(dict.fromkeys(strings))
works = (lambda: redact.redact_data(strings), lambda: [redact.redact(t) for t in texts],
         lambda: [redact.redact(s) for s in distinct])
for work in works:  # every expression the text needs compiled first: throughput, not start-up
    work()
if len(sys.argv) > 3:  # one measure only ("-1": none), for a count of instructions
    works = works[int(sys.argv[3]):][:1] if int(sys.argv[3]) >= 0 else ()
times = []
for work in works:
    started = time.process_time()
    work()
    times.append(time.process_time() - started)
print(json.dumps(times))
"""
MEASURES = ("text values of whole transcripts", "each raw file as one string",
            "each distinct text value once")  # fmt: skip


def instructions(root: Path, data: Path, measure: int) -> int:
    """Instructions valgrind's callgrind counts in a fresh process running ``measure`` (-1:
    none, the same process up to it: text read, expression compiled)."""
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          sys.executable, "-c", THROUGHPUT, str(root), str(data), str(measure)],
                         capture_output=True, text=True, check=True).stderr  # fmt: skip
    return int(re.findall(r"Collected : (\d+)", out)[-1])


def counted(ref: str, roots: dict[str, Path], data: Path) -> None:
    """Each measure's instructions, this tree's and ``ref``'s, less those of the same process
    without it: unlike CPU time, the same on a busy machine and an idle one."""
    print(f"this tree against {ref}: instructions (valgrind's callgrind; one process each)")
    base = {name: instructions(root, data, -1) for name, root in roots.items()}
    for number, name in enumerate(MEASURES):
        mine, theirs = (
            instructions(root, data, number) - base[tree] for tree, root in roots.items()
        )
        ratio = theirs / mine
        print(
            f"  {name:<36} {ratio:.2f}x of {ref}'s throughput  ({mine / 1e6:,.0f} M against "
            f"{theirs / 1e6:,.0f} M; >= 0.8x: {'met' if ratio >= 0.8 else 'missed'})"
        )


def against(ref: str, runs: int, texts: list[str], strings: list[str], count: bool) -> None:
    """This tree's redaction throughput over ``ref``'s, on the same text, in turn (``count``:
    by instructions instead of CPU time)."""
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        other = Path(folder) / "ref"
        archive = subprocess.run(["git", "archive", ref, "purlin_resume"], cwd=here,
                                 capture_output=True, check=True).stdout  # fmt: skip
        other.mkdir()
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(other, filter="data")
        data = Path(folder) / "text.json"
        data.write_text(json.dumps([texts, strings]))
        if count:
            counted(ref, {"here": here, ref: other}, data)
            return
        times: dict[str, list[list[float]]] = {"here": [], ref: []}
        for _ in range(runs):
            for name, root in (("here", here), (ref, other)):
                out = subprocess.run([sys.executable, "-c", THROUGHPUT, str(root), str(data)],
                                     capture_output=True, text=True, check=True).stdout  # fmt: skip
                times[name].append(json.loads(out))
        started = first_use(runs * 3, {"here": here, ref: other})
    print(f"this tree against {ref}: medians of {runs} fresh processes each (CPU time)")
    for number, name in enumerate(MEASURES):
        mine = statistics.median(t[number] for t in times["here"])
        theirs = statistics.median(t[number] for t in times[ref])
        ratio = theirs / mine
        print(
            f"  {name:<36} {ratio:.2f}x of {ref}'s throughput  "
            f"(>= 0.8x: {'met' if ratio >= 0.8 else 'missed'})"
        )
    print_first_use(started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", metavar="REF", help="compare with another commit's code")
    parser.add_argument(
        "--instructions", action="store_true", help="with --against: count instructions (valgrind)"
    )
    args = parser.parse_args()
    files = sorted(FIXTURES.rglob("*.jsonl"))
    if not files:
        sys.exit(f"no transcripts at {FIXTURES} (set PURLIN_FIXTURES)")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in files]
    records = [json.loads(line) for text in texts for line in text.splitlines() if line.strip()]
    strings = [value for record in records for value in values(record)]
    if args.against:
        against(args.against, args.runs, texts, strings, args.instructions)
        return
    value_mb = sum(len(s.encode()) for s in strings) / 1e6
    raw_mb = sum(len(t.encode()) for t in texts) / 1e6
    joined = "\n".join(strings)

    per_value = median(lambda: redact.redact_data(strings), args.runs)
    whole = median(lambda: [redact.redact(t) for t in texts], args.runs)
    anchor = re.compile(r"\x00Q|\x01Q")
    floor = median(lambda: anchor.search(joined), args.runs)

    base = joined.encode("ascii", "replace").decode()
    small = (base * 2)[:500_000]
    big = (base * (50_000_000 // len(base) + 1))[:50_000_000]
    small_s = median(lambda: redact.redact(small), args.runs) / 0.5
    big_s = median(lambda: redact.redact(big), max(1, args.runs // 2)) / 50

    distinct = list(dict.fromkeys(strings))
    distinct_mb = sum(len(s.encode()) for s in distinct) / 1e6
    each = median(lambda: [redact.redact(s) for s in distinct], args.runs)

    two_mb = (base * (2_000_000 // len(base) + 1))[:2_000_000]
    ordinary = median(lambda: redact.redact(two_mb), args.runs) / 2
    hostile = []
    for name, unit in ADVERSARIAL.items():
        text = unit * (2_000_000 // len(unit))
        per_mb = median(lambda: redact.redact(text), max(1, args.runs // 2)) / 2  # noqa: B023
        half = median(lambda: redact.redact(text[:1_000_000]), max(1, args.runs // 2))  # noqa: B023
        hostile.append((name, per_mb / ordinary, per_mb / half))
    first, again = startup(args.runs)

    rate = value_mb / per_value
    print(f"Python {sys.version.split()[0]}; {len(files)} transcripts, {raw_mb:.1f} MB raw, "
          f"{len(strings)} text values ({value_mb:.1f} MB); medians of {args.runs} runs (CPU time)")  # fmt: skip
    print(f"{'measure':<48} {'result':>12}  target")
    rows = [
        ("redaction, text values of whole transcripts", f"{rate:.0f} MB/s",
         ">= 40 MB/s: " + ("met" if rate >= 40 else "missed")),
        ("redaction, each raw file as one string", f"{raw_mb / whole:.0f} MB/s", ""),
        ("50 MB string vs 0.5 MB string, per MB", f"{big_s / small_s:.2f}x",
         "<= 1.5x: " + ("met" if big_s / small_s <= 1.5 else "missed")),
        ("redaction, each distinct text value once", f"{distinct_mb / each:.0f} MB/s",
         f"{len(distinct)} values, {distinct_mb:.1f} MB"),
        *[(f"2 MB of {name}, per MB", f"{vs_text:.1f}x", f"of ordinary text; 2 MB vs 1 MB: "
           f"{vs_half:.2f}x (linear: 1x)") for name, vs_text, vs_half in hostile],
        ("start-up: first 2 calls of a process", f"{first * 1e3:.0f} ms",
         f"compiled: {again * 1e3:.2f} ms"),
        ("anchor: re scan for two literals (floor)", f"{len(joined) / 1e6 / floor:.0f} MB/s",
         f"redaction at {rate / (len(joined) / 1e6 / floor):.2f}x of it"),
    ]  # fmt: skip
    for name, result, target in rows:
        print(f"{name:<48} {result:>12}  {target}")
    print_first_use(first_use(args.runs * 3, {"here": Path(__file__).resolve().parents[1]}))


if __name__ == "__main__":
    main()
