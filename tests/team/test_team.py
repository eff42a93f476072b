"""Team sharing through git: teammates (each a HOME of their own) and a bare repository on disk
or a ``git daemon`` on loopback; the faults that used to lose or overwrite rows."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, git
from tests.core.test_redact import PLANTED
from tests.team_setup import Teammate, git_daemon, teammate

SECRET = PLANTED["github-token"]
TMUX_EXPERT = ["bookmark", "add", "tmux-expert", "--session", "8463", "--agent", "a7be2f0"]


@pytest.fixture
def remote(tmp_path) -> str:
    (tmp_path / "shared-drive").mkdir()
    return str(tmp_path / "shared-drive" / "team.git")


@pytest.fixture(params=["bare repository on disk", "git daemon on loopback"])
def served(request, tmp_path, remote) -> Iterator[tuple[str, Path]]:
    """The team's remote: its URL and the bare repository behind it."""
    if request.param.startswith("bare"):
        yield remote, Path(remote)
        return
    with git_daemon(tmp_path) as url:
        yield url, tmp_path / "served" / "team.git"


def _tree(repository: Path, member: str) -> dict[str, str]:
    """The team ref's files of one teammate at the remote's tip: path -> content."""
    found = {}
    listing = git(
        repository,
        "--git-dir",
        str(repository),
        "ls-tree",
        "-r",
        "--name-only",
        "refs/purlin/team",
        f"members/{member}",
    )
    for name in listing.split():
        found[name] = git(
            repository, "--git-dir", str(repository), "show", f"refs/purlin/team:{name}"
        )
    return found


def _member(who: Teammate) -> str:
    return (who.history / "team" / "member").read_text().strip()


def _team(tmp_path: Path, remote: str, names=("alice", "bob", "carol")) -> list[Teammate]:
    found = []
    for number, name in enumerate(names):
        who = teammate(tmp_path, name)
        said = who.ok("team", "init", "--remote", remote).stdout
        assert ("created" if number == 0 and "://" not in remote else "joined") in said
        found.append(who)
    return found


def _log(who: Teammate) -> list[dict]:
    return who.ok("resurrections", "--team", "--json").json()["resurrections"]


def _marks(who: Teammate) -> list[dict]:
    return who.ok("bookmark", "list", "--team", "--json").json()["bookmarks"]


def _local_keys(who: Teammate) -> set[str]:
    return {e["uuid"] for e in who.log()}


def _work(who: Teammate) -> None:
    who.ok(*TMUX_EXPERT, "--description", f"tmux tests; token {SECRET}")
    who.ok("resurrect", "tmux-expert", "--yes")
    who.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    first = who.log()[0]["resurrection_id"]
    who.ok("resurrect", "done", first, "--outcome", "success", "--tool-calls", "7")


@pytest.mark.slow
def test_three_teammates_share_everything(tmp_path, served):
    remote, repository = served
    team = _team(tmp_path, remote)
    for who in team:
        _work(who)
        who.ok("bookmark", "share", "tmux-expert")
        who.ok("team", "sync")
    for who in team:
        who.ok("team", "sync")

    logs = [_log(w) for w in team]
    marks = [_marks(w) for w in team]
    assert logs[0] == logs[1] == logs[2]
    assert marks[0] == marks[1] == marks[2]
    assert {e["uuid"] for e in logs[0]} == set().union(*(_local_keys(w) for w in team))
    assert len(logs[0]) == 6
    assert len(marks[0]) == 3
    assert all(m["shared"] for m in marks[0])
    assert SECRET not in json.dumps(logs + marks)
    done = [e for e in logs[0] if e.get("new_agent_tool_calls") == 7]
    assert len(done) == 3
    assert all(e["outcome"] == "success" for e in done)

    # the statistics, computed in SQL, are those of the three logs read as one
    from purlin_resume.resurrection import log as resurrection_log

    everyone = sorted((e for w in team for e in w.log()), key=lambda e: e["resurrected_at"])
    figures = team[2].ok("resurrections", "stats", "--team", "--json").json()
    expected = resurrection_log.stats(everyone)
    for name in ("total", "success_rate_by_mode", "cross_repo", "top_failure_reasons"):
        assert figures[name] == expected[name], name

    # a teammate's shared bookmark, found and resurrected by another
    bobs = [m for m in marks[0] if m["member"].startswith("bob-")][0]
    found = team[0].ok("find", "--team", "tmux", "--json").json()["results"]
    assert bobs["uuid"] in {m["uuid"] for m in found}
    revived = team[0].ok("resurrect", bobs["uuid"], "--team", "--json").json()
    assert "a7be2f0" in revived["prompt"]
    assert SECRET not in revived["prompt"]
    team[0].ok("team", "sync")
    team[1].ok("team", "sync")
    assert any(e.get("bookmark_uuid") == bobs["uuid"] for e in _log(team[1]))

    # history from git: one commit per sync that sent something, by its teammate
    commits = team[1].ok("team", "log", "--json").json()["commits"]
    assert {c["committer"].split("-")[0] for c in commits} == {"alice", "bob", "carol"}
    status = team[2].ok("team", "status", "--json").json()
    assert status["unsent"] == 0
    assert status["transport"] == "git"

    # bookmark rm: the bookmark, its shared context and its earlier lines leave the team's files
    carols = [m for m in marks[0] if m["member"].startswith("carol-")][0]
    team[2].ok("bookmark", "rm", "tmux-expert")
    team[2].ok("team", "sync")
    files = _tree(repository, carols["member"])
    assert not any(name.endswith(".json.z") for name in files)
    left = [
        json.loads(line)
        for name, text in sorted(files.items())
        if name.startswith(f"members/{carols['member']}/bookmarks/")
        for line in text.splitlines()
    ]
    assert left == [
        {
            "uuid": carols["uuid"],
            "bookmark_id": carols["bookmark_id"],
            "removed_at": left[0]["removed_at"],
        }
    ]
    team[0].ok("team", "sync")
    assert carols["uuid"] not in {m["uuid"] for m in _marks(team[0])}
    gone = team[0]("resurrect", carols["uuid"], "--team", "--yes")
    assert gone.code == 1
    assert "no team bookmark" in gone.error()


