"""The dashboard's pages and JSON API through Starlette's test client: every endpoint, the token,
Origin and Host checks, each error answer, redaction of what it shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from purlin_resume.web import security
from tests.agents_setup import agent_record, configure, dead_pid, prompts, write_registry
from tests.conftest import listings, not_listable
from tests.dashboard_setup import ORIGIN, PORT, board, resurrection, sample_log, write_log
from tests.gsd_files import entry, write_history
from tests.other_cli_data import codex_home, gemini_home
from tests.resurrection_data import session

GITHUB_TOKEN = "ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lz3Xc7Vb"
ENDED = "2026-01-15T15:00:00Z"


def _auth(guard, **extra) -> dict:
    return {"x-purlin-token": guard.token, **extra}


def _post(client, guard, path: str, **headers):
    return client.post(path, headers={**_auth(guard, origin=ORIGIN), **headers})


@pytest.fixture
def claude(tmp_path):
    folder = tmp_path / "claude"
    (folder / "projects").mkdir(parents=True)
    return folder


# ---------------------------------------------------------------------------------------------
# token, Host, Origin


def test_every_page_and_api_needs_the_token(repo, claude):
    client, guard = board(repo, claude)
    paths = [
        "/agents",
        "/agents/cards",
        "/agents/x",
        "/subagents",
        "/resurrections",
        "/sessions",
        "/transcripts/x",
        "/api/agents",
        "/api/agents/x",
        "/api/agents/x/activity",
        "/api/subagents",
        "/api/resurrections",
        "/api/sessions",
        "/api/transcripts/x",
    ]
    last = guard.token[-1]
    near_miss = guard.token[:-1] + ("B" if last == "A" else "A")
    for path in paths:
        missing = client.get(path)
        wrong = client.get(path, headers={"x-purlin-token": near_miss})
        assert missing.status_code == 401, path
        assert wrong.status_code == 401, path
        assert "token is missing or wrong" in missing.text
    assert client.get("/api/agents", headers=_auth(guard)).status_code == 200
    assert client.get(f"/api/agents?token={guard.token}").status_code == 200


def test_the_printed_url_sets_a_cookie_and_drops_the_token_from_the_address(repo, claude):
    client, guard = board(repo, claude)

    first = client.get(f"/resurrections?mode=fuzzy&token={guard.token}")

    assert first.status_code == 303
    assert first.headers["location"] == f"{guard.base}/resurrections?mode=fuzzy"
    cookie = first.headers["set-cookie"]
    assert f"purlin_dashboard_{PORT}={guard.token}" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    assert f"Path={guard.base}/" in cookie
    page = client.get(f"{guard.base}/resurrections?mode=fuzzy")
    assert page.status_code == 200
    assert f'<meta name="purlin-token" content="{guard.token}">' in page.text
    assert f'<base href="{guard.base}/">' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_the_cookie_is_bound_to_this_runs_path_not_to_the_host(repo, claude):
    """Browsers send a host's cookies to all its ports: the cookie must name a path only this
    dashboard's pages have, and count nowhere else."""
    client, guard = board(repo, claude)
    first = client.get(f"/agents?token={guard.token}")
    cookie = first.headers["set-cookie"]
    assert f"Path={guard.base}/" in cookie
    assert len(guard.base) > 12
    assert guard.base != security.Guard("127.0.0.1", PORT).base  # random per run
    client.cookies.set(f"purlin_dashboard_{PORT}", guard.token)  # as if sent to any path
    assert client.get("/agents").status_code == 401  # outside the run's path: not counted
    page = client.get(f"{guard.base}/agents")
    assert page.status_code == 200
    assert 'href="agents/' in page.text or 'href="sessions"' in page.text
    css = client.get(f"{guard.base}/static/dashboard.css")
    assert css.status_code == 200


def test_a_foreign_host_header_is_refused_even_with_the_token(repo, claude):
    """DNS rebinding: a page at evil.example resolves to 127.0.0.1 and calls the dashboard."""
    client, guard = board(repo, claude)
    for host in (f"evil.example:{PORT}", "127.0.0.1:9999", "127.0.0.1", "", "[::1]:x"):
        answer = client.get("/api/agents", headers=_auth(guard, host=host))
        assert answer.status_code == 403, host
        assert answer.json() == {
            "error": "this Host is not the dashboard's address (DNS rebinding?)"
        }
    for host in (f"localhost:{PORT}", f"127.0.0.1:{PORT}"):
        assert client.get("/api/agents", headers=_auth(guard, host=host)).status_code == 200


def test_host_rules_of_other_binds():
    from purlin_resume.web.security import Guard

    wildcard = Guard("0.0.0.0", 9000)
    assert wildcard.host_allowed("192.168.1.20:9000")
    assert wildcard.host_allowed("[fe80::1]:9000")
    assert not wildcard.host_allowed("evil.example:9000")
    assert not wildcard.host_allowed("192.168.1.20:9001")
    named = Guard("10.0.0.5", 9000)
    assert named.host_allowed("10.0.0.5:9000")
    assert not named.host_allowed("localhost:9000")
    assert wildcard.url("/agents").startswith("http://127.0.0.1:9000/agents?token=")


