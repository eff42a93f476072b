"""A committed config's path settings stay inside the project unless the user chose them; the
protected settings an untrusted config sets are named where they take effect; a bad config or
trust file is reported, not fatal to what can go on."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest

from purlin_resume.agents import revival, stall
from purlin_resume.core import clock, config, path_safety, store, trust
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project

PLANTED = "TOPSECRET-OUTSIDE-PERSONA"
TOKEN = "ghp_" + "Z9y8X7w6V5" * 3 + "qwerty"  # a secret beside it: never shown either


def _write(root: Path, **settings) -> None:
    (root / ".purlin").mkdir(exist_ok=True)
    (root / ".purlin" / "config.json").write_text(json.dumps({"resume": settings}))


def _user_settings(**settings) -> None:
    path = store.user_settings()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"resume": settings}))


@pytest.fixture
def outside(tmp_path) -> Path:
    """Files beside the project, as another repository or the user's home holds them."""
    folder = tmp_path / "outside"
    (folder / "personas").mkdir(parents=True)
    (folder / "personas" / "builder.md").write_text(f"{PLANTED} {TOKEN}\n")
    (folder / "notes.md").write_text(f"# Critic\n## Builder\n- [ ] {PLANTED} {TOKEN}\n")
    (folder / "plan.md").write_text(f"- [ ] {PLANTED}\n")
    (folder / "agents" / "a").mkdir(parents=True)
    return folder


def _escapes(outside: Path) -> dict[str, dict[str, str]]:
    """Each path setting, led out by ``..`` and by an absolute path."""
    return {
        "relative": {
            "persona_dir": "../outside/personas",
            "critic_report": "../outside/notes.md",
            "plan_file": "../outside/plan.md",
            "agent_workspace": "../outside/agents/{agent}",
        },
        "absolute": {
            "persona_dir": str(outside / "personas"),
            "critic_report": str(outside / "notes.md"),
            "plan_file": str(outside / "plan.md"),
            "agent_workspace": str(outside / "agents" / "{agent}"),
        },
    }


def _refusal(read):
    try:
        return read()
    except PurlinError as exc:
        return exc


def _reads(project: Project) -> dict[str, object]:
    """What each path setting leads a reading to (or the refusal)."""
    settings = config.load(project)
    found: dict[str, object] = {}
    for key, read in (
        ("persona_dir", lambda: revival.persona_text(project, settings, "builder")),
        ("critic_report", lambda: config.project_path(project, settings, "critic_report")),
        ("plan_file", lambda: stall.next_task(project, settings)),
        ("agent_workspace", lambda: stall.workspace_of(project, settings, "a")),
    ):
        try:
            found[key] = read()
        except PurlinError as exc:
            found[key] = exc
    return found


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_a_committed_path_setting_never_leads_outside_the_project(repo, outside, how):
    _write(repo, **_escapes(outside)[how])
    project = Project(repo)
    found = _reads(project)
    settings = config.load(project)
    found["persona_dir"] = _refusal(lambda: config.project_path(project, settings, "persona_dir"))
    for key in ("persona_dir", "critic_report", "agent_workspace"):
        assert isinstance(found[key], PurlinError), (key, found[key])
        assert "outside" in found[key].message
        assert "purlin-resume trust" in found[key].message
        assert str(store.user_settings()) in found[key].message
    assert found["plan_file"] is None  # the nudge goes on without a next task
    persona = revival.persona_text(project, settings, "builder")  # the default one
    assert PLANTED not in persona
    assert "Persona: you are the Builder" in persona


def test_a_committed_symbolic_link_at_a_path_setting_is_refused(repo, outside):
    """The default places too: a link committed as CRITIC_REPORT.md or a persona folder."""
    (repo / "CRITIC_REPORT.md").symlink_to(outside / "notes.md")
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "personas").symlink_to(outside / "personas")
    project = Project(repo)
    settings = config.load(project)
    with pytest.raises(PurlinError, match="a symbolic link leads it to .*remove the link"):
        config.project_path(project, settings, "critic_report")
    with pytest.raises(PurlinError, match="a symbolic link leads it to"):
        config.project_path(project, settings, "persona_dir", ".purlin/personas/builder.md")
    assert PLANTED not in revival.persona_text(project, settings, "builder")


