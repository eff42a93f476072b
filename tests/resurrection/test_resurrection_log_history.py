"""The resurrection log at scale: outcomes recorded as appended revisions, read back the same by
every reader, from the end of the file; old logs read exactly as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from purlin_resume.core.errors import NotFound
from purlin_resume.resurrection import log as resurrection_log
from tests.core.test_redact import PLANTED

ROOT = Path(__file__).resolve().parents[2]
SECRET = PLANTED["github-token"]


def _entry(**extra) -> dict:
    """What ``resurrection.record`` hands the writer, more or less."""
    base = {
        "bookmark_id": None,
        "resurrected_from_agent_id": "agent-a2898e3",
        "resurrected_from_session_id": "4d5611e5-241a-462a-8d15-5122611a9569",
        "resurrected_from_hostname": "devbox",
        "resurrected_from_project": "/home/dev/projects/spotter-dov",
        "resurrected_as_agent_id": "agent-1f2e3d4",
        "resurrected_in_session": "9c1d2e3f-1111-4000-8000-000000000000",
        "resurrected_in_project": "/home/dev/projects/spotter-fum",
        "resurrected_by": "dev",
        "resurrection_mode": "direct",
        "query": None,
        "context_extraction_method": "hybrid",
        "context_size_tokens": 4500,
        "outcome": "success",
        "outcome_reason": None,
        "notes": "Used the earlier investigation of the flaky tmux tests for the CI fix",
        "new_agent_duration_ms": None,
        "new_agent_tool_calls": None,
        "resurrected_from_agent_type": "Explore",
        "cross_repo": True,
        "context_tokens_before": 120_000,
        "redactions": 0,
        "latency_ms": 900,
    }
    return {**base, **extra}


def _big_log(claude: Path, lines: int, *, first_day: int = 1) -> Path:
    """A log whose first lines come from the real writer, then repeated with fresh ids and times
    (one every 10 minutes from 2026-01-<first_day>), in the writer's own layout."""
    log = claude / "history" / resurrection_log.FILE_NAME
    sample = [
        resurrection_log.append(log, _entry(resurrection_mode=mode, outcome=outcome))
        for mode, outcome in (("direct", "success"), ("fuzzy", "failure"), ("bookmark", "partial"))
    ]
    records = []
    for number in range(lines):
        minutes = number * 10
        day = first_day + minutes // 1440
        record = dict(sample[number % 3])
        record["resurrection_id"] = f"res-2026-01-{day:02d}-{number % 144 + 1:03d}"
        record["resurrected_at"] = (
            f"2026-01-{day:02d}T{minutes % 1440 // 60:02d}:{minutes % 60:02d}:00Z"
        )
        if record["outcome"] == "failure":
            record["outcome_reason"] = f"agent command exited with {number % 4}"
        records.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    log.write_text("".join(records))
    return log


def _out(cli, *args: str) -> tuple[str, str]:
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


READS = [
    ("resurrections",),
    ("resurrections", "--json"),
    ("resurrections", "stats"),
    ("resurrections", "stats", "--json"),
    ("resurrections", "--outcome", "failure", "--json"),
    ("resurrections", "--agent", "a2898", "stats"),
]


def _reads(cli, claude: Path) -> list[tuple[str, str]]:
    return [_out(cli, *args, "--claude-dir", str(claude)) for args in READS]