@pytest.mark.slow
def test_ids_that_repeat_never_overwrite_a_row(tmp_path, remote):
    alice, bob = _team(tmp_path, remote, ("alice", "bob"))
    # bookmark rm then add: the same readable id, a new uuid; the old shared context is gone
    alice.ok("bookmark", "add", "temp-d", "--session", "8463", "--agent", "a7be2f0")
    alice.ok("bookmark", "share", "temp-d")
    alice.ok("team", "sync")
    bob.ok("team", "sync")  # reads show the team as of the last sync
    old = _marks(bob)[0]
    alice.ok("bookmark", "rm", "temp-d")
    alice.ok("bookmark", "add", "temp-d", "--session", "4d56")
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    (new,) = _marks(bob)
    assert new["bookmark_id"] == old["bookmark_id"]
    assert new["uuid"] != old["uuid"]
    assert new["session_id"].startswith("4d56")
    assert not new["shared"]
    refused = bob("resurrect", "temp-d", "--team", "--yes")
    assert refused.code == 1
    assert "no shared context" in refused.error()

    # one teammate's bookmarks in two projects: both bmk-...-001, both kept
    other = alice.home / "other-project"
    shutil.copytree(alice.project, other)
    shutil.rmtree(other / ".purlin")  # a project with no bookmarks of its own yet
    alice.project, first = other, alice.project
    alice.ok("bookmark", "add", "explorer", "--session", "4d56", "--agent", "agent-a2898e3")
    alice.ok("team", "sync")
    alice.project = first
    bob.ok("team", "sync")
    assert {m["name"] for m in _marks(bob)} == {"temp-d", "explorer"}
    assert len({m["bookmark_id"] for m in _marks(bob)}) == 1

    # a clock set back repeats a resurrection id: both events stay
    alice.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    counter = alice.history / "resurrection-log.jsonl.seq"
    state = json.loads(counter.read_text())
    counter.write_text(json.dumps({**state, "last": state["last"] - 1}))
    alice.ok("resurrect", "--session", "8463", "--yes")
    assert len({e["resurrection_id"] for e in alice.log()}) == 1
    assert len(alice.log()) == 2
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    assert {e["uuid"] for e in _log(bob)} == _local_keys(alice)


