"""The pieces of resurrection: compression, path safety, the log, bookmarks, search, checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from purlin_resume.claude import export
from purlin_resume.claude.catalog import Catalog, open_target
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.core import path_safety, store
from purlin_resume.core.errors import CorruptFile, NotFound, PurlinError, UsageError
from purlin_resume.resurrection import bookmarks, compress, query, search_index
from purlin_resume.resurrection import log as resurrection_log

LARGE = ["4d56", "8463"]


def _opened(claude: Path, ident: str):
    opened = open_target(Catalog(claude), ident, ReadOptions(tools=True))
    kind = "session" if opened.target.kind == "session" else "agent"
    doc = export.document(opened.transcript, opened.subagent, kind=kind)
    return opened.transcript, doc


# compression ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ident", [*LARGE, "a2898e3", "a7be2f0"])
def test_hybrid_cuts_at_least_half_of_the_full_context_on_large_agents(fixtures_copy, ident):
    transcript, doc = _opened(fixtures_copy, ident)
    from purlin_resume.resurrection.flow import render_prompt

    full = compress.estimate_tokens(render_prompt(compress.compress(transcript, doc, "full"), None))
    hybrid = compress.estimate_tokens(
        render_prompt(compress.compress(transcript, doc, "hybrid"), None)
    )
    assert hybrid <= full / 2


def test_hybrid_keeps_three_messages_each_side_and_condenses_the_middle(fixtures_copy):
    transcript, doc = _opened(fixtures_copy, "4d56")
    context = compress.compress(transcript, doc, "hybrid")
    assert len(context.head) == 3
    assert len(context.tail) == 3
    digest = context.digest
    assert digest is not None
    assert digest.messages > 100
    counts = transcript.tool_counts()
    # the digest counts the tools of the middle messages only: never more than the whole
    assert all(digest.tools[name] <= counts[name] for name in digest.tools)
    assert sum(digest.tools.values()) > 0
    assert context.final_output == transcript.final_output
    assert context.original_prompt == transcript.first_prompt
    # the same input gives the same context (no model call, no randomness)
    again = compress.compress(transcript, doc, "hybrid")
    assert again.to_dict() == context.to_dict()


def test_a_short_conversation_is_kept_whole_by_hybrid(fixtures_copy):
    transcript, doc = _opened(fixtures_copy, "short")
    context = compress.compress(transcript, doc, "hybrid")
    assert context.digest is None
    assert context.tail == []
    messages = [t for t in transcript.turns if t.text.strip() or t.tool_calls]
    assert len(context.head) == len(messages) - 1  # the original task has its own section
    assert transcript.first_prompt not in "".join(context.head)


@pytest.mark.parametrize("method", compress.METHODS)
@pytest.mark.parametrize("ident", ["4d56", "8463", "a7be2f0", "short"])
def test_each_part_of_a_prompt_is_there_once(fixtures_copy, ident, method):
    """Regression: hybrid and full prompts held the final output twice (a third of one prompt),
    and the findings could be a mere pointer to the conversation."""
    from purlin_resume.resurrection.flow import render_prompt

    transcript, doc = _opened(fixtures_copy, ident)
    context = compress.compress(transcript, doc, method)
    prompt = render_prompt(context, None)

    from purlin_resume.claude import rendering

    final = transcript.final_output.strip()
    assert prompt.count(final) == 1, "the final output is shown once"
    first = next(t for t in transcript.turns if t.text.strip() == transcript.first_prompt.strip())
    assert f"### Original task\n\n{first.text.strip()}" in prompt
    assert rendering.turn_markdown(first).strip() not in prompt, "and not again as a message"
    findings = prompt.split("## Original agent's findings", 1)[1].split("## Original agent's")[0]
    assert "conversation above" not in findings
    assert "final output below" not in findings
    # "short": its only words are its final output; a7be2f0: the rest narrates its steps
    assert bool(context.findings) == (ident in ("4d56", "8463"))
    if context.findings:
        assert all(f"- {f}" in findings for f in context.findings)
    else:
        assert "stated no conclusion besides its final output" in findings
    assert all(finding not in final for finding in context.findings)


def test_findings_are_the_agents_conclusions_then_its_last_words(tmp_path):
    from tests.resurrection_data import session

    claude = tmp_path / "claude"
    session(
        claude,
        "concl",
        "/srv/concl",
        [
            ("user", "Why does the build fail on CI?"),
            ("agent", "Looking at the logs now."),
            ("agent", "The root cause is a stale lock file in the cache folder. Removing it."),
            ("agent", "Checked the three workflows; only the nightly one restores that cache."),
            ("agent", "Done: the nightly workflow no longer restores the cache; CI is green."),
        ],
    )
    transcript, doc = _opened(claude, "concl")

    context = compress.compress(transcript, doc, "hybrid")

    assert context.findings == [
        "The root cause is a stale lock file in the cache folder. Removing it.",
        "Checked the three workflows; only the nightly one restores that cache.",
    ]


def test_digest_finds_files_errors_and_conclusions(tmp_path):
    from tests.resurrection_data import session_with_error

    session_with_error(tmp_path / "claude", "errs", "/srv/errs")
    transcript, doc = _opened(tmp_path / "claude", "errs")
    context = compress.compress(transcript, doc, "summarized")
    assert context.digest.tools == {"Bash": 1}
    assert any("ImportError" in error for error in context.digest.errors)
    # its conclusion is its final output, shown on its own and not again among the findings
    assert "the root cause is a typo" in context.final_output
    assert not any("root cause" in finding for finding in context.findings)


def test_a_failed_calls_result_is_cut_before_a_token_never_inside_it(tmp_path, cli, monkeypatch):
    """The digest cuts an error at 160 characters: where a token crosses the cut, the line
    stops before it, so no piece of it reaches the prompt (the piece left of a cut token is no
    longer one redaction knows)."""
    from tests.resurrection_data import session_with_error

    monkeypatch.chdir(tmp_path)  # the prompt's state of the work: no repository's history here

    token = "ghp_" + "Zq7Wx2Lm9Pk4Rt6Vy8Nb3Hc5Jd1Fg0Ss2Ee4A"
    error = "PermissionError: push refused " + "x" * 110 + f" with {token} for the remote"
    assert error.index(token) < 160 < error.index(token) + len(token)
    session_with_error(tmp_path / "claude", "errs", "/srv/errs", error)
    done = cli(
        "resurrect",
        "--session",
        "errs",
        "--method",
        "summarized",
        "--yes",
        "--claude-dir",
        str(tmp_path / "claude"),
    )
    assert done.exit_code == 0, done.stderr
    [line] = [line for line in done.stdout.splitlines() if "PermissionError" in line]
    assert line.endswith("x with …")
    assert "Zq7Wx2" not in done.stdout


def test_token_estimate_is_four_characters_per_token():
    assert compress.estimate_tokens("") == 0
    assert compress.estimate_tokens("abcd") == 1
    assert compress.estimate_tokens("abcde") == 2


def test_context_round_trips_through_its_dict(fixtures_copy):
    transcript, doc = _opened(fixtures_copy, "8463")
    context = compress.compress(transcript, doc, "hybrid")
    assert compress.Context.from_dict(json.loads(json.dumps(context.to_dict()))) == context


# path safety (SEC-2) -------------------------------------------------------------------------


def test_paths_inside_the_allowed_roots_are_accepted(tmp_path):
    (tmp_path / "root" / "project").mkdir(parents=True)
    roots = path_safety.roots([str(tmp_path / "root")])
    assert (
        path_safety.checked(tmp_path / "root" / "project", roots)
        == (tmp_path / "root" / "project").resolve()
    )


def test_dot_dot_escapes_are_refused_even_when_they_stay_inside(tmp_path):
    (tmp_path / "root" / "a").mkdir(parents=True)
    roots = path_safety.roots([str(tmp_path / "root")])
    with pytest.raises(UsageError, match=r"'\.\.' is not allowed"):
        path_safety.checked(f"{tmp_path}/root/a/../a", roots, "--from")


def test_symlink_escapes_are_refused(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path / "outside")
    roots = path_safety.roots([str(tmp_path / "root")])
    with pytest.raises(UsageError, match="symbolic link leads to"):
        path_safety.checked(tmp_path / "root" / "link", roots, "--from")


def test_paths_outside_every_root_are_refused_naming_each_root_once(tmp_path):
    roots = path_safety.roots([str(tmp_path / "root")])
    project = path_safety.folders([tmp_path / "root"])  # the current repository, a root too
    with pytest.raises(UsageError, match="outside the allowed folders") as refused:
        path_safety.checked("/etc", [*roots, *project], "--from")
    assert f"folders ({tmp_path / 'root'});" in str(refused.value)


# the resurrection log ------------------------------------------------------------------------


def _entry(**extra):
    base = {
        "resurrected_from_agent_id": "a1",
        "resurrected_from_session_id": "s1",
        "resurrection_mode": "direct",
        "context_extraction_method": "hybrid",
        "outcome": "success",
        "resurrected_from_project": "/p",
        "resurrected_in_project": "/p",
    }
    return {**base, **extra}


def test_log_entries_carry_every_tr1_field_and_numbered_ids(tmp_path):
    log = tmp_path / "history" / resurrection_log.FILE_NAME
    first = resurrection_log.append(log, _entry())
    second = resurrection_log.append(log, _entry())
    day = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert first["resurrection_id"] == f"res-{day}-001"
    assert second["resurrection_id"] == f"res-{day}-002"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert list(lines[0])[: len(resurrection_log.FIELDS)] == list(resurrection_log.FIELDS)


def test_a_lost_counter_is_recovered_from_the_tail_of_the_log(tmp_path):
    log = tmp_path / resurrection_log.FILE_NAME
    for _ in range(3):
        resurrection_log.append(log, _entry())
    resurrection_log.counter_path(log).unlink()
    assert resurrection_log.append(log, _entry())["resurrection_id"].endswith("-004")


def test_a_corrupt_counter_stops_the_append_and_is_kept(tmp_path):
    log = tmp_path / resurrection_log.FILE_NAME
    resurrection_log.append(log, _entry())
    counter = resurrection_log.counter_path(log)
    counter.write_text("{broken")
    before = log.read_bytes()
    with pytest.raises(CorruptFile):
        resurrection_log.append(log, _entry())
    assert counter.read_text() == "{broken"
    assert log.read_bytes() == before


def test_enums_are_enforced(tmp_path):
    with pytest.raises(ValueError):
        resurrection_log.append(tmp_path / "log.jsonl", _entry(outcome="maybe"))
    with pytest.raises(ValueError):
        resurrection_log.append(tmp_path / "log.jsonl", _entry(resurrection_mode="magic"))


def test_concurrent_appends_get_distinct_ids(tmp_path):
    log = tmp_path / resurrection_log.FILE_NAME
    code = (
        "import sys; from pathlib import Path; from purlin_resume.resurrection import log as r;"
        "[r.append(Path(sys.argv[1]), {'resurrection_mode': 'direct',"
        " 'context_extraction_method': 'hybrid', 'outcome': 'success'}) for _ in range(10)]"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(log)], cwd=Path(__file__).parents[2])
        for _ in range(6)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    ids = [json.loads(line)["resurrection_id"] for line in log.read_text().splitlines()]
    assert len(ids) == 60
    assert len(set(ids)) == 60


def test_completing_an_entry_appends_its_new_state_and_keeps_every_line(tmp_path):
    log = tmp_path / resurrection_log.FILE_NAME
    first = resurrection_log.append(log, _entry())
    resurrection_log.append(log, _entry())
    with open(log, "a") as handle:
        handle.write("not json\n")
    before = log.read_text()
    done = resurrection_log.complete(
        log, first["resurrection_id"], {"outcome": "failure", "outcome_reason": "x"}
    )
    assert done["outcome"] == "failure"
    after = log.read_text()
    assert after.startswith(before)
    assert json.loads(after[len(before) :]) == {**done, "revision": 2}
    entries, skipped = resurrection_log.read(log)
    assert entries[0] == done
    assert skipped == 1
    with pytest.raises(NotFound):
        resurrection_log.complete(log, "res-2000-01-01-001", {"outcome": "success"})


def test_stats_compute_the_seed_metrics():
    entries = [
        _entry(
            resurrection_mode="bookmark",
            context_size_tokens=100,
            latency_ms=10,
            resurrected_from_agent_type="Explore",
        ),
        _entry(
            resurrection_mode="bookmark",
            context_size_tokens=300,
            latency_ms=20,
            resurrected_from_agent_type="Explore",
            resurrected_in_project="/q",
        ),
        _entry(
            resurrection_mode="fuzzy",
            outcome="failure",
            outcome_reason="not found",
            resurrected_from_agent_id="zz",
            latency_ms=30,
        ),
    ]
    figures = resurrection_log.stats(entries)
    assert figures["top_agents"] == [{"agent": "a1", "resurrections": 2}]
    assert figures["success_rate_by_mode"]["bookmark"]["rate"] == 1.0
    assert figures["success_rate_by_mode"]["fuzzy"]["rate"] == 0.0
    assert figures["average_context_tokens_by_agent_type"] == {"Explore": 200}
    assert figures["cross_repo"] == {"cross": 1, "same": 2, "ratio": 0.333}
    assert figures["latency_ms"] == {"p50": 20, "p95": 30, "p99": 30}
    assert figures["top_failure_reasons"] == [{"reason": "not found", "count": 1}]


def test_since_accepts_dates_and_durations():
    assert resurrection_log.parse_since("2026-02-09").startswith("2026-02-09T00:00:00")
    assert resurrection_log.parse_since("7d") < resurrection_log.parse_since("1h")
    with pytest.raises(PurlinError):
        resurrection_log.parse_since("last tuesday")


# bookmarks -----------------------------------------------------------------------------------


def test_bookmark_ids_names_and_corrupt_files(tmp_path):
    path = tmp_path / "bookmarks.jsonl"
    first = bookmarks.add(path, bookmarks.Bookmark("", "one", "s1"))
    second = bookmarks.add(path, bookmarks.Bookmark("", "two", "s2", agent_id="a"))
    assert first.bookmark_id.startswith("bmk-")
    assert first.bookmark_id.endswith("-001")
    assert second.bookmark_id.endswith("-002")
    with pytest.raises(PurlinError, match="exists"):
        bookmarks.add(path, bookmarks.Bookmark("", "one", "s3"))
    with pytest.raises(UsageError):
        bookmarks.add(path, bookmarks.Bookmark("", "../evil", "s3"))
    bookmarks.update(path, "one", {"description": "d", "tags": ["x"]})
    bookmarks.record_resurrection(path, first.bookmark_id, "2026-01-01T00:00:00Z")
    loaded = {m.name: m for m in bookmarks.load(path, "local")}
    assert loaded["one"].description == "d"
    assert loaded["one"].resurrection_count == 1
    bookmarks.remove(path, second.bookmark_id)
    assert [m.name for m in bookmarks.load(path, "local")] == ["one"]
    with open(path, "a") as handle:
        handle.write("{oops\n")
    before = path.read_bytes()
    with pytest.raises(CorruptFile):
        bookmarks.add(path, bookmarks.Bookmark("", "three", "s3"))
    assert path.read_bytes() == before


def test_local_bookmarks_are_searched_before_global(tmp_path):
    local, global_ = tmp_path / "l.jsonl", tmp_path / "g.jsonl"
    bookmarks.add(global_, bookmarks.Bookmark("", "same", "global-session"))
    bookmarks.add(local, bookmarks.Bookmark("", "same", "local-session"))
    shelves = bookmarks.Shelves(local, global_)
    assert shelves.find("same").session_id == "local-session"


# search --------------------------------------------------------------------------------------


NOW = datetime(2026, 2, 13, 12, 0, tzinfo=timezone.utc)


def test_time_words_become_windows():
    found = query.parse("agent who analyzed tmux yesterday", NOW)
    assert found.words == ["tmux"]
    assert found.start == datetime(2026, 2, 12, tzinfo=timezone.utc)
    assert found.end == datetime(2026, 2, 13, tzinfo=timezone.utc)
    week = query.parse("last week", NOW)
    assert week.start == datetime(2026, 2, 2, tzinfo=timezone.utc)
    assert week.words == []
    dated = query.parse("rendering 2026-02-11", NOW)
    assert dated.start == datetime(2026, 2, 11, tzinfo=timezone.utc)
    assert query.parse("3 days ago", NOW).start == datetime(2026, 2, 10, tzinfo=timezone.utc)


def test_search_ranks_words_typos_time_and_projects(fixtures_copy, tmp_path):
    cache = tmp_path / "cache"
    best = search_index.search(fixtures_copy, cache, "tmux module test setup", now=NOW)[0]
    assert best.agent_id == "a7be2f0"
    assert "word tmux" in best.reasons
    typo = search_index.search(fixtures_copy, cache, "tmxu modle", now=NOW)
    assert typo
    assert any(r.startswith("word tmxu~") for r in typo[0].reasons)
    dated = search_index.search(fixtures_copy, cache, "transcript rendering yesterday", now=NOW)
    assert dated[0].agent_id == "a2898e3"
    assert "time yesterday" in dated[0].reasons
    assert all(hit.ended_at >= "2026-02-12" for hit in dated)
    project = search_index.search(fixtures_copy, cache, "spotter-dov", now=NOW)
    assert project[0].session_id.startswith("4d56")
    assert "project spotter-dov" in project[0].reasons
    named = search_index.search(
        fixtures_copy,
        cache,
        "beads-expert",
        bookmarks=[search_index.BookmarkName("beads-expert", SHORT, None)],
        now=NOW,
    )
    assert named[0].session_id == SHORT
    assert "bookmark beads-expert" in named[0].reasons


SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"  # short.jsonl, by the id its records carry


def test_the_index_is_incremental_and_safe_to_delete(fixtures_copy, tmp_path):
    cache = tmp_path / "cache"
    assert search_index.refresh(fixtures_copy, cache)["read"] == 6
    assert search_index.refresh(fixtures_copy, cache)["read"] == 0
    short = next(fixtures_copy.glob("projects/*/short.jsonl"))
    with open(short, "a") as handle:
        handle.write("\n")
    assert search_index.refresh(fixtures_copy, cache)["read"] == 1
    short.unlink()
    assert search_index.refresh(fixtures_copy, cache)["dropped"] == 1
    for path in cache.iterdir():
        path.unlink()
    assert search_index.search(fixtures_copy, cache, "tmux")  # rebuilt on demand
    index = search_index.index_path(fixtures_copy, cache)
    index.write_bytes(b"this is not a database" * 100)
    assert search_index.search(fixtures_copy, cache, "tmux")  # a damaged cache is rebuilt


def test_the_index_holds_no_secret(tmp_path):
    from tests.core.test_redact import PLANTED
    from tests.resurrection_data import session

    claude = tmp_path / "claude"
    session(
        claude,
        "leaky",
        "/srv/leaky",
        [("user", "deploy with " + PLANTED["github-token"]), ("agent", "done")],
    )
    cache = tmp_path / "cache"
    search_index.refresh(claude, cache)
    assert (
        PLANTED["github-token"].encode() not in search_index.index_path(claude, cache).read_bytes()
    )


def test_store_sequenced_append_survives_a_line_cut_short(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text('{"resurrection_id":"res-2026-01-01-001"')  # a crash cut it
    record = store.append_jsonl_sequenced(
        log, tmp_path / "seq", lambda state, tail: ({"n": 1}, {"last": 1})
    )
    assert record == {"n": 1}
    assert log.read_text().splitlines()[-1] == '{"n":1}'
    assert os.path.exists(tmp_path / "seq")
