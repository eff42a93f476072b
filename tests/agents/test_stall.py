"""Stall detection on constructed situations: real git, real files, real transcripts, real tmux."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from purlin_resume.agents import activity, registry, stall
from purlin_resume.agents.activity import Source
from purlin_resume.core import clock, tmux
from purlin_resume.core.project import Project
from tests.agents_setup import (
    agent_record,
    at_once,
    configure,
    prompts,
    slow_tmux,
    start_standin,
    write_registry,
)
from tests.conftest import commit_file, git
from tests.resurrection_data import write_config

HOUR = 3600
LONG_AGO = 25 * HOUR  # beyond every source's 24 h horizon


def age_everything(root: Path, seconds: float) -> None:
    """Make every file under ``root`` (git's own folder aside) look ``seconds`` old."""
    moment = time.time() - seconds
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            os.utime(os.path.join(folder, name), (moment, moment))


def stamp(ago_seconds: float) -> str:
    return clock.iso(clock.now() - timedelta(seconds=ago_seconds))


def write_transcript(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def user(text: str, ago: float, n: int) -> dict:
    return {
        "type": "user",
        "uuid": f"u{n}",
        "timestamp": stamp(ago),
        "message": {"role": "user", "content": text},
    }


def reply(text: str, ago: float, n: int) -> dict:
    return {
        "type": "assistant",
        "uuid": f"a{n}",
        "timestamp": stamp(ago),
        "message": {
            "id": f"msg{n}",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        },
    }


def tool_use(name: str, data: dict, ago: float, n: int) -> dict:
    return {
        "type": "assistant",
        "uuid": f"t{n}",
        "timestamp": stamp(ago),
        "message": {
            "id": f"msg{n}",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"toolu{n}", "name": name, "input": data}],
        },
    }


def tool_result(text: str, ago: float, n: int) -> dict:
    return {
        "type": "user",
        "uuid": f"r{n}",
        "timestamp": stamp(ago),
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"toolu{n}", "content": text}],
        },
    }


def register(root: Path, agent_id: str = "agent-1", **values) -> Project:
    agents = {}
    path = root / ".purlin" / "agents.json"
    if path.is_file():
        agents = json.loads(path.read_text())["agents"]
    agents[agent_id] = agent_record(root, **values)
    write_registry(root, agents)
    return Project(root)


def commit_as(root: Path, relative: str, message: str, ago: float = 0, monkeypatch=None) -> str:
    if ago:
        monkeypatch.setenv("GIT_COMMITTER_DATE", stamp(ago))
        monkeypatch.setenv("GIT_AUTHOR_DATE", stamp(ago))
    sha = commit_file(root, relative, f"{relative} {message}\n", message)
    monkeypatch and monkeypatch.delenv("GIT_COMMITTER_DATE", raising=False)
    monkeypatch and monkeypatch.delenv("GIT_AUTHOR_DATE", raising=False)
    return sha


def sources(assessment) -> list[str]:
    return [signal.source.value for signal in assessment.signals]


# -- the constructed situations ----------------------------------------------------------


def test_a_fresh_commit_makes_the_agent_active(repo, monkeypatch):
    age_everything(repo, LONG_AGO)
    project = register(repo)
    sha = commit_as(repo, "src/app.py", "Add app\n\nAgent-Id: agent-1", monkeypatch=monkeypatch)

    result = stall.detect(project, "agent-1")
    send, why, _ = stall.should_send_resume(project, "agent-1")

    assert result.is_active
    assert result.validation_passed
    assert result.level == "high"
    assert result.confidence == 0.85
    git_signal = next(s for s in result.signals if s.source is Source.GIT)
    assert git_signal.commit == sha
    assert git_signal.detail == f"commit {sha[:12]} (trailer)"
    assert send is False
    assert why.startswith("active (high")


def test_only_file_edits_make_the_agent_active_at_medium(repo):
    age_everything(repo, LONG_AGO)
    project = register(repo)
    (repo / "notes.txt").write_text("work in progress\n")

    result = stall.detect(project, "agent-1")

    assert sources(result) == ["files"]
    assert result.signals[0].detail == "changed notes.txt"
    assert result.is_active
    assert result.level == "medium"
    assert result.confidence == 0.65


def test_changes_in_virtualenvs_dependencies_and_caches_are_not_work(repo):
    age_everything(repo, LONG_AGO)
    project = register(repo)
    for relative in (
        "node_modules/left-pad/index.js",
        "env/pyvenv.cfg",
        "env/lib/site.py",
        "src/__pycache__/app.cpython-311.pyc",
        ".mypy_cache/3.11/app.json",
        ".coverage-not-a-run/../.ruff_cache/x",
    ):
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("generated\n")

    assert sources(stall.detect(project, "agent-1")) == []

    (repo / "src" / "app.py").write_text("real work\n")
    assert sources(stall.detect(project, "agent-1")) == ["files"]


def test_a_worktree_outside_git_is_walked(repo, tmp_path):
    folder = tmp_path / "plain"
    (folder / "node_modules").mkdir(parents=True)
    (folder / "node_modules" / "dep.js").write_text("x")
    age_everything(folder, LONG_AGO)
    project = register(repo, cwd=str(folder))
    (folder / "draft.md").write_text("x")

    result = stall.detect(project, "agent-1")

    assert [s.detail for s in result.signals] == ["changed draft.md"]