def test_a_change_needs_the_token_header_and_this_origin(repo, claude, tmp_path):
    configure(repo, _no_tmux(tmp_path), tmp_path / "agent")
    path = write_registry(repo, {"dead-1": agent_record(repo, ended_at=ENDED)})
    before = path.read_bytes()
    client, guard = board(repo, claude)
    url = "/api/agents/dead-1/revive"

    no_token = client.post(url, headers={"origin": ORIGIN})
    client.cookies.set(f"purlin_dashboard_{PORT}", guard.token)
    cookie_only = client.post(url, headers={"origin": ORIGIN})
    token_in_url = client.post(f"{url}?token={guard.token}", headers={"origin": ORIGIN})
    no_origin = client.post(url, headers=_auth(guard))
    foreign = client.post(url, headers=_auth(guard, origin="http://evil.example"))
    other_port = client.post(url, headers=_auth(guard, origin="http://127.0.0.1:9999"))
    as_get = client.get(url, headers=_auth(guard))

    for answer in (no_token, cookie_only, token_in_url):
        assert answer.status_code == 401
    for answer in (no_origin, foreign, other_port):
        assert answer.status_code == 403
        assert answer.json()["error"] == (
            "this request's Origin is not the dashboard; nothing was done"
        )
    assert as_get.status_code == 405
    assert path.read_bytes() == before
    assert not (tmp_path / "agent" / "started.json").exists()


def _no_tmux(tmp_path):
    from purlin_resume.core import tmux

    return tmux.Server(tmp_path / "no-such-socket")


def test_static_assets_need_no_token_but_the_host(repo, claude):
    client, _ = board(repo, claude)

    script = client.get("/static/dashboard.js")

    assert script.status_code == 200
    assert "X-Purlin-Token" in script.text
    assert client.get("/static/dashboard.css").status_code == 200
    assert client.get("/static/dashboard.js", headers={"host": "evil.example"}).status_code == 403
    escaped = client.get("/static/%2e%2e/app.py")
    assert escaped.status_code == 404
    assert "import" not in escaped.text


# ---------------------------------------------------------------------------------------------
# agents


def test_agents_page_and_api_show_live_and_dead_agents(repo, claude, tmp_path):
    configure(repo, _no_tmux(tmp_path), tmp_path / "agent")
    write_registry(
        repo,
        {
            "dead-1": agent_record(repo, role="builder", ended_at=ENDED, tmux_pane="%3"),
            "live-1": agent_record(
                repo, pid=os.getpid(), previous_agent_id="dead-1", started_at="2026-01-15T16:00:00Z"
            ),
            "gone-1": agent_record(repo, pid=dead_pid()),
        },
    )
    client, guard = board(repo, claude)

    api = client.get("/api/agents", headers=_auth(guard)).json()
    page = client.get("/agents", headers=_auth(guard)).text
    cards = client.get("/agents/cards", headers=_auth(guard)).text

    by_id = {a["agent_id"]: a for a in api["agents"]}
    assert [a["agent_id"] for a in api["agents"]][0] == "live-1"  # newest first
    # dead-1 has a live successor: reviving it would be refused (409), so no button
    assert by_id["dead-1"]["state"] == "dead"
    assert by_id["dead-1"]["revivable"] is False
    assert by_id["dead-1"]["successors"] == ["live-1"]
    assert by_id["live-1"]["state"] == "alive"
    assert by_id["live-1"]["revivable"] is False
    # gone-1's process died without a SessionEnd: the CLI and the API revive it, so can a click
    assert by_id["gone-1"]["state"] == "dead"
    assert by_id["gone-1"]["revivable"] is True
    assert page.count('data-revive="') == 1
    assert 'data-revive="gone-1"' in page
    assert 'revived from <a class="agent-link" href="agents/dead-1">dead-1</a>' in page
    assert 'data-activity="live-1"' in page
    assert cards.strip().startswith("<article")
    assert "<html" not in cards


def test_what_the_registry_says_is_escaped_and_redacted(repo, claude):
    write_registry(
        repo,
        {
            "dead-1": agent_record(
                repo,
                role="<b>qa</b>",  # not a plain word: no role at all
                ended_at=ENDED,
                cwd=f"/srv/<script>alert(1)</script>/{GITHUB_TOKEN}",
            )
        },
    )
    client, guard = board(repo, claude)

    page = client.get("/agents", headers=_auth(guard)).text
    api = client.get("/api/agents", headers=_auth(guard)).text

    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "qa</b>" not in page
    assert "qa&lt;/b&gt;" not in page
    for text in (page, api):
        assert GITHUB_TOKEN not in text
        assert "[REDACTED:github-token:" in text


def test_activity_of_a_live_agent(repo, claude, tmp_path):
    configure(repo, _no_tmux(tmp_path), tmp_path / "agent")
    write_registry(
        repo,
        {
            "live-1": agent_record(repo, pid=os.getpid()),
            "gone-1": agent_record(repo, pid=dead_pid()),
        },
    )
    (repo / "fresh.txt").write_text("an edit in its folder\n")
    client, guard = board(repo, claude)

    answer = client.get("/api/agents/live-1/activity", headers=_auth(guard))
    dead = client.get("/api/agents/gone-1/activity", headers=_auth(guard)).json()

    assert answer.status_code == 200
    body = answer.json()
    assert body["agent_id"] == "live-1"
    assert body["verdict"] == "active"
    assert (dead["verdict"], dead["is_active"]) == ("dead", False)
    assert 0.0 <= body["confidence"] <= 1.0
    assert body["level"] in ("very_low", "low", "medium", "high", "very_high")
    assert client.get("/api/agents/nobody/activity", headers=_auth(guard)).status_code == 404


