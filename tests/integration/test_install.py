"""`install`, `uninstall` and `doctor` on real files, beside other tools' hooks and settings."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from purlin_resume.claude import settings as claude_settings
from purlin_resume.core import trust
from purlin_resume.integration import installation
from tests.conftest import git
from tests.resurrection_data import write_config

OTHERS = {
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "cleanupPeriodDays": 90,
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/.claude/hooks/guard.sh"}],
            }
        ],
        "SessionStart": [
            {
                "matcher": "startup|resume|clear|compact",
                "hooks": [
                    {
                        "type": "command",
                        "command": "${CLAUDE_PLUGIN_ROOT}/hooks/start.sh",
                        "timeout": 5,
                    }
                ],
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "/home/u/.claude/hooks/tmux-waiting.sh mark"}
                ]
            }
        ],
    },
    "env": {"FOO": "bär"},
}


def write_settings(root: Path, data: dict, indent: int = 4) -> Path:
    path = root / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False) + "\n")
    return path


def ours(data: dict) -> list[str]:
    return [
        h["command"]
        for groups in data.get("hooks", {}).values()
        for g in groups
        for h in g["hooks"]
        if claude_settings.is_ours(h)
    ]


def test_install_merges_beside_other_hooks_is_idempotent_and_uninstall_restores_the_file(repo, cli):
    path = write_settings(repo, OTHERS)
    original = path.read_text()
    result = cli("install")
    assert result.exit_code == 0, result.stderr
    data = json.loads(path.read_text())
    assert sorted(ours(data)) == sorted(h.command() for h in claude_settings.HOOKS)
    assert data["permissions"] == OTHERS["permissions"]
    assert data["env"] == OTHERS["env"]
    assert (
        data["hooks"]["PreToolUse"][0] == OTHERS["hooks"]["PreToolUse"][0]
    )  # theirs first, untouched
    assert data["hooks"]["PreToolUse"][1]["matcher"] == "Agent|Task"
    assert data["hooks"]["SessionStart"][0] == OTHERS["hooks"]["SessionStart"][0]
    assert data["hooks"]["Stop"] == OTHERS["hooks"]["Stop"]
    assert path.read_text().startswith('{\n    "permissions"')  # the file's own indentation kept
    assert (repo / ".claude" / "commands" / "pl-resume.md").is_file()
    assert (repo / ".claude" / "commands" / "gsd" / "resume-task.md").is_file()
    assert (repo / ".planning" / "agent-history.json").is_file()
    assert "/.purlin/cache/" in (repo / ".gitignore").read_text().splitlines()

    snapshot = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git/" not in str(p)}
    again = cli("install")
    assert again.exit_code == 0
    assert "Nothing to change" in again.stdout
    assert {p: p.read_bytes() for p in snapshot} == snapshot

    removed = cli("uninstall")
    assert removed.exit_code == 0, removed.stderr
    assert path.read_text() == original  # byte for byte
    assert not (repo / ".claude" / "commands").exists()
    assert (repo / ".planning" / "agent-history.json").is_file()  # project state stays
    assert cli("uninstall").stdout.startswith("Nothing to change")
    assert ".claude/settings.json.lock" not in git(repo, "status", "--porcelain")


def test_install_into_a_project_without_settings_and_uninstall_leaves_nothing_of_ours(repo, cli):
    cli("install")
    assert json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]["SubagentStop"]
    assert cli("uninstall", "--dry-run").stdout.count("+++ /dev/null") == 1 + len(
        installation.command_templates()
    )
    result = cli("uninstall")
    assert result.exit_code == 0, result.stderr
    assert ".claude/settings.json" in result.stdout
    assert not (repo / ".claude" / "settings.json").exists()
    assert not (repo / ".claude" / "settings.json.lock").exists()
    assert list((repo / ".claude").iterdir()) == []
    assert cli("uninstall").stdout.startswith("Nothing to change")


def test_an_install_stopped_by_a_failed_write_names_what_it_wrote(repo, cli):
    (repo / ".planning").write_text("not a folder\n")  # the history cannot be created
    result = cli("install")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1, result.stderr
    line = result.stderr
    assert ".planning" in line
    assert "nothing was changed" not in line
    written = line.split("written before it: ")[1].split("; the rest")[0].split(", ")
    assert ".claude/settings.json" in written
    assert all((repo / name).is_file() for name in written)
    assert (repo / ".planning").read_text() == "not a folder\n"


def test_user_uninstall_deletes_the_settings_file_install_created_and_its_lock(cli, tmp_path):
    folder = tmp_path / "claude-home"
    (folder / "projects").mkdir(parents=True)  # Claude Code's own content stays
    env = {"CLAUDE_CONFIG_DIR": str(folder)}
    assert cli("install", "--user", env=env).exit_code == 0
    assert (folder / "settings.json.lock").exists()

    result = cli("uninstall", "--user", env=env)

    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["projects"]


@pytest.mark.parametrize(
    "before",
    [
        {"cleanupPeriodDays": 365},
        {"env": {}},
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}},
    ],
)
def test_user_uninstall_keeps_a_settings_file_that_had_content_before(cli, tmp_path, before):
    folder = tmp_path / "claude-home"
    folder.mkdir()
    path = folder / "settings.json"
    path.write_text(json.dumps(before, indent=2) + "\n")
    original = path.read_text()
    env = {"CLAUDE_CONFIG_DIR": str(folder)}
    assert cli("install", "--user", env=env).exit_code == 0
    assert ours(json.loads(path.read_text()))

    result = cli("uninstall", "--user", env=env)

    assert result.exit_code == 0, result.stderr
    assert path.read_text() == original


def test_a_settings_file_that_is_a_link_stays_one_and_its_file_gets_the_hooks(repo, cli, tmp_path):
    """A settings file linked from a dotfiles folder (the user's) or from elsewhere in the
    project: the link stays, the file it leads to is changed, and uninstall restores it."""
    dotfiles = tmp_path / "dotfiles" / "settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"cleanupPeriodDays": 365}\n')
    folder = tmp_path / "claude-home"
    folder.mkdir()
    (folder / "settings.json").symlink_to(dotfiles)
    shared = repo / "config" / "claude.json"
    shared.parent.mkdir()
    shared.write_text('{"env": {}}\n')
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").symlink_to("../config/claude.json")
    env = {"CLAUDE_CONFIG_DIR": str(folder)}
    originals = {dotfiles: dotfiles.read_text(), shared: shared.read_text()}

    for args in (("--user",), ()):
        assert cli("install", *args, env=env).exit_code == 0
    assert (folder / "settings.json").is_symlink()
    assert (repo / ".claude" / "settings.json").is_symlink()
    assert ours(json.loads(dotfiles.read_text()))
    assert ours(json.loads(shared.read_text()))
    for args in (("--user",), ()):
        assert cli("uninstall", *args, env=env).exit_code == 0
    assert {path: path.read_text() for path in originals} == originals


@pytest.mark.parametrize(
    "linked", [".claude/commands/pl-resume.md", ".claude/settings.json", ".claude"]
)
def test_a_committed_link_out_of_the_project_is_refused_and_nothing_written(
    repo, cli, tmp_path, linked
):
    """A repository may commit a link that leads an install's write out of it (to
    ``~/.bashrc``, to the user's own Claude folder): refused, one line, nothing changed."""
    names = {".claude": ".claude", ".claude/settings.json": ".claude-settings.json"}
    outside = tmp_path / "home" / names.get(linked, ".bashrc")
    outside.parent.mkdir(parents=True)
    if linked == ".claude":
        outside.mkdir()
        (outside / "settings.json").write_text("{}\n")
    else:  # the user's settings (JSON, which the install would merge into), or a shell's
        outside.write_text("{}\n" if "settings" in linked else "export PATH=$PATH:/mine\n")
    link = repo / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    home = tmp_path / "home"
    kept = {p: p.read_text() for p in home.rglob("*") if p.is_file()}

    for args in (("--dry-run",), ()):
        result = cli("install", *args)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"error: refusing {repo}/.claude/")
        assert "a symbolic link leads it to" in result.stderr
        assert result.stderr.count("\n") == 1
    assert {p: p.read_text() for p in home.rglob("*") if p.is_file()} == kept
    assert not (repo / ".gitignore").exists()
    assert not (repo / ".planning").exists()


