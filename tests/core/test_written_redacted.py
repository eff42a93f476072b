"""Everything the product writes is redacted, by every path: checkpoints saved by the CLI and the
MCP tool, the committed agent history, bookmark files, and what ``find`` prints."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.resurrection_data import session
from tests.secret_corpus import corpus

ITEMS = corpus(37)
LOW_ENTROPY = ["DB_PASSWORD=hunter2hunter2", "PASSWORD=correcthorsebatterystaple"]
LOW_SECRETS = ["hunter2hunter2", "correcthorsebatterystaple"]


def _survivors(text: str, secrets: list[str] | None = None) -> list[str]:
    return [s for s in (secrets or [i.secret for i in ITEMS] + LOW_SECRETS) if s in text]


def _lines() -> list[str]:
    return [i.line for i in ITEMS] + LOW_ENTROPY


def test_save_writes_every_field_redacted(cli, repo):
    lines = _lines()
    args = ["save", "--role", "builder", "--in-progress", lines[0], "--notes", lines[1]]
    args += ["--feature", lines[2], "--step", "2", "--step-note", lines[3]]
    for line in lines[4:]:
        args += ["--done", line, "--next", line, "--work-queue", line]
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    [saved] = (repo / ".purlin" / "cache").rglob("*.md")
    assert _survivors(saved.read_text()) == []
    assert "[REDACTED:" in saved.read_text()


def test_save_from_a_file_writes_it_redacted(cli, repo, tmp_path):
    lines = _lines()
    fields = {"role": "builder", "in_progress": lines[0], "step": "2", "next": lines}
    fields |= {"done": lines, "notes": lines[-1]}
    given = tmp_path / "fields.json"
    given.write_text(json.dumps(fields))
    assert cli("save", "--from", str(given)).exit_code == 0
    [saved] = (repo / ".purlin" / "cache").rglob("*.md")
    assert _survivors(saved.read_text()) == []


def test_history_spawn_writes_the_task_redacted(cli, repo):
    for number, line in enumerate(_lines()):
        result = cli(
            "history", "spawn", "--agent-id", f"agent-{number}", "--task", line,
            "--phase", "01", "--plan", "01",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
    written = (repo / ".planning" / "agent-history.json").read_text()
    assert len(json.loads(written)["entries"]) == len(_lines())
    assert _survivors(written) == []


def test_bookmark_files_and_find_hold_no_secret(cli, repo, tmp_path):
    claude = tmp_path / "claude"
    said = "set " + " and ".join(LOW_ENTROPY) + " for the zanzibar deploy"
    session(claude, "lowent", str(repo), [("user", said), ("agent", f"Done: {said}")])
    result = cli(
        "bookmark", "add", "zanzibar", "--session", "lowent", "--description", said,
        "--tag", LOW_ENTROPY[0], "--claude-dir", str(claude),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    files = [p for p in repo.rglob("*.jsonl") if "bookmark" in str(p)]
    files += [p for p in (claude / "history").rglob("*.jsonl")]
    assert files
    assert all(_survivors(p.read_text(), LOW_SECRETS) == [] for p in files)
    for args in ((), ("--json",)):
        found = cli("find", "zanzibar deploy", *args, "--claude-dir", str(claude))
        assert found.exit_code == 0
        assert "lowent" in found.stdout
        assert _survivors(found.stdout + found.stderr, LOW_SECRETS) == []
    listed = cli("bookmark", "list", "--json")
    assert _survivors(listed.stdout, LOW_SECRETS) == []


def test_the_mcp_save_checkpoint_writes_it_redacted(repo, tmp_path):
    import pytest

    pytest.importorskip("mcp")
    from tests.mcp.test_mcp_server import _call, _data

    lines = _lines()
    listed = lines[2:100] + lines[-2:]  # a list holds 100 items at most
    arguments = {"role": "builder", "in_progress": lines[0], "notes": lines[1], "done": listed}
    rest = lines[100:-2]
    fields = {"step": "2", "work_queue": rest[100:]}
    arguments |= {"next": rest[:100] or listed, "fields": fields}
    _, [result] = _call(repo, tmp_path / "claude", [("save_checkpoint", arguments)])
    saved = repo / _data(result)["path"]
    assert _survivors(saved.read_text()) == []


def test_caches_written_under_other_rules_are_built_again(cli, repo, tmp_path, monkeypatch):
    """A cache keeps text redacted by the rules of its day: under a release's new rules, or a
    pattern the user added since, what they find must not stay in it (nor reach ``find``)."""
    from purlin_resume.core import store

    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    claude = tmp_path / "claude"
    said = "set " + " and ".join(LOW_ENTROPY) + " for the zanzibar deploy"
    session(claude, "lowent", str(repo), [("user", said), ("agent", f"Done: {said}")])
    mine = store.user_settings()  # rules under which they are no secret: an allow-list
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(json.dumps({"resume": {"redact": {"allow": LOW_SECRETS}}}))
    for args in (("find", "zanzibar deploy"), ("sessions",)):
        assert cli(*args, "--claude-dir", str(claude)).exit_code == 0
    kept = list(cache.rglob("*.sqlite"))
    assert len(kept) == 2
    assert all(_survivors(p.read_bytes().decode("latin-1")) for p in kept)
    mine.unlink()
    for args in (("find", "zanzibar deploy"), ("find", "zanzibar", "--json"), ("sessions",)):
        result = cli(*args, "--claude-dir", str(claude))
        assert result.exit_code == 0
        assert _survivors(result.stdout, LOW_SECRETS) == []
    for path in cache.rglob("*.sqlite"):
        assert _survivors(path.read_bytes().decode("latin-1"), LOW_SECRETS) == [], path.name


def test_find_builds_its_index_with_the_user_s_own_patterns(cli, repo, tmp_path, monkeypatch):
    from purlin_resume.core import store

    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    mine = store.user_settings()
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(json.dumps({"resume": {"redact": {"extra": [r"ACME-[0-9]{6}"]}}}))
    claude = tmp_path / "claude"
    session(claude, "ticket", str(repo), [("user", "zanzibar ticket ACME-123456"), ("agent", "ok")])
    result = cli("find", "zanzibar ticket", "--claude-dir", str(claude))
    assert result.exit_code == 0
    assert "ticket" in result.stdout
    [index] = cache.rglob("search-*.sqlite")
    assert b"ACME-123456" not in index.read_bytes()


TICKET = "ACME-314159"  # matched only by the project's own pattern


@pytest.fixture(params=["trusted", "untrusted"])
def ticket_rule(request, cli, repo):
    """A project whose committed config adds a pattern; trusted or not, it tightens."""
    (repo / ".purlin").mkdir(exist_ok=True)
    rule = {"kind": "ticket", "pattern": "ACME-[0-9]{6}"}
    (repo / ".purlin" / "config.json").write_text(
        json.dumps({"resume": {"redact": {"extra": [rule]}}})
    )
    if request.param == "trusted":
        assert cli("trust").exit_code == 0
    return repo


def test_a_projects_own_patterns_redact_what_commands_write(cli, ticket_rule, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)  # --project names it: its rules apply, not the working folder's
    at = ["--project", str(ticket_rule)]
    fields = ["--role", "builder", "--in-progress", f"verify {TICKET}", "--step", "1"]
    saved = cli("save", *at, *fields, "--next", "ship")
    assert saved.exit_code == 0, saved.stderr
    task = ["--agent-id", "a1", "--task", f"fix {TICKET}", "--phase", "01", "--plan", "01"]
    spawned = cli("history", "spawn", *at, *task)
    assert spawned.exit_code == 0, spawned.stderr
    [checkpoint] = (ticket_rule / ".purlin" / "cache").rglob("*.md")
    history = (ticket_rule / ".planning" / "agent-history.json").read_text()
    for written in (checkpoint.read_text(), history):
        assert TICKET not in written
        assert "[REDACTED:ticket:" in written


def _agent_call(root, tool_use_id: str, task: str) -> None:
    """The PreToolUse hook of an Agent call, as Claude Code runs it; it always exits 0."""
    payload = {
        "session_id": "s-written", "cwd": str(root), "hook_event_name": "PreToolUse",
        "tool_name": "Agent", "tool_use_id": tool_use_id,
        "tool_input": {"description": task, "prompt": f"See {task} first"},
    }  # fmt: skip
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "purlin_resume", "hook", "pre-tool-use"],
        input=json.dumps(payload), capture_output=True, text=True, env=env, cwd=root,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_projects_own_patterns_redact_what_hooks_write(ticket_rule):
    _agent_call(ticket_rule, "toolu_ticket", f"Close {TICKET}")
    history = (ticket_rule / ".planning" / "agent-history.json").read_text()
    assert "toolu_ticket" in history
    assert TICKET not in history
    assert "[REDACTED:ticket:" in history


ID_TOKEN = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2"[:36]  # fits an id's shape


def _tree_holds(root, secret: str) -> list[str]:
    """The files under ``root`` that hold ``secret``, in their text or their name."""
    files = [p for p in root.rglob("*") if p.is_file()]
    return [str(p) for p in files if secret in p.name or secret in p.read_text("latin-1")]


def test_an_id_holding_a_secret_is_refused_and_the_history_stays_readable(cli, repo):
    spawn = ["history", "spawn", "--task", "t", "--phase", "1", "--plan", "1"]
    assert cli(*spawn, "--agent-id", "agent-ok").exit_code == 0
    refused = cli(*spawn, "--agent-id", ID_TOKEN)
    assert refused.exit_code == 2
    assert "agent id holds a secret (github-token)" in refused.stderr
    grouped = cli(*spawn, "--agent-id", "agent-2", "--group", ID_TOKEN)
    assert grouped.exit_code == 0, grouped.stderr
    saved = cli("save", "--session", ID_TOKEN, "--role", "builder", "--in-progress", "x",
                "--step", "1", "--next", "y")  # fmt: skip
    assert saved.exit_code == 2
    assert "session id holds a secret" in saved.stderr
    listed = cli("history", "list", "--json")
    assert listed.exit_code == 0, listed.stderr
    assert [e["agent_id"] for e in json.loads(listed.stdout)["entries"]] == ["agent-ok", "agent-2"]
    assert _tree_holds(repo / ".planning", ID_TOKEN) == []
    assert (
        not (repo / ".purlin" / "cache").exists() or _tree_holds(repo / ".purlin", ID_TOKEN) == []
    )


def test_a_hook_payload_whose_id_holds_a_secret_records_nothing_and_breaks_nothing(repo):
    _agent_call(repo, "toolu_" + ID_TOKEN, "Run plan 01-01")
    _agent_call(repo, "toolu_plain", "Run plan 01-01")
    start = {"session_id": "s-written", "cwd": str(repo), "agent_id": ID_TOKEN}
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(repo)}
    done = subprocess.run(
        [sys.executable, "-m", "purlin_resume", "hook", "subagent-start"],
        input=json.dumps({**start, "hook_event_name": "SubagentStart"}),
        capture_output=True, text=True, env=env, cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    history = json.loads((repo / ".planning" / "agent-history.json").read_text())
    assert [e["agent_id"] for e in history["entries"]] == ["toolu_plain"]
    assert _tree_holds(repo, ID_TOKEN) == []


def test_no_redaction_rule_finds_a_secret_in_an_id_claude_code_makes():
    """``ids.secret_in`` skips the rules for the ids the client makes: hold it to that."""
    import random
    import string
    import uuid

    from purlin_resume.core import ids, redact

    rng = random.Random(7)
    base62 = string.ascii_letters + string.digits
    made = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(500)]
    made += ["a" + "".join(rng.choice("0123456789abcdef") for _ in range(16)) for _ in range(500)]
    made += ["toolu_01" + "".join(rng.choice(base62) for _ in range(22)) for _ in range(2000)]
    assert all(re.fullmatch(ids.CLIENT_MADE, value) for value in made)
    assert [value for value in made if redact.find(value)] == []
    assert ids.secret_in("toolu_" + ID_TOKEN) == "github-token"  # not of the client's shapes