def test_only_our_own_nudge_is_not_activity(repo, tmp_path):
    age_everything(repo, LONG_AGO)
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [
            user("please add the parser", 4 * HOUR, 1),
            reply("The parser is in.", 3 * HOUR, 2),
            user("[STALL-RECOVERY] #progress-only are you still there?", 60, 3),
            reply("Still here [c2a]", 30, 4),
        ],
    )
    project = register(repo, transcript_path=str(transcript))

    result = stall.detect(project, "agent-1")
    send, _, _ = stall.should_send_resume(project, "agent-1")

    assert sources(result) == ["transcript"]
    assert result.signals[0].detail == "last record: response"
    answered = json.loads(transcript.read_text().splitlines()[1])["timestamp"]
    assert clock.iso(result.last_activity) == answered
    assert not result.is_active
    assert not result.validation_passed
    assert send is True


def test_silent_for_two_hours_means_stalled(repo, monkeypatch):
    commit_as(repo, "src/a.py", "Work\n\nAgent-Id: agent-1", ago=2 * HOUR, monkeypatch=monkeypatch)
    age_everything(repo, 2 * HOUR)
    project = register(repo)

    result = stall.detect(project, "agent-1")
    send, why, _ = stall.should_send_resume(project, "agent-1")

    assert sources(result) == ["git"]  # committed work is the git source's, not the files'
    assert result.confidence == round(0.85 * 0.7, 3)
    assert not result.validation_passed
    assert not result.is_active
    assert "validation: nothing within the last 60 min" in result.reasons
    assert send is True
    assert "nothing within the last 60 min" in why


def test_a_commit_seen_by_two_sources_counts_once(repo, tmp_path, monkeypatch):
    age_everything(repo, LONG_AGO)
    sha = commit_as(repo, "src/b.py", "Fix b\n\nAgent-Id: agent-1", monkeypatch=monkeypatch)
    age_everything(repo, LONG_AGO)
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [
            tool_use("Bash", {"command": "git commit -m 'Fix b'"}, 20, 1),
            tool_result(f"[main {sha[:7]}] Fix b\n 1 file changed", 10, 1),
        ],
    )
    project = register(repo, transcript_path=str(transcript))

    result = stall.detect(project, "agent-1")

    commits = [s for s in result.signals if s.commit]
    assert len(commits) == 1
    assert len(result.signals) == 1
    assert not any("tier-1 sources agree" in reason for reason in result.reasons)
    assert result.is_active


# -- the origin's bugs, each as a regression test ----------------------------------------


def test_regression_aliased_sources(repo):
    """Contract activity counted as git commits because two enum members shared a value."""
    assert len({source.value for source in Source}) == len(Source)
    assert set(activity.TIERS) == set(Source)
    age_everything(repo, LONG_AGO)
    project = register(repo)
    workspace = repo / ".purlin" / "agents" / "agent-1"
    workspace.mkdir(parents=True)
    (workspace / "status.json").write_text(json.dumps({"fsm_state": "implementing"}))

    result = stall.detect(project, "agent-1")

    assert sources(result) == ["status"]
    assert result.signals[0].tier == 2
    assert result.confidence == 0.7


def test_regression_double_counted_commits(repo, tmp_path, monkeypatch):
    """One commit matched by trailer, author and files must stay one tier-1 signal."""
    age_everything(repo, LONG_AGO)
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [tool_use("Write", {"file_path": str(repo / "src/c.py"), "content": "x"}, 3 * HOUR, 1)],
    )
    project = register(repo, transcript_path=str(transcript))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "agent-1 bot")
    sha = commit_as(repo, "src/c.py", "C\n\nAgent-Id: agent-1", monkeypatch=monkeypatch)
    age_everything(repo, LONG_AGO)

    result = stall.detect(project, "agent-1")

    git_signals = [s for s in result.signals if s.source is Source.GIT]
    assert len(git_signals) == 1
    assert git_signals[0].detail == f"commit {sha[:12]} (trailer, author, files)"
    assert result.confidence == 0.85  # not the 0.9 of two tier-1 sources


def test_regression_repo_wide_test_cache_credits_every_agent(repo):
    """A pytest run in one worktree must not make every agent of the repository look active."""
    other = repo.parent / "wt-b"
    git(repo, "worktree", "add", "-q", "-b", "b", str(other))
    age_everything(repo, LONG_AGO)
    age_everything(other, LONG_AGO)
    register(repo, "agent-a", cwd=str(repo), pid=os.getpid())
    project = register(repo, "agent-b", cwd=str(other), pid=os.getpid())
    cache = repo / ".pytest_cache" / "v" / "cache"
    cache.mkdir(parents=True)
    (cache / "nodeids").write_text("[]")

    credited = stall.detect(project, "agent-a")
    elsewhere = stall.detect(project, "agent-b")

    assert sources(credited) == ["tests"]
    assert credited.is_active
    assert sources(elsewhere) == []
    assert not elsewhere.is_active

    # Two live agents in one folder: nobody can tell whose run it was.
    project = register(repo, "agent-c", cwd=str(repo), pid=os.getpid())
    shared = stall.detect(project, "agent-a")
    assert "tests" not in sources(shared)
    assert any("shared with another live agent" in note for note in shared.notes)


def test_regression_unused_windows(repo, monkeypatch):
    """The lookback window must change the decision, not be accepted and ignored."""
    commit_as(repo, "src/d.py", "D\n\nAgent-Id: agent-1", ago=2 * HOUR, monkeypatch=monkeypatch)
    age_everything(repo, 2 * HOUR)
    project = register(repo)

    narrow = stall.detect(project, "agent-1", lookback_minutes=60)
    wide = stall.detect(project, "agent-1", lookback_minutes=180)

    assert not narrow.is_active
    assert wide.is_active
    assert wide.confidence == round(0.85 * 0.7, 3)


# -- the confidence rules ----------------------------------------------------------------


def _signal(source, minutes_ago, confidence, now):
    return activity.ActivitySignal(source, now - timedelta(minutes=minutes_ago), confidence, "x")