def test_uninstall_keeps_an_empty_settings_file_it_did_not_change(repo, cli):
    cli("install")
    path = repo / ".claude" / "settings.json"
    path.write_text("{}\n")  # our hooks taken out by hand: nothing of ours to remove

    result = cli("uninstall")

    assert result.exit_code == 0, result.stderr
    assert path.read_text() == "{}\n"


def test_dry_run_prints_the_diff_and_writes_nothing(repo, cli):
    path = write_settings(repo, OTHERS)
    before = path.read_text()
    result = cli("install", "--dry-run")
    assert result.exit_code == 0
    assert "+++ b/.claude/settings.json" in result.stdout
    added = [line for line in result.stdout.splitlines() if line.startswith("+")]
    assert any(line.strip(" +") == '"matcher": "Agent|Task",' for line in added)
    assert "--- /dev/null\n+++ b/.claude/commands/pl-resume.md" in result.stdout
    assert "+/.purlin/cache/" in result.stdout
    assert path.read_text() == before
    assert not (repo / ".claude" / "commands").exists()
    assert not (repo / ".planning").exists()
    cli("install")
    assert cli("uninstall", "--dry-run", "--json").exit_code == 0
    assert ours(json.loads(path.read_text()))


def test_an_outdated_hook_of_ours_is_updated_in_place(repo, cli):
    data = json.loads(json.dumps(OTHERS))
    data["hooks"]["PreToolUse"].insert(
        0,
        {
            "matcher": "Task",
            "hooks": [
                {"type": "command", "command": "purlin-resume hook pre-tool-use", "timeout": 3}
            ],
        },
    )
    path = write_settings(repo, data)
    doctor = cli("doctor", "--json")
    findings = json.loads(doctor.stdout)["findings"]
    assert any(f["check"] == "matchers" and f["status"] == "error" for f in findings)
    assert doctor.exit_code == 1
    cli("install")
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert groups[0] == {
        "matcher": "Agent|Task",
        "hooks": [{"type": "command", "command": "purlin-resume hook pre-tool-use", "timeout": 10}],
    }
    assert groups[1] == OTHERS["hooks"]["PreToolUse"][0]
    assert len(groups) == 2