def test_agent_detail_shows_the_redacted_conversation_tools_files_and_lineage(repo, claude):
    sid = "5e55a1b2-0000-4000-8000-00000000d1ed"
    session(
        claude,
        sid,
        str(repo),
        [
            ("user", "Wire the login form"),
            ("agent", f"Done. <img src=x onerror=alert(1)> The token was {GITHUB_TOKEN}."),
        ],
    )
    write_registry(
        repo,
        {
            sid: agent_record(repo, ended_at=ENDED, previous_agent_id="older"),
            "next-1": agent_record(repo, previous_agent_id=sid, ended_at=ENDED),
            "next-2": agent_record(repo, previous_agent_id="next-1"),
        },
    )
    client, guard = board(repo, claude)

    page = client.get(f"/agents/{sid[:8]}", headers=_auth(guard))
    api = client.get(f"/api/agents/{sid}", headers=_auth(guard))

    assert page.status_code == 200
    assert "<h2>Wire the login form</h2>" in page.text  # Markdown rendered to HTML
    assert "<img src=x" not in page.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in page.text
    assert GITHUB_TOKEN not in page.text
    assert GITHUB_TOKEN not in api.text
    assert "older (not registered)" in page.text
    assert 'href="agents/next-1"' in page.text
    assert 'href="agents/next-2"' in page.text
    assert f'data-revive="{sid}"' in page.text
    detail = api.json()
    assert detail["lineage"]["data"]["predecessors"] == [{"agent_id": "older", "registered": False}]
    assert detail["lineage"]["data"]["successors"][0]["successors"][0]["agent_id"] == "next-2"
    assert detail["conversation"]["data"]["turns"] == 2


def test_agent_detail_without_a_transcript_shows_that_panel_failing(repo, claude):
    write_registry(repo, {"dead-1": agent_record(repo, ended_at=ENDED)})
    client, guard = board(repo, claude)

    page = client.get("/agents/dead-1", headers=_auth(guard))

    assert page.status_code == 200
    assert '<p class="panel-error" role="alert">no session or agent matches' in page.text
    assert 'data-revive="dead-1"' in page.text  # the rest still works


@pytest.mark.parametrize(
    ("path", "status", "error"),
    [
        ("/api/agents/nobody", 404, "no registered agent 'nobody'"),
        ("/api/agents/abcd", 400, "agent id 'abcd' is ambiguous (abcd-1, abcd-2)"),
        ("/api/agents/ab", 400, "agent id 'ab' is too short"),
        ("/api/agents/a%20b", 400, "agent id 'a b' is not valid"),
        ("/api/agents/%24(rm%20-rf)", 400, "is not valid"),
        ("/api/agents/" + "x" * 300, 400, "is not valid"),
        (
            "/api/agents/" + "x" * 20 + "%20ghp_" + "A1b2C3d4E5" * 4,
            400,
            "agent id 'xxxxxxxxxxxxxxxxxxxx …' is not valid",
        ),
        ("/api/agents/..%2f..%2fetc", 404, ""),
        ("/api/transcripts/nope", 404, "no session or agent matches 'nope'"),
        ("/api/transcripts/%0aevil", 400, "is not valid"),
        ("/api/resurrections?mode=bogus", 400, "mode must be one of bookmark, fuzzy, direct"),
        ("/api/resurrections?outcome=ok", 400, "outcome must be one of success, failure, partial"),
        ("/api/resurrections?since=soon", 400, "since 'soon': give a date"),
    ],
)
def test_bad_ids_and_filters_get_one_line(repo, claude, path, status, error):
    write_registry(repo, {"abcd-1": agent_record(repo), "abcd-2": agent_record(repo)})
    client, guard = board(repo, claude)

    answer = client.get(path, headers=_auth(guard))

    assert answer.status_code == status
    if error:
        assert error in answer.json()["error"]
        assert "\n" not in answer.json()["error"]


def test_a_transcript_prefix_that_names_several_is_a_400_listing_them(repo, claude):
    for sid in ("5e55a1b2-0000-4000-8000-0000000000a1", "5e55a1b2-0000-4000-8000-0000000000a2"):
        session(claude, sid, str(repo), [("user", "hello"), ("agent", "hi")])
    client, guard = board(repo, claude)

    answer = client.get("/api/transcripts/5e55", headers=_auth(guard))
    page = client.get("/transcripts/5e55", headers=_auth(guard))

    assert answer.status_code == 400
    assert "'5e55' is ambiguous: it matches 5e55a1b2-" in answer.json()["error"]
    assert page.status_code == 400
    assert "<h1>Error 400</h1>" in page.text


def test_an_unknown_agent_page_is_a_404_page(repo, claude):
    client, guard = board(repo, claude)

    page = client.get("/agents/nobody", headers=_auth(guard))

    assert page.status_code == 404
    assert "<h1>Error 404</h1>" in page.text
    assert "no registered agent &#39;nobody&#39;" in page.text
    assert '<a href="agents"' in page.text  # the navigation still works


def test_a_corrupt_registry_breaks_only_its_panel(repo, claude):
    path = repo / ".purlin" / "agents.json"
    path.parent.mkdir()
    path.write_text("{not json")
    sample_log(claude)
    client, guard = board(repo, claude)

    page = client.get("/agents", headers=_auth(guard))
    api = client.get("/api/agents", headers=_auth(guard))
    revive = _post(client, guard, "/api/agents/x/revive")
    others = client.get("/resurrections", headers=_auth(guard))

    assert page.status_code == 200
    assert '<p class="panel-error" role="alert">' in page.text
    assert "agents.json is corrupt (invalid JSON at line 1" in page.text
    assert api.status_code == 500
    assert "agents.json is corrupt" in api.json()["error"]
    assert revive.status_code == 500
    assert others.status_code == 200
    assert "<svg" in others.text
    assert path.read_text() == "{not json"


# ---------------------------------------------------------------------------------------------
# revive