def test_a_link_added_under_a_trusted_or_own_relative_path_is_refused(repo, outside):
    """Trust vouches for the config's text, not for links a later pull adds under it."""
    _write(repo, critic_report="docs/REPORT.md")
    project = Project(repo)
    trust.allow(project, config.load(project))
    (repo / "docs").symlink_to(outside)
    (outside / "REPORT.md").write_text(PLANTED)
    settings = config.load(project)
    assert settings.trusted
    with pytest.raises(PurlinError, match="a symbolic link leads it to"):
        config.project_path(project, settings, "critic_report")


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_the_users_own_path_settings_may_lead_anywhere(repo, outside, how):
    _user_settings(**_escapes(outside)[how])
    found = _reads(Project(repo))
    assert PLANTED in str(found["persona_dir"])
    assert found["plan_file"] == PLANTED
    assert os.path.realpath(str(found["agent_workspace"])) == os.path.realpath(
        outside / "agents" / "a"
    )


def test_a_trusted_projects_path_settings_apply_until_they_change(repo, outside):
    _write(repo, **_escapes(outside)["relative"])
    project = Project(repo)
    trust.allow(project, config.load(project))
    assert PLANTED in str(_reads(project)["persona_dir"])
    _write(repo, **(_escapes(outside)["relative"] | {"persona_dir": "../outside/x"}))
    assert PLANTED not in str(_reads(project)["persona_dir"])  # trust again first


def test_restore_never_shows_a_report_outside_the_project(repo, outside, cli):
    _write(repo, critic_report="../outside/notes.md")
    result = cli("restore", "builder")
    assert result.exit_code == 0, result.stderr  # the briefing goes on without the report
    assert PLANTED not in result.stdout + result.stderr
    assert TOKEN not in result.stdout + result.stderr
    assert "Critic report: not read (refusing" in result.stdout
    assert "resume.critic_report" in result.stdout


def test_revive_dry_run_never_types_a_persona_from_outside(repo, outside, cli):
    from tests.agents_setup import agent_record, write_registry

    record = agent_record(repo, ended_at="2026-01-15T15:00:00Z", role="builder")
    write_registry(repo, {"a": record})
    _write(repo, persona_dir="../outside/personas")
    result = cli("revive", "a", "--dry-run")
    assert PLANTED not in result.stdout + result.stderr
    assert TOKEN not in result.stdout + result.stderr
    assert result.exit_code == 0, result.stderr  # the default persona, never the outside one
    assert "Persona: you are the Builder" in result.stdout


def test_a_nudge_never_quotes_a_workspace_outside_the_project(repo, outside):
    from purlin_resume.agents import registry
    from tests.agents_setup import agent_record, write_registry

    (outside / "agents" / "a" / "status.json").write_text(json.dumps({"fsm_state": PLANTED}))
    write_registry(repo, {"a": agent_record(repo, role="builder")})
    _write(repo, agent_workspace="../outside/agents/{agent}", plan_file="../outside/plan.md")
    project = Project(repo)
    agent = registry.load(project)["a"]
    prompt = stall.resume_prompt(project, agent, config.load(project), None)
    assert "a" in prompt
    assert PLANTED not in prompt
    _write(repo)  # the same path from the user's own settings is theirs to choose
    _user_settings(agent_workspace=str(outside / "agents" / "{agent}"))
    assert PLANTED in stall.resume_prompt(project, agent, config.load(project), None)


def test_an_agent_id_holding_a_path_never_leads_a_workspace_anywhere(repo, outside):
    """The user's own ``agent_workspace`` may lead anywhere, but the id put in its place comes
    from the registry and is no path."""
    _user_settings(agent_workspace=".purlin/agents/{agent}")
    project = Project(repo)
    settings = config.load(project)
    with pytest.raises(PurlinError, match="session id .* is not valid"):
        stall.workspace_of(project, settings, "../../../../etc")
    assert stall.workspace_of(project, settings, "a") == repo / ".purlin" / "agents" / "a"


def test_a_workspace_outside_the_project_leaves_the_stall_check_to_its_other_sources(repo, outside):
    """The workspace refused, its sources are left out with a note; the agent is still judged
    on its own work (a failed check would make the watch nudge it: ``stall_fail_open``)."""
    from purlin_resume.agents import registry
    from tests.agents_setup import agent_record, write_registry

    (outside / "agents" / "a" / "status.json").write_text(json.dumps({"fsm_state": PLANTED}))
    started = clock.iso(clock.now() - timedelta(minutes=5))
    write_registry(repo, {"a": agent_record(repo, pid=os.getpid(), started_at=started)})
    _write(repo, agent_workspace="../outside/agents/{agent}")
    (repo / "work.py").write_text("x = 1\n")  # the agent's own fresh work
    project = Project(repo)
    assert registry.load(project)["a"].pid == os.getpid()
    result = stall.detect(project, "a")
    assert result.verdict == "active"
    assert any(n.startswith("status, devlog, inbox: not read (refusing") for n in result.notes)
    assert PLANTED not in json.dumps(result.to_dict())
    send, why, _ = stall.should_send_resume(project, "a")
    assert not send, why


