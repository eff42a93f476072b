"""A session found by `find`, `recommend` or `resurrect find` carries the title `sessions` gives
it: a summary Claude Code copied to the top of a later session's file titles the session it
summarises, not the file it sits in."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from purlin_resume.core import cache_home, redact
from purlin_resume.resurrection import search_index

LATER = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"  # its file starts with EARLIER's summary
EARLIER = "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
SUMMARY = "Empty Repo Setup: CLAUDE.md Foundation Created"


def _listed_titles(cli, root: Path) -> dict[str, str]:
    shown = cli("sessions", "--all", "--json", "--claude-dir", str(root))
    return {s["id"]: s["title"] for s in json.loads(shown.stdout)["sessions"]}


def _found_title(cli, root: Path, query: str, session: str) -> str:
    shown = json.loads(cli("find", query, "--json", "--claude-dir", str(root)).stdout)
    return next(r["title"] for r in shown["results"] if r["session_id"] == session)


def test_find_recommend_and_candidates_title_a_session_as_sessions_does(cli, fixtures_copy, repo):
    listed = _listed_titles(cli, fixtures_copy)
    assert listed[LATER] == "/orchestrator create TODO app by Next.js"
    assert listed[EARLIER] == SUMMARY
    assert _found_title(cli, fixtures_copy, "orchestrator", LATER) == listed[LATER]
    assert _found_title(cli, fixtures_copy, "CLAUDE.md", EARLIER) == SUMMARY
    task = ["--task", "orchestrator TODO app", "--project", str(repo)]
    recommended = json.loads(
        cli("recommend", *task, "--json", "--claude-dir", str(fixtures_copy)).stdout
    )["recommendations"]
    assert {r["session_id"]: r["title"] for r in recommended}[LATER] == listed[LATER]
    preview = ["--preview", "--json", "--claude-dir", str(fixtures_copy)]
    picked = json.loads(cli("resurrect", "find", "orchestrator", *preview).stdout)["candidates"]
    assert {c["session_id"]: c["title"] for c in picked}[LATER] == listed[LATER]


def test_a_later_session_s_summary_retitles_the_session_already_indexed(cli, fixtures_copy):
    later = next(fixtures_copy.glob(f"projects/*/{LATER}.jsonl"))
    aside = later.with_name("later.aside")
    later.rename(aside)
    assert _found_title(cli, fixtures_copy, "CLAUDE.md", EARLIER) != SUMMARY
    aside.rename(later)
    assert _found_title(cli, fixtures_copy, "CLAUDE.md", EARLIER) == SUMMARY
    assert _found_title(cli, fixtures_copy, "orchestrator", LATER) == (
        "/orchestrator create TODO app by Next.js"
    )


def test_an_index_written_with_the_old_titles_is_built_again(cli, fixtures_copy):
    _found_title(cli, fixtures_copy, "orchestrator", LATER)
    cache = Path(cache_home.folder())
    path = search_index.index_path(fixtures_copy, cache)
    connection = sqlite3.connect(path)
    with connection:  # what the index held before titles came from the catalog
        connection.execute("UPDATE docs SET title=? WHERE id=?", (SUMMARY, LATER))
        old = f"6 {redact.fingerprint()}"
        connection.execute("UPDATE meta SET value=? WHERE key='schema'", (old,))
    connection.close()
    assert _found_title(cli, fixtures_copy, "orchestrator", LATER) != SUMMARY