def _in_a_deleted_folder(who: Teammate, *args: str) -> subprocess.CompletedProcess:
    """``purlin-resume ARGS`` run by ``who`` in a working folder deleted before it starts."""
    gone = who.home / "gone"
    gone.mkdir(exist_ok=True)
    return subprocess.run(
        ["sh", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", str(gone)]
        + [sys.executable, "-m", "purlin_resume", *args],
        env=who.env(),
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_deleted_working_folder_reads_the_team_and_refuses_a_resurrection(tmp_path, remote):
    alice, bob = _team(tmp_path, remote, ("alice", "bob"))
    alice.ok(*TMUX_EXPERT)
    alice.ok("bookmark", "share", "tmux-expert")
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    (mark,) = _marks(bob)
    # the team's files are read whatever the working folder became
    listed = _in_a_deleted_folder(bob, "bookmark", "list", "--team", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [m["uuid"] for m in json.loads(listed.stdout)["bookmarks"]] == [mark["uuid"]]
    assert _in_a_deleted_folder(bob, "team", "sync").returncode == 0

    ran = _in_a_deleted_folder(bob, "resurrect", mark["uuid"], "--team", "--yes")
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout == ""
    assert ran.stderr.strip().splitlines() == [
        "error: the working folder no longer exists; run in the project or pass --project"
    ]
    assert not (bob.history / "resurrection-log.jsonl").exists()
    # with --project, the same bookmark is resurrected from anywhere
    revived = bob.ok("resurrect", mark["uuid"], "--team", "--project", str(bob.project))
    assert "a7be2f0" in revived.stdout


@pytest.mark.slow
def test_a_rolled_back_or_deleted_local_copy_loses_nothing(tmp_path, remote):
    alice, bob = _team(tmp_path, remote, ("alice", "bob"))
    _work(alice)
    snapshot = tmp_path / "snapshot"
    shutil.copytree(alice.history, snapshot)  # the log and the team folder before the sync
    alice.ok("team", "sync")
    alice.ok("resurrect", "--session", "4d56", "--yes")

    # the team folder rolled back, then deleted: every sync sends what the team lacks
    shutil.rmtree(alice.history / "team" / "repo.git")
    shutil.copytree(snapshot / "team", alice.history / "team", dirs_exist_ok=True)
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    assert {e["uuid"] for e in _log(bob)} == _local_keys(alice)
    shutil.rmtree(alice.history / "team" / "repo.git")
    (alice.history / "team" / "index.sqlite").unlink()
    assert alice.ok("team", "sync", "--json").json()["sent"]["resurrections"] == 0

    # the log rolled back to an older copy: nothing older is sent over the team's newer rows
    shutil.copy(snapshot / "resurrection-log.jsonl", alice.history / "resurrection-log.jsonl")
    before = _log(bob)
    assert alice.ok("team", "sync", "--json").json()["sent"]["resurrections"] == 0
    bob.ok("team", "sync")
    assert _log(bob) == before
    assert len(before) == 3
    assert sum(e.get("new_agent_tool_calls") == 7 for e in before) == 1


@pytest.mark.slow
def test_a_home_copied_to_a_second_machine_syncs_alongside(tmp_path, remote):
    (alice,) = _team(tmp_path, remote, ("alice",))
    alice.ok(*TMUX_EXPERT)
    alice.ok("team", "sync")
    twin = Teammate("alice", tmp_path / "laptop", tmp_path / "laptop" / "project", {})
    shutil.copytree(alice.home, twin.home, symlinks=True)
    alice.ok("resurrect", "--session", "4d56", "--yes")
    twin.ok("resurrect", "--session", "8463", "--yes")
    runs = [w.popen("team", "sync") for w in (alice, twin)]
    assert [r.wait(timeout=120) for r in runs] == [0, 0]
    alice.ok("team", "sync")
    keys = {e["uuid"] for e in _log(alice)}
    assert keys == _local_keys(alice) | _local_keys(twin)
    assert len(keys) == 2


def _append(history: Path, number: int) -> None:
    from purlin_resume.resurrection import log as resurrection_log

    resurrection_log.append(
        history / resurrection_log.FILE_NAME,
        {
            "resurrected_from_agent_id": f"agent-{number}",
            "resurrected_from_session_id": "s",
            "resurrection_mode": "direct",
            "context_extraction_method": "hybrid",
            "outcome": "success",
            "new_agent_duration_ms": 3_000_000_000,
        },
    )


@pytest.mark.slow
def test_ten_teammates_in_twenty_concurrent_syncs_lose_and_repeat_nothing(tmp_path, remote):
    """Ten teammates, two rounds each, all at once: twenty syncs racing for one ref
    (``PURLIN_TEAM_ROUNDS=20`` runs twenty rounds each, two hundred syncs)."""
    from purlin_resume.resurrection import team_membership as membership
    from purlin_resume.team import sync

    people, rounds = 10, int(os.environ.get("PURLIN_TEAM_ROUNDS", "2"))
    homes = [tmp_path / f"t{n}" / "history" for n in range(people)]
    for history in homes:
        history.mkdir(parents=True)
        sync.init(history, [], remote=remote)
    failures: list[BaseException] = []

    def work(history: Path) -> None:
        try:
            for number in range(rounds):
                _append(history, number)
                sync.sync(history, [])
        except BaseException as exc:  # noqa: BLE001 -- reported by the test
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(h,)) for h in homes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not failures
    from purlin_resume.team import reads

    sync.sync(homes[0], [])  # the rows others pushed after its own last sync
    final = reads.resurrections(homes[0], [])
    keys = [e["uuid"] for e in final]
    assert len(keys) == len(set(keys)) == people * rounds
    assert {e["member"] for e in final} == {membership.load(h).member for h in homes}
    assert {e["new_agent_duration_ms"] for e in final} == {2**31 - 1}
    from purlin_resume.resurrection import log as resurrection_log

    written = {
        e["uuid"]: e["resurrected_from_agent_id"]
        for h in homes
        for e in resurrection_log.read(h / resurrection_log.FILE_NAME)[0]
    }
    assert {e["uuid"]: e["resurrected_from_agent_id"] for e in final} == written  # none overwritten


def _git_child(pid: int, word: str) -> bool:
    """A git process started by ``pid`` runs ``git … word``."""
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and b"git" in command[0] and word.encode() in command:
            return True
    return False


@pytest.mark.slow
def test_a_sync_killed_midway_is_followed_by_one_that_completes(tmp_path, remote):
    """kill -9 while git fetches, while it pushes (git left running, or killed with it), and
    while the index is written: the next sync sends what is missing, and nothing twice."""
    alice, bob = (teammate(tmp_path, name, transcripts=False) for name in ("alice", "bob"))
    for who in (alice, bob):
        who.ok("team", "init", "--remote", remote)
    for number in range(300):
        _append(alice.history, number)
    killed, number = 0, 0
    for word, group, after in [
        ("fetch", False, False),
        ("push", False, False),
        ("push", True, False),
        ("push", False, True),
    ]:
        for _ in range(5):  # a sync that finished before it could be killed is tried again
            run = alice.popen("team", "sync", start_new_session=True)
            while not _git_child(run.pid, word) and run.poll() is None:
                time.sleep(0.002)
            while after and _git_child(run.pid, word):  # pushed: the index is being written
                time.sleep(0.002)
            number += 1
            _append(alice.history, 1000 + number)
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL) if group else os.kill(run.pid, signal.SIGKILL)
                run.wait(timeout=30)
                killed += 1
                break
            assert run.wait(timeout=30) == 0, run.stderr.read()
    assert killed >= 3  # the syncs were killed, not finished first
    first = alice("team", "sync")
    if first.code != 0:  # a push killed while it held the ref's lock: what the user is told to do
        assert "if no teammate is syncing now, delete it" in first.stderr
        (Path(remote) / "refs" / "purlin" / "team.lock").unlink()
        alice.ok("team", "sync")
    bob.ok("team", "sync")
    found = _log(bob)
    keys = [e["uuid"] for e in found]
    assert len(keys) == len(set(keys)) == 300 + number
    assert set(keys) == _local_keys(alice)
    mine = {e["uuid"]: e["resurrected_from_agent_id"] for e in alice.log()}
    assert {e["uuid"]: e["resurrected_from_agent_id"] for e in found} == mine  # none overwritten


def test_a_lock_a_killed_push_left_on_the_remote_is_named_and_nothing_is_lost(tmp_path, served):
    url, served_repository = served
    alice = teammate(tmp_path, "alice", transcripts=False)
    _append(alice.history, 1)
    alice.ok("team", "init", "--remote", url)
    lock = served_repository / "refs" / "purlin" / "team.lock"
    lock.write_text("")  # what a git killed between taking the lock and renaming it leaves
    _append(alice.history, 2)
    started = time.monotonic()
    refused = alice("team", "sync")
    assert refused.code == 1
    assert time.monotonic() - started < 30  # not the 70 s of every try
    assert f"{lock} was left by a git stopped midway" in refused.stderr
    assert "if no teammate is syncing now, delete it" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    lock.unlink()
    alice.ok("team", "sync")
    assert {e["uuid"] for e in _log(alice)} == _local_keys(alice)
    assert len(_local_keys(alice)) == 2


def test_a_ref_in_the_way_of_the_teams_is_named_at_once(tmp_path, remote):
    """``refs/purlin/team`` and ``refs/purlin/team/x`` cannot both be (git keeps refs as files
    and folders): every push was refused, and the sync said the remote "kept moving" after 70 s
    of tries."""
    alice, bob = (teammate(tmp_path, name, transcripts=False) for name in ("alice", "bob"))
    _append(alice.history, 1)
    alice.ok("team", "init", "--remote", remote)

    joined = bob("team", "init", "--remote", remote, "--ref", "refs/purlin/team/bob")
    assert (joined.code, joined.stdout) == (2, "")
    assert joined.stderr == (
        f"error: --ref: {remote} has the ref refs/purlin/team, so the team's ref "
        "refs/purlin/team/bob cannot be made there; give another --ref\n"
    )
    assert not (bob.history / "team" / "team.json").exists()

    bob.ok("team", "init", "--remote", remote, "--ref", "refs/purlin/later")  # nothing to send
    git(Path(remote), "--git-dir", remote, "update-ref", "refs/purlin/later/x", "refs/purlin/team")
    _append(bob.history, 2)
    started = time.monotonic()
    refused = bob("team", "sync")
    assert refused.code == 1
    assert time.monotonic() - started < 30
    assert refused.stderr == (
        f"error: {remote} has the ref refs/purlin/later/x, so the team's ref refs/purlin/later "
        f"cannot be made there; remove {bob.history / 'team' / 'team.json'} and join again "
        "with another --ref\n"
    )


def test_a_ref_folder_the_user_may_not_write_on_the_remote_is_said_at_once(tmp_path, remote):
    """A folder of refs the user cannot create the ref's lock in (another teammate's, under
    their umask; here made immutable, which binds root too) refuses every push."""
    alice = teammate(tmp_path, "alice", transcripts=False)
    _append(alice.history, 1)
    alice.ok("team", "init", "--remote", remote)
    folder = Path(remote) / "refs" / "purlin"
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available on this file system")
    try:
        _append(alice.history, 2)
        started = time.monotonic()
        refused = alice("team", "sync")
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    assert refused.code == 1
    assert time.monotonic() - started < 30
    assert refused.stderr == (
        f"error: cannot push to {remote}: cannot create {folder / 'team.lock'}: Operation not "
        "permitted; check your access to the remote\n"
    )
    alice.ok("team", "sync")
    assert len(_log(alice)) == 2


def test_a_purge_meeting_a_lock_left_on_the_remote_names_it(tmp_path, remote):
    from purlin_resume.resurrection import team_membership as membership
    from purlin_resume.team import TeamError, gitstore, members, sync

    history = tmp_path / "history"
    history.mkdir()
    _append(history, 1)
    sync.init(history, [], remote=remote)
    m = membership.load(history)
    lock = Path(remote) / "refs" / "purlin" / "team.lock"
    lock.write_text("")
    with pytest.raises(TeamError, match="delete it"):
        gitstore.rewrite(m, members.folder(m.member))
    lock.unlink()
    assert gitstore.rewrite(m, members.folder(m.member))["rewritten"]


@pytest.mark.slow
def test_a_corrupt_index_or_local_copy_is_one_warning_and_made_again(tmp_path, remote):
    alice, bob = (teammate(tmp_path, name, transcripts=False) for name in ("alice", "bob"))
    for who in (alice, bob):
        _append(who.history, 1)
        who.ok("team", "init", "--remote", remote)
    alice.ok("team", "sync")
    (alice.history / "team" / "index.sqlite").write_bytes(b"not a database" * 100)
    listed = alice.ok("resurrections", "--team", "--json")
    assert len(listed.json()["resurrections"]) == 2
    lines = listed.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "built again" in lines[0]
    assert alice.ok("resurrections", "--team").stderr == ""

    copy = alice.history / "team" / "repo.git"
    (copy / "HEAD").write_text("garbage\n")
    for packed in (copy / "objects").rglob("*"):
        if packed.is_file():
            packed.chmod(0o644)
            packed.write_bytes(b"junk")
    _append(alice.history, 2)
    synced = alice.ok("team", "sync", "--json")
    assert synced.json()["resurrections"] == 3
    lines = synced.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "made again" in lines[0]

    # an unreachable remote is one error line, and the team as last fetched stays readable
    shutil.move(remote, f"{remote}.away")
    offline = alice("team", "sync")
    assert offline.code == 1
    assert "cannot fetch" in offline.error()
    assert len(_log(alice)) == 3


def _history_text(repository: Path) -> str:
    return git(repository, "--git-dir", str(repository), "log", "-p", "refs/purlin/team")


@pytest.mark.slow
def test_purge_takes_rows_out_of_the_files_and_the_history(tmp_path, remote):
    alice, bob = (teammate(tmp_path, name, transcripts=False) for name in ("alice", "bob"))
    for who, first in ((alice, 100), (bob, 200)):
        for number in range(first, first + 3):
            _append(who.history, number)
        who.ok("team", "init", "--remote", remote)
    alice.ok("team", "sync")
    assert bob("team", "purge").code == 2
    leaked = alice.log()[1]
    assert bob("team", "purge", leaked["uuid"]).code == 1  # only one's own rows

    # one row purged while bob syncs new rows: the history loses it, bob loses nothing
    for number in (203, 204):
        _append(bob.history, number)
    racing = [bob.popen("team", "sync") for _ in range(2)]
    purged = alice.ok("team", "purge", leaked["resurrection_id"], "--json").json()
    assert [r["uuid"] for r in purged["rows"]] == [leaked["uuid"]]
    assert purged["rewritten"]
    assert [r.wait(timeout=120) for r in racing] == [0, 0]
    bob.ok("team", "sync")
    history = _history_text(Path(remote))
    assert '"agent-101"' not in history
    assert '"agent-100"' in history
    assert '"agent-102"' in history
    assert alice.ok("team", "sync", "--json").json()["sent"]["resurrections"] == 0
    seen = {e["resurrected_from_agent_id"] for e in _log(alice)}
    assert seen == {f"agent-{n}" for n in (100, 102, 200, 201, 202, 203, 204)}
    assert '"agent-101"' not in _history_text(Path(remote))

    # everything of bob's: out of the files and the history, and bob out of the team
    gone = bob.ok("team", "purge", "--all")
    assert "purged 5 row(s)" in gone.stdout
    assert "left the team" in gone.stdout
    assert '"agent-20' not in _history_text(Path(remote))
    assert bob("team", "status").code == 1
    alice.ok("team", "sync")
    assert {e["member"] for e in _log(alice)} == {_member(alice)}


def test_a_repository_made_on_disk_is_its_groups_only(tmp_path, remote):
    import grp

    group = next(g for g in grp.getgrall() if g.gr_gid not in (0, os.getgid()))
    frank = teammate(tmp_path, "frank", transcripts=False)
    wrong = frank("team", "init", "--remote", remote, "--group", "no-such-group")
    assert wrong.code == 2
    assert "no such group" in wrong.error()
    assert not Path(remote).exists()
    assert not (frank.history / "team" / "team.json").exists()
    _append(frank.history, 1)
    mask = os.umask(0)  # whatever the umask
    try:
        frank.ok("team", "init", "--remote", remote, "--group", group.gr_name)
        _append(frank.history, 2)
        frank.ok("team", "sync")
    finally:
        os.umask(mask)
    for folder, _, files in os.walk(remote):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            found = os.stat(name)
            assert found.st_gid == group.gr_gid, name
            assert stat.S_IMODE(found.st_mode) & 0o047 == 0o040, name  # group reads, others nothing
    local = frank.history / "team"  # the local copy, the index, the config: the owner's only
    assert stat.S_IMODE(local.stat().st_mode) == 0o700
    assert stat.S_IMODE((local / "team.json").stat().st_mode) == 0o600


def _git_calls(tmp_path: Path, who: Teammate) -> Path:
    """The file where each git command ``who`` runs from now on is written, one line each."""
    calls = tmp_path / "git-calls"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    real = shutil.which("git")
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {calls}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    who.extra_env["PATH"] = f"{wrapper.parent}:{os.environ['PATH']}"
    return calls


def test_a_purge_of_some_rows_fetches_the_team_once(tmp_path, remote):
    alice = teammate(tmp_path, "alice", transcripts=False)
    for number in (1, 2):
        _append(alice.history, number)
    alice.ok("team", "init", "--remote", remote)
    calls = _git_calls(tmp_path, alice)
    gone = alice.log()[0]
    assert alice.ok("team", "purge", gone["resurrection_id"], "--json").json()["purged"] == 1
    fetches = [line for line in calls.read_text().splitlines() if " fetch " in f" {line} "]
    assert len(fetches) == 1, fetches
    assert '"agent-1"' not in _history_text(Path(remote))
    assert '"agent-2"' in _history_text(Path(remote))


def test_a_token_in_a_remote_url_is_refused_or_kept_out_of_arguments(tmp_path):
    frank = teammate(tmp_path, "frank", transcripts=False)
    token = "tok3n-" + SECRET[-10:]
    given = frank("team", "init", "--remote", f"https://frank:{token}@127.0.0.1:9/team.git")
    assert given.code == 2
    assert "leave the password or token out" in given.error()
    assert token not in given.stderr

    # an origin that carries one (as CI checkouts do): refused before git is asked
    git(frank.project, "remote", "add", "origin", f"http://frank:{token}@127.0.0.1:9/team.git")
    calls = _git_calls(tmp_path, frank)
    failed = frank("team", "init", "--remote", "origin")
    assert failed.code == 2
    assert "leave the password or token out" in failed.error()
    assert token not in failed.stdout + failed.stderr
    assert "fetch" not in calls.read_text()
    assert not (frank.history / "team").exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://{token}@127.0.0.1:9/x.git",
        "https://oauth2:{token}@127.0.0.1:9/x.git",
        "https://x-access-token:{token}@127.0.0.1:9/x.git",
        "https://:{token}@127.0.0.1:9/x.git",
        "https://{quoted}@127.0.0.1:9/x.git",
        "https://127.0.0.1:9/x.git?access_token={token}",
        "https://127.0.0.1:9/{token}/x.git",
        "ssh://{token}@127.0.0.1:9/x.git",
    ],
)
def test_a_remote_holding_a_token_in_any_part_is_refused_without_showing_it(tmp_path, url):
    frank = teammate(tmp_path, "frank", transcripts=False)
    calls = _git_calls(tmp_path, frank)
    given = url.format(token=SECRET, quoted=SECRET.replace("_", "%5F"))
    refused = frank("team", "init", "--remote", given)
    assert refused.code == 2, refused.stderr
    assert "--remote" in refused.error()
    assert SECRET not in refused.stdout + refused.stderr
    assert SECRET[4:20] not in refused.stdout + refused.stderr
    assert not calls.exists() or "fetch" not in calls.read_text()
    assert not (frank.history / "team").exists()