def test_confidence_tiers_bonuses_and_penalties():
    now = clock.now()
    two_tier1 = stall.assess(
        "a", [_signal(Source.GIT, 1, 0.85, now), _signal(Source.TESTS, 2, 0.8, now)], now
    )
    two_tier2 = stall.assess(
        "a", [_signal(Source.INBOX, 1, 0.6, now), _signal(Source.DEVLOG, 2, 0.6, now)], now
    )
    half_hour = stall.assess("a", [_signal(Source.GIT, 40, 0.85, now)], now)
    only_pane = stall.assess("a", [_signal(Source.PANE, 1, 0.4, now)], now)
    mtime_only = stall.assess("a", [_signal(Source.STATUS, 1, 0.49, now)], now)
    future = stall.assess("a", [_signal(Source.GIT, -30, 0.85, now)], now)
    nothing = stall.assess("a", [], now)

    assert (two_tier1.confidence, two_tier1.level) == (0.9, "very_high")
    assert (two_tier2.confidence, two_tier2.level) == (0.7, "high")
    assert "2 tier-2 sources agree" in two_tier2.reasons
    assert half_hour.confidence == round(0.85 * 0.85, 3)
    assert half_hour.is_active
    assert only_pane.level == "low"
    assert not only_pane.validation_passed
    assert "validation: no tier-1 or tier-2 signal within 60 min" in only_pane.reasons
    assert mtime_only.validation_passed
    assert not mtime_only.is_active
    assert not future.validation_passed
    assert not future.is_active
    assert (nothing.is_active, nothing.confidence, nothing.level) == (False, 0.0, "very_low")


def test_noise_in_devlogs_inbox_and_status_is_ignored(repo):
    age_everything(repo, LONG_AGO)
    project = register(repo)
    workspace = repo / ".purlin" / "agents" / "agent-1"
    (workspace / "devlogs").mkdir(parents=True)
    (workspace / "inbox" / "processed").mkdir(parents=True)
    (workspace / "devlogs" / "ack.md").write_text("Resumer nudge acknowledged #NO-REPLY\n")
    (workspace / "inbox" / "processed" / "nudge.md").write_text("Inactivity detected: carry on\n")
    (workspace / "status.json").write_text(json.dumps({"note": "stall-recovery ack"}))

    assert sources(stall.detect(project, "agent-1")) == []

    (workspace / "devlogs" / "real.md").write_text("Finished the parser.\n")
    (workspace / "inbox" / "processed" / "task.md").write_text("Review PR 12\n")
    result = stall.detect(project, "agent-1")
    assert sorted(sources(result)) == ["devlog", "inbox"]
    assert result.confidence == 0.7
    assert result.level == "high"


def test_status_without_content_is_only_its_file_time(repo):
    age_everything(repo, LONG_AGO)
    project = register(repo)
    workspace = repo / ".purlin" / "agents" / "agent-1"
    workspace.mkdir(parents=True)
    (workspace / "status.json").write_text("{}")

    result = stall.detect(project, "agent-1")

    assert result.signals[0].confidence == 0.49
    assert not result.is_active


def test_the_pane_changing_between_samples_is_weak_evidence(repo, tmux_server, tmp_path):
    configure(repo, tmux_server, tmp_path / "rec")
    pane = tmux.new_session(tmux_server, "p", repo, "cat")
    age_everything(repo, LONG_AGO)
    project = register(repo, tmux_pane=pane)

    first = stall.detect(project, "agent-1")
    tmux.run(tmux_server, "send-keys", "-t", pane, "typing something", "Enter")
    assert tmux.wait_for(tmux_server, pane, "typing something", timeout=5)
    second = stall.detect(project, "agent-1")
    tmux.run(tmux_server, "send-keys", "-t", pane, "[stall-recovery] nudge", "Enter")
    assert tmux.wait_for(tmux_server, pane, "nudge", timeout=5)
    third = stall.detect(project, "agent-1")

    assert sources(first) == []
    assert sources(second) == ["pane"]
    assert second.level == "low"
    assert not second.is_active
    assert sources(third) == []  # only a noise line changed


def test_a_source_that_cannot_be_read_is_noted_and_skipped(repo, tmp_path):
    age_everything(repo, LONG_AGO)
    # HEAD names a commit that does not exist: git log fails for real.
    (repo / ".git" / "refs" / "heads" / "main").write_text("12" * 20 + "\n")
    project = register(repo)
    devlogs = repo / ".purlin" / "agents" / "agent-1" / "devlogs"
    devlogs.mkdir(parents=True)
    (devlogs / "today.md").write_text("Parser done.\n")

    result = stall.detect(project, "agent-1")
    send, _, _ = stall.should_send_resume(project, "agent-1")

    assert sources(result) == ["devlog"]
    assert any(note.startswith("git: not read (git log") for note in result.notes)
    assert any(note.startswith("files: not read (git status") for note in result.notes)
    assert result.is_active
    assert send is False


def test_git_that_cannot_be_started_is_noted_where_its_answer_is_read(repo, monkeypatch):
    project = register(repo)
    monkeypatch.setenv("PATH", "/nonexistent")  # no git binary to start

    result = stall.detect(project, "agent-1")

    assert any(note.startswith("git: not read (") for note in result.notes), result.notes
    assert any(note.startswith("files: not read (") for note in result.notes), result.notes
    assert "git" not in sources(result)
    assert "files" not in sources(result)