# where a protected setting takes effect -------------------------------------------------------


def test_a_refused_folder_names_the_users_config_and_trust_not_the_project_file(tmp_path):
    with pytest.raises(path_safety.Refused) as refused:
        path_safety.checked("/etc", path_safety.roots([str(tmp_path)]), "--from")
    message = refused.value.message
    assert str(store.user_settings()) in message
    assert "purlin-resume trust" in message
    assert "resume.allowed_roots in .purlin/config.json" not in message


def test_the_held_back_hint_of_an_untrusted_project_names_trust(repo):
    _write(repo, agent_command="planted")
    settings = config.load(Project(repo))
    assert "trust" in config.how_to_set(settings, "agent_command")
    assert str(store.user_settings()) in config.how_to_set(config.Settings(), "agent_command")


def test_doctor_names_each_protected_setting_an_untrusted_project_sets(repo, outside, cli):
    _write(
        repo,
        agent_command="planted",
        tmux_socket="/tmp/other",
        redact={"allow": [".*"]},
        allowed_roots=["/"],
        mcp_projects=["/"],
        **_escapes(outside)["relative"],
    )
    shown = cli("doctor").stdout
    for key in ("agent_command", "tmux_socket", "redact.allow", "allowed_roots", "mcp_projects"):
        assert f"sets resume.{key}: ignored, the project is not trusted" in shown, key
    for key in config.PATH_SETTINGS:
        assert f"warn trust: resume.{key}: refusing" in shown, key
    assert cli("trust").exit_code == 0
    assert "not trusted" not in cli("doctor").stdout


# a bad config or trust file ---------------------------------------------------------------


@pytest.mark.parametrize(
    "whose, settings, line",
    [
        ("project", {"stall_cooldown_minute": 30}, "unknown setting resume.stall_cooldown_minute"),
        ("user", {"stall_threshold": "high"}, "resume.stall_threshold must be a positive number"),
    ],
)
def test_doctor_reports_a_bad_config_and_runs_its_other_checks(repo, cli, whose, settings, line):
    if whose == "project":
        _write(repo, **settings)
    else:
        _user_settings(**settings)
    result = cli("doctor")
    assert result.exit_code == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stderr == ""
    assert "FAIL state: settings: " in result.stdout
    assert line in result.stdout
    assert "hooks:" in result.stdout
    assert "tools:" in result.stdout


def test_restore_goes_on_untrusted_over_a_corrupt_trust_file(repo, cli, tmp_path):
    marker = tmp_path / "status-ran"
    script = repo / "tools" / "cdd" / "status.sh"
    script.parent.mkdir(parents=True)
    script.write_text(f'#!/bin/sh\ntouch "{marker}"\n')
    script.chmod(0o755)
    trust.allow(Project(repo), config.load(Project(repo)))
    assert cli("restore", "builder").exit_code == 0
    assert marker.exists()  # trusted: it runs (no .purlin/config.json needed)
    marker.unlink()
    trust.path().write_text("{broken")
    result = cli("restore", "builder")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "trust.json" in line]
    assert len(warnings) == 1, result.stderr
    assert "untrusted" in warnings[0]
    assert not marker.exists()
    assert trust.path().read_text() == "{broken"


def test_doctor_names_a_corrupt_trust_file_even_without_a_status_command(repo, cli):
    _write(repo, agent_command="evil --run")
    trust.path().parent.mkdir(parents=True, exist_ok=True)
    trust.path().write_text("{broken")
    result = cli("doctor")
    shown = result.stdout + result.stderr
    assert result.exit_code == 1, shown
    assert "trust.json is corrupt" in shown
    assert trust.path().read_text() == "{broken"


@pytest.mark.parametrize(
    "command",
    [
        ["history", "list"],
        ["agents-status"],
        ["bookmark", "list"],
        ["revive", "--all", "--dry-run"],
    ],
)
def test_every_command_names_a_corrupt_trust_file_once_and_goes_on(repo, cli, command):
    trust.path().parent.mkdir(parents=True, exist_ok=True)
    trust.path().write_text("{broken")
    result = cli(*command)
    warnings = [line for line in result.stderr.splitlines() if "trust.json" in line]
    assert len(warnings) == 1, result.stderr
    assert "untrusted" in warnings[0]
    assert trust.path().read_text() == "{broken"