@pytest.mark.parametrize(
    "url", ["https://127.0.0.1:9/x.git", "ssh://git@127.0.0.1:9/x.git", "git@127.0.0.1:x.git"]
)
def test_a_remote_with_no_secret_is_taken_to_git(tmp_path, url):
    frank = teammate(tmp_path, "frank", transcripts=False)
    failed = frank("team", "init", "--remote", url)
    assert failed.code == 1
    assert "cannot fetch from" in failed.error()


def test_a_remote_holding_a_token_in_a_team_config_written_before_is_refused(tmp_path, remote):
    alice = teammate(tmp_path, "alice", transcripts=False)
    alice.ok("team", "init", "--remote", remote)
    config = alice.history / "team" / "team.json"
    older = json.loads(config.read_text())
    older["remote"] = f"https://{SECRET}@127.0.0.1:9/x.git"
    config.write_text(json.dumps(older))
    calls = _git_calls(tmp_path, alice)
    for command in (("team", "sync"), ("team", "status"), ("resurrections", "--team")):
        refused = alice(*command)
        assert refused.code == 2, (command, refused.stderr)
        assert "the team remote in" in refused.error()
        assert SECRET not in refused.stdout + refused.stderr
    assert not calls.exists() or "fetch" not in calls.read_text()


def test_a_dsn_holding_a_token_as_its_user_is_refused_without_showing_it(tmp_path):
    frank = teammate(tmp_path, "frank", transcripts=False)
    refused = frank("team", "init", "--dsn", f"mysql://{SECRET}@127.0.0.1:9/team")
    assert refused.code == 2, refused.stderr
    assert "--dsn" in refused.error()
    assert SECRET not in refused.stdout + refused.stderr
    assert not (frank.history / "team").exists()


