"""Revival of dead agents through real tmux and the stand-in agent; agents-status and lineage."""

from __future__ import annotations

import json
import os
from pathlib import Path

from purlin_resume.agents import registry
from purlin_resume.core import tmux
from purlin_resume.core.project import Project
from tests.agents_setup import (
    agent_record,
    at_once,
    configure,
    dead_pid,
    prompts,
    slow_tmux,
    standin_command,
    write_registry,
)


def _started(record) -> dict:
    return json.loads((record / "started.json").read_text())


def test_reviving_a_persona_agent_injects_persona_then_revival(repo, tmux_server, tmp_path, cli):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    (repo / ".purlin" / "personas").mkdir()
    (repo / ".purlin" / "personas" / "builder.md").write_text(
        "You build features test-first and commit each green step.\n"
    )
    write_registry(
        repo,
        {
            "dead-1": agent_record(
                repo, pid=dead_pid(), role="builder", ended_at="2026-01-15T15:00:00Z"
            )
        },
    )

    result = cli("revive", "dead-1", "--json")

    assert result.exit_code == 0, result.stderr
    done = json.loads(result.stdout)
    successor = done["successor"]
    received = prompts(record, 2)
    assert received[0].startswith("Persona: you are the Builder agent")
    assert "You build features test-first" in received[0]
    assert received[1].startswith("Revival: you succeed agent dead-1 (builder)")
    target = repo / ".purlin" / "cache" / "revival-dead-1.md"
    claude = Path.home() / ".claude"  # neither --claude-dir nor CLAUDE_CONFIG_DIR: the default
    assert f"purlin-resume transcript dead-1 --claude-dir {claude} -o {target}" in received[1]
    assert target.parent.is_dir()
    started = _started(record)
    assert started["argv"] == ["--session-id", successor]
    assert os.path.realpath(started["cwd"]) == os.path.realpath(repo)
    assert started["env"]["PURLIN_PREVIOUS_AGENT_ID"] == "dead-1"
    assert started["env"]["PURLIN_AGENT_ID"] == successor
    # the default data folder is left unnamed: naming it would move Claude Code's own settings
    # (login, onboarding) into it, and the successor would start as a fresh install
    assert "CLAUDE_CONFIG_DIR" not in started["env"]
    agents = registry.load(Project(repo))
    assert agents[successor].previous_agent_id == "dead-1"
    assert agents[successor].role == "builder"
    assert agents[successor].tmux_pane == done["tmux_pane"]
    assert tmux.pane_alive(tmux_server, done["tmux_pane"])
    log = (repo / ".purlin" / "cache" / "revivals.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["injections"] == ["persona", "revival"]


def test_reviving_an_anonymous_agent_injects_only_the_revival(repo, tmux_server, tmp_path, cli):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    write_registry(repo, {"anon-1": agent_record(repo, pid=dead_pid())})

    result = cli("revive", "anon")

    assert result.exit_code == 0, result.stderr
    assert "Revived anon-1 as " in result.stdout
    received = prompts(record, 1)
    assert len(received) == 1
    assert received[0].startswith("Revival: you succeed agent anon-1, which stopped: process ")
    assert "PURLIN_ROLE" not in _started(record)["env"]


def test_a_persona_without_a_persona_file_gets_the_role_persona(repo, tmux_server, tmp_path, cli):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    write_registry(repo, {"qa-1": agent_record(repo, role="qa", ended_at="2026-01-15T15:00:00Z")})

    result = cli("revive", "qa-1", "--dry-run", "--json")

    assert result.exit_code == 0, result.stderr
    planned = json.loads(result.stdout)
    assert [i["kind"] for i in planned["injections"]] == ["persona", "revival"]
    assert planned["injections"][0]["text"].startswith("Persona: you are the QA agent")
    assert planned["env"]["PURLIN_ROLE"] == "qa"


def test_a_persona_file_refused_is_named_and_the_role_persona_given(
    repo, tmux_server, tmp_path, cli
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "qa.md").write_text("planted persona\n")
    (repo / ".purlin").mkdir(exist_ok=True)
    (repo / ".purlin" / "personas").symlink_to(outside)  # a link leading out of the project
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(repo, {"qa-1": agent_record(repo, role="qa", ended_at="2026-01-15T15:00:00Z")})

    result = cli("revive", "qa-1", "--dry-run", "--json")

    assert result.exit_code == 0, result.stderr
    assert "a symbolic link" in result.stderr
    assert "the default persona would be given" in result.stderr
    persona = json.loads(result.stdout)["injections"][0]["text"]
    assert "planted persona" not in persona
    assert persona.startswith("Persona: you are the QA agent")


def test_an_agent_that_took_its_role_by_saving_is_revived_in_it(repo, tmux_server, tmp_path, cli):
    """Started without ``PURLIN_ROLE``, the agent saved a QA checkpoint: its successor is QA."""
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(repo, {"qa-2": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})
    fields = [
        "--in-progress",
        "w",
        "--next",
        "n",
        "--scenario-progress",
        "1",
        "--current-scenario",
        "s",
    ]
    saved = cli("save", "--role", "qa", *fields, "--session", "qa-2")
    assert saved.exit_code == 0, saved.output

    result = cli("revive", "qa-2", "--dry-run", "--json")

    assert result.exit_code == 0, result.stderr
    planned = json.loads(result.stdout)
    assert planned["injections"][0]["text"].startswith("Persona: you are the QA agent")
    assert planned["env"]["PURLIN_ROLE"] == "qa"


def test_dry_run_starts_nothing_and_writes_nothing(repo, tmux_server, tmp_path, cli):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    path = write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})
    before = path.read_bytes()

    result = cli("revive", "dead-1", "--dry-run")

    assert result.exit_code == 0, result.stderr
    assert "Would revive dead-1 as " in result.stdout
    assert "--- revival injection ---" in result.stdout
    assert path.read_bytes() == before
    assert not (record / "started.json").exists()
    assert not tmux.session_exists(tmux_server, "purlin-agents")


