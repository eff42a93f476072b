"""Redaction speed on real transcripts.

    .venv/bin/python benchmarks/redaction.py [--runs 5]

Prints, as medians of ``--runs`` runs (CPU time of this process, so other load on the machine
counts less):

1. throughput over whole real transcripts, the way the product redacts them: every text value
   of every record of every fixture file, one call per value (target >= 40 MB/s);
2. the same over each file's raw text as one string;
3. a 0.5 MB and a 50 MB string cut from that text: seconds per MB of the big one over the small
   one (target <= 1.5x: no slower per byte on large strings);
4. the anchor: one pass of ``re`` finding two literal characters over the same text, the least
   a scan of the text by the regular expression engine costs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from purlin_resume.core import redact  # noqa: E402

FIXTURES = Path(
    os.environ.get("PURLIN_FIXTURES")
    or Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "claude"
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    files = sorted(FIXTURES.rglob("*.jsonl"))
    if not files:
        sys.exit(f"no transcripts at {FIXTURES} (set PURLIN_FIXTURES)")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in files]
    records = [json.loads(line) for text in texts for line in text.splitlines() if line.strip()]
    strings = [value for record in records for value in values(record)]
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
        ("anchor: re scan for two literals (floor)", f"{len(joined) / 1e6 / floor:.0f} MB/s",
         f"redaction at {rate / (len(joined) / 1e6 / floor):.2f}x of it"),
    ]  # fmt: skip
    for name, result, target in rows:
        print(f"{name:<48} {result:>12}  {target}")


if __name__ == "__main__":
    main()
