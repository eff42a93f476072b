"""Scenario 7: revive and resurrect type into the real interactive Claude Code in tmux; the
revived agent keeps its role, and its lineage stays in its own window."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

from purlin_resume.resurrection import log as resurrection_log
from tests.field.scripted_model import (
    Logged,
    bash,
    conversation,
    last_user,
    text,
    typed,
    user_texts,
)

_PASTED = re.compile(r'\s*<pasted_content id="(\w+)">\n(.*)\n</pasted_content id="\1">\s*', re.S)


def submitted(request: Logged) -> str:
    """The text the user submitted in the newest message; a paste is unwrapped from the
    ``<pasted_content>`` marks the client puts around it."""
    said = typed(request.body)
    pasted = _PASTED.fullmatch(said)
    return pasted.group(2) if pasted else said.strip()


def prompts_holding(model, mark: str) -> list[Logged]:
    """Requests of the conversation whose newest user message holds ``mark``: one per time it
    was submitted. The client's own side requests about the prompt (offered no tools, e.g. the
    title 2.1.197 asks for) are not submissions."""
    return [
        r
        for r in model.messages
        if r.body.get("tools") and user_texts(r.body) and mark in user_texts(r.body)[-1]
    ]


def dead_agent(field, mark: str) -> str:
    """A session that ran and ended (registered by our hooks): the agent to bring back."""
    field.model.reply(conversation(mark), text("Schema migrated to version 7."))
    run = field.claude(f"{mark} migrate the schema", env={"PURLIN_ROLE": "qa"})
    assert run.returncode == 0, run.stderr
    agents = json.loads(field.purlin("agents-status", "--json").stdout)["agents"]
    assert [(a["agent_id"], a["state"], a["role"]) for a in agents] == [
        (run.session_id, "dead", "qa")
    ]
    return run.session_id


def revive(field, tmux_server, predecessor: str) -> dict:
    """``revive PREDECESSOR --json`` into the real client, the model set to answer the persona
    and the revival instruction: what it printed."""
    field.settle_interactive(tmux_server.socket)
    field.model.reply(last_user("Persona:"), text("I am the QA agent."))
    field.model.reply(last_user("Revival:"), text("Taking over from my predecessor."))
    revived = field.purlin("revive", predecessor, "--json")
    assert revived.returncode == 0, revived.stderr
    return json.loads(revived.stdout)


def test_revive_types_the_briefing_into_the_real_client_once(field, tmux_server):
    predecessor = dead_agent(field, "S7-DEAD")

    done = revive(field, tmux_server, predecessor)
    assert [i["kind"] for i in done["injections"]] == ["persona", "revival"]
    for injection in done["injections"]:
        first_line = injection["text"].splitlines()[0]
        arrived = field.wait_for(
            lambda line=first_line: prompts_holding(field.model, line), 60, first_line
        )
        (request,) = arrived  # submitted once, as one user message
        assert request.session_id == done["successor"]
        assert submitted(request) == injection["text"].strip()
    assert not field.model.unused()
    # the successor keeps the persona (its SessionStart read the role revive passed on) ...
    successor = done["successor"]
    field.wait_for(
        lambda: [c for c in field.hooks("SessionStart") if c.payload["session_id"] == successor],
        60,
        "the successor's SessionStart",
    )
    agents = {
        a["agent_id"]: a
        for a in json.loads(field.purlin("agents-status", "--json").stdout)["agents"]
    }
    assert (agents[successor]["role"], agents[successor]["previous_agent_id"]) == (
        "qa",
        predecessor,
    )
    assert agents[predecessor]["state"] == "dead"
    # ... and its lineage stays in its own window: later windows of the session do not inherit it
    environment = subprocess.run(
        ["tmux", "-S", str(tmux_server.socket), "show-environment", "-t", done["tmux_session"]],
        capture_output=True,
        text=True,
        check=True,  # the session is on the private server the user's settings name
    ).stdout
    for name in ("PURLIN_PREVIOUS_AGENT_ID", "PURLIN_AGENT_ID", "PURLIN_ROLE"):
        assert f"{name}=" not in environment, environment


def test_resurrect_in_tmux_types_the_prompt_into_the_real_client_once(field, tmux_server):
    origin = dead_agent(field, "S7-ORIGIN")
    field.settle_interactive(tmux_server.socket)
    field.model.reply(last_user("S7-TASK"), text("Back, with the migration's context."))

    spawned = field.purlin(
        "resurrect",
        "--session",
        origin,
        "--yes",
        "--spawn",
        "tmux",
        "--task",
        "S7-TASK check the migration",
    )
    assert spawned.returncode == 0, spawned.stderr
    (request,) = field.wait_for(lambda: prompts_holding(field.model, "S7-TASK"), 60, "the prompt")
    prompt = submitted(request)
    assert prompt.count("S7-TASK check the migration") == 1
    assert "Schema migrated to version 7." in prompt  # the origin's context came along
    assert request.session_id != origin
    assert not field.model.unused()
    windows = subprocess.run(
        ["tmux", "-S", str(tmux_server.socket), "list-windows", "-a"],
        capture_output=True,
        text=True,
        check=True,  # the agent runs on the private server the user's settings name
    ).stdout
    assert windows.strip(), "no window on the private tmux server"
    # one entry, however many times its outcome was recorded (each adds a revision line)
    (entry,) = resurrection_log.read(
        field.home / ".claude" / "history" / resurrection_log.FILE_NAME
    )[0]
    assert entry["resurrected_from_session_id"] == origin
    # the new agent is named by the id its own SessionStart reported, never made up
    assert entry["resurrected_as_agent_id"] == request.session_id


def test_a_revived_agent_is_judged_on_its_own_work_and_dead_once_its_window_is_gone(
    field, tmux_server
):
    """The predecessor's uncommitted edit, made before the successor started, is no activity
    of the successor's; once the successor's window is killed it is dead (exit 4), not active."""
    predecessor = dead_agent(field, "S7-STALL")
    before = field.project / "before.txt"
    before.write_text("the predecessor's edit\n")
    os.utime(before, (time.time() - 180, time.time() - 180))  # three minutes before the revival
    done = revive(field, tmux_server, predecessor)
    successor = done["successor"]
    field.wait_for(
        lambda: prompts_holding(field.model, done["injections"][-1]["text"].splitlines()[0]),
        60,
        "the revival instruction",
    )

    alive = field.purlin("stall", "check", successor, "--json")
    found = json.loads(alive.stdout)
    assert not [s for s in found["signals"] if "before.txt" in s["detail"]], found
    assert found["liveness"]["state"] == "alive", found
    assert all(s["timestamp"] >= found["started_at"] for s in found["signals"]), found

    subprocess.run(
        ["tmux", "-S", str(tmux_server.socket), "kill-pane", "-t", done["tmux_pane"]], check=True
    )

    def dead() -> bool:
        agents = json.loads(field.purlin("agents-status", "--json").stdout)["agents"]
        return [a["state"] for a in agents if a["agent_id"] == successor] == ["dead"]

    field.wait_for(dead, 60, "the successor's process to be gone")
    checked = field.purlin("stall", "check", successor, "--json")
    assert checked.returncode == 4, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["verdict"] == "dead"
    watched = field.purlin("watch", "--once", "--json")
    assert json.loads(watched.stdout)["decisions"] == []


def test_an_agent_at_a_permission_dialog_is_held_not_nudged(field, tmux_server):
    """The client asks the user before it runs a command (2.1.197: "Do you want to proceed?";
    2.1.330 in auto mode: its own dialog, "Esc to cancel"): the agent is held, not stalled,
    and watch types nothing into the dialog."""
    marker = field.project.parent / "marker"  # outside the project: the client asks
    field.settle_interactive(tmux_server.socket)
    config = field.home / ".config" / "purlin-resume" / "config.json"
    settings = json.loads(config.read_text())
    settings["resume"]["stall_lookback_minutes"] = 0.1  # quiet for 6 s is stalled
    config.write_text(json.dumps(settings))
    field.model.reply(conversation("S7-PERM"), bash(f"touch {marker}", "Create the marker"))
    env = [f"{key}={value}" for key, value in field.env.items()]

    def tmux(*args: str) -> str:
        argv = ["tmux", "-S", str(tmux_server.socket), *args]
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout

    tmux("new-session", "-d", "-s", "perm", "-x", "200", "-y", "50", "-c", str(field.project),
         "env", *env, str(field.binary))  # fmt: skip
    screen = lambda: tmux("capture-pane", "-p", "-t", "perm")  # noqa: E731
    field.wait_for(lambda: "for shortcuts" in screen() or "shift+tab" in screen(), 60, "prompt")
    tmux("send-keys", "-t", "perm", "-l", "S7-PERM run the command")
    time.sleep(0.5)
    tmux("send-keys", "-t", "perm", "Enter")
    field.wait_for(lambda: "Esc to cancel" in screen(), 60, "the permission dialog")
    time.sleep(10)  # older than the lookback: quiet

    (agent,) = json.loads(field.purlin("agents-status", "--json").stdout)["agents"]
    checked = field.purlin("stall", "check", agent["agent_id"], "--json")
    watched = field.purlin("watch", "--once", "--json")

    assert checked.returncode == 5, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["verdict"] == "held"
    (decision,) = json.loads(watched.stdout)["decisions"]
    assert decision["action"] == "held", decision
    time.sleep(2)
    assert "stall-recovery" not in screen()
    assert not marker.exists()