def test_detection_fails_open_by_default_and_closed_when_configured(repo):
    path = repo / ".purlin" / "agents.json"
    path.parent.mkdir()
    path.write_text("[1, 2")
    project = Project(repo)

    send, why, result = stall.should_send_resume(project, "agent-1")
    assert send is True
    assert result is None
    assert why.startswith("detection failed (")
    assert why.endswith("failing open")

    (repo / ".purlin" / "config.json").write_text(
        json.dumps({"resume": {"stall_fail_open": False}})
    )
    send, why, _ = stall.should_send_resume(project, "agent-1")
    assert send is False
    assert "holding back" in why
    assert path.read_text() == "[1, 2"


# -- the resume prompt -------------------------------------------------------------------


def test_the_resume_prompt_uses_status_and_plan_and_changes_nothing(repo):
    project = register(repo, role="builder")
    workspace = repo / ".purlin" / "agents" / "agent-1"
    workspace.mkdir(parents=True)
    status = workspace / "status.json"
    status.write_text(
        json.dumps(
            {"fsm_state": "testing", "last_mission": "wire the parser; key AKIAIOSFODNN7EXAMPLE"}
        )
    )
    plan = repo / "PLAN.md"
    plan.write_text("# Plan\n- [x] parser\n- [ ] error messages\n- [ ] docs\n")
    (repo / ".purlin" / "config.json").write_text(json.dumps({"resume": {"plan_file": "PLAN.md"}}))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (status, plan)}
    from purlin_resume.core import config

    settings = config.load(project)
    agent = registry.load(project)["agent-1"]
    assessment = stall.detect(project, "agent-1", settings=settings)
    text = stall.resume_prompt(project, agent, settings, assessment)

    assert "Agent agent-1 (builder)" in text
    assert "Your last recorded state: testing" in text
    assert "Next open task in PLAN.md: error messages" in text
    assert "AKIAIOSFODNN7EXAMPLE" not in text
    assert "[REDACTED:" in text
    assert activity.is_noise(text), "our own prompt must never count as activity"
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (status, plan)} == before


# -- the CLI -----------------------------------------------------------------------------


def test_stall_check_prints_one_json_document(repo, cli):
    age_everything(repo, LONG_AGO)
    register(repo)
    (repo / "x.txt").write_text("x")

    result = cli("stall", "check", "agent-1", "--lookback", "30", "--json")

    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) >= {
        "is_active",
        "confidence",
        "level",
        "last_activity",
        "signals",
        "reasons",
        "validation_passed",
    }
    assert data["lookback_minutes"] == 30
    assert data["signals"][0]["source"] == "files"
    assert data["verdict"] == "active"
    text = cli("stall", "check", "agent-1")
    assert text.stdout.startswith("agent-1: active (confidence 0.65, medium; validation passed")


def test_stall_check_bad_input(repo, cli):
    register(repo)
    bad_lookback = cli("stall", "check", "agent-1", "--lookback", "0")
    unknown = cli("stall", "check", "nobody")
    not_a_number = cli("stall", "check", "agent-1", "--lookback", "soon")
    assert bad_lookback.exit_code == 2
    assert "--lookback must be a positive" in bad_lookback.stderr
    assert unknown.exit_code == 1
    assert "no registered agent 'nobody'" in unknown.stderr
    assert not_a_number.exit_code == 2
    (repo / ".purlin" / "config.json").write_text(json.dumps({"resume": {"stall_threshold": "x"}}))
    bad_setting = cli("stall", "check", "agent-1")
    assert bad_setting.exit_code == 1
    assert "resume.stall_threshold must be a positive number" in bad_setting.stderr


# -- the watch ---------------------------------------------------------------------------


@pytest.fixture
def watched(repo, tmux_server, tmp_path):
    """A live stand-in agent in a pane, registered, with nothing recent in its worktree."""
    record = tmp_path / "agent"
    configure(repo, tmux_server, record, stall_cooldown_minutes=30, stall_max_nudges=2)
    pane = start_standin(tmux_server, repo, record)
    pid = int(tmux.pane_info(tmux_server, pane)["pane_pid"])
    age_everything(repo, LONG_AGO)
    register(repo, pid=pid, tmux_pane=pane)
    return record, pane


def _log(repo: Path) -> list[dict]:
    path = repo / ".purlin" / "cache" / "stall-watch.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_watch_nudges_a_stalled_agent_then_respects_the_cooldown(repo, watched, cli):
    record, pane = watched

    first = cli("watch", "--once", "--json")
    second = cli("watch", "--once")

    assert first.exit_code == 0, first.stderr
    decision = json.loads(first.stdout)["decisions"][0]
    assert (decision["agent_id"], decision["action"]) == ("agent-1", "nudged")
    received = prompts(record, 1)
    assert received[0].startswith("[stall-recovery] #progress-only")
    assert "agent-1 held: stalled; cooldown: nudged at" in second.stdout
    assert [entry["action"] for entry in _log(repo)] == ["nudged", "held"]
    assert len(prompts(record, 1)) == 1


def test_two_watches_at_once_nudge_once_in_the_cooldown(repo, watched, tmp_path):
    record, _ = watched
    slow = slow_tmux(tmp_path, "paste-buffer")  # typing the nudge in takes a second

    answers = at_once(repo, ["watch", "--once"], ["watch", "--once"], path=slow)

    assert [a.returncode for a in answers] == [0, 0], [a.stderr for a in answers]
    assert sorted(entry["action"] for entry in _log(repo)) == ["held", "nudged"]
    assert "cooldown: nudged at" in next(e for e in _log(repo) if e["action"] == "held")["reason"]
    time.sleep(1)  # a second nudge would have arrived by now
    assert len(prompts(record, 1)) == 1