def test_a_live_agent_is_not_revived(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "agent")
    path = write_registry(repo, {"live-1": agent_record(repo, pid=os.getpid())})
    before = path.read_bytes()

    result = cli("revive", "live-1")

    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"error: agent live-1 is alive (process {os.getpid()} runs); "
        "only a dead agent can be revived"
    )
    assert path.read_bytes() == before
    assert not (tmp_path / "agent" / "started.json").exists()


def test_an_agent_whose_pane_is_gone_is_dead(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "agent")
    keeper = tmux.new_session(tmux_server, "keep", repo, "cat")
    write_registry(
        repo,
        {
            "gone": agent_record(repo, tmux_pane="%999"),
            "here": agent_record(repo, tmux_pane=keeper),
        },
    )

    result = cli("agents-status", "--json")

    assert result.exit_code == 0, result.stderr
    states = {a["agent_id"]: (a["state"], a["why"]) for a in json.loads(result.stdout)["agents"]}
    assert states["gone"] == ("dead", "tmux pane %999 is gone")
    assert states["here"] == ("alive", f"tmux pane {keeper} is open")


def test_unknown_state_and_unknown_ids_are_refused(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(
        repo,
        {"ghost": agent_record(repo), "abcd-1": agent_record(repo), "abcd-2": agent_record(repo)},
    )

    unknown = cli("revive", "ghost")
    missing = cli("revive", "nobody")
    ambiguous = cli("revive", "abcd")
    empty = cli("revive", " ")

    assert unknown.exit_code == 1
    assert "cannot tell whether agent ghost is dead" in unknown.stderr
    assert missing.exit_code == 1
    assert missing.stderr.strip() == (
        "error: no registered agent 'nobody'; 'purlin-resume agents-status' lists the known ones"
    )
    assert ambiguous.exit_code == 1
    assert "ambiguous (abcd-1, abcd-2)" in ambiguous.stderr
    assert empty.exit_code == 2
    for result in (unknown, missing, ambiguous, empty):
        assert len(result.stderr.strip().splitlines()) == 1


def test_a_prefix_shorter_than_four_characters_names_no_agent(repo, tmux_server, tmp_path, cli):
    """Regression: ``revive 5`` revived the one dead agent whose id starts with 5."""
    configure(repo, tmux_server, tmp_path / "agent")
    dead = "55604662-cf2a-4331-851a-ec234028f8ca"  # a real session id (the fixture short.jsonl)
    write_registry(repo, {dead: agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    short = cli("revive", "5", "--dry-run")
    enough = cli("revive", "5560", "--dry-run")

    assert short.exit_code == 2
    assert short.stderr.strip() == (
        "error: agent id '5' is too short: give the whole id or at least 4 of its first "
        "characters; 'purlin-resume agents-status' lists them"
    )
    assert enough.exit_code == 0, enough.stderr
    assert dead in enough.stdout


def test_a_corrupt_registry_is_reported_and_kept(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "agent")
    path = repo / ".purlin" / "agents.json"
    path.write_text("{not json")

    for args in (
        ("revive", "x"),
        ("agents-status",),
        ("lineage", "x"),
        ("stall", "check", "x"),
        ("watch", "--once"),
    ):
        result = cli(*args)
        assert result.exit_code == 1, args
        assert "agents.json is corrupt (invalid JSON at line 1" in result.stderr
    assert path.read_text() == "{not json"


def test_an_agent_with_a_live_successor_is_not_revived_twice(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(
        repo,
        {
            "old": agent_record(repo, ended_at="2026-01-15T15:00:00Z"),
            "new": agent_record(repo, pid=os.getpid(), previous_agent_id="old"),
        },
    )

    result = cli("revive", "old")

    assert result.exit_code == 1
    assert "already has a live successor new" in result.stderr


def test_a_successor_that_never_gets_ready_is_an_error(repo, tmux_server, tmp_path, cli):
    configure(
        repo,
        tmux_server,
        tmp_path / "agent",
        agent_command="sh -c 'echo starting; exec cat'",
        agent_session_flag="",
        agent_ready_timeout=1,
    )
    write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    result = cli("revive", "dead-1")

    assert result.exit_code == 1
    assert "did not show '? for shortcuts|shift+tab to cycle' within 1 s" in result.stderr
    assert result.stderr.strip().endswith("(revival undone: window closed)")
    # no phantom successor: the registry holds the dead agent alone, and the log says why
    assert list(registry.load(Project(repo))) == ["dead-1"]
    (logged,) = [
        json.loads(line)
        for line in (repo / ".purlin" / "cache" / "revivals.jsonl").read_text().splitlines()
    ]
    assert logged["outcome"] == "failed"
    assert "within 1 s" in logged["reason"]
    assert not tmux.pane_alive(tmux_server, logged["tmux_pane"])


def test_a_successor_that_registered_itself_then_never_got_ready_leaves_no_successor(
    repo, tmux_server, tmp_path, cli
):
    """Claude Code runs its SessionStart hook before it shows its prompt: a successor that got
    that far and no further is undone all the same, so the dead agent has no successor (the
    lineage, ``agents-status`` and the dashboard's Revive button say so) and can be revived
    again."""
    import sys

    hook = Path(sys.executable).with_name("purlin-resume")
    started = tmp_path / "registers-then-hangs.sh"
    started.write_text(
        "#!/bin/sh\n"
        'printf \'{"session_id":"%s","cwd":"%s","source":"startup","transcript_path":"%s"}\' '
        f'"$PURLIN_AGENT_ID" "$PWD" "{tmp_path}/t.jsonl" | {hook} hook session-start\n'
        "echo registered; exec cat\n"
    )
    started.chmod(0o755)
    configure(
        repo,
        tmux_server,
        tmp_path / "agent",
        agent_command=str(started),
        agent_session_flag="",
        agent_ready_timeout=3,
    )
    write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    result = cli("revive", "dead-1")

    assert result.exit_code == 1
    assert result.stderr.strip().endswith("(revival undone: window closed)")
    assert list(registry.load(Project(repo))) == ["dead-1"]
    assert "succeeded by" not in cli("agents-status").stdout


def test_regression_unused_windows_a_failed_revival_leaves_none(repo, tmux_server, tmp_path, cli):
    """A revival that cannot brief its successor must not leave a window (or a live-looking
    successor) behind; the predecessor can be revived again."""
    configure(repo, tmux_server, tmp_path / "agent", agent_command="false", agent_session_flag="")
    write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    first = cli("revive", "dead-1")

    assert first.exit_code == 1
    assert "the successor's command exited in tmux pane" in first.stderr
    windows = tmux.run(tmux_server, "list-windows", "-a", check=False)
    assert "revived-" not in windows
    configure(repo, tmux_server, tmp_path / "agent")
    second = cli("revive", "dead-1")
    assert second.exit_code == 0, second.stderr


def test_a_registry_the_repository_wrote_names_no_folder_outside_and_no_odd_role(
    repo, tmux_server, tmp_path, cli
):
    """A committed .purlin/agents.json may say anything: a successor starts in the project, a
    role holding escapes counts as none, a native revival outside the project is refused."""
    configure(repo, tmux_server, tmp_path / "agent")
    role = "qa\x1b]52;c;cm0gLXJmIH4K\x07"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    transcript = outside / "dead-1.jsonl"
    transcript.write_text("{}\n")
    write_registry(
        repo,
        {
            "dead-1": agent_record(
                outside,
                ended_at="2026-01-15T15:00:00Z",
                role=role,
                transcript_path=str(transcript),
            )
        },
    )
    assert registry.load(Project(repo))["dead-1"].role is None
    planned = json.loads(cli("revive", "dead-1", "--dry-run", "--json").stdout)
    assert planned["cwd"] == str(repo)
    assert "\x1b" not in json.dumps(planned)
    native = cli("revive", "dead-1", "--native")
    assert native.exit_code == 1
    assert f"worked in ({outside}) lies outside the project" in native.stderr


def test_an_agent_program_not_on_path_is_named_before_anything_starts(
    repo, tmux_server, tmp_path, cli
):
    """As when Claude Code is not installed: the dry run warns, the revival is refused in one
    line before a window opens or a successor is registered."""
    configure(repo, tmux_server, tmp_path / "agent", agent_command="no-such-agent-cli --x")
    path = write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})
    before = path.read_bytes()
    said = (
        "'no-such-agent-cli' is not on PATH: install Claude Code, or set resume.agent_command in "
    )

    planned = cli("revive", "dead-1", "--dry-run")
    assert planned.exit_code == 0, planned.stderr
    assert said in planned.stderr
    assert "warning: no transcript of dead-1 in " in planned.stderr  # none written here
    assert "Would revive dead-1 as " in planned.stdout

    refused = cli("revive", "dead-1")
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"error: {said}")
    assert "config.json, or in the project's .purlin/config.json and run 'purlin-resume trust'" in (
        refused.stderr
    )
    assert path.read_bytes() == before
    assert not tmux.session_exists(tmux_server, "purlin-agents")


def test_the_revival_log_is_redacted(repo, tmux_server, tmp_path, cli):
    from tests.core.test_redact import PLANTED

    secret = PLANTED["github-token"]
    agent = tmp_path / "agent"
    configure(repo, tmux_server, agent, agent_command=f"false {secret}", agent_session_flag="")
    write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    failed = cli("revive", "dead-1")

    assert failed.exit_code == 1
    logged = (repo / ".purlin" / "cache" / "revivals.jsonl").read_text()
    assert "command exited" in json.loads(logged)["reason"]
    assert secret not in logged
    assert secret not in failed.stderr


def test_lineage_lists_predecessors_and_successors(repo, cli):
    write_registry(
        repo,
        {
            "a": agent_record(
                repo, ended_at="2026-01-15T15:00:00Z", started_at="2026-01-15T10:00:00Z"
            ),
            "b": agent_record(
                repo,
                previous_agent_id="a",
                ended_at="2026-01-15T16:00:00Z",
                started_at="2026-01-15T11:00:00Z",
            ),
            "c": agent_record(repo, previous_agent_id="b", started_at="2026-01-15T12:00:00Z"),
            "d": agent_record(repo, previous_agent_id="b", started_at="2026-01-15T13:00:00Z"),
            "x": agent_record(repo, previous_agent_id="zz-unregistered"),
        },
    )

    result = cli("lineage", "b", "--json")
    text = cli("lineage", "b")
    orphan = cli("lineage", "x", "--json")

    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["predecessors"] == [{"agent_id": "a", "registered": True}]
    assert [n["agent_id"] for n in data["successors"]] == ["c", "d"]
    assert text.stdout == "a\n  b  <- this agent\n    c\n    d\n"
    assert json.loads(orphan.stdout)["predecessors"] == [
        {"agent_id": "zz-unregistered", "registered": False}
    ]


def test_lineage_of_an_unknown_agent(repo, cli):
    write_registry(repo, {"a": agent_record(repo)})
    result = cli("lineage", "zzz")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: no registered agent 'zzz'; 'purlin-resume agents-status' lists the known ones"
    )