def test_a_foreign_command_inside_our_group_is_kept(repo, cli):
    data = {
        "hooks": {
            "SessionEnd": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "purlin-resume hook session-end",
                            "timeout": 10,
                        },
                        {"type": "command", "command": "notify-send bye"},
                    ]
                }
            ]
        }
    }
    path = write_settings(repo, data)
    cli("install")
    cli("uninstall")
    assert json.loads(path.read_text()) == {
        "hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send bye"}]}]}
    }


def test_uninstall_leaves_a_command_someone_edited(repo, cli):
    cli("install")
    edited = repo / ".claude" / "commands" / "pl-resume.md"
    edited.write_text(edited.read_text() + "\nMy own note.\n")
    result = cli("uninstall")
    assert edited.is_file()
    assert "pl-resume.md: changed since it was installed" in result.stdout
    assert not (repo / ".claude" / "commands" / "gsd").exists()


def test_user_install_goes_to_the_claude_folder(repo, cli, tmp_path, monkeypatch):
    folder = tmp_path / "claude-home"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    result = cli("install", "--user")
    assert result.exit_code == 0, result.stderr
    assert ours(json.loads((folder / "settings.json").read_text()))
    assert (folder / "commands" / "pl-resume.md").is_file()
    assert not (repo / ".claude").exists()
    doctor = json.loads(cli("doctor", "--json").stdout)
    assert all(
        f["status"] == "ok" for f in doctor["findings"] if f["check"] in ("hooks", "commands")
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{broken", "invalid JSON"),
        ("[1]", "top level must be an object"),
        ('{"hooks": []}', "'hooks' must be an object"),
    ],
)
def test_a_broken_settings_file_is_named_and_never_touched(repo, cli, text, why):
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    for command in (("install",), ("uninstall",), ("install", "--dry-run")):
        result = cli(*command)
        assert result.exit_code == 1
        assert result.stderr.count("\n") == 1
        assert why in result.stderr
        assert "settings.json" in result.stderr
        assert path.read_text() == text
    assert not (repo / ".claude" / "commands").exists()


def test_install_usage_errors(repo, cli, tmp_path):
    result = cli("install", "--project", str(repo), "--user")
    assert result.exit_code == 2
    assert "exclude each other" in result.stderr
    result = cli("install", "--project", str(tmp_path / "missing"))
    assert result.exit_code == 2
    assert "no such folder" in result.stderr


def test_doctor_on_a_bare_project_says_how_to_fix_each_finding(repo, cli):
    result = cli("doctor")
    assert result.exit_code == 1
    failing = [line for line in result.stdout.splitlines() if line.startswith(("FAIL", "warn"))]
    assert failing
    assert all("-> " in line for line in failing)
    assert any("purlin-resume install" in line for line in failing)
    cli("install")
    report = json.loads(cli("doctor", "--json").stdout)
    bad = [f for f in report["findings"] if f["status"] == "error" and f["check"] != "tools"]
    assert bad == []