def test_reviving_a_live_agent_is_409_with_the_cli_reason(repo, claude, tmp_path):
    configure(repo, _no_tmux(tmp_path), tmp_path / "agent")
    path = write_registry(
        repo,
        {
            "live-1": agent_record(repo, pid=os.getpid()),
            "ghost": agent_record(repo),
            "old": agent_record(repo, ended_at=ENDED),
            "new": agent_record(repo, pid=os.getpid(), previous_agent_id="old"),
        },
    )
    before = path.read_bytes()
    client, guard = board(repo, claude)

    live = _post(client, guard, "/api/agents/live-1/revive")
    ghost = _post(client, guard, "/api/agents/ghost/revive")
    twice = _post(client, guard, "/api/agents/old/revive")
    unknown = _post(client, guard, "/api/agents/nobody/revive")

    assert live.status_code == 409
    assert live.json() == {
        "error": f"agent live-1 is alive (process {os.getpid()} runs); "
        "only a dead agent can be revived"
    }
    assert ghost.status_code == 409
    assert "cannot tell whether agent ghost is dead" in ghost.text
    assert twice.status_code == 409
    assert "already has a live successor new" in twice.text
    assert unknown.status_code == 404
    assert path.read_bytes() == before


def test_reviving_a_dead_agent_starts_its_successor(repo, claude, tmux_server, tmp_path):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    write_registry(repo, {"dead-1": agent_record(repo, role="qa", ended_at=ENDED)})
    client, guard = board(repo, claude)

    answer = _post(client, guard, "/api/agents/dead-1/revive")

    assert answer.status_code == 201, answer.text
    body = answer.json()
    successor = body["successor"]
    assert body["predecessor"] == "dead-1"
    assert body["injections"] == ["persona", "revival"]
    assert body["card"]["previous_agent_id"] == "dead-1"
    assert body["card"]["role"] == "qa"
    assert f'data-agent-id="{successor}"' in body["card_html"]
    assert 'revived from <a class="agent-link" href="agents/dead-1">' in body["card_html"]
    received = prompts(record, 2)
    assert received[1].startswith("Revival: you succeed agent dead-1 (qa)")
    listed = client.get("/api/agents", headers=_auth(guard)).json()["agents"]
    assert {a["agent_id"] for a in listed} == {"dead-1", successor}


def test_a_failed_revival_is_one_line(repo, claude, tmux_server, tmp_path):
    configure(repo, tmux_server, tmp_path / "agent", agent_command="false", agent_session_flag="")
    write_registry(repo, {"dead-1": agent_record(repo, ended_at=ENDED)})
    client, guard = board(repo, claude)

    answer = _post(client, guard, "/api/agents/dead-1/revive")

    assert answer.status_code == 502  # the dashboard works; the agent it started did not
    error = answer.json()["error"]
    assert "the successor's command exited in tmux pane" in error
    assert error.endswith("(revival undone: window closed)")
    assert "\n" not in error


# ---------------------------------------------------------------------------------------------
# subagents


def test_subagents_by_group_and_status_with_resume_command_and_conflict_check(repo, claude):
    from tests.conftest import commit_file, git

    spawn = git(repo, "rev-parse", "HEAD").strip()
    commit_file(repo, "src/api.py", "changed by someone else\n")
    write_history(
        repo,
        [
            entry(
                "agent-a1",
                "interrupted",
                parallel_group="grp-1",
                spawn_commit=spawn,
                files_modified=["src/api.py"],
            ),
            entry(
                "agent-a2",
                "interrupted",
                parallel_group="grp-1",
                spawn_commit=spawn,
                files_modified=["src/other.py"],
            ),
            entry("agent-a3", "completed", parallel_group="grp-1"),
            entry("agent-b1", "spawned", task_description=f"deploy with {GITHUB_TOKEN}"),
        ],
    )
    client, guard = board(repo, claude)

    api = client.get("/api/subagents", headers=_auth(guard)).json()
    page = client.get("/subagents", headers=_auth(guard)).text

    group = api["groups"]["grp-1"]
    assert [e["agent_id"] for e in group["interrupted"]] == ["agent-a1", "agent-a2"]
    assert [e["agent_id"] for e in group["completed"]] == ["agent-a3"]
    first, second = group["interrupted"]
    assert first["resume_command"] == "/gsd:resume-task agent-a1"
    assert first["conflicts"]["data"]["verdict"] == "blocked"
    assert first["conflicts"]["data"]["blocking"] == [{"path": "src/api.py", "kind": "unverified"}]
    assert second["conflicts"]["data"]["verdict"] == "clear"
    assert api["groups"]["(no parallel group)"]["spawned"][0]["agent_id"] == "agent-b1"
    assert "/gsd:resume-task agent-a1" in page
    assert "conflict check: blocked: src/api.py (unverified)" in page
    assert GITHUB_TOKEN not in page
    assert GITHUB_TOKEN not in json.dumps(api)


def test_a_conflict_check_reads_the_agents_transcript_in_the_dashboards_claude_folder(
    repo, claude, tmp_path, monkeypatch
):
    """``dashboard --claude-dir X``: an interrupted agent with no files recorded is checked
    against what its transcript in X shows it edited, not ``$CLAUDE_CONFIG_DIR``'s."""
    from tests.claude_records import agent_transcript
    from tests.conftest import commit_file, git

    commit_file(repo, "src/shared.py", "v = 1\n")
    spawn = git(repo, "rev-parse", "HEAD").strip()
    agent_transcript(
        claude / "projects" / "-project" / "sess-1" / "subagents" / "agent-a1b2c3d.jsonl",
        "a1b2c3d",
        "Edit the shared module",
        [str(repo / "src/shared.py")],
        None,
    )
    (tmp_path / "elsewhere" / "projects").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    commit_file(repo, "src/shared.py", "v = 2\n")
    write_history(repo, [entry("a1b2c3d", "interrupted", spawn_commit=spawn, files_modified=[])])
    client, guard = board(repo, claude)

    api = client.get("/api/subagents", headers=_auth(guard)).json()

    waiting = api["groups"]["(no parallel group)"]["interrupted"][0]["conflicts"]["data"]
    assert waiting["blocking"] == [{"path": "src/shared.py", "kind": "unverified"}]


