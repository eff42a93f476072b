from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from purlin_resume.core import clock, store
from purlin_resume.core.errors import CorruptFile
from purlin_resume.core.project import Project
from purlin_resume.history import agent_history as history
from tests.conftest import commit_file, git, need_binary
from tests.gsd_files import (
    GSD_EXAMPLE,
    entry,
    history_path,
    one_error_line,
    read_history,
    snapshot,
    statuses,
    write_history,
)


def spawn(cli, agent_id, *extra, task="Execute plan 02-01", phase="02", plan="01"):
    result = cli(
        "history", "spawn", "--agent-id", agent_id, "--task", task, "--phase", phase,
        "--plan", plan, *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return result


# --- the GSD file ------------------------------------------------------------------------------


def test_gsd_example_loads_and_round_trips_byte_for_byte(repo, cli):
    original = GSD_EXAMPLE.read_bytes()
    target = history_path(repo)
    target.parent.mkdir()
    target.write_bytes(original)

    listed = cli("history", "list", "--json")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout
    assert json.loads(listed.stdout)["entries"] == json.loads(original)["entries"]

    doc = history.load(Project(repo))
    assert store.dump_json(doc.data).encode() == original
    history.update(Project(repo), lambda d: None)
    assert target.read_bytes() == original, "a write that changes nothing changes no byte"


def test_unknown_fields_survive_every_write(repo, cli):
    doc = json.loads(GSD_EXAMPLE.read_text())
    doc["gsd_extension"] = {"kept": True}
    doc["entries"][0]["agent_id"] = "agent_01HXXXX"
    doc["entries"][0]["custom_note"] = "from another tool"
    target = history_path(repo)
    target.parent.mkdir()
    target.write_text(json.dumps(doc, indent=2) + "\n")

    spawn(cli, "agent_new")
    assert cli("history", "interrupt", "agent_01HXXXX").exit_code == 0

    after = read_history(repo)
    assert after["gsd_extension"] == {"kept": True}
    assert after["entries"][0]["custom_note"] == "from another tool"
    assert list(after["entries"][0])[:15] == list(history.SCHEMA_FIELDS)
    for before, now in zip(doc["entries"][1:], after["entries"][1:4], strict=True):
        assert json.dumps(now) == json.dumps(before), "untouched entries stay as they were"


def test_list_spawned_parallel_matches_the_templates_jq_query(repo, cli):
    need_binary("jq", "apt-get install jq")
    target = history_path(repo)
    target.parent.mkdir()
    shutil.copy(GSD_EXAMPLE, target)
    spawn(cli, "agent_p1", "--group", "phase-05-batch-1736676000")
    spawn(cli, "agent_s1")
    jq = subprocess.run(
        ["jq", "-c", '.entries[] | select(.status == "spawned" and .parallel_group != null)'],
        stdin=target.open(),
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [json.loads(line) for line in jq.stdout.splitlines()]
    listed = cli("history", "list", "--status", "spawned", "--parallel", "--json")
    assert json.loads(listed.stdout)["entries"] == expected
    assert [e["agent_id"] for e in expected] == ["agent_01HXYZ456", "agent_p1"]
    group = cli("history", "list", "--group", "phase-05-batch-1736676000", "--json")
    ids = [e["agent_id"] for e in json.loads(group.stdout)["entries"]]
    assert ids == ["agent_01HXYZ123", "agent_01HXYZ456", "agent_p1"]


# --- init and spawn ----------------------------------------------------------------------------


def test_init_creates_the_template_and_never_touches_an_existing_file(repo, cli):
    result = cli("history", "init")
    assert result.exit_code == 0
    assert read_history(repo) == {"version": "1.2", "max_entries": 50, "entries": []}
    history_path(repo).write_text('{"version": "1.2", "max_entries": 7, "entries": []}')
    before = history_path(repo).stat().st_mtime_ns
    again = cli("history", "init", "--json")
    assert json.loads(again.stdout)["created"] is False
    assert history_path(repo).read_text() == '{"version": "1.2", "max_entries": 7, "entries": []}'
    assert history_path(repo).stat().st_mtime_ns == before


def test_spawn_records_every_schema_field_commit_and_session(repo, cli, monkeypatch):
    monkeypatch.setenv("CLAUDE_SESSION_ID", "sess-claude")
    head = git(repo, "rev-parse", "HEAD").strip()
    spawn(cli, "agent_01", "--segment", "2", "--depends-on", "agent_00", "--depends-on", "02-01")
    (saved,) = read_history(repo)["entries"]
    assert list(saved) == [*history.SCHEMA_FIELDS, "spawn_commit", "session_id"]
    assert saved["status"] == "spawned"
    assert saved["segment"] == 2
    assert saved["depends_on"] == ["agent_00", "02-01"]
    assert saved["execution_mode"] == "sequential"
    assert saved["granularity"] == "plan"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", saved["timestamp"])
    assert saved["spawn_commit"] == head
    assert saved["session_id"] == "sess-claude"
    assert (repo / ".planning" / "current-agent-id.txt").read_text() == "agent_01\n"


def test_session_option_beats_purlin_env_beats_claude_env(repo, cli, monkeypatch):
    monkeypatch.setenv("CLAUDE_SESSION_ID", "from-claude")
    monkeypatch.setenv("PURLIN_SESSION_ID", "from-purlin")
    spawn(cli, "a1")
    spawn(cli, "a2", "--session", "explicit")
    sessions = [e["session_id"] for e in read_history(repo)["entries"]]
    assert sessions == ["from-purlin", "explicit"]


def test_new_group_ids_follow_the_template_formats(repo, cli):
    spawn(cli, "p1", "--new-group", phase="05", plan="01")
    spawn(cli, "t1", "--new-group", "--granularity", "task_group", phase="05", plan="02")
    first, second = read_history(repo)["entries"]
    assert re.fullmatch(r"phase-05-batch-\d{10}", first["parallel_group"])
    assert re.fullmatch(r"plan-05-02-tasks-batch-\d{10}", second["parallel_group"])
    assert first["execution_mode"] == second["execution_mode"] == "parallel"


def test_lock_files_never_show_in_git_status(repo, cli):
    spawn(cli, "agent_01")
    assert cli("history", "complete", "agent_01").exit_code == 0
    git(repo, "add", ".planning")
    git(repo, "commit", "-q", "-m", "track the history")
    assert (repo / ".planning" / "agent-history.json.lock").exists()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_queued_agent_is_spawned_later_with_its_commit(repo, cli):
    result = cli(
        "history", "queue", "agent_q", "--task", "Execute plan 05-03", "--phase", "05",
        "--plan", "03", "--depends-on", "agent_01HXYZ123", "--group", "phase-05-batch-1",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    (queued,) = read_history(repo)["entries"]
    assert queued["status"] == "queued"
    assert queued["spawn_commit"] is None
    head = commit_file(repo, "later.txt", "x\n")
    spawned = cli("history", "spawn", "--agent-id", "agent_q", "--json")
    assert spawned.exit_code == 0, spawned.stderr
    (saved,) = read_history(repo)["entries"]
    assert saved["status"] == "spawned"
    assert saved["spawn_commit"] == head
    assert saved["task_description"] == "Execute plan 05-03"
    assert saved["depends_on"] == ["agent_01HXYZ123"]


# --- lifecycle ---------------------------------------------------------------------------------

VERBS = {
    "queued": ["history", "queue", "AGENT", "--task", "t", "--phase", "01", "--plan", "01"],
    "spawned": ["history", "spawn", "--agent-id", "AGENT"],
    "completed": ["history", "complete", "AGENT"],
    "failed": ["history", "fail", "AGENT"],
    "interrupted": ["history", "interrupt", "AGENT"],
    "resumed": ["resume-task", "AGENT"],
}
ALLOWED = {
    ("queued", "spawned"),
    ("spawned", "completed"),
    ("spawned", "interrupted"),
    ("spawned", "failed"),
    ("interrupted", "resumed"),
    ("interrupted", "failed"),  # abandoned: "start fresh"
    ("resumed", "completed"),
    ("resumed", "interrupted"),
    ("resumed", "failed"),
}


@pytest.mark.parametrize("target", list(VERBS))
@pytest.mark.parametrize("start", list(history.STATUSES))
def test_every_lifecycle_edge(repo, cli, start, target):
    head = git(repo, "rev-parse", "HEAD").strip()
    fresh = clock.iso(clock.now())
    write_history(repo, [entry("agent_x", start, timestamp=fresh, spawn_commit=head)])
    before = snapshot(repo)
    result = cli(*[a.replace("AGENT", "agent_x") for a in VERBS[target]])
    if (start, target) in ALLOWED:
        assert result.exit_code == 0, result.stderr
        assert statuses(repo)[-1] == ("agent_x", target)
    else:
        assert result.exit_code == 1, (result.stdout, result.stderr)
        message = one_error_line(result)
        assert "agent_x" in message
        if target != "resumed":
            allowed = history.TRANSITIONS[start]
            assert f"allowed from {start}: " in message
            assert all(a in message for a in allowed)
            assert allowed or "final" in message
        assert snapshot(repo) == before


def test_the_lifecycle_matches_the_spec_diagram():
    edges = {(a, b) for a, targets in history.TRANSITIONS.items() for b in targets}
    assert edges == ALLOWED


def test_complete_sets_timestamp_files_results_and_skips(repo, cli):
    spawn(cli, "agent_01")
    result = cli(
        "history", "complete", "agent_01", "--files", "src/a.py", "--files", "src/b.py",
        "--task-results", '{"1": "done", "2": "done"}', "--checkpoints-skipped", "1", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    saved = read_history(repo)["entries"][0]
    assert saved["status"] == "completed"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", saved["completion_timestamp"])
    assert saved["files_modified"] == ["src/a.py", "src/b.py"]
    assert saved["task_results"] == {"1": "done", "2": "done"}
    assert saved["checkpoints_skipped"] == 1
    assert json.loads(result.stdout)["entry"] == saved


def test_files_accumulate_across_status_changes(repo, cli):
    spawn(cli, "agent_01")
    cli("history", "interrupt", "agent_01", "--files", "a.py", "--files", "b.py")
    saved = read_history(repo)["entries"][0]
    assert saved["files_modified"] == ["a.py", "b.py"]
    assert saved["completion_timestamp"] is None


# --- pruning -----------------------------------------------------------------------------------


def test_pruning_with_everything_spawned_stays_over_the_limit_and_says_so(repo, cli):
    write_history(repo, [entry(f"s{i}") for i in range(3)], max_entries=3)
    result = spawn(cli, "s3")
    assert len(read_history(repo)["entries"]) == 4
    assert "over max_entries 3" in result.stderr
    assert "4 entries" in result.stderr


@pytest.mark.parametrize(
    ("limit", "removed"),
    [(5, ["c1", "c2", "c3"]), (4, ["c1", "f1", "c2", "c3"]), (3, ["c1", "f1", "c2", "c3"])],
)
def test_pruning_mixed_removes_oldest_completed_then_failed_never_running(
    repo, cli, limit, removed
):
    write_history(
        repo,
        [
            entry("c1", "completed"),
            entry("s1", "spawned"),
            entry("f1", "failed"),
            entry("c2", "completed"),
            entry("q1", "queued"),
            entry("i1", "interrupted"),
            entry("c3", "completed"),
        ],
        max_entries=limit,
    )
    result = spawn(cli, "new", "--json")
    everyone = ["c1", "s1", "f1", "c2", "q1", "i1", "c3", "new"]
    assert [a for a, _ in statuses(repo)] == [a for a in everyone if a not in removed]
    assert json.loads(result.stdout)["pruned"]["removed"] == removed
    assert ("over max_entries" in result.stderr) == (limit == 3)


def test_pruning_at_exactly_the_limit_removes_nothing(repo, cli):
    write_history(repo, [entry("c1", "completed"), entry("c2", "completed")], max_entries=3)
    result = spawn(cli, "new", "--json")
    assert [a for a, _ in statuses(repo)] == ["c1", "c2", "new"]
    assert json.loads(result.stdout)["pruned"]["removed"] == []
    assert "warning" not in result.stderr


def test_pruning_a_resumed_agent_takes_its_interrupted_entry_along(repo, cli):
    write_history(
        repo,
        [
            entry("r1", "interrupted"),
            entry("s1", "spawned"),
            entry("r1", "completed"),
            entry("i2", "interrupted"),
            entry("i2", "resumed"),
        ],
        max_entries=4,
    )
    spawn(cli, "new")
    assert statuses(repo) == [
        ("s1", "spawned"),
        ("i2", "interrupted"),
        ("i2", "resumed"),
        ("new", "spawned"),
    ]


# --- bad input ---------------------------------------------------------------------------------

COMMANDS = [
    ["history", "init"],
    ["history", "spawn", "--agent-id", "a9", "--task", "t", "--phase", "01", "--plan", "01"],
    ["history", "queue", "a9", "--task", "t", "--phase", "01", "--plan", "01"],
    ["history", "complete", "a1"],
    ["history", "fail", "a1"],
    ["history", "interrupt", "a1"],
    ["history", "list"],
    ["history", "scan"],
    ["resume-task"],
]
BROKEN = {
    "not json": '{"version": "1.2", "entries": [',
    "a list": "[]",
    "entries not a list": '{"version": "1.2", "max_entries": 50, "entries": {}}',
    "entry not an object": '{"version": "1.2", "max_entries": 50, "entries": ["a1"]}',
    "entry without id": '{"version": "1.2", "max_entries": 50, "entries": [{"status": "spawned"}]}',
    "unknown status": (
        '{"version": "1.2", "max_entries": 50, "entries": [{"agent_id": "a1", "status": "paused"}]}'
    ),
    "max_entries zero": '{"version": "1.2", "max_entries": 0, "entries": []}',
    "max_entries text": '{"version": "1.2", "max_entries": "50", "entries": []}',
    "max_entries bool": '{"version": "1.2", "max_entries": true, "entries": []}',
    "max_entries float": '{"version": "1.2", "max_entries": 2.5, "entries": []}',
    "foreign version": '{"version": "2.0", "max_entries": 50, "entries": []}',
    "depends_on a number": (
        '{"version": "1.2", "max_entries": 50, "entries": '
        '[{"agent_id": "a1", "status": "spawned", "depends_on": 5}]}'
    ),
    "depends_on one id": (
        '{"version": "1.2", "max_entries": 50, "entries": '
        '[{"agent_id": "a1", "status": "spawned", "depends_on": "agent_0"}]}'
    ),
}


@pytest.mark.parametrize("kind", list(BROKEN))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_broken_history_is_kept_named_and_exit_1(repo, cli, command, kind):
    target = history_path(repo)
    target.parent.mkdir()
    target.write_text(BROKEN[kind])
    before = snapshot(repo)
    result = cli(*command)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    message = one_error_line(result)
    assert str(target) in message
    assert "corrupt" in message
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    "command",
    [c for c in COMMANDS if c[1:2] and c[1] in ("complete", "fail", "interrupt", "list", "scan")]
    + [["resume-task"]],
)
def test_a_missing_history_is_reported_and_not_created(repo, cli, command):
    result = cli(*command)
    assert result.exit_code == 1
    assert "agent-history.json does not exist" in one_error_line(result)
    assert not (repo / ".planning").exists()


def test_unknown_and_ambiguous_ids(repo, cli):
    write_history(repo, [entry("agent_01AB"), entry("agent_01AC"), entry("agent_02")])
    before = snapshot(repo)
    unknown = cli("history", "complete", "agent_99")
    assert unknown.exit_code == 1
    assert "no agent 'agent_99'" in one_error_line(unknown)
    ambiguous = cli("history", "complete", "agent_01")
    assert ambiguous.exit_code == 1
    message = one_error_line(ambiguous)
    assert "ambiguous" in message
    assert "agent_01AB" in message
    assert "agent_01AC" in message
    assert snapshot(repo) == before
    unique = cli("history", "complete", "agent_02")
    assert unique.exit_code == 0
    prefix = cli("history", "fail", "agent_01AB"[:9] + "B")
    assert prefix.exit_code == 0
    assert statuses(repo)[0] == ("agent_01AB", "failed")


@pytest.mark.parametrize(
    "args",
    [
        ["history", "list", "--status", "paused"],
        ["history", "spawn", "--agent-id", "a", "--phase", "01", "--plan", "01"],
        ["history", "spawn", "--agent-id", "a", "--task", "t", "--phase", "01"],
        ["history", "spawn", "--agent-id", "", "--task", "t", "--phase", "01", "--plan", "01"],
        ["history", "spawn", "--agent-id", "a", "--task", "t", "--phase", "1", "--plan", "1",
         "--segment", "0"],
        ["history", "spawn", "--agent-id", "a", "--task", "t", "--phase", "1", "--plan", "1",
         "--mode", "fast"],
        ["history", "spawn", "--agent-id", "a", "--task", "t", "--phase", "1", "--plan", "1",
         "--granularity", "file"],
        ["history", "spawn", "--agent-id", "a", "--task", "t", "--phase", "1", "--plan", "1",
         "--group", "g", "--new-group"],
        ["history", "spawn", "--agent-id", "a", "--task", "t", "--phase", "1", "--plan", "1",
         "--group", "g", "--mode", "sequential"],
        ["history", "complete", "a1", "--task-results", "not json"],
        ["history", "complete", "a1", "--task-results", "[1, 2]"],
        ["history", "complete", "a1", "--checkpoints-skipped", "-1"],
        ["history", "complete"],
        ["history", "complete", "a1", "--no-such-option"],
        ["resume-task", "a1", "--batch", "--ref", "main"],
    ],
)  # fmt: skip
def test_invalid_arguments_exit_2_and_change_nothing(repo, cli, args):
    write_history(repo, [entry("a1")])
    before = snapshot(repo)
    result = cli(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    one_error_line(result)
    assert snapshot(repo) == before


def test_a_depends_on_that_is_no_list_is_named_as_such(repo, cli):
    write_history(repo, [entry("a1") | {"depends_on": "agent_0"}])
    before = snapshot(repo)
    result = cli("history", "list")
    assert result.exit_code == 1
    assert "depends_on must be a list of agent ids, not 'agent_0'" in one_error_line(result)
    assert snapshot(repo) == before


def test_a_task_given_as_a_list_or_a_phase_as_an_object_reads_as_text(repo, cli):
    loose = {"task_description": ["step one", "step two"], "phase": {"n": 2, "name": "auth"}}
    write_history(repo, [entry("a1") | loose | {"status": "interrupted"}])
    listed = cli("history", "list")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout.split("  ")[-1].strip() == "step one; step two"
    briefed = cli("resume-task", "a1")
    assert briefed.exit_code == 0, briefed.stderr
    assert "\nstep one; step two\n" in briefed.stdout
    assert '- Phase {"n": 2, "name": "auth"}, plan' in briefed.stdout
    assert "['" not in listed.stdout + briefed.stdout


def test_history_module_reports_corrupt_files_by_path(tmp_path):
    with pytest.raises(CorruptFile) as caught:
        history.check(tmp_path / "h.json", {"entries": [{"agent_id": "a", "status": "bogus"}]})
    assert "unknown status 'bogus'" in caught.value.message


def test_project_option_and_a_folder_outside_git(tmp_path, cli, monkeypatch):
    folder = tmp_path / "plain"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    spawned = cli(
        "history", "spawn", "--agent-id", "a1", "--task", "t", "--phase", "01", "--plan", "01",
        "--project", str(folder), "--json",
    )  # fmt: skip
    assert spawned.exit_code == 0, spawned.stderr
    assert json.loads(spawned.stdout)["entry"]["spawn_commit"] is None
    assert cli("history", "interrupt", "a1", "--project", str(folder)).exit_code == 0
    resumed = cli("resume-task", "--project", str(folder))
    assert resumed.exit_code == 0, resumed.stderr
    assert "not a git repository" in resumed.stdout
    assert statuses(folder) == [("a1", "interrupted"), ("a1", "resumed")]
    outside = cli("history", "list")
    assert outside.exit_code == 1
    assert "not inside a git repository" in one_error_line(outside)


# --- start fresh, pruning on init, the spawn options ---------------------------------------------


def test_abandon_closes_an_interrupted_agent_so_it_no_longer_waits(repo, cli):
    write_history(repo, [entry("agent_a", "interrupted"), entry("agent_b", "interrupted")])
    result = cli("history", "abandon", "agent_a")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("abandoned agent_a failed")
    closed = read_history(repo)["entries"][0]
    assert closed["status"] == "failed"
    assert closed["abandoned_at"] == closed["completion_timestamp"]
    waiting = cli("resume-task", "--json")  # the most recent interrupted one is now agent_b
    assert json.loads(waiting.stdout)["agents"][0]["agent_id"] == "agent_b"


def test_abandon_a_parallel_group_closes_its_interrupted_agents_only(repo, cli):
    group = "phase-05-batch-1736676000"
    write_history(
        repo,
        [
            entry("agent_1", "interrupted", parallel_group=group, execution_mode="parallel"),
            entry("agent_2", "interrupted", parallel_group=group, execution_mode="parallel"),
            entry("agent_3", "completed", parallel_group=group, execution_mode="parallel"),
            entry("agent_4", "interrupted"),
        ],
    )
    result = cli("history", "abandon", group, "--json")
    assert result.exit_code == 0, result.stderr
    assert [e["agent_id"] for e in json.loads(result.stdout)["abandoned"]] == ["agent_1", "agent_2"]
    assert statuses(repo) == [
        ("agent_1", "failed"),
        ("agent_2", "failed"),
        ("agent_3", "completed"),
        ("agent_4", "interrupted"),
    ]


@pytest.mark.parametrize("status", ["spawned", "completed", "resumed"])
def test_abandon_refuses_what_is_not_interrupted(repo, cli, status):
    write_history(repo, [entry("agent_a", status)])
    before = snapshot(repo)
    result = cli("history", "abandon", "agent_a")
    assert result.exit_code == 1
    assert "only an interrupted agent" in one_error_line(result)
    assert snapshot(repo) == before


def test_abandoned_agents_are_pruned_before_waiting_ones(repo, cli):
    write_history(
        repo,
        [entry("agent_old", "interrupted"), *(entry(f"agent_{n}") for n in range(3))],
        max_entries=3,
    )
    assert cli("history", "abandon", "agent_old").exit_code == 0
    result = cli("history", "init")
    assert result.exit_code == 0, result.stderr
    assert "pruned 1 entry: agent_old" in result.stdout
    assert [a for a, _ in statuses(repo)] == ["agent_0", "agent_1", "agent_2"]


def test_a_prune_of_many_names_a_few_and_counts_the_rest(repo, cli):
    write_history(repo, [entry(f"done_{n:02}", "completed") for n in range(30)], max_entries=2)
    result = cli("history", "init")
    assert result.exit_code == 0, result.stderr
    assert "pruned 28 entries: done_00, done_01, " in result.stdout
    assert "done_09 and 18 more\n" in result.stdout


def test_init_prunes_an_over_full_history(repo, cli):
    write_history(
        repo,
        [entry(f"done_{n}", "completed") for n in range(4)] + [entry("running")],
        max_entries=2,
    )
    result = cli("history", "init", "--json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["created"], out["pruned"]) == (False, ["done_0", "done_1", "done_2"])
    assert [a for a, _ in statuses(repo)] == ["done_3", "running"]
    again = cli("history", "init", "--json")
    assert json.loads(again.stdout)["pruned"] == []


def test_spawn_names_every_missing_option_at_once_and_help_says_they_are_required(repo, cli):
    result = cli("history", "spawn", "--agent-id", "agent_x")
    assert result.exit_code == 2
    assert "--task, --phase and --plan are required for a new agent" in one_error_line(result)
    assert not history_path(repo).exists()
    helped = cli("history", "spawn", "--help").stdout
    assert helped.count("Required for a new agent") == 3


def test_counts_agree_with_their_nouns(repo, cli):
    group = "phase-05-batch-1736676000"
    write_history(
        repo,
        [entry("agent_1", "interrupted", parallel_group=group, execution_mode="parallel")],
    )
    result = cli("resume-task", "--batch")
    assert result.exit_code == 0, result.stderr
    assert "1 agent of this group was interrupted together" in result.stdout
    assert "1 agents" not in result.stdout


def test_text_a_change_adds_is_written_redacted(repo):
    secret = "ghp_" + "C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
    write_history(repo, [entry("a1"), entry("a2")])

    def change(doc):
        doc.entries[1].data["task_description"] = f"deploy with token {secret}"
        doc.entries[1].data["files_modified"] = [f"notes/{secret}.md"]
        doc.data["entries"].append(entry("a3", task_description=f"GITHUB_TOKEN={secret}"))

    history.update(Project(repo), change)
    written = history_path(repo).read_text()
    assert secret not in written
    assert written.count("[REDACTED:") == 3
    assert [e["task_description"] for e in read_history(repo)["entries"]][0] == "task of a1"
