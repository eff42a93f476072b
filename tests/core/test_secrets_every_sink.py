"""No secret leaves by any sink: the corpus planted in every place Claude Code writes text (the
prompt, the assistant's text and thinking, a tool's input and result, the session's titles and
summary, a subagent's transcript, a compaction summary), then read back from every output of
the command line, every file and cache written, the dashboard's pages, the MCP tools, the team
store (git) and a prompt typed into a real tmux pane. 0 survivors; a few ``[REDACTED:`` each."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.claude_records import Conversation, text, tool, write_jsonl
from tests.conftest import git
from tests.integration.test_hooks import hook
from tests.secret_corpus import Planted, corpus

ITEMS = corpus(23)
SESSION = "5ec2e700-0000-4000-8000-00000000c0de"
AGENT = "a5ec2e7"
BLOB = "\n".join(item.line for item in ITEMS)


def _survivors(text: str) -> list[str]:
    return [f"{i.kind}: {i.line[:50]!r}" for i in ITEMS if i.secret in text]


def _clean(sinks: dict[str, str]) -> None:
    """Every sink holds no secret, and the sinks together show that redaction happened."""
    survivors = {
        name: found for name, found in ((n, _survivors(t)) for n, t in sinks.items()) if found
    }
    assert survivors == {}
    assert "[REDACTED:" in "".join(sinks.values())


def plant(claude: Path, repo: Path) -> Path:
    """The session, its subagent and its compaction, every text carrying the whole corpus."""
    talk = Conversation(SESSION, cwd=str(repo))
    folder = claude / "projects" / ("-" + str(repo).strip("/").replace("/", "-"))
    title = "zanzibar deploy " + " ".join(item.line for item in ITEMS)
    thinking = {"type": "thinking", "thinking": f"Planning:\n{BLOB}", "signature": "c2ln"}
    spawn = tool("toolu_01Spawn", "Task", subagent_type="general-purpose",
                 description=f"zanzibar deploy {ITEMS[0].line}", prompt=f"Deploy with\n{BLOB}")  # fmt: skip
    records = [
        {"type": "custom-title", "customTitle": title, "sessionId": SESSION},
        {"type": "ai-title", "aiTitle": title, "sessionId": SESSION},
        talk.user(f"zanzibar deploy: please set these up\n{BLOB}"),
        talk.assistant(
            "msg_01Plan",
            thinking,
            text(f"Configuring with:\n{BLOB}"),
            tool("toolu_01Bash", "Bash", command=BLOB, description=f"set {ITEMS[1].line}"),
        ),  # fmt: skip
        talk.result("toolu_01Bash", BLOB, {"stdout": BLOB, "stderr": BLOB, "interrupted": False}),
        talk.assistant("msg_01Spawn", spawn),
        talk.result(
            "toolu_01Spawn",
            f"done\n{BLOB}",
            {
                "status": "completed",
                "agentId": AGENT,
                "prompt": BLOB,
                "content": [{"type": "text", "text": BLOB}],
            },
        ),  # fmt: skip
        talk.system(
            "compact_boundary",
            content="Conversation compacted",
            compactMetadata={"trigger": "auto", "preTokens": 9000},
        ),  # fmt: skip
        talk.user(
            f"This session is being continued from a previous conversation.\n{BLOB}",
            isCompactSummary=True,
        ),  # fmt: skip
        talk.user(f"zanzibar deploy, next: {ITEMS[2].line}"),
        talk.assistant("msg_01Done", text(f"Done:\n{BLOB}")),
    ]
    records.append({"type": "summary", "summary": title, "leafUuid": talk.last})
    session_file = write_jsonl(folder / f"{SESSION}.jsonl", records)
    sub = Conversation(SESSION, cwd=str(repo))
    rows = [
        sub.user(f"Deploy with\n{BLOB}", isSidechain=True, agentId=AGENT),
        sub.assistant(
            "msg_01Sub",
            thinking,
            text(f"Sub-agent on it:\n{BLOB}"),
            tool("toolu_01SubBash", "Bash", command=BLOB),
            isSidechain=True,
            agentId=AGENT,
        ),  # fmt: skip
        sub.result("toolu_01SubBash", BLOB, {"stdout": BLOB}, isSidechain=True, agentId=AGENT),
        sub.assistant("msg_01SubDone", text(f"Deployed:\n{BLOB}"), isSidechain=True, agentId=AGENT),
    ]
    write_jsonl(folder / SESSION / "subagents" / f"agent-{AGENT}.jsonl", rows)
    return session_file


@pytest.fixture
def planted(repo, tmp_path, monkeypatch) -> tuple[Path, Path, Path]:
    """(claude data folder, session file, user cache folder)."""
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    claude = tmp_path / "claude"
    return claude, plant(claude, repo), cache


def _ok(result) -> str:
    assert result.exit_code == 0, (result.stdout[-500:], result.stderr[-500:])
    return result.stdout + result.stderr


def test_the_planted_session_is_read_whole(cli, planted):
    """The secrets really are where the test says (else 0 survivors would prove nothing)."""
    claude, _, _ = planted
    raw = _ok(cli("export", SESSION, "--format", "json", "--include-tools", "--include-thinking",
                  "--no-redact", "--claude-dir", str(claude)))  # fmt: skip
    assert not [i.kind for i in ITEMS if i.secret not in raw]
    agent = _ok(cli("export", AGENT, "--format", "md", "--include-tools", "--no-redact",
                    "--claude-dir", str(claude)))  # fmt: skip
    assert not [i.kind for i in ITEMS if i.secret not in agent]
    data = json.loads(raw)
    assert "compact" in json.dumps(data).lower()


def test_no_secret_in_any_command_output_or_file_or_cache(cli, planted, repo, tmp_path):
    claude, session_file, cache = planted
    where = ["--claude-dir", str(claude)]
    out = tmp_path / "out"
    out.mkdir()
    sinks: dict[str, str] = {}

    def run(*args: str) -> None:
        sinks[" ".join(args)] = _ok(cli(*args, *where))

    run("sessions")
    run("sessions", "--json")
    run("sessions", "--all", "--json")
    run("agents", SESSION)
    run("agents", SESSION, "--json")
    for extra in ((), ("--include-tools", "--include-thinking")):
        run("transcript", SESSION, "--max-chars", "0", *extra)
        run("transcript", SESSION, "--json", *extra)
        run("transcript", AGENT, "--max-chars", "0", *extra)
        for fmt in ("md", "json"):
            run("export", SESSION, "--format", fmt, *extra)
            run("export", AGENT, "--format", fmt, *extra)
            run("export", SESSION, "--format", fmt, "-o", str(out / f"s{len(extra)}.{fmt}"), *extra)
    run("transcript", SESSION, "--include-tools", "--max-chars", "3000")  # cut: the digest
    run("find", "zanzibar deploy")
    run("find", "zanzibar", "deploy", "--json")
    run("recommend", "--task", "zanzibar deploy", "--threshold", "0", "--json")
    run("recommend", "--task", "zanzibar deploy", "--threshold", "0")
    for method in ("full", "summarized", "hybrid"):
        run("resurrect", "--session", SESSION, "--method", method, "--yes")
        run("resurrect", "--session", SESSION, "--method", method, "--yes", "--json")
    run("resurrect", "--session", SESSION, "--agent", AGENT, "--method", "full", "--yes",
        "-o", str(out / "agent-prompt.md"))  # fmt: skip
    line = next(i.line for i in ITEMS if i.kind == "pgpass-password")
    run("bookmark", "add", "zanzibar-keys", "--session", SESSION, "--description", BLOB[:3000],
        "--tag", line)  # fmt: skip
    run("bookmark", "list", "--json")
    run("resurrect", "zanzibar-keys", "--yes", "--notes", BLOB[:2000])
    run("resurrections", "--json")
    run("redact", "report", SESSION)
    # the hooks: a checkpoint before compaction, the briefing after, a subagent's task recorded
    base = {"session_id": SESSION, "transcript_path": str(session_file), "cwd": str(repo)}
    for event, extra in (
        ("pre-compact", {"hook_event_name": "PreCompact", "trigger": "auto"}),
        ("session-start", {"hook_event_name": "SessionStart", "source": "compact"}),
        ("pre-tool-use", {"hook_event_name": "PreToolUse", "tool_name": "Task", "tool_use_id": "toolu_01Hook",
                          "tool_input": {"description": "zanzibar", "prompt": BLOB, "subagent_type": "x"}}),
    ):  # fmt: skip
        done = hook(event, {**base, **extra}, repo)
        assert done.returncode == 0, done.stderr
        sinks[f"hook {event}"] = done.stdout + done.stderr
    overflow = Path(tempfile.gettempdir()) / "purlin-resume-*"
    files = [p for root in (cache, claude / "history", repo / ".purlin", repo / ".planning", out)
             for p in root.rglob("*") if p.is_file() and not p.name.endswith((".tar.gz", ".lock"))]  # fmt: skip
    files += [p for p in Path(tempfile.gettempdir()).glob(f"{overflow.name}/*") if p.is_file()]
    names = {p.name for p in files}
    assert {
        "cache.sqlite",
        "bookmarks.jsonl",
        "resurrection-log.jsonl",
        "agent-history.json",
    } <= names
    assert any(n.startswith("search-") for n in names), names
    assert any(n.startswith(SESSION) and n.endswith(".md") for n in names), names  # checkpoint
    for path in files:
        sinks[f"file {path}"] = path.read_bytes().decode("utf-8", "replace")
    _clean(sinks)


def test_no_secret_on_any_dashboard_page(planted, repo):
    pytest.importorskip("starlette")
    from tests.dashboard_setup import board

    claude, _, _ = planted
    client, guard = board(repo, claude)
    headers = {"x-purlin-token": guard.token}
    sinks = {}
    for path in ("/agents", "/subagents", "/resurrections", "/sessions", "/sessions?all=1",
                 f"/transcripts/{SESSION}", f"/transcripts/{AGENT}", "/api/sessions",
                 "/api/subagents", "/api/agents", "/api/resurrections",
                 f"/api/transcripts/{SESSION}", f"/api/transcripts/{AGENT}"):  # fmt: skip
        page = client.get(path, headers=headers)
        assert page.status_code == 200, (path, page.text[:300])
        sinks[path] = page.text
    assert SESSION in sinks["/sessions"]
    assert "zanzibar" in sinks[f"/transcripts/{SESSION}"]
    _clean(sinks)


def test_no_secret_from_any_mcp_tool(planted, repo):
    pytest.importorskip("mcp")
    from tests.mcp.test_mcp_server import _call

    claude, _, _ = planted
    calls = [
        ("get_transcript", {"id": SESSION, "include_tools": True, "page_chars": 50_000}),
        ("get_transcript", {"id": SESSION, "page": 2, "include_tools": True, "page_chars": 50_000}),
        ("get_transcript", {"id": AGENT, "include_tools": True}),
        ("search_sessions", {"query": "zanzibar deploy"}),
        ("resurrection_context", {"session_id": SESSION, "method": "full"}),
        ("resurrection_context", {"session_id": SESSION, "agent_id": AGENT}),
        ("list_interrupted_subagents", {}),
        ("agents_status", {}),
    ]
    _, results = _call(repo, claude, calls)
    sinks = {
        f"{name} {args}": "".join(c.text for c in r.content)
        for (name, args), r in zip(calls, results, strict=True)
    }
    assert not results[0].is_error
    assert "zanzibar" in sinks[f"get_transcript {calls[0][1]}"]
    _clean(sinks)


def _blobs(bare: Path) -> str:
    """Every object of a git repository (commits, trees, file contents), as text."""
    listed = git(bare, "rev-list", "--all", "--objects").split()
    shas = "\n".join(sorted({word for word in listed if len(word) == 40})) + "\n"
    done = subprocess.run(["git", "cat-file", "--batch"], cwd=bare, input=shas.encode(),
                          capture_output=True, check=True)  # fmt: skip
    return done.stdout.decode("utf-8", "replace")


def test_no_secret_reaches_the_team_store(planted, repo, tmp_path):
    from tests.team_setup import Teammate

    claude, _, cache = planted
    remote = tmp_path / "shared" / "team.git"
    remote.parent.mkdir()
    me = Teammate(
        "alice", Path.home(), repo, {"CLAUDE_CONFIG_DIR": str(claude), "XDG_CACHE_HOME": str(cache)}
    )
    me.ok("team", "init", "--remote", str(remote))
    me.ok("bookmark", "add", "zanzibar-team", "--session", SESSION, "--description", BLOB[:3000])
    me.ok("bookmark", "share", "zanzibar-team")
    me.ok("resurrect", "zanzibar-team", "--yes", "--notes", BLOB[:2000])
    me.ok("resurrect", "--session", SESSION, "--agent", AGENT, "--yes")
    me.ok("team", "sync")
    sinks = {"team store": _blobs(remote)}
    for args in (("bookmark", "list", "--team", "--json"), ("resurrections", "--team", "--json"),
                 ("find", "--team", "zanzibar", "--json")):  # fmt: skip
        sinks[" ".join(args)] = me.ok(*args).stdout
    assert "zanzibar-team" in sinks["team store"]
    _clean(sinks)


def test_no_secret_is_typed_into_a_tmux_pane(cli, planted, repo, tmp_path, tmux_server):
    from purlin_resume.core import tmux
    from tests.agents_setup import configure, prompts

    claude, _, _ = planted
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    tmux.new_session(tmux_server, "editor", repo, "cat")  # the user's running server
    result = cli("resurrect", "--session", SESSION, "--method", "full", "--yes", "--spawn", "tmux",
                 "--json", "--tmux-socket", str(tmux_server.socket), "--claude-dir", str(claude))  # fmt: skip
    shown = _ok(result)
    [typed] = prompts(record, 1)
    pane = json.loads(result.stdout)["launch"]["pane"]
    screen = subprocess.run(["tmux", "-S", str(tmux_server.socket), "capture-pane", "-p", "-S", "-",
                             "-t", pane], capture_output=True, text=True, check=False).stdout  # fmt: skip
    assert tmux.pane_alive(tmux_server, pane)
    assert "zanzibar" in typed
    _clean({"typed": typed, "pane": screen, "printed": shown})


def test_the_corpus_is_big_and_varied():
    assert len(ITEMS) >= 100
    assert len({item.kind for item in ITEMS}) >= 60
    assert isinstance(ITEMS[0], Planted)