def test_doctor_reports_corrupt_state_and_transcripts_at_risk(repo, cli):
    cli("install")
    settings = repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["cleanupPeriodDays"] = 10
    settings.write_text(json.dumps(data))
    history_file = repo / ".planning" / "agent-history.json"
    history_file.write_text(
        json.dumps(
            {
                "version": "1.2",
                "max_entries": 50,
                "entries": [
                    {
                        "agent_id": "old1",
                        "status": "interrupted",
                        "timestamp": "2020-01-01T00:00:00Z",
                    }
                ],
            }
        )
    )
    report = json.loads(cli("doctor", "--json").stdout)
    cleanup = next(f for f in report["findings"] if f["check"] == "cleanup")
    assert cleanup["status"] == "warn"
    assert "old1" in cleanup["message"]
    assert cleanup["fix"]
    history_file.write_text("{oops")
    registry = repo / ".purlin" / "agents.json"
    registry.parent.mkdir(exist_ok=True)
    registry.write_text("[]")
    result = cli("doctor", "--json")
    assert result.exit_code == 1
    messages = [
        f["message"] for f in json.loads(result.stdout)["findings"] if f["status"] == "error"
    ]
    assert any("agent-history.json" in m for m in messages)
    assert any("agents.json" in m for m in messages)
    assert history_file.read_text() == "{oops"
    assert registry.read_text() == "[]"


def test_doctor_says_what_to_do_once_a_line(repo, cli):
    """A corrupt state file, checkpoint, settings file and trust file: each FAIL line names the
    file and one way to fix it (the error's own advice was followed by the doctor's)."""
    cli("install")
    (repo / ".planning" / "agent-history.json").write_text("{oops")
    checkpoint = repo / ".purlin" / "cache" / "session_checkpoint.md"
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    checkpoint.write_bytes(b"\xff\xfe")
    (repo / ".claude" / "settings.local.json").write_text("{oops")
    (repo / ".purlin" / "config.json").write_text(json.dumps({"resume": {"agent_command": "x"}}))
    trust.path().parent.mkdir(parents=True, exist_ok=True)
    trust.path().write_text("{broken")
    result = cli("doctor")
    assert result.exit_code == 1
    for name in (
        "agent-history.json",
        "session_checkpoint.md",
        "settings.local.json",
        "trust.json",
    ):
        [line] = [line for line in result.stdout.splitlines() if name in line]
        assert line.startswith("FAIL")
        assert line.count("fix ") == 1, line


@pytest.mark.parametrize(
    "unread", [".planning/agent-history.json", ".purlin/agents.json", ".claude/settings.json"]
)
def test_doctor_names_a_state_file_the_user_may_not_read_and_goes_on(
    repo, cli, monkeypatch, unread
):
    """A state file of another user (``sudo claude`` made it) is one finding with what to do;
    every other check still reports (doctor stopped at the first such file)."""
    from tests.conftest import unreadable

    assert cli("install").exit_code == 0
    (repo / ".purlin").mkdir(exist_ok=True)
    (repo / ".purlin" / "agents.json").write_text('{"version": 1, "agents": {}}')
    unreadable(repo / unread, monkeypatch)

    result = cli("doctor", "--json")

    assert result.exit_code == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    refused = [f for f in findings if "Permission denied" in f["message"]]
    assert len(refused) == 1, refused
    assert refused[0]["status"] == "error"
    assert f"make {repo / unread} readable" in refused[0]["message"]
    assert {"commands", "tools", "state"} <= {f["check"] for f in findings}


def test_shipped_command_templates_are_all_installed(repo, cli):
    cli("install")
    for name in installation.command_templates():
        assert (repo / ".claude" / "commands" / name).is_file()


def test_doctor_reports_hook_failures_from_the_log(repo, cli):
    cli("install")
    log = repo / ".purlin" / "cache" / "hook.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        json.dumps({"time": "2026-01-01T00:00:00Z", "event": "pre-tool-use", "error": "boom"})
        + "\n"
    )
    finding = next(
        f
        for f in json.loads(cli("doctor", "--json").stdout)["findings"]
        if f["check"] == "hook log"
    )
    assert finding["status"] == "warn"
    assert "boom" in finding["message"]
    assert "hook.log" in finding["fix"]


def _bookmark_line(name: str, session: str, **extra) -> str:
    mark = {"bookmark_id": f"bmk-2026-01-01-{abs(hash(name)) % 900 + 100}", "name": name}
    return json.dumps({**mark, "session_id": session, **extra}) + "\n"