def test_watch_stops_at_the_nudge_cap(repo, watched):
    from purlin_resume.agents import watch
    from purlin_resume.core import config

    record, _ = watched
    project = Project(repo)
    settings = config.load(project)
    now = clock.now()
    actions = []
    for hour in range(3):
        actions += [
            d.action for d in watch.watch_once(project, settings, now + timedelta(hours=hour))
        ]

    assert actions == ["nudged", "nudged", "held"]
    assert "nudge cap reached (2 of 2" in _log(repo)[-1]["reason"]
    assert len(prompts(record, 2)) == 2


def test_watch_leaves_an_active_agent_alone_and_logs_it(repo, watched, cli):
    record, _ = watched
    (repo / "work.txt").write_text("fresh edit\n")

    result = cli("watch", "--once", "--json")

    decision = json.loads(result.stdout)["decisions"][0]
    assert decision["action"] == "active"
    assert decision["level"] == "medium"
    assert not (record / "prompts.jsonl").exists()
    assert _log(repo)[0]["action"] == "active"


def test_watch_skips_dead_agents_and_holds_agents_without_a_pane(repo, tmux_server, tmp_path, cli):
    configure(repo, tmux_server, tmp_path / "rec")
    age_everything(repo, LONG_AGO)
    register(repo, "dead", ended_at="2026-01-15T15:00:00Z")
    register(repo, "paneless", pid=os.getpid())

    result = cli("watch", "--once", "--json")

    decisions = json.loads(result.stdout)["decisions"]
    assert [(d["agent_id"], d["action"]) for d in decisions] == [("paneless", "held")]
    assert decisions[0]["reason"].endswith("no live tmux pane to nudge")


def test_watch_bad_interval(repo, cli):
    result = cli("watch", "--interval", "-1", "--once")
    assert result.exit_code == 2
    assert "--interval must be a positive" in result.stderr


# -- the transcript source on real transcripts -------------------------------------------


def test_the_tail_of_a_real_transcript_ends_like_the_whole(fixtures_copy):
    from purlin_resume.claude import records

    path = next(fixtures_copy.glob("projects/*/4d5611e5-*.jsonl"))
    whole = list(records.read(path, records.ReadStats()))
    tail = records.tail(path, max_bytes=20_000)

    assert 0 < len(tail) < len(whole)
    assert tail[-1] == whole[-1]
    assert all(record in whole for record in tail)


def test_the_last_record_of_every_real_transcript_is_the_last_one_read(fixtures_copy):
    from purlin_resume.claude import records

    paths = sorted(fixtures_copy.rglob("*.jsonl"))
    assert paths
    for path in paths:
        whole = list(records.read(path, records.ReadStats()))
        newest_first = list(records.last_records(path))
        assert next(iter(newest_first), None) == (whole[-1] if whole else None), path
        assert list(reversed(newest_first)) == whole[len(whole) - len(newest_first) :], path


def test_an_old_real_transcript_is_no_evidence(repo, fixtures_copy):
    path = next(fixtures_copy.glob("projects/*/4d5611e5-*.jsonl"))
    age_everything(repo, LONG_AGO)
    project = register(repo, transcript_path=str(path))

    result = stall.detect(project, "agent-1")
    wide = stall.assess("agent-1", [], clock.now())

    assert sources(result) == []
    assert result.notes == []
    assert result.to_dict()["signals"] == wide.to_dict()["signals"]


# -- what a script and the watch can rely on ------------------------------------------------


def test_stall_check_exits_3_when_stalled_and_names_what_it_could_not_read(
    repo, cli, tmux_server, tmp_path
):
    configure(repo, tmux_server, tmp_path / "rec")
    age_everything(repo, LONG_AGO)
    gone = tmp_path / "sessions" / "deleted.jsonl"
    register(repo, pid=os.getpid(), transcript_path=str(gone), tmux_pane="%999")

    result = cli("stall", "check", "agent-1")
    as_json = cli("stall", "check", "agent-1", "--json")

    assert result.exit_code == 3, result.stderr
    assert result.stdout.startswith("agent-1: stalled")
    assert f"note: transcript: not read ({gone} does not exist" in result.stdout
    assert "note: pane: not read (tmux pane %999 is not reachable on -S" in result.stdout
    assert as_json.exit_code == 3
    assert len(json.loads(as_json.stdout)["notes"]) == 2
    (repo / "work.txt").write_text("fresh\n")
    assert cli("stall", "check", "agent-1").exit_code == 0


def test_watch_once_with_a_corrupt_config_fails_open_and_says_so(repo, cli):
    age_everything(repo, LONG_AGO)
    register(repo, "paneless", pid=os.getpid())
    (repo / ".purlin" / "config.json").write_text("{ this is not json")

    result = cli("watch", "--once", "--json")

    assert result.exit_code == 0, result.stderr
    assert "config.json" in result.stderr
    assert "using the default settings" in result.stderr
    decisions = json.loads(result.stdout)["decisions"]
    assert [(d["agent_id"], d["action"]) for d in decisions] == [("paneless", "held")]
    assert (repo / ".purlin" / "config.json").read_text() == "{ this is not json"


def test_our_own_nudge_never_counts_as_the_agents_activity(repo, watched):
    from purlin_resume.agents import watch
    from purlin_resume.core import config

    record, _ = watched
    project = Project(repo)
    settings = config.load(project)
    now = clock.now()
    first = watch.watch_once(project, settings, now)
    prompts(record, 1)  # the stand-in shows the paste: the pane changed
    second = watch.watch_once(project, settings, now + timedelta(hours=1))

    assert [d.action for d in first + second] == ["nudged", "nudged"]
    assert all("pane" not in d.reason for d in second)
    texts = prompts(record, 2)
    assert "for 0 minutes" not in texts[1]


