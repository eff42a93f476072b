"""Team sharing through Dolt: two teammates (two HOMEs) and a file:// remote in a temp dir."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.core.test_redact import PLANTED
from tests.team_setup import ROOT, Teammate, require_team_extra, teammate


@pytest.fixture(autouse=True)
def _team_extra():
    require_team_extra()


SECRET = PLANTED["github-token"]
TMUX_EXPERT = ["bookmark", "add", "tmux-expert", "--session", "8463", "--agent", "a7be2f0"]


@pytest.fixture
def remote(tmp_path) -> str:
    folder = tmp_path / "shared-drive"
    folder.mkdir()
    return f"file://{folder}/purlin-team.db"


@pytest.fixture
def team(tmp_path, remote) -> tuple[Teammate, Teammate]:
    alice, bob = teammate(tmp_path, "alice"), teammate(tmp_path, "bob")
    assert "created" in alice.ok("team", "init", "--remote", remote).stdout
    assert "joined" in bob.ok("team", "init", "--remote", remote).stdout
    return alice, bob


def _rows(who: Teammate) -> tuple[list[dict], list[dict]]:
    log = who.ok("resurrections", "--team", "--json").json()["resurrections"]
    marks = who.ok("bookmark", "list", "--team", "--json").json()["bookmarks"]
    return sorted(log, key=lambda e: e["resurrection_id"]), sorted(
        marks, key=lambda m: m["bookmark_id"]
    )


def _work(who: Teammate) -> None:
    """A bookmark and two resurrections (one completed), all on the same day as the other's."""
    who.ok(*TMUX_EXPERT, "--description", f"tmux tests; token {SECRET}")
    who.ok("resurrect", "tmux-expert", "--yes")
    who.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    first = who.log()[0]["resurrection_id"]
    who.ok("resurrect", "done", first, "--outcome", "success", "--tool-calls", "7")


@pytest.mark.slow
@pytest.mark.parametrize("first", ["alice", "bob"])
def test_two_teammates_end_with_identical_tables_holding_every_row(team, first):
    alice, bob = team
    _work(alice)
    _work(bob)
    local_ids = [e["resurrection_id"] for e in alice.log()]
    assert local_ids == [e["resurrection_id"] for e in bob.log()]  # the same local ids
    assert local_ids[0].endswith("-001")
    order = [alice, bob] if first == "alice" else [bob, alice]
    for who in [*order, order[0]]:
        who.ok("team", "sync")

    log_a, marks_a = _rows(alice)
    log_b, marks_b = _rows(bob)
    assert log_a == log_b and marks_a == marks_b
    assert len(log_a) == 4 and len(marks_a) == 2
    ids = {e["resurrection_id"] for e in log_a}
    members = {
        json.loads((w.history / "team" / "team.json").read_text())["member"] for w in (alice, bob)
    }
    assert ids == {f"{local}.{member}" for local in local_ids for member in members}
    assert {e["local_resurrection_id"] for e in log_a} == set(local_ids)
    done = [e for e in log_a if e["local_resurrection_id"] == local_ids[0]]
    assert all(e["new_agent_tool_calls"] == 7 for e in done)
    assert all(m["resurrection_count"] == 1 and m["team_resurrections"] == 1 for m in marks_a)
    assert all(SECRET not in json.dumps(x) for x in (log_a, marks_a))
    assert all("[REDACTED:github-token" in m["description"] for m in marks_a)

    commits = alice.ok("team", "log", "--limit", "100", "--json").json()["commits"]
    assert commits == bob.ok("team", "log", "--limit", "100", "--json").json()["commits"]
    committers = {c["committer"] for c in commits}
    assert members <= committers
    messages = "\n".join(c["message"] for c in commits)
    for entry in log_a:
        assert f"resurrection {entry['resurrection_id']}" in messages
    assert f"resurrect done {local_ids[0]}." in messages
    assert "bookmark add tmux-expert" in messages and "bookmark count tmux-expert" in messages

    stats = bob.ok("resurrections", "stats", "--team", "--json").json()
    assert stats["total"] == 4
    assert stats["success_rate_by_mode"]["bookmark"]["total"] == 2


