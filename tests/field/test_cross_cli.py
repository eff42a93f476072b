"""Work carried across agent CLIs with the real clients: a Claude Code agent resurrected into
Codex CLI and a Codex agent into Claude Code (the new agent's first request holds the prompt,
whose progress section is what git says), and ``open`` resuming a session of each CLI in its
own client, in tmux."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from purlin_resume.agentcli import programs
from tests.field import other_clis
from tests.field.scripted_apis import ScriptedAPIs, _all_text
from tests.field.scripted_model import conversation, text
from tests.field.test_tmux import prompts_holding, submitted


def _progress(prompt: str) -> str:
    return prompt.split("### Progress (from git, checked now)", 1)[1].split("\n---\n", 1)[0]


def _git_says(field, since_mark: str) -> dict[str, str]:
    return {
        "branch": field.git("branch", "--show-current").strip(),
        "last": field.git("log", "--oneline", "-1").strip(),
        "since": field.git("log", "--oneline", "--grep", since_mark).strip(),
    }


def _matches_git(progress: str, git: dict[str, str], uncommitted: str) -> None:
    assert f"- Branch: `{git['branch']}`" in progress
    assert f"- Last commit: `{git['last']}`" in progress
    assert f"`{git['since']}`" in progress  # a commit made after the original agent's end
    assert f"`?? {uncommitted}`" in progress


def _later_work(field, mark: str) -> None:
    """Work the original agent never saw: a commit after it ended and an uncommitted file."""
    (field.project / "later.txt").write_text("after the agent\n")
    field.git("add", "later.txt")
    field.git("commit", "-q", "-m", f"{mark} a commit after the agent")
    (field.project / "wip.txt").write_text("not committed\n")


def test_a_claude_code_agent_resurrected_into_codex(field, tmux_server):
    other_clis.need("codex")
    field.model.reply(conversation("X39-ORIGIN"), text("The cache layer is done."))
    origin = field.claude("X39-ORIGIN build the cache layer")
    assert origin.returncode == 0, origin.stderr
    _later_work(field, "X39-LATER")
    field.settle_interactive(tmux_server.socket)
    (field.bin_dir / "codex").symlink_to(other_clis.BINARIES["codex"])
    with ScriptedAPIs() as api:
        home = other_clis.Home(field.home / "codex-user")
        env = other_clis.codex_config(home, api)
        codex_home = home.root / ".codex"
        other_clis.trust_codex(codex_home, field.project)
        api.reply("X39-TASK", text="Carrying the cache work on in Codex.")
        spawned = field.purlin(
            "resurrect",
            "--session",
            origin.session_id,
            "--yes",
            "--into",
            "codex",
            "--spawn",
            "tmux",
            "--task",
            "X39-TASK check the cache",
            "--json",
            env={"CODEX_HOME": str(codex_home), "FIELD_API_KEY": env["FIELD_API_KEY"]},
        )
        assert spawned.returncode == 0, spawned.stderr
        document = json.loads(spawned.stdout)
        assert document["launch"]["cli"] == "codex"
        first = field.wait_for(
            lambda: next((r for r in api.log if r.body.get("tools")), None), 120, "codex's request"
        )
        sent = _all_text(first.body.get("input"))
        assert "X39-TASK check the cache" in sent
        assert "The cache layer is done." in sent
        assert "Expertise from: Claude Code (you now run in Codex CLI" in sent
        _matches_git(_progress(sent), _git_says(field, "X39-LATER"), "wip.txt")
    (entry,) = [
        json.loads(line)
        for line in (field.claude_dir / "history" / "resurrection-log.jsonl")
        .read_text()
        .splitlines()
    ]
    assert (entry["source_cli"], entry["target_cli"]) == ("claude", "codex")


def test_a_codex_agent_resurrected_into_claude_code(field, tmux_server):
    other_clis.need("codex")
    home = other_clis.Home(field.home / "codex-user")  # a project of its own, in the same home
    with ScriptedAPIs() as api:
        api.reply("X39-CODEX", text="The parser handles nested lists now.", last=True)
        origin = other_clis.codex_exec(home, api, "X39-CODEX fix the parser")
    codex_home = str(home.root / ".codex")
    field.model.reply(conversation("X39-EARLIER"), text("Hello."))
    assert field.claude("X39-EARLIER hello").returncode == 0  # Claude Code was used here before
    _later_work(field, "X39-SINCE")
    field.settle_interactive(tmux_server.socket)
    field.model.reply(conversation("X39-NEXT"), text("Back with the parser's context."))
    spawned = field.purlin(
        "resurrect",
        "--session",
        origin,
        "--yes",
        "--into",
        "claude",
        "--spawn",
        "tmux",
        "--task",
        "X39-NEXT check the parser",
        env={"CODEX_HOME": codex_home},
    )
    assert spawned.returncode == 0, spawned.stderr
    (request,) = field.wait_for(lambda: prompts_holding(field.model, "X39-NEXT"), 90, "the prompt")
    prompt = submitted(request)
    assert "The parser handles nested lists now." in prompt  # Codex's conversation came along
    assert "Expertise from: Codex CLI (you now run in Claude Code" in prompt
    _matches_git(_progress(prompt), _git_says(field, "X39-SINCE"), "wip.txt")


def _pane_text(server, pane: str) -> str:
    return subprocess.run(
        ["tmux", "-S", str(server.socket), "capture-pane", "-p", "-t", pane],
        capture_output=True,
        text=True,
    ).stdout


def _on_screen(field, server, pane: str, text: str) -> None:
    """Wait until ``text`` shows in ``pane``; else fail showing the panes and the screen."""
    try:
        field.wait_for(lambda: text in _pane_text(server, pane), 90, f"{text!r} on screen")
    except AssertionError as timed_out:
        panes = subprocess.run(
            ["tmux", "-S", str(server.socket), "list-panes", "-a", "-F", "#{pane_id} #{pane_dead}"],
            capture_output=True,
            text=True,
        ).stdout
        raise AssertionError(panes + _pane_text(server, pane)) from timed_out


def _answer(field, server, pane: str, question: str, choice: str) -> None:
    """Pick ``choice`` in the question on screen, again while it stays (a busy machine may draw
    the question before the client reads keys)."""

    tmux = ["tmux", "-S", str(server.socket), "send-keys", "-t", pane]
    gone = lambda: question not in _pane_text(server, pane)  # noqa: E731

    def answered() -> bool:
        if gone():
            return True
        subprocess.run([*tmux, choice])
        time.sleep(0.5)
        subprocess.run([*tmux, "Enter"])
        return _shown_within(gone, 2)

    field.wait_for(answered, 60, f"{question!r} answered")


def _shown_within(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def _command(field, server, pane: str, command: str, done) -> None:
    """Type ``command`` into the CLI in ``pane`` and press Enter, each again while it has not
    shown (a busy machine may draw the screen before the client reads keys; a completion list
    may take the first Enter), until ``done()``."""
    tmux = ["tmux", "-S", str(server.socket), "send-keys", "-t", pane]

    def typed() -> bool:
        shown = lambda: command in _pane_text(server, pane)  # noqa: E731
        if shown():  # it came late: typing it again would double it
            return True
        subprocess.run([*tmux, "-l", command])
        return _shown_within(shown, 10)

    def submitted() -> bool:
        subprocess.run([*tmux, "Enter"])
        return _shown_within(done, 5)

    field.wait_for(typed, 60, f"{command!r} typed")
    field.wait_for(submitted, 90, f"{command!r} run")


def _recorded(field, cli: str, api: ScriptedAPIs) -> tuple[str, dict[str, str], other_clis.Home]:
    """A session of ``cli`` (run headless in a project of its own, its answer X39-ANSWER), and
    the variables that point the CLI at its data and at the stand-in."""
    home = other_clis.Home(field.home / f"{cli}-user")
    api.reply("X39-OPEN", text="X39-ANSWER the tests pass.", last=True)
    if cli == "codex":
        session = other_clis.codex_exec(home, api, "X39-OPEN run the tests")
        other_clis.trust_codex(home.root / ".codex", home.project)
        return session, {"CODEX_HOME": str(home.root / ".codex"), "FIELD_API_KEY": "k"}, home
    if cli == "gemini":
        env = other_clis.gemini_config(home, api)
        home.run([*other_clis.RECORDINGS["gemini"].command(), "X39-OPEN run the tests"], env)
        keep = ("GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY", "GEMINI_CLI_NO_RELAUNCH")
        extra = {"GEMINI_CLI_HOME": str(home.root), **{k: env[k] for k in keep}}
        extra["CI"] = "false"  # CI=true makes Gemini CLI's screen a headless run
    else:
        env = other_clis.opencode_config(home, api)
        home.run([*other_clis.RECORDINGS["opencode"].command(), "X39-OPEN run the tests"], env)
        extra = {k: v for k, v in env.items() if k.startswith(("XDG_", "OPENCODE_"))}
    listed = field.purlin("sessions", "--all", "--cli", cli, "--json", env=extra)
    (session,) = [s["id"] for s in json.loads(listed.stdout)["sessions"]]
    return session, extra, home


@pytest.mark.parametrize(
    ("cli", "resume"),
    [("codex", ["resume"]), ("gemini", ["--resume"]), ("opencode", ["--session"])],
)
def test_open_resumes_a_session_in_its_own_cli(field, tmux_server, cli, resume):
    other_clis.need(cli)
    (field.bin_dir / cli).symlink_to(other_clis.BINARIES[cli])
    with ScriptedAPIs() as api:
        session, env, home = _recorded(field, cli, api)
        subprocess.run(  # the user's tmux server, running in this environment
            ["tmux", "-S", str(tmux_server.socket), "new-session", "-d", "-s", "user", "cat"],
            env={**field.env, **env},
            check=True,
        )
        opened = field.purlin(
            "open",
            session,
            "--spawn",
            "tmux",
            "--tmux-socket",
            str(tmux_server.socket),
            "--json",
            env=env,
        )
        assert opened.returncode == 0, opened.stderr
        where = json.loads(opened.stdout)
        assert where["argv"] == [cli, *resume, session]
        assert where["cwd"] == str(home.project)
        _on_screen(field, tmux_server, where["pane"], "X39-ANSWER the tests pass.")


def test_codex_hooks_register_its_session_and_record_a_subagent(field):
    other_clis.need("codex")
    home = other_clis.Home(field.home / "codex-user")
    codex_home = home.root / ".codex"
    codex_home.mkdir()
    installed = field.purlin(
        "install", "--cli", "codex", "--user", env={"CODEX_HOME": str(codex_home)}
    )
    assert installed.returncode == 0, installed.stderr
    codex = other_clis.RECORDINGS["codex"]
    with ScriptedAPIs() as api:
        codex.parent(api)  # the parent starts a child, which counts the files
        session = other_clis.codex_exec(
            home,
            api,
            codex.parent_prompt,
            field.project,
            "--dangerously-bypass-hook-trust",
            path=field.env["PATH"],
        )
    events = [(c.hook_event_name, c.payload.get("agent_id")) for c in field.hooks()]
    child = next(agent for event, agent in events if event == "SubagentStart")
    assert events == [
        ("SessionStart", None),
        ("SubagentStart", child),
        ("SubagentStop", child),
        ("SessionEnd", None),
    ]
    agents = json.loads((field.project / ".purlin" / "agents.json").read_text())["agents"]
    assert agents[session]["cli"] == "codex"
    assert agents[session]["ended_at"]
    (entry,) = field.history()["entries"]
    assert (entry["agent_id"], entry["status"], entry["session_id"]) == (
        child,
        "completed",
        session,
    )
    assert not (field.project / ".purlin" / "cache" / "hook.log").exists()


def test_a_dead_codex_agent_revived_by_its_session_id_in_tmux(field, tmux_server):
    other_clis.need("codex")
    home = other_clis.Home(field.home / "codex-user")
    codex_home = home.root / ".codex"
    codex_home.mkdir()
    reach = {"CODEX_HOME": str(codex_home), "FIELD_API_KEY": "sk-field-not-a-key"}
    assert field.purlin("install", "--cli", "codex", "--user", env=reach).returncode == 0
    with ScriptedAPIs() as api:
        api.reply("X39-REVIVE", text="X39-DONE the migration is half way.", last=True)
        session = other_clis.codex_exec(
            home,
            api,
            "X39-REVIVE migrate the schema",
            field.project,
            "--dangerously-bypass-hook-trust",
            path=field.env["PATH"],
        )
        dead = json.loads(field.purlin("agents-status", "--json").stdout)["agents"]
        assert [(a["agent_id"], a["state"]) for a in dead] == [(session, "dead")]
        other_clis.trust_codex(codex_home, field.project)
        (field.bin_dir / "codex").symlink_to(other_clis.BINARIES["codex"])
        field.settle_interactive(tmux_server.socket)
        revived = field.purlin("revive", session, "--json", env=reach)
        assert revived.returncode == 0, revived.stderr
        done = json.loads(revived.stdout)
        assert done["command"] == f"codex resume {session}"
        assert done["successor"] == session
        subprocess.run(
            ["tmux", "-S", str(tmux_server.socket), "set-option", "-g", "remain-on-exit", "on"]
        )
        pane = done["tmux_pane"]
        _on_screen(field, tmux_server, pane, "Hooks need review")  # as for a user, once
        _answer(field, tmux_server, pane, "Hooks need review", "2")
        _on_screen(field, tmux_server, pane, "X39-DONE the migration is half way.")
    agents = json.loads((field.project / ".purlin" / "agents.json").read_text())["agents"]
    assert (agents[session]["cli"], agents[session]["ended_at"]) == ("codex", None)
    assert agents[session]["tmux_pane"] == done["tmux_pane"]
    again = field.purlin("revive", session, env=reach)  # it runs now: no second one
    assert again.returncode == 1, again.stderr
    assert "alive" in again.stderr or "open in another" in again.stderr


def _revived_natively(field, server, cli: str, session: str, reach: dict[str, str]) -> str:
    """``revive SESSION`` of a dead agent of ``cli``: its own CLI resumes it in a new pane of
    ``server`` (the pane, once the CLI shows its ready prompt); a second revive is refused."""
    (field.bin_dir / cli).symlink_to(other_clis.BINARIES[cli])
    field.settle_interactive(server.socket)
    if "XDG_CONFIG_HOME" in reach:  # the user's settings are read from there too
        ours = Path(reach["XDG_CONFIG_HOME"]) / "purlin-resume"
        ours.mkdir(parents=True, exist_ok=True)
        (ours / "config.json").write_bytes(
            (field.home / ".config" / "purlin-resume" / "config.json").read_bytes()
        )
    dead = json.loads(field.purlin("agents-status", "--json").stdout)["agents"]
    assert [(a["agent_id"], a["state"]) for a in dead] == [(session, "dead")]
    revived = field.purlin("revive", session, "--json", env=reach)
    assert revived.returncode == 0, revived.stderr
    done = json.loads(revived.stdout)
    resume = programs.program(cli).resume(session)
    assert (done["command"], done["successor"]) == (" ".join(resume), session)
    agents = json.loads((field.project / ".purlin" / "agents.json").read_text())["agents"]
    assert (agents[session]["cli"], agents[session]["ended_at"]) == (cli, None)
    assert agents[session]["tmux_pane"] == done["tmux_pane"]
    again = field.purlin("revive", session, env=reach)  # it runs now: no second one
    assert again.returncode == 1, again.stderr
    return done["tmux_pane"]


def _manual(field) -> list:
    return [c for c in field.hooks("PreCompress") if c.payload.get("trigger") == "manual"]


def test_a_dead_gemini_agent_revived_by_its_session_id_in_tmux(field, tmux_server):
    """Registered by Gemini CLI's own hooks; revived, it goes on, and its ``/compress`` writes
    the automatic checkpoint from its chat file."""
    other_clis.need("gemini")
    with ScriptedAPIs() as api:
        api.reply("X39-REVIVE", text="X39-DONE the migration is half way.", last=True)
        reach = other_clis.gemini_with_hooks(field, api, "X39-REVIVE migrate the schema")
        session = field.hooks("SessionStart")[0].payload["session_id"]
        reach["CI"] = "false"  # CI=true makes Gemini CLI's screen a headless run
        pane = _revived_natively(field, tmux_server, "gemini", session, reach)
        _on_screen(field, tmux_server, pane, "X39-DONE the migration is half way.")
        api.reply("", text=other_clis.SUMMARY, side=True)
        _command(
            field, tmux_server, pane, "/compress", lambda: other_clis.checkpoints_of(field, session)
        )
    assert [c.payload["session_id"] for c in _manual(field)] == [session]
    (checkpoint,) = other_clis.checkpoints_of(field, session)
    assert "**Source:** PreCompact hook (manual /compact)" in checkpoint
    assert "X39-REVIVE migrate the schema" in checkpoint  # from Gemini CLI's chat file
    assert "X39-DONE the migration is half way." in checkpoint


def test_a_dead_opencode_agent_revived_by_its_session_id_in_tmux(field, tmux_server):
    other_clis.need("opencode")
    with ScriptedAPIs() as api:
        api.reply("X39-REVIVE", text="X39-DONE the migration is half way.", last=True)
        home = other_clis.Home(field.home / "opencode-user")
        env = other_clis.opencode_config(home, api)
        command = other_clis.RECORDINGS["opencode"].command()
        ran = home.run([*command, "X39-REVIVE migrate the schema"], env, cwd=field.project)
        assert ran.returncode == 0, ran.stderr
        reach = {k: v for k, v in env.items() if k.startswith(("XDG_", "OPENCODE_"))}
        listed = field.purlin("sessions", "--all", "--cli", "opencode", "--json", env=reach)
        (session,) = [s["id"] for s in json.loads(listed.stdout)["sessions"]]
        # opencode has no command hooks: its start and end registered as a plugin of the user's
        # would register them
        for event in ("session-start", "session-end"):
            said = {"session_id": session, "cwd": str(field.project), "source": "startup"}
            hook = field.purlin("hook", event, "--cli", "opencode", input=json.dumps(said))
            assert hook.returncode == 0, hook.stderr
        pane = _revived_natively(field, tmux_server, "opencode", session, reach)
        _on_screen(field, tmux_server, pane, "X39-DONE the migration is half way.")
    assert not (field.project / ".purlin" / "cache" / "hook.log").exists()