def test_a_reply_to_a_nudge_and_the_clients_bookkeeping_are_no_activity(tmp_path):
    """With ``stall_max_nudges: 1`` an agent that only answers "on it" must stay stalled."""
    from datetime import timedelta

    from purlin_resume.agents import activity

    now = clock.now()
    at = lambda minutes: clock.iso(now - timedelta(minutes=minutes))  # noqa: E731
    records = [
        {
            "type": "user",
            "timestamp": at(90),
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "tests pass"}],
            },
        },
        {
            "type": "user",
            "timestamp": at(10),
            "message": {
                "role": "user",
                "content": "[stall-recovery] Inactivity detected: continue your task",
            },
        },
        {
            "type": "assistant",
            "timestamp": at(9),
            "message": {"role": "assistant", "content": [{"type": "text", "text": "On it."}]},
        },
        {"type": "system", "subtype": "turn_duration", "timestamp": at(9), "durationMs": 900},
    ]
    transcript = tmp_path / "agent.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))
    subject = activity.Subject("agent", tmp_path, tmp_path, tmp_path / "ws", transcript)
    (signal,) = activity.transcript_signals(subject, now)
    assert signal.timestamp == clock.parse(at(90))
    assert signal.detail == "last record: tool_result"


# -- the agent's own lifetime: dead agents, evidence from before it started -----------------


def gone(pid: int) -> bool:
    """Wait until process ``pid`` is gone (tmux closed its pane); False when it never goes."""
    deadline = time.monotonic() + 15
    while registry.pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_dead_agent_is_reported_dead_and_never_nudged(repo, tmux_server, tmp_path, cli):
    """Its tmux window killed, its process gone: the fresh edit in its folder does not make it
    active; the verdict is dead (exit 4), and nothing would nudge it."""
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    pane = start_standin(tmux_server, repo, record)
    pid = int(tmux.pane_info(tmux_server, pane)["pane_pid"])
    age_everything(repo, LONG_AGO)
    project = register(repo, pid=pid, tmux_pane=pane, started_at=stamp(360))
    (repo / "work.txt").write_text("fresh edit\n")
    assert cli("stall", "check", "agent-1").exit_code == 0  # alive, and active

    tmux.kill_pane(tmux_server, pane)
    assert gone(pid)
    text = cli("stall", "check", "agent-1")
    as_json = cli("stall", "check", "agent-1", "--json")
    send, why, _ = stall.should_send_resume(project, "agent-1")
    watched = cli("watch", "--once", "--json")

    assert text.exit_code == 4
    assert text.stdout == f"agent-1: dead (process {pid} is gone); not assessed\n"
    assert as_json.exit_code == 4
    data = json.loads(as_json.stdout)
    assert (data["verdict"], data["is_active"], data["signals"]) == ("dead", False, [])
    assert data["liveness"] == {"state": "dead", "why": f"process {pid} is gone"}
    assert cli("agents-status").stdout.count(f"process {pid} is gone") == 1
    assert (send, why) == (False, f"dead: process {pid} is gone")
    assert json.loads(watched.stdout)["decisions"] == []
    assert not (record / "prompts.jsonl").exists()


def test_evidence_from_before_the_agent_started_is_not_its_own(repo, tmp_path, monkeypatch, cli):
    """A file changed, a commit naming it and a transcript record, all from before it started
    (as a revived successor finds its predecessor's work): none of it is its activity, and the
    note names the sources only, never what someone else did (a secret in a file name). It
    started 2 minutes ago, longer than the 1 minute lookback: old enough to be stalled."""
    commit_as(repo, "src/a.py", "Work\n\nAgent-Id: agent-1", ago=240, monkeypatch=monkeypatch)
    age_everything(repo, LONG_AGO)
    secret = "ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3"
    before = repo / f"{secret}.txt"
    before.write_text("the predecessor's edit\n")
    os.utime(before, (time.time() - 180, time.time() - 180))
    transcript = write_transcript(
        tmp_path / "t.jsonl", [tool_use("Edit", {"file_path": str(before)}, 200, 1)]
    )
    started = stamp(120)
    project = register(repo, pid=os.getpid(), transcript_path=str(transcript), started_at=started)

    result = stall.detect(project, "agent-1", lookback_minutes=1)
    text = cli("stall", "check", "agent-1", "--lookback", "1")

    assert (result.signals, result.last_activity, result.is_active) == ([], None, False)
    assert result.verdict == "stalled"
    assert result.notes == [
        f"files, git, transcript: evidence from before it started at {started} is not its own "
        "activity"
    ]
    assert text.exit_code == 3
    assert "last activity never" in text.stdout
    assert secret not in text.stdout + text.stderr
    (repo / "after.txt").write_text("its own edit\n")
    after = stall.detect(project, "agent-1", lookback_minutes=1)
    assert after.is_active
    assert sources(after) == ["files"]


def test_the_nudge_never_claims_more_quiet_than_the_agents_age(repo, watched):
    """An agent 6 minutes old (older than the 5 minute lookback), the newest change in its
    folder 8 minutes old: the nudge speaks of the 6 minutes since it started."""
    from purlin_resume.agents import watch
    from purlin_resume.core import config

    record, pane = watched
    now = clock.now()
    pid = registry.load(Project(repo))["agent-1"].pid
    project = register(
        repo, pid=pid, tmux_pane=pane, started_at=clock.iso(now - timedelta(minutes=6))
    )
    older = repo / "older.txt"
    older.write_text("from before it started\n")
    eight = (now - timedelta(minutes=8)).timestamp()
    os.utime(older, (eight, eight))

    settings = replace(config.load(project), stall_lookback_minutes=5)
    (decision,) = watch.watch_once(project, settings, now)

    assert decision.action == "nudged"
    (text,) = prompts(record, 1)
    assert "no activity from you in the 6 minutes since you started" in text
    assert "8 minutes" not in text