def test_an_agent_spawned_on_another_branch_reads_blocked_without_files(repo, claude):
    """Its files cannot be checked on this branch, known or not: the verdict is blocked, as
    ``resume-task`` stops, with the branch that holds its spawn in the note."""
    from tests.conftest import commit_file, git

    git(repo, "switch", "-q", "-c", "feat")
    spawn = commit_file(repo, "f.txt", "f\n")
    git(repo, "switch", "-q", "-")
    write_history(repo, [entry("agent-f1", "interrupted", spawn_commit=spawn, files_modified=[])])
    client, guard = board(repo, claude)

    api = client.get("/api/subagents", headers=_auth(guard)).json()

    waiting = api["groups"]["(no parallel group)"]["interrupted"][0]["conflicts"]["data"]
    assert waiting["verdict"] == "blocked"
    assert "(branch feat holds it)" in waiting["note"]


def test_subagents_without_history_and_with_a_corrupt_one(repo, claude):
    client, guard = board(repo, claude)
    empty = client.get("/subagents", headers=_auth(guard))
    assert empty.status_code == 200
    assert "No subagents recorded" in empty.text

    (repo / ".planning").mkdir()
    (repo / ".planning" / "agent-history.json").write_text("[1, 2")
    page = client.get("/subagents", headers=_auth(guard))
    api = client.get("/api/subagents", headers=_auth(guard))

    assert page.status_code == 200
    assert '<p class="panel-error" role="alert">' in page.text
    assert "is corrupt" in page.text
    assert api.status_code == 500
    assert "agent-history.json is corrupt" in api.json()["error"]
    assert client.get("/agents", headers=_auth(guard)).status_code == 200


@pytest.mark.parametrize(
    ("unread", "page"),
    [(".planning/agent-history.json", "subagents"), (".purlin/agents.json", "agents")],
)
def test_a_state_file_the_user_may_not_read_is_a_panel_line_not_a_server_error(
    repo, claude, monkeypatch, unread, page
):
    """A file of another user (``sudo claude`` made it): the page shows the line in the panel it
    breaks, the API answers 500 with it, as for a corrupt file; it was an Internal Server Error."""
    from tests.conftest import unreadable

    (repo / ".planning").mkdir()
    write_history(repo, [entry("agent-a1", "spawned")])
    write_registry(repo, {})
    unreadable(repo / unread, monkeypatch)
    client, guard = board(repo, claude)

    shown = client.get(f"/{page}", headers=_auth(guard))
    api = client.get(f"/api/{page}", headers=_auth(guard))

    assert shown.status_code == 200
    assert '<p class="panel-error" role="alert">' in shown.text
    assert "Permission denied" in shown.text
    assert api.status_code == 500
    assert api.json()["error"].startswith(f"{repo / unread}: Permission denied; make ")


# ---------------------------------------------------------------------------------------------
# resurrections


def test_resurrections_api_filters_and_metrics(repo, claude):
    sample_log(claude)
    client, guard = board(repo, claude)

    everything = client.get("/api/resurrections", headers=_auth(guard)).json()
    failures = client.get("/api/resurrections?outcome=failure", headers=_auth(guard)).json()
    fuzzy = client.get("/api/resurrections?mode=fuzzy", headers=_auth(guard)).json()
    by_agent = client.get("/api/resurrections?agent=f00d", headers=_auth(guard)).json()
    recent = client.get("/api/resurrections?since=2026-02-08", headers=_auth(guard)).json()

    assert everything["total"] == 4
    assert everything["resurrections"][0]["resurrection_id"] == "res-2026-02-09-004"
    stats = everything["stats"]
    assert stats["success_rate_by_mode"]["direct"] == {"success": 0, "total": 1, "rate": 0.0}
    assert stats["top_failure_reasons"] == [{"reason": "transcript file is gone", "count": 1}]
    assert everything["frequency"] == [
        {"day": "2026-02-03", "resurrections": 2, "success": 2},
        {"day": "2026-02-05", "resurrections": 1, "success": 0},
        {"day": "2026-02-09", "resurrections": 1, "success": 1},
    ]
    assert [e["resurrection_id"] for e in failures["resurrections"]] == ["res-2026-02-05-003"]
    assert fuzzy["total"] == 1
    assert by_agent["total"] == 1
    assert recent["total"] == 1


def test_resurrection_charts_are_svg_with_a_bar_per_value(repo, claude):
    sample_log(claude)
    client, guard = board(repo, claude)

    page = client.get("/resurrections", headers=_auth(guard)).text

    for name in (
        "top-agents",
        "frequency",
        "success-by-mode",
        "context-by-type",
        "latency",
        "cross-repo",
        "failure-reasons",
    ):
        assert f'<svg class="chart" data-chart="{name}"' in page, name
    frequency = page.split('data-chart="frequency"')[1].split("</svg>")[0]
    assert frequency.count('<rect class="bar total" ') == 3
    modes = page.split('data-chart="success-by-mode"')[1].split("</svg>")[0]
    assert 'data-value="0.0"' in modes
    assert 'data-value="1.0"' in modes
    assert "transcript file is gone" in page