def _cleanup_findings(cli) -> list[dict]:
    report = json.loads(cli("doctor", "--json").stdout)
    return [f for f in report["findings"] if f["check"] == "cleanup"]


def test_doctor_warns_about_bookmarked_agents_whose_transcripts_are_at_risk(
    repo, cli, fixtures_copy, monkeypatch
):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(fixtures_copy))
    cli("install")
    added = cli("bookmark", "add", "tmux-expert", "--session", "8463", "--agent", "a7be2f0")
    assert added.exit_code == 0, added.stderr
    forty_days_ago = time.time() - 40 * 86400 - 3600
    fum = fixtures_copy / "projects" / "-home-USER-projects-spotter-worktrees-spotter-fum"
    for path in fum.rglob("*"):
        os.utime(path, (forty_days_ago, forty_days_ago))
    local = repo / ".purlin" / "bookmarks.jsonl"
    with local.open("a") as handle:  # bookmarks written before archives existed
        handle.write(_bookmark_line("old-expert", "8463c716-a2ea-4c14-9efa-87158ebd9f20"))
        handle.write(_bookmark_line("fresh-expert", "fe5e1c67", archive="archive/none.tar.gz"))
    shelf = fixtures_copy / "history" / "bookmarks.jsonl"
    shelf.write_text(_bookmark_line("gone-expert", "0000dead-beef"))

    [risk, lost] = _cleanup_findings(cli)

    assert risk["status"] == "warn"
    assert "cleanupPeriodDays is 30 (default)" in risk["message"]
    assert "bookmarked agents" in risk["message"]
    assert "old-expert (40 days)" in risk["message"]
    assert "tmux-expert" not in risk["message"]  # its archive keeps it safe
    assert "fresh-expert" not in risk["message"]  # its transcript is recent
    assert "cleanupPeriodDays" in risk["fix"]
    assert "bookmark add" in risk["fix"]
    assert lost["status"] == "warn"
    assert "gone-expert" in lost["message"]
    assert "bookmark rm" in lost["fix"]

    archived = fixtures_copy / "history" / "archive" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.tar.gz"
    archived.unlink()
    [risk, _] = _cleanup_findings(cli)
    assert "tmux-expert (40 days)" in risk["message"]

    settings = repo / ".claude" / "settings.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "cleanupPeriodDays": 365}))
    shelf.write_text("")
    [calm] = _cleanup_findings(cli)
    assert calm["status"] == "ok"
    assert "cleanupPeriodDays is 365" in calm["message"]


@pytest.mark.parametrize("value", ["never", 1.5, True, None])
def test_doctor_warns_of_a_cleanup_period_that_is_no_number_of_days(
    repo, cli, tmp_path, monkeypatch, value
):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    cli("install")
    settings = repo / ".claude" / "settings.json"
    settings.write_text(
        json.dumps({**json.loads(settings.read_text()), "cleanupPeriodDays": value})
    )
    [warned] = [f for f in _cleanup_findings(cli) if f["status"] == "warn"]
    assert warned["message"].startswith(f"cleanupPeriodDays {value!r} in the project settings")
    assert "whole number of days" in warned["fix"]