@pytest.mark.parametrize("started", ["not a time", "9999-12-31T00:00:00Z", 1700000000, None, ""])
def test_a_start_that_says_nothing_bounds_no_evidence(repo, started, cli):
    """A registry start that is no time, lies in the future or is missing leaves the evidence
    as it is: the fresh edit still counts, and nothing breaks."""
    age_everything(repo, LONG_AGO)
    project = register(repo, pid=os.getpid(), started_at=started)
    (repo / "work.txt").write_text("fresh edit\n")

    result = stall.detect(project, "agent-1")
    text = cli("stall", "check", "agent-1")

    assert result.is_active
    assert sources(result) == ["files"]
    assert result.notes == []
    assert text.exit_code == 0, text.stderr


# -- a young agent, a refused plan, one liveness question a pass ---------------------------


def test_quiet_time_counts_from_the_start_when_nothing_was_seen():
    now = clock.now()
    young = stall.assess("a", [], now, 5, started=now - timedelta(seconds=10))
    weak = stall.assess(
        "a", [_signal(Source.PANE, 0, 0.4, now)], now, 5, started=now - timedelta(minutes=1)
    )
    old = stall.assess("a", [], now, 5, started=now - timedelta(minutes=6))
    unknown = stall.assess("a", [], now, 5)

    assert (young.verdict, weak.verdict) == ("active", "active")
    assert young.reasons[-1].endswith("less than 5 min ago: too soon to call it stalled")
    assert (old.verdict, unknown.verdict) == ("stalled", "stalled")


def test_an_agent_younger_than_the_lookback_is_not_nudged(repo, watched, cli):
    """Started 10 seconds ago and nothing seen of it since: not stalled (exit 0), and the watch
    leaves it alone; once it is older than the lookback, the same quiet gets it nudged."""
    record, pane = watched
    pid = registry.load(Project(repo))["agent-1"].pid
    register(repo, pid=pid, tmux_pane=pane, started_at=stamp(10))

    check = cli("stall", "check", "agent-1", "--json")
    first = cli("watch", "--once", "--json")

    assert check.exit_code == 0, check.stderr
    data = json.loads(check.stdout)
    assert (data["verdict"], data["last_activity"]) == ("active", None)
    assert "too soon to call it stalled" in data["reasons"][-1]
    (decision,) = json.loads(first.stdout)["decisions"]
    assert decision["action"] == "active"
    assert "too soon to call it stalled" in decision["reason"]
    assert not (record / "prompts.jsonl").exists()
    register(repo, pid=pid, tmux_pane=pane, started_at=stamp(2 * HOUR))
    later = cli("watch", "--once", "--json")
    assert json.loads(later.stdout)["decisions"][0]["action"] == "nudged"
    assert "in the 120 minutes since you started" in prompts(record, 1)[0]


@pytest.mark.parametrize("way", ["a path leading out", "a link leading out"])
def test_a_refused_plan_file_is_named_in_the_stall_checks_notes(repo, tmp_path, cli, way):
    """The plan is left out of the nudge, and the stall check says so once, with why."""
    age_everything(repo, LONG_AGO)
    project = register(repo, pid=os.getpid(), started_at=stamp(2 * HOUR))
    outside = tmp_path / "PLAN.md"
    outside.write_text("# Plan\n- [ ] the task from outside\n")
    if way == "a link leading out":
        (repo / "PLAN.md").symlink_to(outside)
        aged = time.time() - LONG_AGO
        os.utime(repo / "PLAN.md", (aged, aged), follow_symlinks=False)
        write_config(repo, plan_file="PLAN.md")  # trusted: no trust lets a link lead out
    else:  # committed, not trusted
        (repo / ".purlin" / "config.json").write_text('{"resume": {"plan_file": "../PLAN.md"}}')

    result = stall.detect(project, "agent-1")
    text = cli("stall", "check", "agent-1")
    as_json = cli("stall", "check", "agent-1", "--json")
    from purlin_resume.core import config

    settings = config.load(project)
    agent = registry.load(project)["agent-1"]
    prompt = stall.resume_prompt(project, agent, settings, result)

    (note,) = [n for n in result.notes if n.startswith("plan: not read (refusing ")]
    assert f"outside {os.path.realpath(repo)}" in note
    assert text.exit_code == 3, text.stderr
    assert text.stdout.count("note: plan: not read (refusing ") == 1
    assert json.loads(as_json.stdout)["notes"].count(note) == 1
    assert "the task from outside" not in prompt


def test_a_plan_file_inside_the_project_needs_no_note(repo, cli):
    age_everything(repo, LONG_AGO)
    project = register(repo, pid=os.getpid(), started_at=stamp(2 * HOUR))
    (repo / "PLAN.md").write_text("# Plan\n- [ ] the next task\n")
    (repo / ".purlin" / "config.json").write_text('{"resume": {"plan_file": "PLAN.md"}}')
    os.utime(repo / "PLAN.md", (time.time() - LONG_AGO, time.time() - LONG_AGO))

    assert stall.detect(project, "agent-1").notes == []


@pytest.fixture
def tmux_calls(tmp_path, monkeypatch):
    """Every tmux command run from now on, one line each (a shim first on PATH logs it, then
    runs the real tmux)."""
    real = shutil.which("tmux")
    if real is None:
        pytest.skip("tmux is not installed")
    folder = tmp_path / "shim"
    folder.mkdir()
    log = tmp_path / "tmux-calls.log"
    shim = folder / "tmux"
    shim.write_text(
        f"#!/bin/sh\necho \"$*\" | tr '\\n' ' ' >> {shlex.quote(str(log))}\n"
        f'echo >> {shlex.quote(str(log))}\nexec {shlex.quote(real)} "$@"\n'
    )
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return lambda: log.read_text().splitlines() if log.is_file() else []


