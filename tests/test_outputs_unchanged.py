"""Every reading command's output on the real transcripts, byte for byte against golden files.

A safety net for performance work: `transcript`, `export`, `sessions`, `find`, `resurrections`
and `resurrect done` must print exactly what they printed when the golden files were written.
The commands run as a user runs them (the CLI in-process; a few also as whole processes) on a
private copy of the fixtures and on a small resurrection log with fixed timestamps; the copy's
path is written ``<CLAUDE>`` in the golden files.

Regenerate the golden files (only when a change of output is intended, and say so in the commit):

    PURLIN_REGOLD=1 .venv/bin/python -m pytest tests/test_outputs_unchanged.py

Outputs over 64 KB are stored gzip-compressed (``NAME.gz``); a failure shows the first lines
that differ.
"""

from __future__ import annotations

import difflib
import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

GOLDEN = Path(__file__).parent / "golden" / "outputs"
REGOLD = os.environ.get("PURLIN_REGOLD") == "1"
COMPRESS_OVER = 65536
REPO = Path(__file__).resolve().parents[1]

TRANSCRIPT_IDS = ["4d5611e5", "fe5e1c67", "1af7fc5e", "short", "tool_heavy", "a2898e3", "6690d10e"]
EXPORT_IDS = ["4d5611e5", "fe5e1c67", "short", "a2898e3"]
MODES = {
    "plain": [],
    "tools": ["--include-tools"],
    "thinking": ["--include-thinking"],
    "full": ["--include-tools", "--include-thinking"],
}
QUERIES = {
    "tmux": "tmux module test setup",
    "phoenix": "phoenix server",
    "typo": "tmxu modle",
    "day": "2026-02-12 transcript",
}

# A resurrection log with fixed timestamps: the old entries lie far in the past and the last
# three far in the future, so ``--since 1d`` picks exactly those three whatever the day.
LOG_ENTRIES = [
    ("res-2026-01-05-001", "2026-01-05T09:00:00Z", "bookmark", "success", "a2898e3", "4d5611e5", 4200, "Explore"),
    ("res-2026-01-05-002", "2026-01-05T10:30:00Z", "fuzzy", "failure", None, "8463c716", 12000, "main"),
    ("res-2026-01-20-001", "2026-01-20T16:45:10Z", "direct", "partial", "a7be2f0", "8463c716", 900, "Explore"),
    ("res-2026-02-01-001", "2026-02-01T08:00:00Z", "direct", "success", None, "short", 300, "main"),
    ("res-2026-02-10-001", "2026-02-10T12:00:00Z", "bookmark", "success", "a2898e3", "4d5611e5", 5100, "Explore"),
    ("res-2026-02-10-002", "2026-02-10T12:05:00Z", "fuzzy", "success", None, "fe5e1c67", 7000, "main"),
    ("res-2099-06-01-001", "2099-06-01T10:00:00Z", "direct", "success", None, "tool_heavy", 2500, "main"),
    ("res-2099-06-01-002", "2099-06-01T11:00:00Z", "bookmark", "failure", "a2898e3", "4d5611e5", 4800, "Explore"),
    ("res-2099-06-02-001", "2099-06-02T09:30:00Z", "fuzzy", "partial", None, "1af7fc5e", 1500, "main"),
]  # fmt: skip


def log_line(number: int, row: tuple) -> str:
    rid, at, mode, outcome, agent, session, tokens, agent_type = row
    entry = {
        "resurrection_id": rid,
        "bookmark_id": f"bm-{number}" if mode == "bookmark" else None,
        "resurrected_from_agent_id": agent,
        "resurrected_from_session_id": session,
        "resurrected_from_hostname": "bench-host",
        "resurrected_from_project": "/path/to/Demo" if number % 3 == 0 else "/home/USER/x",
        "resurrected_as_agent_id": f"new-agent-{number}" if outcome != "failure" else None,
        "resurrected_at": at,
        "resurrected_in_session": f"sess-{number}",
        "resurrected_in_project": "/home/USER/projects/spotter",
        "resurrected_by": "user",
        "resurrection_mode": mode,
        "query": "tmux module" if mode == "fuzzy" else None,
        "context_extraction_method": "hybrid" if number % 2 else "full",
        "context_size_tokens": tokens,
        "outcome": outcome,
        "outcome_reason": "context too large" if outcome == "failure" else None,
        "notes": None,
        "new_agent_duration_ms": 60000 * (number + 1),
        "new_agent_tool_calls": 3 * number,
        "resurrected_from_agent_type": agent_type,
        "cross_repo": number % 3 == 0,
        "context_tokens_before": tokens * 4,
        "redactions": number % 2,
        "latency_ms": 100 + 37 * number,
    }
    return json.dumps(entry, separators=(",", ":")) + "\n"


def write_log(claude: Path) -> Path:
    log = claude / "history" / "resurrection-log.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(log_line(n, row) for n, row in enumerate(LOG_ENTRIES)))
    return log