def test_doctor_names_a_corrupt_bookmark_file(repo, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    local = repo / ".purlin" / "bookmarks.jsonl"
    local.parent.mkdir()
    local.write_text("{not json\n")
    report = json.loads(cli("doctor", "--json").stdout)
    [state] = [f for f in report["findings"] if "bookmarks" in f["message"]]
    assert state["status"] == "error"
    assert "bookmarks.jsonl" in state["message"]
    assert state["fix"]
    assert [f["status"] for f in report["findings"] if f["check"] == "cleanup"] == ["ok"]
    assert local.read_text() == "{not json\n"


HAND_WRITTEN = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(npm test:*)", "Read(~/.zshrc)"], "deny": []},
  "env": {"DEBUG": "1"},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  },
  "model": "opus"
}
"""


@pytest.mark.parametrize("text", [HAND_WRITTEN, '{"model": "opus", "env": {"A": "1"}}\n'])
def test_install_then_uninstall_keeps_the_users_formatting(repo, cli, text):
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    assert cli("install").exit_code == 0  # idempotent
    installed = path.read_text()
    unchanged = [line for line in text.splitlines() if '"permissions"' in line or '"env"' in line]
    if "\n" in text.strip():  # a multi-line file: its one-line members stay as they were
        assert len(unchanged) == 2
        assert all(line in installed for line in unchanged)
    assert len(ours(json.loads(installed))) == len(claude_settings.HOOKS)
    assert cli("install").exit_code == 0  # idempotent
    assert path.read_text() == installed
    assert cli("uninstall").exit_code == 0
    assert path.read_text() == text  # byte for byte


def test_the_layout_keeping_writer_survives_odd_but_valid_json():
    for text in ("{ }", "[]", '{"a" : [ 1 , 2 ] ,"b":{}}', '\t{"x": "\\u00e9"}\n'):
        data = json.loads(text)
        if not isinstance(data, dict):
            continue
        merged = claude_settings.merged(data)
        written = claude_settings.dump(merged, like=text)
        assert json.loads(written) == merged
        assert json.loads(claude_settings.dump(claude_settings.removed(merged), like=written)) == (
            data
        )


def _mcp_findings(cli) -> list[dict]:
    report = json.loads(cli("doctor", "--json").stdout)
    return [f for f in report["findings"] if f["check"] == "mcp"]


def test_doctor_reports_an_mcp_server_that_cannot_start_and_how_to_fix_it(
    repo, cli, tmp_path, monkeypatch
):
    """The server the project registers (``install --mcp``) is started as Claude Code would
    start it: one that fails is an error naming why and the command that fixes it."""
    import sys

    assert _mcp_findings(cli) == []  # nothing declares a server: nothing to check
    assert cli("install", "--mcp").exit_code == 0
    venv_bin = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{venv_bin}:{os.environ['PATH']}")
    (working,) = _mcp_findings(cli)
    assert working["status"] == "ok", working
    assert "purlin-resume mcp" in working["message"], working

    broken = tmp_path / "broken-bin"
    broken.mkdir()
    shim = broken / "purlin-resume"
    shim.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'mcp'\" >&2\nexit 1\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{broken}:{os.environ['PATH']}")
    (failing,) = _mcp_findings(cli)
    assert failing["status"] == "error"
    assert "cannot start: ModuleNotFoundError: No module named 'mcp'" in failing["message"]
    assert str(repo / ".mcp.json") in failing["message"]
    assert failing["fix"].startswith("pipx reinstall purlin-resume")

    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (missing,) = _mcp_findings(cli)
    assert missing["status"] == "error"
    assert "purlin-resume is not on PATH" in missing["message"]
    assert missing["fix"].startswith("pipx install purlin-resume")


def test_doctor_names_an_agent_command_that_is_not_on_path(repo, cli):
    """Revival and resurrection start agents with ``resume.agent_command``: doctor says when
    its program is not there (Claude Code not installed), and when it is."""

    def agent_findings() -> list[dict]:
        report = json.loads(cli("doctor", "--json").stdout)
        return [f for f in report["findings"] if "agent command" in f["message"]]

    write_config(repo, agent_command="no-such-agent-cli --flag")
    (missing,) = agent_findings()
    assert missing["status"] == "warn"
    assert "'no-such-agent-cli --flag' is not on PATH" in missing["message"]
    assert "resume.agent_command" in missing["fix"]
    write_config(repo, agent_command="sh -c true")
    (found,) = agent_findings()
    assert found["status"] == "ok"


def test_doctor_does_not_start_a_program_a_projects_mcp_json_names(repo, cli, tmp_path):
    """A committed ``.mcp.json`` may name any program for our server: doctor starts only the
    command ``install`` writes, and says why it left another one alone."""
    ran = tmp_path / "ran"
    answer = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}})
    script = f"touch {ran}; echo '{answer}'"
    entry = {"command": "sh", "args": ["-c", script]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {installation.MCP_SERVER: entry}}))
    (finding,) = _mcp_findings(cli)
    assert not ran.exists()
    assert finding["status"] == "warn", finding
    assert "not started" in finding["message"]
    assert "sh -c" in finding["message"]
    assert "install --mcp" in finding["fix"]


def test_doctor_reads_a_hook_log_with_a_hostile_last_line(repo, cli):
    log = repo / ".purlin" / "cache" / "hook.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(json.dumps({"time": "t", "event": "pre-tool-use", "error": "boom"}) + "\n"
                   + "[" * 100_000 + "\n")  # fmt: skip
    result = cli("doctor", "--json")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    [finding] = [f for f in json.loads(result.stdout)["findings"] if f["check"] == "hook log"]
    assert "2 hook failure(s) logged" in finding["message"]
    assert "boom" in finding["message"]