def test_done_on_a_big_log_appends_and_keeps_every_line(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 2500)  # about 2.5 MB: more than one block read from the end
    before = log.read_bytes()
    rid = json.loads(before.splitlines()[1200])["resurrection_id"]
    result = cli(
        *("resurrect", "done", rid, "--outcome", "failure", "--reason", "tests failed"),
        *("--notes", "second try", "--claude-dir", str(claude)),
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{rid}: failure\n"
    after = log.read_bytes()
    assert after.startswith(before)  # every line there before is there, byte for byte
    [added] = after[len(before) :].splitlines()
    assert json.loads(added)["revision"] == 2
    entries, skipped = resurrection_log.read(log)
    assert skipped == 0
    assert len(entries) == 2500
    done = entries[1200]
    assert done["resurrection_id"] == rid
    assert "revision" not in done
    assert done["outcome"] == "failure"
    assert done["outcome_reason"] == "tests failed"
    assert done["notes"].endswith("; second try")
    untouched = [json.loads(line) for line in before.splitlines()]
    assert entries[:1200] + entries[1201:] == untouched[:1200] + untouched[1201:]


def test_a_completed_entry_reads_as_the_older_rewritten_line_did(cli, tmp_path):
    """Every reader sees an appended revision exactly as the line rewritten in place (what older
    versions wrote): listing, JSON, stats, the dashboard's summary and the recommendation."""
    from purlin_resume.team import rows
    from purlin_resume.web import views

    appended, rewritten = tmp_path / "appended", tmp_path / "rewritten"
    log = _big_log(appended, 1200)
    lines = log.read_text().splitlines(keepends=True)
    changes = [(5, "success", None), (700, "failure", "no prompt"), (5, "partial", "slow")]
    for index, outcome, reason in changes:
        rid = json.loads(lines[index])["resurrection_id"]
        resurrection_log.record_outcome(log, rid, outcome, notes=f"n{index}", reason=reason)
        entry = json.loads(lines[index])
        entry.update(outcome=outcome, outcome_reason=reason if outcome != "success" else None)
        entry["notes"] = resurrection_log._joined(entry["notes"], f"n{index}")
        lines[index] = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
    old = rewritten / "history" / resurrection_log.FILE_NAME
    old.parent.mkdir(parents=True)
    old.write_text("".join(lines))
    assert len(log.read_text().splitlines()) == 1203
    clean = [
        [
            (o.replace(str(appended), "C"), e.replace(str(appended), "C"))
            for o, e in _reads(cli, appended)
        ],
        [
            (o.replace(str(rewritten), "C"), e.replace(str(rewritten), "C"))
            for o, e in _reads(cli, rewritten)
        ],
    ]
    assert clean[0] == clean[1]
    summaries = [
        views._summary.__wrapped__(path, None, None, None, None, None) for path in (log, old)
    ]
    assert {**summaries[0], "log": ""} == {**summaries[1], "log": ""}
    assert (
        summaries[0]["resurrections"][0]["resurrection_id"]
        == json.loads(lines[-1])["resurrection_id"]
    )
    sources = [  # what recommend() weighs
        resurrection_log.outcomes_by_source(resurrection_log.History(path)) for path in (log, old)
    ]
    assert sources[0] == sources[1]
    team = [rows.log_rows(path.parent, "member") for path in (log, old)]  # what a sync sends
    assert team[0] == team[1]
    assert len(team[0]) == 1200


def test_the_json_listing_is_the_one_document_print_json_made(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 2100)  # three batches
    lines = log.read_text().splitlines()
    planted = json.loads(lines[1500])
    planted["notes"] = f"token {SECRET} here"
    lines[1500] = json.dumps(planted, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n{broken\n")
    result = cli("resurrections", "--json", "--claude-dir", str(claude))
    assert result.exit_code == 0
    assert SECRET not in result.stdout
    assert "redacted 1 secret" in result.stderr
    entries = [json.loads(line) for line in lines[::-1]]
    note = json.loads(result.stdout)["resurrections"][len(lines) - 1 - 1500]["notes"]
    assert note.startswith("token ")
    assert note.endswith(" here")
    assert SECRET not in note
    entries[len(lines) - 1 - 1500]["notes"] = note
    document = {"log": str(log), "skipped_lines": 1, "resurrections": entries}
    assert result.stdout == json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    empty = tmp_path / "empty"
    result = cli("resurrections", "--json", "--claude-dir", str(empty))
    log_path = empty / "history" / resurrection_log.FILE_NAME
    assert (
        result.stdout
        == json.dumps({"log": str(log_path), "skipped_lines": 0, "resurrections": []}, indent=2)
        + "\n"
    )


def test_half_a_character_in_the_log_lists_as_a_replacement_character(cli, tmp_path):
    """A lone surrogate (a ``\\ud83d`` escape: a reason cut mid-emoji, a teammate's log) has
    no UTF-8 form: ``resurrections --json`` prints U+FFFD in its place, not a traceback."""
    claude = tmp_path / "claude"
    log = claude / "history" / resurrection_log.FILE_NAME
    written = {**_entry(outcome="failure", outcome_reason="cut \ud83d here"), "uuid": "u-1"}
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps({"resurrection_id": "res-2026-01-01-001", **written}) + "\n")

    result = cli("resurrections", "--json", "--claude-dir", str(claude))

    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)["resurrections"]
    assert entry["outcome_reason"] == "cut \ufffd here"


def test_concurrent_done_and_append_lose_nothing(tmp_path):
    log = tmp_path / "history" / resurrection_log.FILE_NAME
    target = resurrection_log.append(log, _entry(notes=None))["resurrection_id"]
    appender = (
        "import sys; from pathlib import Path; from purlin_resume.resurrection import log as r;"
        "[r.append(Path(sys.argv[1]), {'resurrection_mode': 'direct',"
        " 'context_extraction_method': 'hybrid', 'outcome': 'success'}) for _ in range(8)]"
    )
    completer = (
        "import sys; from pathlib import Path; from purlin_resume.resurrection import log as r;"
        "[r.record_outcome(Path(sys.argv[1]), sys.argv[2], 'success', notes=f'{sys.argv[3]}-{n}')"
        " for n in range(8)]"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", appender, str(log)], cwd=ROOT) for _ in range(3)
    ] + [
        subprocess.Popen([sys.executable, "-c", completer, str(log), target, f"w{w}"], cwd=ROOT)
        for w in range(3)
    ]
    assert all(p.wait(timeout=180) == 0 for p in procs)
    entries, skipped = resurrection_log.read(log)
    assert skipped == 0
    assert len(entries) == 1 + 3 * 8
    assert len({e["resurrection_id"] for e in entries}) == len(entries)
    notes = entries[0]["notes"].split("; ")
    assert sorted(notes) == sorted(f"w{w}-{n}" for w in range(3) for n in range(8))
    revisions = [json.loads(line).get("revision") for line in log.read_text().splitlines()]
    assert sorted(r for r in revisions if r) == list(range(2, 2 + 3 * 8))


@pytest.mark.parametrize("block", [64, 4096, 1 << 20])
def test_corrupt_lines_in_the_middle_and_a_truncated_last_line(cli, tmp_path, monkeypatch, block):
    monkeypatch.setattr(resurrection_log, "BLOCK_BYTES", block)
    claude = tmp_path / "claude"
    log = _big_log(claude, 40)
    lines = log.read_bytes().splitlines()
    lines[10:10] = [b"{broken", b"", b"[1, 2]", b'{"resurrection_id": 7}', b'{"not": "\xff utf-8"}']
    log.write_bytes(b"\n".join(lines) + b'\n{"resurrection_id":"res-2026-01-09-001","outc')
    entries, skipped = resurrection_log.read(log)
    assert len(entries) == 40
    assert skipped == 5
    result = cli("resurrections", "--claude-dir", str(claude))
    assert result.exit_code == 0
    assert "5 line(s)" in result.stderr
    assert len(result.stdout.splitlines()) == 40
    rid = entries[-1]["resurrection_id"]
    before = log.read_bytes()
    assert (
        cli("resurrect", "done", rid, "--outcome", "partial", "--claude-dir", str(claude)).exit_code
        == 0
    )
    after = log.read_bytes()
    assert after.startswith(before + b"\n")  # the cut line is closed, never joined
    entries, skipped = resurrection_log.read(log)
    assert entries[-1]["outcome"] == "partial"
    assert skipped == 5
    unknown = cli(
        "resurrect",
        "done",
        "res-2026-01-09-001",
        "--outcome",
        "success",
        "--claude-dir",
        str(claude),
    )
    assert unknown.exit_code == 1
    assert "no resurrection res-2026-01-09-001" in unknown.stderr
    assert log.read_bytes() == after


def test_an_unknown_id_changes_nothing(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 50)
    before = log.read_bytes()
    result = cli(
        "resurrect",
        "done",
        "res-2031-01-01-001",
        "--outcome",
        "success",
        "--claude-dir",
        str(claude),
    )
    assert result.exit_code == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: no resurrection res-2031-01-01-001")
    assert log.read_bytes() == before
    with pytest.raises(NotFound):
        resurrection_log.complete(log, "res-2031-01-01-001", {"outcome": "success"})


def test_since_reads_only_the_tail(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 600)  # 2026-01-01 to 2026-01-05
    log.write_text("{broken head\n" * 3 + log.read_text())
    _, everything = _out(cli, "resurrections", "--claude-dir", str(claude))
    assert "3 line(s)" in everything
    out, err = _out(cli, "resurrections", "--since", "2026-01-05", "--claude-dir", str(claude))
    assert err == ""  # the corrupt head was never read
    expected = [e for e in resurrection_log.read(log)[0] if e["resurrected_at"] >= "2026-01-05"]
    assert [line.split()[0] for line in out.splitlines()] == [
        e["resurrection_id"] for e in reversed(expected)
    ]


def test_since_on_a_log_whose_tail_is_older(cli, tmp_path):
    claude = tmp_path / "claude"
    log = _big_log(claude, 300)
    result = cli("resurrections", "--since", "2026-03-01", "--claude-dir", str(claude))
    assert result.exit_code == 0
    assert result.stdout == f"No resurrections in {log}.\n"
    stats = json.loads(
        _out(
            cli,
            "resurrections",
            "--since",
            "2026-03-01",
            "stats",
            "--json",
            "--claude-dir",
            str(claude),
        )[0]
    )
    assert stats["total"] == 0


def test_since_finds_entries_behind_lines_out_of_time_order(cli, tmp_path):
    """A clock set back (or a merged log) puts lines out of order: a short run of them does not
    end the reading, and the result is what a full read filtered on the time gives."""
    claude = tmp_path / "claude"
    log = _big_log(claude, 600)
    lines = log.read_text().splitlines()
    for index in range(len(lines) - 20, len(lines) - 5):  # 15 lines a month in the past
        entry = json.loads(lines[index])
        entry["resurrected_at"] = "2025-12-01T00:00:00Z"
        lines[index] = json.dumps(entry, separators=(",", ":"))
    lines.insert(len(lines) - 100, lines.pop(50))  # and an old line among the new ones
    log.write_text("\n".join(lines) + "\n")
    for since in ("2026-01-04T12:00:00Z", "2026-01-05"):
        out = json.loads(
            _out(cli, "resurrections", "--since", since, "--json", "--claude-dir", str(claude))[0]
        )
        full = resurrection_log.select(resurrection_log.read(log)[0], since=since)
        assert out["resurrections"] == full[::-1]
        assert full


def test_a_revision_whose_first_line_is_gone_still_counts(tmp_path):
    log = tmp_path / "history" / resurrection_log.FILE_NAME
    first = resurrection_log.append(log, _entry())
    second = resurrection_log.append(log, _entry())
    resurrection_log.record_outcome(log, first["resurrection_id"], "failure", reason="lost")
    lines = log.read_text().splitlines()
    log.write_text("\n".join(["{damaged", *lines[1:]]) + "\n")
    entries, skipped = resurrection_log.read(log)
    assert skipped == 1
    assert [(e["resurrection_id"], e["outcome"]) for e in entries] == [
        (first["resurrection_id"], "failure"),
        (second["resurrection_id"], "success"),
    ]


def test_line_separators_inside_values_stay_inside_their_line(tmp_path):
    log = tmp_path / "history" / resurrection_log.FILE_NAME
    written = resurrection_log.append(log, _entry(notes="one\u2028two\x85three"))
    resurrection_log.record_outcome(log, written["resurrection_id"], "partial", notes="more")
    [entry], skipped = resurrection_log.read(log)
    assert skipped == 0
    assert entry["notes"] == "one\u2028two\x85three; more"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a1", "a2", "a3", None]),
            st.sampled_from(["s1", "s2"]),
            st.sampled_from(["success", "failure", "partial"]),
            st.sampled_from(["r1", "r2", "r3", None]),
        ),
        max_size=40,
    )
)
def test_stats_are_the_same_whichever_way_the_entries_come(rows):
    entries = [
        _entry(
            resurrected_from_agent_id=agent,
            resurrected_from_session_id=session,
            outcome=outcome,
            outcome_reason=reason,
        )
        for agent, session, outcome, reason in rows
    ]
    oldest_first = resurrection_log.stats(entries)
    assert resurrection_log.stats(reversed(entries), newest_first=True) == oldest_first