@pytest.mark.slow
def test_a_shared_bookmark_is_found_and_resurrected_by_the_teammate(team):
    alice, bob = team
    alice.ok(*TMUX_EXPERT, "--description", f"knows tmux; key {SECRET}", "--tag", "tmux")
    shared = alice.ok("bookmark", "share", "tmux-expert", "--json").json()
    assert shared["bytes"] > 0 and shared["bookmark_id"].startswith("bmk-")
    alice.ok("team", "sync")
    bob.ok("team", "sync")

    found = bob.ok("find", "--team", "tmux", "--json").json()["results"]
    assert [m["name"] for m in found] == ["tmux-expert"] and found[0]["shared"]
    assert bob.ok("find", "--team", "no-such-thing").stdout.startswith("No team bookmark")
    result = bob.ok(
        "resurrect", "tmux-expert", "--team", "--task", "Fix the flaky pane test", "--json"
    ).json()
    prompt = result["prompt"]
    assert "a7be2f0" in prompt and prompt.rstrip().endswith("Fix the flaky pane test")
    assert SECRET not in prompt
    [entry] = bob.log()
    assert entry["bookmark_id"] == found[0]["bookmark_id"]  # the team id: alice's bookmark
    assert entry["resurrection_mode"] == "bookmark" and entry["resurrected_by"] == "bob"
    bob.ok("team", "sync")
    alice.ok("team", "sync")
    [mark] = alice.ok("bookmark", "list", "--team", "--json").json()["bookmarks"]
    assert mark["team_resurrections"] == 1
    [row] = alice.ok("resurrections", "--team", "--json").json()["resurrections"]
    assert row["bookmark_id"] == mark["bookmark_id"] and row["resurrected_by"] == "bob"


@pytest.mark.slow
def test_share_never_passes_secrets_and_refuses_no_redact(team):
    alice, _ = team
    alice.ok(*TMUX_EXPERT)
    refused = alice("bookmark", "share", "tmux-expert", "--no-redact")
    assert refused.code == 2 and "--no-redact is refused" in refused.error()
    missing = alice("bookmark", "share", "nobody")
    assert missing.code == 1 and "nobody" in missing.error()
    # the pack is redacted value by value, whatever the transcript held
    alice.ok("bookmark", "share", "tmux-expert")
    code = (
        "import sys, json, zlib; from purlin_resume.team import engine; s = engine.sqlite();"
        "c = s.connect(sys.argv[1]); [(p,)] = c.execute('select pack from context_packs');"
        "print(zlib.decompress(p).decode())"
    )
    pack = subprocess.run(
        [sys.executable, "-c", code, str(alice.history / "team" / "purlin-team.db")],
        capture_output=True,
        text=True,
        check=True,
        env=alice.env(),
        cwd=ROOT,
    ).stdout
    context = json.loads(pack)
    assert context["agent_id"] == "a7be2f0" and context.get("transcript") in (None, "")


@pytest.mark.slow
def test_a_failed_mirror_is_one_warning_and_the_local_change_stands(team):
    alice, _ = team
    (alice.history / "team" / "purlin-team.db").rename(alice.history / "team" / "moved.db")
    done = alice.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: team")]
    assert len(warnings) == 1 and "missing" in warnings[0], done.stderr
    assert len(alice.log()) == 1
    (alice.history / "team" / "moved.db").rename(alice.history / "team" / "purlin-team.db")
    alice.ok("team", "sync")  # the queued change is committed now
    assert len(alice.ok("resurrections", "--team", "--json").json()["resurrections"]) == 1
    assert alice.ok("team", "status", "--json").json()["queued"] == 0


def test_without_a_team_nothing_is_mirrored(tmp_path):
    alone = teammate(tmp_path, "carol")
    done = alone.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    assert "team" not in done.stderr
    assert not (alone.history / "team").exists()
    status = alone("team", "status")
    assert status.code == 1 and "team init" in status.error()


@pytest.mark.slow
def test_concurrent_syncs_from_both_sides_all_complete(team):
    alice, bob = team
    _work(alice)
    _work(bob)
    runs = [who.popen("team", "sync") for who in (alice, bob, alice, bob, alice, bob)]
    for run in runs:
        out, err = run.communicate(timeout=180)
        assert run.returncode == 0, err
    for who in (alice, bob, alice):
        who.ok("team", "sync")
    assert _rows(alice) == _rows(bob)
    assert len(_rows(alice)[0]) == 4