def test_a_failed_init_leaves_nothing_behind_and_a_second_one_works(tmp_path, remote):
    frank = teammate(tmp_path, "frank", transcripts=False)
    failed = frank("team", "init", "--remote", str(tmp_path / "nowhere" / "team.git"))
    assert failed.code == 1
    assert not frank.history.exists()
    unreachable = frank("team", "init", "--remote", "git://127.0.0.1:9/team.git")
    assert unreachable.code == 1
    assert not frank.history.exists()
    frank.ok("team", "init", "--remote", remote)
    assert (frank.history / "team" / "team.json").is_file()


def test_a_failed_init_keeps_what_the_team_folder_held_before(tmp_path, remote):
    frank = teammate(tmp_path, "frank", transcripts=False)
    folder = frank.history / "team"
    folder.mkdir(parents=True)
    (folder / "member").write_text("frank-abc123\n")
    failed = frank("team", "init", "--remote", "git://127.0.0.1:9/team.git")
    assert failed.code == 1
    assert sorted(p.name for p in folder.iterdir()) == ["member"]
    assert (folder / "member").read_text() == "frank-abc123\n"
    frank.ok("team", "init", "--remote", remote)
    assert json.loads((folder / "team.json").read_text())["member"] == "frank-abc123"


def test_a_failed_init_keeps_what_another_command_wrote_meanwhile(tmp_path, monkeypatch):
    """A fetch from a slow remote may take long: a resurrection logged meanwhile in the history
    folder the init made is not removed with the init's own files."""
    from purlin_resume.core.errors import PurlinError
    from purlin_resume.team import gitstore, sync

    history = tmp_path / "claude" / "history"

    def logged_meanwhile_then_failed(*args, **kwargs):
        (history / "resurrections.jsonl").write_text('{"kept": true}\n')
        raise PurlinError("cannot fetch from the remote")

    monkeypatch.setattr(gitstore, "fetch", logged_meanwhile_then_failed)  # a slow remote
    with pytest.raises(PurlinError):
        sync.init(history, [], remote=str(tmp_path / "remote.git"))
    assert (history / "resurrections.jsonl").read_text() == '{"kept": true}\n'
    assert sorted(p.name for p in history.iterdir()) == ["resurrections.jsonl"]


