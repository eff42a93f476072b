"""Throughput and peak memory of the Codex CLI, Gemini CLI and opencode readers against the
JSON floor, at 3, 30 and 300 MB.

    .venv/bin/python benchmarks/readers.py            # 3, 30 and 300 MB
    .venv/bin/python benchmarks/readers.py --quick    # 3 MB only
    .venv/bin/python benchmarks/readers.py --runs 5   # the median of 5 runs (default 3)
    .venv/bin/python benchmarks/readers.py --index    # the search index built over a rollout

A session of each size is generated under ``benchmarks/.work/readers/`` by repeating the records
of the real fixture sessions (``tests/fixtures/<cli>``) with fresh ids: a rollout for Codex, a
chat file for Gemini, a database for opencode. Each measurement runs in a fresh process, which
reports its CPU time (user + system) and its peak RSS. The floor is this interpreter running ``json.loads`` on every
line of the file (for opencode: on the JSON of every message and part row, read in order). The
goal (issue 38): each reader at least half the floor's throughput, its memory flat. opencode's
session is read deferred, as every command reads it: one row for that reading alone (what
``sessions`` and ``find`` read through), one for it followed by every turn read again from the
database (what ``transcript`` and ``export`` go through).

``--index`` builds the search index (``search_index.refresh``, which reads every CLI's
conversations) over the generated Codex rollout alone, in a fresh process with an empty HOME and
cache: its throughput should not fall as the rollout grows (a build linear in bytes).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
WORK = ROOT / "benchmarks" / ".work" / "readers"
MB = 1 << 20

CODEX_THREAD = "01a21c25-3856-72b2-af61-b2807cc1fe09"
GEMINI_CHAT = "session-2026-11-27T08-38-445d2a96.jsonl"


def _codex(size: int) -> Path:
    source = next((FIXTURES / "codex").rglob(f"rollout-*{CODEX_THREAD}.jsonl"))
    lines = source.read_bytes().splitlines(keepends=True)
    target = WORK / f"codex-{size}" / "sessions" / "2026" / "01" / "01" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as out:
        out.write(lines[0])
        written, body = len(lines[0]), lines[1:]
        while written < size * MB:
            stamp = uuid.uuid4().hex[:12].encode()
            for line in body:
                line = line.replace(b"call_field", b"call_" + stamp)
                out.write(line)
                written += len(line)
    return target


def _gemini(size: int) -> Path:
    source = next((FIXTURES / "gemini").rglob(GEMINI_CHAT))
    records = [json.loads(line) for line in source.read_bytes().splitlines()]
    target = WORK / f"gemini-{size}" / "tmp" / "project" / "chats" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w") as out:
        written = out.write(json.dumps(records[0]) + "\n")
        while written < size * MB:
            stamp = uuid.uuid4().hex
            for record in records[1:]:
                if "id" in record:
                    record = {**record, "id": f"{record['id']}-{stamp}"}
                written += out.write(json.dumps(record) + "\n")
    return target


def _opencode(size: int) -> Path:
    folder = WORK / f"opencode-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "opencode.db"
    shutil.copy(FIXTURES / "opencode" / "opencode.db", target)
    with sqlite3.connect(target) as db:
        session = db.execute("select id from session where parent_id is null limit 1").fetchone()[0]
        messages = db.execute(
            "select id, time_created, time_updated, data from message where session_id = ?",
            (session,),
        ).fetchall()
        parts = db.execute(
            "select message_id, id, time_created, time_updated, data from part where session_id = ?",
            (session,),
        ).fetchall()
        round_number = 0
        while target.stat().st_size < size * MB:
            for _ in range(200):
                round_number += 1
                tag = f"_{round_number:08d}"
                db.executemany(
                    "insert into message values (?, ?, ?, ?, ?)",
                    [(m[0] + tag, session, m[1] + round_number, m[2], m[3]) for m in messages],
                )
                db.executemany(
                    "insert into part values (?, ?, ?, ?, ?, ?)",
                    [
                        (p[1] + tag, p[0] + tag, session, p[2] + round_number, p[3], p[4])
                        for p in parts
                    ],
                )
            db.commit()
    db.close()
    return target


MAKERS = {"codex": _codex, "gemini": _gemini, "opencode": _opencode}

_OPENCODE_READ = (
    "session = [s for s in storage.listed(path.parent) if s.parent_id is None][0]\n"
    "done = storage.read(session, storage.ReadOptions(deferred=True))\n"
)
# the readings of each CLI's session measured: (row label, code); opencode's twice: the
# deferred reading alone (what sessions and find read whole) and then every turn read again
# (what transcript and export go through)
READ = {
    "codex": [
        (
            "codex",
            "from purlin_resume.codex import rollouts\n"
            "done = rollouts.read(path.name[-42:-6], path)\n",
        )
    ],
    "gemini": [
        ("gemini", "from purlin_resume.gemini import chats\ndone = chats.read(chats.parts(path))\n")
    ],
    "opencode": [
        ("opencode", _OPENCODE_READ),
        (
            "opencode, every turn",
            _OPENCODE_READ + "for turn in done.transcript.turns:\n    pass\n",
        ),
    ],
}
FLOOR = {
    "jsonl": (
        "import json\n"
        "with open(path, 'rb') as handle:\n"
        "    for line in handle:\n"
        "        json.loads(line)\n"
    ),
    "db": (
        "import json, sqlite3\n"
        "db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)\n"
        "for (data,) in db.execute('select m.data from message m order by m.time_created, m.id'):\n"
        "    json.loads(data)\n"
        "for (data,) in db.execute('select p.data from part p order by p.time_created, p.id'):\n"
        "    json.loads(data)\n"
    ),
}
MEASURE = (
    "import resource, sys, time\n"
    "from pathlib import Path\n"
    "path = Path(sys.argv[1])\n"
    "{setup}"
    "start = time.process_time()\n"
    "{body}"
    "elapsed = time.process_time() - start\n"
    "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "print(elapsed, peak)\n"
)


def _measure(body: str, path: Path, setup: str = "") -> tuple[float, float]:
    code = MEASURE.format(body=body, setup=setup)
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    elapsed, peak = done.stdout.split()
    return float(elapsed), float(peak)


def _imports(cli: str) -> str:
    return {
        "codex": "from purlin_resume.codex import rollouts\n",
        "gemini": "from purlin_resume.gemini import chats\n",
        "opencode": "from purlin_resume.opencode import storage\n",
    }[cli]


INDEX = (
    "import os, tempfile\n"
    "from purlin_resume.resurrection import search_index\n"
    "home = tempfile.mkdtemp()\n"
    "os.environ.update(HOME=home, XDG_CACHE_HOME=home + '/cache', XDG_DATA_HOME=home + '/data')\n"
    "os.environ['CODEX_HOME'] = str(path.parents[4])\n"
)


def _index(sizes: list[int], runs: int) -> None:
    print("| index over | size | build s | MB/s | peak MiB |")
    print("|---|---|---|---|---|")
    for size in sizes:
        path = _codex(size)
        megabytes = path.stat().st_size / MB
        body = "search_index.refresh(Path(home) / 'claude', Path(home) / 'cache')\n"
        found = [_measure(body, path, INDEX) for _ in range(runs)]
        took = statistics.median(t for t, _ in found)
        peak = max(p for _, p in found)
        print(
            f"| codex rollout | {megabytes:.0f} MB | {took:.2f} | {megabytes / took:.0f} | {peak:.0f} |"
        )
        shutil.rmtree(path.parents[4])


def _medians(cli: str, code: str, path: Path, runs: int) -> tuple[float, float, float, float]:
    """The median time and the largest peak of the reader and of the floor, the two
    interleaved run by run (so that a busy moment slows both)."""
    reader, floor = [], []
    for _ in range(runs):
        reader.append(_measure(code, path, _imports(cli)))
        floor.append(_measure(FLOOR["db" if cli == "opencode" else "jsonl"], path))
    return (
        statistics.median(t for t, _ in reader),
        max(p for _, p in reader),
        statistics.median(t for t, _ in floor),
        max(p for _, p in floor),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 MB only, one run")
    parser.add_argument("--sizes", default="3,30,300", help="sizes in MB (default 3,30,300)")
    parser.add_argument("--only", default="codex,gemini,opencode")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (the median is shown)")
    parser.add_argument("--index", action="store_true", help="the search index's build instead")
    args = parser.parse_args()
    sizes = [3] if args.quick else [int(s) for s in args.sizes.split(",")]
    runs = 1 if args.quick else args.runs
    if args.index:
        _index(sizes, runs)
        return
    print(
        "| reader | size | reader s | MB/s | floor s | floor MB/s | vs floor | reader peak MiB | floor peak MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for cli in args.only.split(","):
        for size in sizes:
            path = MAKERS[cli](size)
            megabytes = path.stat().st_size / MB
            for label, code in READ[cli]:
                took, peak, floor, floor_peak = _medians(cli, code, path, runs)
                print(
                    f"| {label} | {megabytes:.0f} MB | {took:.2f} | {megabytes / took:.0f} | "
                    f"{floor:.2f} | {megabytes / floor:.0f} | {floor / took:.2f}x | {peak:.0f} | "
                    f"{floor_peak:.0f} |",
                    flush=True,
                )
            shutil.rmtree(
                path.parents[4]
                if cli == "codex"
                else path.parents[3]
                if cli == "gemini"
                else path.parent
            )


if __name__ == "__main__":
    main()