@pytest.mark.slow
def test_a_sync_killed_midway_leaves_a_database_that_opens_and_a_sync_that_completes(team):
    alice, bob = team
    queue = alice.history / "team" / "outbox.jsonl"
    entry = {
        "resurrected_from_agent_id": "a7be2f0",
        "resurrected_from_session_id": "8463",
        "resurrected_from_hostname": "h",
        "resurrected_from_project": "/p",
        "resurrected_as_agent_id": "agent-x",
        "resurrected_at": "2026-02-09T15:00:00Z",
        "resurrected_in_session": "s",
        "resurrected_in_project": "/q",
        "resurrected_by": "alice",
        "resurrection_mode": "direct",
        "context_extraction_method": "hybrid",
        "outcome": "success",
    }
    lines = [
        json.dumps(
            {
                "kind": "resurrection",
                "op": "append",
                "record": {**entry, "resurrection_id": f"res-2026-02-09-{n:03d}"},
            }
        )
        for n in range(1, 3001)
    ]
    queue.write_text("\n".join(lines) + "\n")
    for delay in (0.4, 0.8, 1.2):
        run = alice.popen("team", "sync")
        time.sleep(delay)
        os.kill(run.pid, signal.SIGKILL)
        run.communicate()
        assert alice("team", "status", "--json").code == 0
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    assert len(bob.ok("resurrections", "--team", "--json").json()["resurrections"]) == 3000
    assert alice.ok("team", "status", "--json").json()["queued"] == 0


# bad input: one line each, local state untouched ------------------------------------------

_DOLT_SCRIPT = """
import sys
from purlin_resume.team import engine, schema
sqlite3 = engine.sqlite()
action, path, remote = sys.argv[1:4]
db = sqlite3.connect(path, isolation_level=None)
if action == "newer-remote":  # a team database from a later purlin-resume
    for statement in schema.statements(mysql=False):
        db.execute(statement)
    db.execute("INSERT INTO purlin_team VALUES ('schema_version', '99')")
elif action == "foreign-remote":  # a Dolt database of something else
    db.execute("CREATE TABLE stuff (x INT)")
elif action == "bump":  # a teammate on a later version pushes its schema
    db.execute("SELECT dolt_clone(?)", (remote,))
    db.execute("UPDATE purlin_team SET value = '99' WHERE name = 'schema_version'")
    db.execute("SELECT dolt_commit('-A', '-m', 'schema 99')")
    db.execute("SELECT dolt_push('origin', 'main')")
    sys.exit(0)
db.execute("SELECT dolt_commit('-A', '-m', 'made')")
db.execute("SELECT dolt_remote('add', 'origin', ?)", (remote,))
db.execute("SELECT dolt_push('origin', 'main', '--force')")
"""


def _dolt(who: Teammate, action: str, path: Path, remote: str) -> None:
    subprocess.run(
        [sys.executable, "-c", _DOLT_SCRIPT, action, str(path), remote],
        check=True,
        env=who.env(),
        cwd=ROOT,
        capture_output=True,
    )


def _untouched(who: Teammate) -> None:
    assert not (who.history / "team" / "team.json").exists()
    assert not (who.history / "team" / "purlin-team.db").exists()
    assert [p.name for p in (who.history / "team").iterdir() if p.name.startswith(".")] == []


@pytest.mark.slow
def test_init_refuses_bad_remotes_in_one_line_each(tmp_path):
    dave = teammate(tmp_path, "dave", transcripts=False)
    (tmp_path / "notes.db").write_text("not a database at all\n" * 100)
    _dolt(dave, "newer-remote", tmp_path / "maker.db", f"file://{tmp_path}/newer.db")
    _dolt(dave, "foreign-remote", tmp_path / "maker2.db", f"file://{tmp_path}/foreign.db")
    cases = [
        ("http://127.0.0.1:9/team.db", 1, "cannot reach"),
        (f"file://{tmp_path}/notes.db", 1, "not a Dolt database"),
        (f"file://{tmp_path}/newer.db", 1, "newer than this purlin-resume"),
        (f"file://{tmp_path}/foreign.db", 1, "not a purlin-resume team database"),
        (f"file://{tmp_path}/no/such/folder/team.db", 1, "folder does not exist"),
        ("ftp://example.com/team.db", 2, "file:///"),
        ("file://relative/team.db", 2, "absolute path"),
        (f"file://{tmp_path}/x.db\n$(touch {tmp_path}/pwned)", 2, "control characters"),
    ]
    for url, code, words in cases:
        done = dave("team", "init", "--remote", url)
        assert done.code == code, (url, done.stderr)
        assert words in done.error(), (url, done.stderr)
        _untouched(dave)
    assert not (tmp_path / "pwned").exists()
    both = dave("team", "init", "--remote", "file:///x.db", "--dsn", "mysql://u@h/db")
    assert both.code == 2 and "either" in both.error()
    bad_dsn = dave("team", "init", "--dsn", "postgres://u:secretpw@h/db")
    assert bad_dsn.code == 2 and "secretpw" not in bad_dsn.stderr