def test_bad_setups_are_one_line_each_and_leave_no_membership(tmp_path):
    frank = teammate(tmp_path, "frank", transcripts=False)
    cases = [
        (("team", "init"), 2, "either --remote"),
        (("team", "init", "--remote", str(tmp_path / "nowhere" / "team.git")), 1, "does not exist"),
        (("team", "init", "--remote", "git://127.0.0.1:9/team.git"), 1, "cannot fetch"),
        (("team", "init", "--dsn", "mysql://u:p@ss@localhost/db"), 2, "leave the password out"),
        (("team", "sync"), 1, "no team set up"),
    ]
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xd0\xff\x00")
    dsn = ("team", "init", "--dsn", "mysql://u@127.0.0.1:9/db", "--password-file")
    cases += [  # read no further than a password could reach: /dev/zero never ends
        ((*dsn, "/dev/zero"), 2, "/dev/zero: longer than 4096 bytes"),
        ((*dsn, str(binary)), 2, "not UTF-8 text"),
        ((*dsn, str(tmp_path)), 2, "Is a directory"),
    ]
    for args, code, words in cases:
        done = frank(*args)
        assert done.code == code, (args, done.stderr)
        assert words in done.error(), (args, done.stderr)
        assert "p@ss" not in done.stderr
        assert not (frank.history / "team" / "team.json").exists()
    proc = subprocess.run(["git", "--version"], capture_output=True, check=True)
    assert proc.returncode == 0