def test_the_resurrection_log_is_redacted_and_skips_broken_lines(repo, claude):
    write_log(
        claude,
        [resurrection(1, "2026-02-03", outcome="failure", outcome_reason=f"auth {GITHUB_TOKEN}")],
        tail="{broken\n<script>\n",
    )
    client, guard = board(repo, claude)

    page = client.get("/resurrections", headers=_auth(guard)).text
    api = client.get("/api/resurrections", headers=_auth(guard)).json()

    assert api["skipped_lines"] == 2
    assert "2 line(s) skipped" in page
    assert GITHUB_TOKEN not in page
    assert GITHUB_TOKEN not in json.dumps(api)
    assert "[REDACTED:github-token:" in page


def test_a_log_line_with_nan_or_infinity_is_skipped_and_the_api_answers(repo, claude):
    """NaN, Infinity and 1e400 are no JSON a browser can read back: such a line (a log edited
    by hand or shared by another tool) is skipped as a broken one, not a 500 of the API."""
    write_log(
        claude,
        [
            resurrection(1, "2026-02-03", latency_ms=120),
            resurrection(2, "2026-02-03", latency_ms=float("nan")),
            resurrection(3, "2026-02-04", context_size_tokens=float("inf")),
        ],
        tail=json.dumps(resurrection(4, "2026-02-04")).replace("null", "1e400", 1) + "\n",
    )
    client, guard = board(repo, claude)

    api = client.get("/api/resurrections", headers=_auth(guard))
    page = client.get("/resurrections", headers=_auth(guard))

    assert api.status_code == 200, api.text
    assert api.json()["skipped_lines"] == 3
    assert [e["resurrection_id"] for e in api.json()["resurrections"]] == ["res-2026-02-03-001"]
    assert api.json()["stats"]["latency_ms"]["p50"] == 120
    assert "3 line(s) skipped" in page.text


def test_a_latency_near_the_largest_float_draws_a_finite_bar(repo, claude):
    write_log(
        claude,
        [resurrection(1, "2026-02-03", latency_ms=1e308), resurrection(2, "2026-02-03")],
    )
    client, guard = board(repo, claude)

    page = client.get("/resurrections", headers=_auth(guard)).text

    assert '="inf"' not in page  # width and x of the bar and its label
    assert 'width="290.0" height="16" data-value="1e+308"' in page


def test_a_log_field_of_text_holding_an_object_reads_as_its_json(repo, claude):
    """A hand-edited log may put an object or a list where text belongs: it is read as its JSON
    text everywhere (list, figures, charts), never as Python prints it."""
    write_log(
        claude,
        [
            resurrection(
                1,
                "2026-02-03",
                outcome="failure",
                resurrection_mode=["a", "b"],
                outcome_reason={"why": "x"},
                resurrected_from_agent_type={"t": 1},
                context_size_tokens=5,
            )
        ],
    )
    client, guard = board(repo, claude)

    api = client.get("/api/resurrections", headers=_auth(guard)).json()
    page = client.get("/resurrections", headers=_auth(guard)).text

    assert api["resurrections"][0]["resurrection_mode"] == '["a", "b"]'
    assert api["stats"]["average_context_tokens_by_agent_type"] == {'{"t": 1}': 5}
    assert api["stats"]["top_failure_reasons"] == [{"reason": '{"why": "x"}', "count": 1}]
    assert "[&#34;a&#34;, &#34;b&#34;]" in page  # the mode, escaped
    assert "{&#39;" not in page


def test_an_empty_log_draws_empty_charts(repo, claude):
    client, guard = board(repo, claude)

    page = client.get("/resurrections", headers=_auth(guard)).text

    assert "0 resurrection(s)" in page
    assert page.count(">no data</text>") == 7


# ---------------------------------------------------------------------------------------------
# sessions and search


def test_sessions_list_search_and_transcript(repo, claude):
    sid = "5e55a1b2-0000-4000-8000-00000000feed"
    session(
        claude,
        sid,
        str(repo),
        [("user", "Fix the flaky tmux injection tests"), ("agent", "Fixed the injection.")],
    )
    client, guard = board(repo, claude)

    listed = client.get("/api/sessions", headers=_auth(guard)).json()
    found = client.get("/api/sessions?q=tmux%20injection", headers=_auth(guard)).json()
    page = client.get("/sessions?q=tmux+injection", headers=_auth(guard)).text
    transcript = client.get(f"/transcripts/{sid}", headers=_auth(guard))
    as_json = client.get(f"/api/transcripts/{sid[:8]}", headers=_auth(guard)).json()

    assert [s["id"] for s in listed["sessions"]] == [sid]
    assert found["results"][0]["session_id"] == sid
    assert found["results"][0]["score"] > 0
    assert f'href="transcripts/{sid}"' in page
    assert transcript.status_code == 200
    assert "<h2>Fix the flaky tmux injection tests</h2>" in transcript.text
    assert as_json["id"] == sid
    assert as_json["turns"] == 2


def test_half_a_character_in_a_transcript_shows_as_a_replacement_character(repo, claude):
    """A lone surrogate (a ``\\ud83d`` escape: a text cut mid-emoji) has no UTF-8 form: every
    page and answer that shows it has U+FFFD in its place, and the other sessions still show."""
    cut = "5e55a1b2-0000-4000-8000-00000000d83d"
    session(
        claude, cut, str(repo), [("user", "launch the quixotic rocket \ud83d"), ("agent", "ok")]
    )
    session(claude, "5e55a1b2-0000-4000-8000-0000000000ff", str(repo), [("user", "hello")])
    client, guard = board(repo, claude)

    answers = {
        path: client.get(path, headers=_auth(guard))
        for path in (
            "/sessions",
            "/api/sessions",
            "/sessions?q=quixotic",
            "/api/sessions?q=quixotic",
            f"/transcripts/{cut}",
            f"/api/transcripts/{cut}",
        )
    }

    for path, answer in answers.items():
        assert answer.status_code == 200, path
        assert "rocket \ufffd" in answer.text, path
    assert len(answers["/api/sessions"].json()["sessions"]) == 2
    assert answers["/api/sessions?q=quixotic"].json()["results"][0]["session_id"] == cut