def cases() -> dict[str, list[str]]:
    """Golden name -> arguments (``--claude-dir`` is added)."""
    table: dict[str, list[str]] = {}
    for ident in TRANSCRIPT_IDS:
        for mode, flags in MODES.items():
            whole = ["--max-chars", "0"]
            table[f"transcript-{ident}-{mode}.md"] = ["transcript", ident, *flags, *whole]
            table[f"transcript-{ident}-{mode}.json"] = ["transcript", ident, *flags, "--json"]
    for ident in EXPORT_IDS:
        for mode, flags in MODES.items():
            table[f"export-{ident}-{mode}.json"] = ["export", ident, *flags]
            table[f"export-{ident}-{mode}.md"] = ["export", ident, *flags, "--format", "md"]
    for fmt in ("json", "md"):
        table[f"export-4d5611e5-full-no-redact.{fmt}"] = [
            "export", "4d5611e5", *MODES["full"], "--format", fmt, "--no-redact",
        ]  # fmt: skip
    table["sessions-all.txt"] = ["sessions", "--all"]
    table["sessions-all.json"] = ["sessions", "--all", "--json"]
    table["sessions-project.txt"] = ["sessions", "--project", "/path/to/Demo"]
    for name, query in QUERIES.items():
        table[f"find-{name}.json"] = ["find", query, "--json"]
    table["find-phoenix.txt"] = ["find", QUERIES["phoenix"]]
    table["resurrections.txt"] = ["resurrections"]
    table["resurrections.json"] = ["resurrections", "--json"]
    table["resurrections-since-1d.txt"] = ["resurrections", "--since", "1d"]
    table["resurrections-since-1d.json"] = ["resurrections", "--since", "1d", "--json"]
    table["resurrections-since-date.json"] = ["resurrections", "--since", "2026-02-01", "--json"]
    table["resurrections-filtered.json"] = [
        "resurrections", "--agent", "a2898e3", "--outcome", "success", "--mode", "bookmark", "--json",
    ]  # fmt: skip
    table["resurrections-stats.txt"] = ["resurrections", "stats"]
    table["resurrections-stats.json"] = ["resurrections", "stats", "--json"]
    since = ["resurrections", "--since", "1d"]
    table["resurrections-since-1d-stats.json"] = [*since, "stats", "--json"]
    return table


CASES = cases()
# Also run as whole processes: what a user's terminal receives, through the real stdout.
PROCESS_CASES = [
    "transcript-4d5611e5-full.md",
    "transcript-fe5e1c67-plain.json",
    "export-4d5611e5-full.json",
    "export-fe5e1c67-full.md",
    "sessions-all.json",
    "resurrections-stats.txt",
]


@pytest.fixture(scope="module")
def claude(tmp_path_factory) -> Path:
    """One private copy of the fixtures with the resurrection log, shared by the module's
    tests (every case only reads it; ``resurrect done`` works on a copy of its own)."""
    target = tmp_path_factory.mktemp("golden") / "claude"
    shutil.copytree(FIXTURES, target)
    write_log(target)
    return target


@pytest.fixture(autouse=True)
def _steady_terminal(monkeypatch):
    for name, value in (("COLUMNS", "100"), ("LINES", "40"), ("NO_COLOR", "1"), ("TERM", "dumb")):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("PYTHONIOENCODING", "utf-8")


def normalised(data: bytes, claude: Path) -> bytes:
    for path, mark in ((claude, "<CLAUDE>"), (Path.home(), "<HOME>")):
        data = data.replace(str(path).encode(), mark.encode())
        data = data.replace(json.dumps(str(path))[1:-1].encode(), mark.encode())
    return data


def golden_bytes(name: str) -> bytes | None:
    plain, packed = GOLDEN / name, GOLDEN / f"{name}.gz"
    if plain.is_file():
        return plain.read_bytes()
    if packed.is_file():
        return gzip.decompress(packed.read_bytes())
    return None


def write_golden(name: str, data: bytes) -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    plain, packed = GOLDEN / name, GOLDEN / f"{name}.gz"
    plain.unlink(missing_ok=True)
    packed.unlink(missing_ok=True)
    if len(data) > COMPRESS_OVER:
        packed.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        plain.write_bytes(data)


def difference(expected: bytes, actual: bytes, limit: int = 40) -> str:
    """The first lines that differ, as a unified diff (enough to see what changed)."""
    lines = difflib.unified_diff(
        expected.decode(errors="replace").splitlines(),
        actual.decode(errors="replace").splitlines(),
        "golden",
        "now",
        lineterm="",
        n=1,
    )
    shown = [line[:300] for _, line in zip(range(limit), lines, strict=False)]
    return "\n".join(shown) or "(same lines; the bytes differ, e.g. in line endings)"