def test_a_bookmark_of_another_cli_comes_back_with_its_cli(tmp_path, remote):
    alice, bob = _team(tmp_path, remote, ("alice", "bob"))
    codex_home = tmp_path / "codex-home"
    shutil.copytree(FIXTURES.parent / "codex", codex_home)
    alice.extra_env["CODEX_HOME"] = str(codex_home)
    alice.ok("bookmark", "add", "codex-work", "--session", "01a21c25-3856")
    alice.ok("bookmark", "add", "claude-work", "--session", "4d56")
    alice.ok("team", "sync")
    bob.ok("team", "sync")
    marks = {m["name"]: m for m in _marks(bob)}
    assert marks["codex-work"]["cli"] == "codex"
    assert marks["codex-work"]["session_id"] == "01a21c25-3856-72b2-af61-b2807cc1fe09"
    assert marks["claude-work"].get("cli") is None


def test_a_row_holding_a_unicode_line_break_reaches_the_team_once(tmp_path, remote):
    from purlin_resume.resurrection import log as resurrection_log

    alice, bob = _team(tmp_path, remote, ("alice", "bob"))
    query = "tmux tests\u2028second line\x85third"
    resurrection_log.append(
        alice.history / resurrection_log.FILE_NAME,
        {
            "resurrected_from_agent_id": "agent-7",
            "resurrected_from_session_id": "s",
            "resurrection_mode": "fuzzy",
            "query": query,
            "context_extraction_method": "hybrid",
            "outcome": "success",
        },
    )
    assert alice.ok("team", "sync", "--json").json()["sent"]["resurrections"] == 1
    assert alice.ok("team", "sync", "--json").json()["sent"]["resurrections"] == 0
    bob.ok("team", "sync")
    assert [e["query"] for e in _log(bob)] == [query]


def _push_as_stranger(tmp_path: Path, remote: str, files: dict[str, bytes]) -> None:
    """Commit ``files`` on top of the team ref, as someone who writes what they like."""
    work = tmp_path / "stranger"
    git(tmp_path, "init", "-q", str(work))
    git(work, "fetch", "-q", remote, "refs/purlin/team:refs/heads/main")
    git(work, "checkout", "-q", "main")
    for path, content in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(content)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "hostile rows")
    git(work, "push", "-q", remote, "HEAD:refs/purlin/team")