def test_the_sessions_answer_comes_from_the_cache_and_follows_the_transcripts(repo, claude):
    """What the dashboard lists is kept in the cache file; a transcript that changed is read
    again, one that did not is not (a title changed in the cache stands until then)."""
    import sqlite3

    from purlin_resume.core import cache_home

    sid = "5e55a1b2-0000-4000-8000-00000000cafe"
    session(claude, sid, str(repo), [("user", "Tune the cache"), ("agent", "Tuned.")])
    client, guard = board(repo, claude)
    assert client.get("/api/sessions", headers=_auth(guard)).json()["sessions"][0]["title"] == (
        "Tune the cache"
    )
    kept = cache_home.path_of()
    with sqlite3.connect(kept) as connection:
        (entry,) = connection.execute("SELECT entry FROM sessions").fetchone()
        connection.execute(
            "UPDATE sessions SET entry = ?", (entry.replace("Tune the cache", "Kept title"),)
        )
    assert client.get("/api/sessions", headers=_auth(guard)).json()["sessions"][0]["title"] == (
        "Kept title"
    )
    session(claude, sid, str(repo), [("user", "Tune the search index"), ("agent", "Tuned.")])
    listed = client.get("/api/sessions", headers=_auth(guard)).json()["sessions"]
    assert [s["title"] for s in listed] == ["Tune the search index"]
    assert "Tune the search index" in client.get("/sessions", headers=_auth(guard)).text


PASSING_OVER = ("/sessions", "/sessions?q=tmux", "/agents", "/subagents")  # and their answers


def test_a_project_folder_the_user_may_not_list_is_named_on_the_pages_that_read_there(
    repo, fixtures_copy, monkeypatch
):
    """Its sessions are neither listed nor searched (``sudo claude`` made it root's): the page
    and the answers say so, as ``sessions`` and ``find`` do, instead of nothing; so do the
    agents and subagents pages, whose agents' conversations may lie there."""
    client, guard = board(repo, fixtures_copy)
    for path in PASSING_OVER:
        assert client.get(f"/api{path}", headers=_auth(guard)).json()["passed_over"] == [], path
    locked = next(fixtures_copy.glob("projects/*spotter-dov"))
    not_listable(locked, monkeypatch)
    line = f"{locked}: Permission denied; the conversations there are not read"

    for path in PASSING_OVER:
        page = client.get(path, headers=_auth(guard))
        assert page.status_code == 200
        assert f'<p class="panel-warning" role="status">{line}' in page.text, path
        answer = client.get(f"/api{path}", headers=_auth(guard)).json()
        assert answer["passed_over"] == [f"{line}: make it readable for you"], path


def test_a_folder_not_listed_is_named_on_the_pages_that_read_there_redacted(
    repo, claude, tmp_path, monkeypatch
):
    from tests.core.test_redact import PLANTED

    secret = PLANTED["github-token"]
    codex = tmp_path / secret
    codex.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex))
    not_listable(codex, monkeypatch)
    client, guard = board(repo, claude)

    for path in PASSING_OVER:
        page = client.get(path, headers=_auth(guard)).text
        [line] = client.get(f"/api{path}", headers=_auth(guard)).json()["passed_over"]

        assert "Permission denied; its codex sessions are not listed" in line, path
        assert "[REDACTED:github-token:" in line, path
        assert secret not in page, path
        assert "[REDACTED:github-token:" in page, path


def test_the_search_walks_codex_and_gemini_once_as_the_listing_does(
    repo, fixtures_copy, monkeypatch
):
    """``?q=`` lists the folders of Codex's and Gemini's trees as the sessions page does: in
    the one walk that finds their sessions and notes the folders passed over (it walked them
    again for its warning, which still names the folder)."""
    trees = [codex_home(), gemini_home()]
    locked = next(trees[0].glob("sessions/*/*/*"))
    not_listable(locked, monkeypatch)
    line = f"{locked}: Permission denied; the conversations there are not read"
    client, guard = board(repo, fixtures_copy)
    for path in ("/api/sessions", "/api/sessions?q=tmux"):  # their listing and index kept
        assert client.get(path, headers=_auth(guard)).status_code == 200
    listed = listings(monkeypatch)

    def walked(page: str) -> dict:
        listed.clear()
        assert line in client.get(page, headers=_auth(guard)).text, page
        return {path: n for path, n in listed.items() if any(map(path.is_relative_to, trees))}

    for page in ("/sessions", "/api/sessions"):
        by_listing = walked(page)
        assert len(by_listing) > 5, page
        assert walked(f"{page}?q=tmux") == by_listing, page


def test_sessions_without_claude_data_show_one_line(repo, tmp_path):
    client, guard = board(repo, tmp_path / "no-claude")

    page = client.get("/sessions", headers=_auth(guard))
    api = client.get("/api/sessions", headers=_auth(guard))

    assert page.status_code == 200
    assert "no Claude Code transcripts in" in page.text
    assert "panel-error" in page.text
    assert api.status_code == 404


def test_search_on_real_transcripts(repo, fixtures_copy):
    client, guard = board(repo, fixtures_copy)

    found = client.get("/api/sessions?q=spotter", headers=_auth(guard)).json()["results"]

    assert found, "the fixtures hold spotter sessions"
    first = found[0]["agent_id"] or found[0]["session_id"]
    shown = client.get(f"/transcripts/{first}", headers=_auth(guard))
    assert shown.status_code == 200
    assert '<div class="markdown">' in shown.text


# ---------------------------------------------------------------------------------------------
# the command