@pytest.mark.slow
def test_a_pulled_schema_from_a_newer_version_is_refused_and_undone(team, remote, tmp_path):
    alice, bob = team
    _work(bob)
    bob.ok("team", "sync")
    before = bob.ok("team", "status", "--json").json()
    _dolt(alice, "bump", tmp_path / "later.db", remote)
    refused = bob("team", "sync")
    assert refused.code == 1 and "newer than this purlin-resume" in refused.error()
    after = bob.ok("team", "status", "--json").json()
    assert after["head"] == before["head"] and after["resurrections"] == before["resurrections"]
    assert len(bob.log()) == 2  # the local log is the source of truth, untouched


@pytest.mark.slow
def test_a_second_init_and_a_corrupt_config_are_one_line(team, remote):
    alice, _ = team
    again = alice("team", "init", "--remote", remote)
    assert again.code == 1 and "already in a team" in again.error()
    (alice.history / "team" / "team.json").write_text("{not json")
    broken = alice("team", "status")
    assert broken.code == 1 and "corrupt" in broken.error()


def test_without_the_team_extra_every_team_command_is_one_line(tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\nsys.modules['doltlite'] = None\nsys.modules['pymysql'] = None\n"
    )
    erin = teammate(tmp_path, "erin", transcripts=False)
    erin.extra_env["PYTHONPATH"] = f"{hide}{os.pathsep}{ROOT}"
    for args in (
        ["team", "init", "--remote", f"file://{tmp_path}/t.db"],
        ["team", "status"],
        ["team", "sync"],
        ["team", "log"],
        ["resurrections", "--team"],
        ["resurrections", "stats", "--team"],
        ["bookmark", "list", "--team"],
        ["find", "--team", "tmux"],
        ["bookmark", "share", "tmux-expert"],
        ["resurrect", "tmux-expert", "--team"],
    ):
        done = erin(*args)
        assert done.code == 1, (args, done.stderr)
        assert done.error() == (
            "error: team sharing needs the team extra: pip install 'purlin-resume[team]'"
        ), args
    assert erin.ok("resurrections").stdout.startswith("No resurrections")
    assert not (erin.history / "team").exists()


def test_the_cli_and_the_hook_path_load_neither_sqlite_nor_doltlite():
    code = (
        "import sys\n"
        "import purlin_resume.integration.hook_call, purlin_resume.cli.commands, purlin_resume.integration.capture\n"
        "import purlin_resume.resurrection.log, purlin_resume.resurrection.bookmarks\n"
        "from purlin_resume.resurrection import team_outbox, team_membership\n"
        "print(sorted(m for m in ('sqlite3', '_sqlite3', 'doltlite', 'pymysql') "
        "if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_bookmark_changes_are_mirrored_and_a_removal_keeps_the_row(team, tmp_path):
    alice, bob = team
    alice.ok(*TMUX_EXPERT, "--global")
    alice.ok(
        "bookmark", "update", "tmux-expert", "--global", "--description", "panes", "--tag", "t"
    )
    [mark] = alice.ok("bookmark", "list", "--team", "--json").json()["bookmarks"]
    assert mark["description"] == "panes" and mark["tags"] == ["t"] and mark["scope"] == "global"
    alice.ok("bookmark", "rm", "tmux-expert", "--global")
    assert alice.ok("bookmark", "list", "--team", "--json").json()["bookmarks"] == []
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    assert bob.ok("bookmark", "list", "--team").stdout == "No team bookmarks.\n"
    messages = [c["message"] for c in bob.ok("team", "log", "--json").json()["commits"]]
    assert [m.split(" ")[1] for m in messages if m.startswith("bookmark ")][:3] == [
        "remove",
        "update",
        "add",
    ]
    hostile = bob("resurrect", f"$(touch {tmp_path}/pwned)\n", "--team")
    assert hostile.code == 1 and "no team bookmark" in hostile.error()
    assert not (tmp_path / "pwned").exists()


@pytest.mark.slow
def test_a_change_is_committed_by_a_detached_flush_without_waiting(team):
    alice, _ = team
    alice.extra_env["PURLIN_TEAM_FOREGROUND"] = ""
    alice.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    deadline = time.monotonic() + 90
    while True:  # status reads without committing: only the detached flush can empty the queue
        status = alice.ok("team", "status", "--json").json()
        if status["queued"] == 0 and status["resurrections"] == 1:
            break
        assert time.monotonic() < deadline, status
        time.sleep(0.5)
    assert status["last_failure"] is None and status["pushed"] is False