def test_a_corrupt_config_stops_revival(repo, cli):
    write_registry(repo, {"a": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})
    (repo / ".purlin" / "config.json").write_text(
        json.dumps({"resume": {"agent_ready_timeout": -1}})
    )
    result = cli("revive", "a")
    assert result.exit_code == 1
    assert "resume.agent_ready_timeout must be a positive number" in result.stderr


def test_lineage_survives_a_cycle(repo, cli):
    write_registry(
        repo,
        {
            "a": agent_record(repo, previous_agent_id="b"),
            "b": agent_record(repo, previous_agent_id="a"),
        },
    )
    result = cli("lineage", "a", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["predecessors"] == [{"agent_id": "b", "registered": True}]


def test_agents_status_text_and_empty(repo, cli):
    empty = cli("agents-status")
    assert empty.exit_code == 0
    assert empty.stdout.startswith("No registered agents in ")
    write_registry(
        repo,
        {
            "a": agent_record(repo, ended_at="2026-01-15T15:00:00Z", role="builder"),
            "b": agent_record(repo, previous_agent_id="a", pid=os.getpid()),
        },
    )
    result = cli("agents-status")
    assert "a  dead     builder" in result.stdout
    assert "ended at 2026-01-15T15:00:00Z; succeeded by b" in result.stdout
    assert f"process {os.getpid()} runs; succeeds a" in result.stdout


def test_project_option_must_exist(cli, tmp_path):
    result = cli("agents-status", "--project", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "no such folder" in result.stderr


def test_the_command_in_the_revival_instruction_works_as_written(repo, fixtures_copy, cli):
    import shlex

    session = "4d5611e5-241a-462a-8d15-5122611a9569"  # a real Claude Code session
    write_registry(repo, {session: agent_record(repo, ended_at="2026-02-12T21:10:00Z")})
    args = ("revive", session[:8], "--claude-dir", str(fixtures_copy), "--dry-run", "--json")
    dry_run = cli(*args)
    assert "no transcript" not in dry_run.stderr  # the fixtures hold it
    planned = json.loads(dry_run.stdout)
    assert planned["env"]["CLAUDE_CONFIG_DIR"] == str(fixtures_copy)
    instruction = planned["injections"][-1]["text"]
    line = next(x for x in instruction.splitlines() if "purlin-resume transcript" in x)
    argv = shlex.split(line.strip())
    (repo / ".purlin" / "cache").mkdir(parents=True)

    # The successor's shell may point elsewhere: the command names the data folder itself.
    result = cli(*argv[1:], env={"CLAUDE_CONFIG_DIR": str(repo / "elsewhere")})

    assert result.exit_code == 0, result.stderr
    written = (repo / ".purlin" / "cache" / f"revival-{session}.md").read_text()
    assert written.startswith(f"# Session {session}")


def _slow_agent(record: Path, folder: Path, seconds: int = 2) -> str:
    """The stand-in agent, ready only ``seconds`` after its start (as Claude Code takes a while)."""
    script = folder / "slow-agent.sh"
    script.write_text(f'#!/bin/sh\nsleep {seconds}\nexec {standin_command(record)} "$@"\n')
    script.chmod(0o755)
    return str(script)


def test_two_revive_commands_at_once_start_one_successor(repo, tmux_server, tmp_path):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record, agent_command=_slow_agent(record, tmp_path))
    tmux.new_session(tmux_server, "purlin-agents", repo, "cat")
    write_registry(repo, {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    slow = slow_tmux(tmp_path, "new-window", "new-session")
    answers = at_once(repo, ["revive", "dead-1"], ["revive", "dead-1"], path=slow)

    assert sorted(a.returncode for a in answers) == [0, 1], [a.stderr for a in answers]
    won = next(a for a in answers if a.returncode == 0)
    lost = next(a for a in answers if a.returncode == 1)
    assert "Revived dead-1 as " in won.stdout
    successors = [a for a in registry.load(Project(repo)).values() if a.previous_agent_id]
    assert len(successors) == 1
    assert lost.stderr.strip() == (
        f"error: agent dead-1 already has a live successor {successors[0].session_id}; "
        "revive that one when it dies"
    )
    windows = tmux.run(tmux_server, "list-windows", "-a", "-F", "#{window_name}")
    assert sum(name.startswith("revived-") for name in windows.split()) == 1


def test_two_revivals_at_once_before_the_tmux_session_exists(repo, tmux_server, tmp_path):
    """Two dead agents revived at once, no ``purlin-agents`` session yet: both come back."""
    record = tmp_path / "agent"
    configure(repo, tmux_server, record, agent_command=_slow_agent(record, tmp_path, 1))
    dead = {"dead-1": agent_record(repo, ended_at="2026-01-15T15:00:00Z")}
    write_registry(repo, {**dead, "dead-2": agent_record(repo, ended_at="2026-01-15T15:00:00Z")})

    slow = slow_tmux(tmp_path, "new-window", "new-session")
    answers = at_once(repo, ["revive", "dead-1"], ["revive", "dead-2"], path=slow)

    assert [a.returncode for a in answers] == [0, 0], [a.stderr for a in answers]
    agents = registry.load(Project(repo)).values()
    assert sorted(a.previous_agent_id for a in agents if a.previous_agent_id) == [
        "dead-1",
        "dead-2",
    ]