def test_the_command_without_the_web_extra_says_how_to_install_it(repo, cli, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name in ("starlette", "uvicorn") else real(name, *a),
    )

    result = cli("dashboard")

    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: the dashboard needs the web extra: pip install 'purlin-resume[web]'"
    )


def test_cli_and_hooks_work_without_the_web_stack(tmp_path):
    code = (
        "import sys, io\n"
        "for name in ('starlette', 'uvicorn', 'markdown_it'):\n"
        "    sys.modules[name] = None\n"
        "from purlin_resume.integration import hook_call\n"
        "hook_call.run('session-end', stdin=io.StringIO('{}'))\n"
        "sys.argv = ['purlin-resume', 'sessions', '--all', '--json']\n"
        "from purlin_resume.cli.entry import main\n"
        "main()\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sessions"] == []


def test_the_command_rejects_a_busy_port_and_an_unknown_host(repo, cli):
    import socket

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        port = busy.getsockname()[1]
        taken = cli("dashboard", "--port", str(port))
    finally:
        busy.close()
    unknown = cli("dashboard", "--host", "no-such-host.invalid")
    bad_port = cli("dashboard", "--port", "70000")

    assert taken.exit_code == 1
    assert taken.stderr.strip() == (
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use; choose another --port"
    )
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("error: --host no-such-host.invalid: not an address")
    assert bad_port.exit_code == 2


def test_a_long_registry_shows_every_live_agent_and_the_newest_dead_ones(repo, claude):
    from purlin_resume.web import views

    many = {
        f"old-{n:04d}": agent_record(
            repo,
            ended_at=ENDED,
            started_at=f"2026-01-{1 + n // 100:02d}T{n % 24:02d}:{n % 60:02d}:00Z",
        )
        for n in range(views.AGENTS_SHOWN + 20)
    }
    many["live-1"] = agent_record(repo, pid=os.getpid(), started_at="2025-12-01T00:00:00Z")
    write_registry(repo, many)
    client, guard = board(repo, claude)

    page = client.get("/agents", headers=_auth(guard)).text
    everything = client.get("/agents?all=1", headers=_auth(guard)).text
    api = client.get("/api/agents", headers=_auth(guard)).json()

    assert page.count('<article class="card') == views.AGENTS_SHOWN
    assert 'data-agent-id="live-1"' in page  # the oldest, but alive
    assert f"{views.AGENTS_SHOWN} of {views.AGENTS_SHOWN + 21} agents shown" in page
    assert 'data-poll="agents/cards?all=1"' in everything
    assert everything.count('<article class="card') == views.AGENTS_SHOWN + 21
    assert api["total"] == len(api["agents"]) == views.AGENTS_SHOWN + 21


def test_two_revivals_of_one_agent_at_once_start_one_successor(repo, claude, tmux_server, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from purlin_resume.agents import registry
    from purlin_resume.core.project import Project

    configure(repo, tmux_server, tmp_path / "agent")
    write_registry(repo, {"dead-1": agent_record(repo, ended_at=ENDED)})
    client, guard = board(repo, claude)

    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(
            pool.map(lambda _: _post(client, guard, "/api/agents/dead-1/revive"), range(2))
        )

    assert sorted(a.status_code for a in answers) == [201, 409]
    refused = next(a for a in answers if a.status_code == 409)
    assert "already has a live successor" in refused.json()["error"]
    successors = [a for a in registry.load(Project(repo)).values() if a.previous_agent_id]
    assert len(successors) == 1


def test_hostile_transcript_text_and_a_huge_query_stay_harmless(repo, claude):
    sid = "5e55a1b2-0000-4000-8000-00000000bad1"
    session(
        claude,
        sid,
        str(repo),
        [
            ("user", "[click me](javascript:alert(1)) $(rm -rf ~) \x1b[31mred\x1b[0m\x07"),
            ("agent", "<script>alert(2)</script>" + "{" * 5000),
        ],
    )
    client, guard = board(repo, claude)

    page = client.get(f"/transcripts/{sid}", headers=_auth(guard))
    huge = client.get("/sessions?q=" + "tmux%20" * 8000, headers=_auth(guard))

    assert page.status_code == 200
    assert 'href="javascript:' not in page.text
    assert "<script>alert(2)</script>" not in page.text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page.text
    assert "red" in page.text
    assert "\x1b" not in page.text  # (browsers show nothing for it; a copy keeps it)
    assert "\x07" not in page.text
    assert huge.status_code == 200
    assert "Nothing matches" in huge.text


def test_an_entry_appended_to_the_log_shows_at_the_next_look(repo, claude):
    from purlin_resume.resurrection import log as resurrection_log

    log = sample_log(claude)
    client, guard = board(repo, claude)
    assert client.get("/api/resurrections", headers=_auth(guard)).json()["total"] == 4

    resurrection_log.append(log, resurrection(9, "2026-02-10"))

    again = client.get("/api/resurrections", headers=_auth(guard)).json()
    assert again["total"] == 5
    assert again["stats"]["total"] == 5


def test_another_host_warns_and_still_needs_the_token(repo):
    import urllib.error
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "purlin_resume", "dashboard", "--host", "0.0.0.0", "--port", "0"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        assert lines[0].startswith("warning: the dashboard listens on 0.0.0.0, reachable from")
        url = lines[2].removeprefix("open ").strip()
        assert lines[2].startswith("open http://127.0.0.1:")
        base, token = url.split("/agents?token=")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{base}/api/agents", timeout=10)
        assert refused.value.code == 401
        request = urllib.request.Request(f"{base}/api/agents", headers={"X-Purlin-Token": token})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert json.loads(answer.read())["agents"] == []
    finally:
        process.terminate()
        process.wait(timeout=10)