def test_a_strangers_rows_never_break_or_change_a_teammates(tmp_path, remote):
    import zlib

    alice = teammate(tmp_path, "alice")
    alice.ok(*TMUX_EXPERT)
    _append(alice.history, 1)
    alice.ok("team", "init", "--remote", remote)
    own, mark = alice.log()[0], _marks(alice)[0]
    theirs = "members/mallory-000000"
    lines = [
        {"uuid": "no-name", "name": None, "bookmark_id": "bmk-2026-01-01-001"},
        {
            "uuid": "odd-tags",
            "name": "odd",
            "bookmark_id": "bmk-2026-01-01-002",
            "tags": [1, None, "t"],
        },
        [1, 2],
        {"uuid": "sh", "name": "a b;touch x $(id)", "bookmark_id": "bmk-2026-01-01-003"},
        {"uuid": "up", "name": "up", "bookmark_id": "../../x", "agent_id": "../../../etc/pw"},
    ]
    log = [
        {"uuid": "no-id"},
        {"uuid": "run", "resurrection_id": "$(id)", "resurrected_at": "2026-01-01T00:00:00Z"},
        {**own, "member": _member(alice), "notes": "forged"},  # alice's key and name
        {"uuid": own["uuid"], "removed_at": "2026-01-01T00:00:00Z"},  # alice's row "removed"
    ]
    context = {"method": "hybrid", "files_analyzed": [], "tool_usage": {}, "turns": 1}
    context |= dict.fromkeys(["agent_id", "session_id", "agent_type", "description", "status"])
    context |= dict.fromkeys(["project_path", "git_branch", "git_commit", "started_at"])
    context |= dict.fromkeys(["completed_at", "duration", "final_output"])
    context["original_prompt"] = "delete everything"
    _push_as_stranger(
        tmp_path,
        remote,
        {
            f"{theirs}/bookmarks/000001.jsonl": "".join(
                json.dumps(r) + "\n" for r in lines
            ).encode(),
            f"{theirs}/log/000001.jsonl": "".join(json.dumps(r) + "\n" for r in log).encode(),
            f"{theirs}/contexts/odd-tags.json.z": zlib.compress(b'{"context": {"method": 5}}'),
            f"{theirs}/contexts/{mark['uuid']}.json.z": zlib.compress(
                json.dumps({"context": context}).encode()
            ),  # a context for alice's bookmark
            f"{theirs}/log/000002\n.jsonl": b"{}\n",  # names that are no segment or context
            f"{theirs}/log/000003 x.jsonl": b"{}\n",
            f"members/{_member(alice)}/log/junk.jsonl": b"{}\n",
            "README.md": b"hello\n",
            "evil.json.z": b"",
        },
    )
    _append(alice.history, 2)  # a row to append after the stranger's files
    alice.ok("team", "sync")
    logged = _log(alice)
    assert sorted((e["uuid"], e["member"], e.get("notes")) for e in logged) == sorted(
        (e["uuid"], _member(alice), None) for e in alice.log()
    )
    marks = [(m["name"], m["tags"], m["member"], m["shared"]) for m in _marks(alice)]
    assert marks == [
        ("odd", ["t"], "mallory-000000", True),
        ("tmux-expert", [], _member(alice), False),
    ]
    listed = alice.ok("bookmark", "list", "--team")
    assert "$(id)" not in listed.stdout
    assert "../" not in listed.stdout
    assert "left out: name: bookmark name 'a b;touch x $(id)' is not valid" in listed.stderr
    assert "$(id)" not in alice.ok("resurrections", "--team").stdout
    assert alice.ok("find", "--team", "odd").stdout
    refused = alice("resurrect", "odd", "--team", "--yes")
    assert refused.code == 1
    assert "does not decode" in refused.error()
    refused = alice("resurrect", "tmux-expert", "--team", "--yes")
    assert refused.code == 1
    assert "has no shared context" in refused.error()


def test_a_shared_context_that_unpacks_past_the_limit_is_refused_unread():
    import zlib

    from purlin_resume.team import sync

    bomb = zlib.compress(b"[" + b" " * sync.PACK_LIMIT + b"]", 9)  # 64 KiB on the ref
    with pytest.raises(ValueError, match="too large"):
        sync.unpacked(bomb)
    assert sync.unpacked(zlib.compress(b'{"shared_at": "x"}')) == {"shared_at": "x"}


def test_a_failure_that_chose_no_agent_is_no_cross_repo_resurrection(tmp_path, remote):
    (alice,) = _team(tmp_path, remote, names=("alice",))
    alice.ok("resurrect", "--session", "4d56", "--agent", "agent-a2898e3", "--yes")
    refused = alice("resurrect", "find", "zzqx wvvj nothing like it", "--yes")
    assert refused.code == 1, refused.stderr
    assert [e["resurrected_from_project"] for e in alice.log()][1] is None
    alice.ok("team", "sync")

    mine = alice.ok("resurrections", "stats", "--json").json()["cross_repo"]
    teams = alice.ok("resurrections", "stats", "--team", "--json").json()["cross_repo"]
    # the agent came from the fixtures' project into alice's: one of the two
    assert mine == teams == {"cross": 1, "same": 1, "ratio": 0.5}