def test_a_watch_pass_asks_an_agents_liveness_once(repo, tmux_server, tmp_path, tmux_calls, cli):
    """A pane-only agent (no process id recorded) is alive while its pane is: a watch pass
    asks tmux about it no more than a stall check does."""
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    pane = start_standin(tmux_server, repo, record)
    age_everything(repo, LONG_AGO)
    register(repo, tmux_pane=pane, started_at=stamp(2 * HOUR))
    (repo / "work.txt").write_text("fresh edit\n")  # active: the pass nudges nobody

    before = len(tmux_calls())
    assert cli("stall", "check", "agent-1").exit_code == 0
    checked = tmux_calls()[before:]
    assert cli("watch", "--once").exit_code == 0
    passed = tmux_calls()[before + len(checked) :]

    assert any(pane in call for call in checked)
    assert len(passed) == len(checked), passed


PERMISSION_PROMPT = """\
● Bash(touch /tmp/marker)
  ⎿  Waiting…

 Bash command

   touch /tmp/marker
   Create the marker

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to tmp/ from this project
   3. No

 Esc to cancel · Tab to amend · ctrl+e to explain
"""


def _at_permission_prompt(repo, tmux_server, tmp_path) -> str:
    """A pane showing Claude Code's permission prompt, the project quiet for long."""
    configure(repo, tmux_server, tmp_path / "rec")
    shown = tmp_path / "prompt.txt"
    shown.write_text(PERMISSION_PROMPT)
    pane = tmux.new_window(tmux_server, "agents", repo, f"sh -c 'cat {shown}; exec cat'")
    assert tmux.wait_for(tmux_server, pane, "Esc to cancel", timeout=10)
    age_everything(repo, LONG_AGO)
    return pane


def test_an_agent_at_a_permission_prompt_is_held_not_nudged(repo, tmux_server, tmp_path, cli):
    """Claude Code waits for the user at its permission prompt: quiet, but not stalled; a
    nudge would be typed into the dialog."""
    pane = _at_permission_prompt(repo, tmux_server, tmp_path)
    register(repo, pid=int(tmux.pane_info(tmux_server, pane)["pane_pid"]), tmux_pane=pane)

    checked = cli("stall", "check", "agent-1", "--json")
    watched = cli("watch", "--once", "--json")

    assert checked.exit_code == 5, checked.stdout
    data = json.loads(checked.stdout)
    assert (data["verdict"], data["dialog"]) == ("held", "Do you want to proceed?")
    (decision,) = json.loads(watched.stdout)["decisions"]
    assert decision["action"] == "held"
    assert decision["reason"].endswith("waits for the user on its screen (Do you want to proceed?)")
    time.sleep(0.5)
    assert "stall-recovery" not in tmux.capture(tmux_server, pane)


def test_an_agent_started_a_moment_ago_at_a_permission_prompt_is_held(
    repo, tmux_server, tmp_path, cli
):
    """Too young to be called stalled, but the dialog is there: held (exit 5), said so."""
    pane = _at_permission_prompt(repo, tmux_server, tmp_path)
    pid = int(tmux.pane_info(tmux_server, pane)["pane_pid"])
    register(repo, pid=pid, tmux_pane=pane, started_at=clock.iso(clock.now()))

    checked = cli("stall", "check", "agent-1", "--json")

    assert checked.exit_code == 5, checked.stdout
    data = json.loads(checked.stdout)
    assert (data["verdict"], data["dialog"], data["is_active"]) == (
        "held",
        "Do you want to proceed?",
        False,
    )


def test_a_dialog_further_up_the_screen_holds_nothing():
    """The prompt quoted in the conversation, long scrolled up, is no dialog waiting now."""
    screen = PERMISSION_PROMPT + "\n".join(f"line {n}" for n in range(30)) + "\n? for shortcuts\n"
    assert activity.dialog_shown(screen, "claude") is None
    assert activity.dialog_shown(PERMISSION_PROMPT, "claude") == "Do you want to proceed?"
    assert activity.dialog_shown(PERMISSION_PROMPT, "no-such-cli") is None


def test_a_dialog_line_is_cut_before_a_token_never_inside_it():
    token = "ghp_" + "Q7w8E9r0T1y2U3i4O5p6A1s2D3f4G5h6J7k8"
    screen = PERMISSION_PROMPT.replace(
        "Do you want to proceed?", "Do you want to proceed? " + "x" * 60 + " " + token
    )
    shown = activity.dialog_shown(screen, "claude")
    assert shown is not None
    assert shown.startswith("Do you want to proceed?")
    assert token[:8] not in shown


@pytest.mark.parametrize(
    ("minutes", "since_start", "said"),
    [
        (0, True, "since you started, less than a minute ago"),
        (1, True, "in the 1 minute since you started"),
        (6, True, "in the 6 minutes since you started"),
        (0, False, "for less than a minute"),
        (1, False, "for 1 minute"),
    ],
)
def test_the_nudge_counts_its_minutes_in_words(minutes, since_start, said):
    from purlin_resume.core import templating

    text = templating.render(
        "stall/resume_prompt.md.j2",
        agent_id="agent-1",
        role=None,
        stalled_minutes=minutes,
        since_start=since_start,
        fsm_state=None,
        last_mission=None,
        next_task=None,
        plan_file="PLAN.md",
    )
    assert f"saw no activity from you {said} (inactivity detected)." in text