def check(name: str, actual: bytes) -> None:
    if REGOLD:
        write_golden(name, actual)
        return
    expected = golden_bytes(name)
    assert expected is not None, f"no golden file for {name} (PURLIN_REGOLD=1 writes it)"
    if actual != expected:
        pytest.fail(
            f"{name}: output changed ({len(expected)} -> {len(actual)} bytes)\n"
            + difference(expected, actual),
            pytrace=False,
        )


def run_in_process(cli, claude: Path, args: list[str]) -> bytes:
    result = cli(*args, "--claude-dir", str(claude))
    assert result.exit_code == 0, result.stderr
    return normalised(result.stdout_bytes, claude)


def run_process(claude: Path, args: list[str], cwd: Path) -> bytes:
    done = subprocess.run(
        [sys.executable, "-m", "purlin_resume", *args, "--claude-dir", str(claude)],
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return normalised(done.stdout, claude)


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_is_unchanged(cli, claude, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)  # no git project around: `find` searches every project
    check(name, run_in_process(cli, claude, CASES[name]))


@pytest.mark.parametrize("name", PROCESS_CASES)
def test_whole_process_output_is_unchanged(claude, tmp_path, name):
    if REGOLD:
        pytest.skip("the golden files come from the in-process runs")
    check(name, run_process(claude, CASES[name], tmp_path))


@pytest.mark.parametrize(
    "command", [["transcript", "4d5611e5", *MODES["full"]], ["export", "4d5611e5", *MODES["full"]]]
)
def test_output_file_is_unchanged(cli, claude, tmp_path, command):
    """``-o FILE`` writes what stdout would have received."""
    target = tmp_path / "out"
    result = cli(*command, "-o", str(target), "--claude-dir", str(claude))
    assert result.exit_code == 0, result.stderr
    name = f"{command[0]}-4d5611e5-full-file.{'md' if command[0] == 'transcript' else 'json'}"
    check(name, normalised(target.read_bytes(), claude))


def test_long_transcript_digest_is_unchanged(cli, claude, tmp_path, monkeypatch):
    """The default on a long session in Claude Code's agent shell: a bounded digest on stdout,
    the whole in a file."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("CLAUDECODE", "1")
    result = cli("transcript", "4d5611e5", "--claude-dir", str(claude))
    assert result.exit_code == 0, result.stderr
    digest = result.stdout_bytes.replace(str(tmp_path).encode(), b"<TMP>")
    digest = digest.replace(f"purlin-resume-{os.getuid()}/".encode(), b"purlin-resume-<UID>/")
    check("transcript-4d5611e5-digest.md", normalised(digest, claude))
    whole = next(tmp_path.rglob("transcript-*.md")).read_bytes()
    check("transcript-4d5611e5-digest-whole.md", normalised(whole, claude))


@pytest.mark.parametrize("outcome", ["success", "failure"])
def test_resurrect_done_output_and_log_are_unchanged(cli, claude, tmp_path, outcome):
    """``resurrect done`` prints the same and leaves the log the same, byte for byte."""
    own = tmp_path / "claude"
    write_log(own)
    args = ["resurrect", "done", "res-2026-01-20-001", "--outcome", outcome, "--agent-id", "ag-9"]
    args += ["--duration-ms", "4000", "--tool-calls", "7", "--notes", "finished the tmux tests"]
    if outcome == "failure":
        args += ["--reason", "tests still red", "--json"]
    result = cli(*args, "--claude-dir", str(own))
    assert result.exit_code == 0, result.stderr
    check(f"resurrect-done-{outcome}.out", normalised(result.stdout_bytes, own))
    log = own / "history" / "resurrection-log.jsonl"
    check(f"resurrect-done-{outcome}.log", normalised(log.read_bytes(), own))


def test_every_golden_file_belongs_to_a_case():
    """A renamed or dropped case must not leave a golden file behind that nothing checks."""
    names = set(CASES) | {
        "transcript-4d5611e5-full-file.md",
        "export-4d5611e5-full-file.json",
        "transcript-4d5611e5-digest.md",
        "transcript-4d5611e5-digest-whole.md",
        "resurrect-done-success.out",
        "resurrect-done-success.log",
        "resurrect-done-failure.out",
        "resurrect-done-failure.log",
    }
    stored = {p.name.removesuffix(".gz") for p in GOLDEN.iterdir()} if GOLDEN.is_dir() else set()
    assert stored <= names, sorted(stored - names)
    if not REGOLD:
        assert names <= stored, sorted(names - stored)


def test_a_changed_byte_is_reported():
    """The comparison is byte for byte: one changed byte or line ending fails."""
    if REGOLD:
        pytest.skip("writing the golden files")
    expected = golden_bytes("sessions-all.txt")
    for changed in (expected[:-1] + b"!", expected.replace(b"\n", b"\r\n", 1)):
        with pytest.raises(pytest.fail.Exception, match="output changed"):
            check("sessions-all.txt", changed)
