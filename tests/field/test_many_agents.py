"""Several real Claude Code agents in one project at once: each saves, clears, restores and
compacts, and each is only ever handed its own role's work; no checkpoint is lost or taken twice."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from tests.field.live_client import LiveClient
from tests.field.scripted_model import (
    bash,
    conversation,
    last_user,
    text,
    tool_use,
    user_texts,
)

FIELDS = {
    "qa": "scenario_progress: 1 of 3 scenarios\ncurrent_scenario: {mark}-SCENARIO\n",
    "builder": 'step: 2\nstep_note: wiring\ndelivery_plan: "{mark}-PLAN Phase 1 of 2"\n'
    'work_queue: ["{mark}-QUEUE"]\n',
}
SUMMARY = "<analysis>Work.</analysis>\n<summary>The agent worked.</summary>"


def save_command(role: str, mark: str) -> str:
    return (
        "purlin-resume save --from - <<'CHECKPOINT'\n"
        f"role: {role}\nin_progress: {mark}-WORK in progress\nnext:\n  - {mark}-NEXT\n"
        + FIELDS[role].format(mark=mark)
        + "CHECKPOINT"
    )


def restore_command(field, mark: str) -> str:
    """``/pl-resume`` with no role, its briefing kept in a file for the test to read."""
    return f"purlin-resume restore > {field.root / mark}.restore 2>&1; echo exit=$?"


def restored(field, mark: str) -> str:
    return Path(f"{field.root / mark}.restore").read_text()


def briefing(field, session: str, source: str) -> str:
    calls = [
        c
        for c in field.hooks("SessionStart")
        if c.payload.get("session_id") == session and c.payload.get("source") == source
    ]
    assert len(calls) == 1, (session, source, len(calls))
    out = calls[0].stdout.strip()
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def script_agent(field, role: str, mark: str) -> None:
    """What the model does for the agent ``mark``: save, then (after /clear) restore."""
    script_save(field, role, mark)
    script_restore(field, mark)


def script_save(field, role: str, mark: str) -> None:
    field.model.reply(conversation(f"{mark}-SAVE"), bash(save_command(role, mark), "Save"))
    field.model.reply(conversation(f"{mark}-SAVE"), text("Saved."))


def script_restore(field, mark: str) -> None:
    field.model.reply(conversation(f"{mark}-BACK"), bash(restore_command(field, mark), "Restore"))
    field.model.reply(conversation(f"{mark}-BACK"), text("Restored."))


def archived(field) -> list[str]:
    folder = field.project / ".purlin" / "cache" / "archive"
    return sorted(p.read_text() for p in folder.glob("*.md")) if folder.is_dir() else []


def live_checkpoints(field) -> list[dict]:
    return json.loads(field.purlin("checkpoints", "--json").stdout)


def test_two_agents_of_one_role_each_get_back_their_own_work(field):
    """A and B are both QA agents. A clears and restores while B still runs, then B does."""
    script_agent(field, "qa", "MA")
    script_agent(field, "qa", "MB")
    with LiveClient(field) as a, LiveClient(field) as b:
        a.say("MA-SAVE save where we are")
        b.say("MB-SAVE save where we are")
        a_before = a.session_id
        a.say("/clear")
        assert a.session_id != a_before
        brief = briefing(field, a.session_id, "clear")
        assert "MA-WORK" in brief
        assert "MB-WORK" not in brief
        a.say("MA-BACK /pl-resume")  # no role given: the one it had before /clear
        assert "MA-WORK" in restored(field, "MA")
        assert "MB-WORK" not in restored(field, "MA")
        # B's checkpoint is still live, and B's own /clear briefs B's work
        assert [c["session"] for c in live_checkpoints(field)] == [b.session_id]
        b_before = b.session_id
        b.say("/clear")
        brief = briefing(field, b.session_id, "clear")
        assert "MB-WORK" in brief
        assert "MA-WORK" not in brief
        b.say("MB-BACK /pl-resume")
        assert "MB-WORK" in restored(field, "MB")
        assert "MA-WORK" not in restored(field, "MB")
    assert not field.model.unused(), field.model.unused()
    assert live_checkpoints(field) == []
    kept = archived(field)
    assert len(kept) == 2
    assert [sum(f"**Session:** {s}" in k for k in kept) for s in (a_before, b_before)] == [1, 1]


def test_a_new_agent_is_briefed_only_with_its_own_roles_work(field):
    """A QA agent saved and ended; a Builder and a plain session start after it."""
    field.model.reply(conversation("MQ-SAVE"), bash(save_command("qa", "MQ"), "Save"))
    field.model.reply(conversation("MQ-SAVE"), text("Saved."))
    assert field.claude("MQ-SAVE save where we are").returncode == 0
    builder = field.claude("MQ-BUILDER start", env={"PURLIN_ROLE": "builder"})
    plain = field.claude("MQ-PLAIN fix a typo")
    for run in (builder, plain):
        assert run.returncode == 0, run.stderr
        brief = briefing(field, run.session_id, "startup")
        assert "MQ-WORK" not in brief, brief[:400]
        assert "QA" not in brief, brief[:400]
    (left,) = live_checkpoints(field)  # still there for the next QA agent
    qa = field.claude("MQ-QA go on", env={"PURLIN_ROLE": "qa"})
    assert "MQ-WORK" in briefing(field, qa.session_id, "startup")
    assert left["role"] == "qa"


def test_role_and_plan_survive_compaction_after_clear_and_restore(field):
    script_agent(field, "builder", "MC")
    field.model.reply(last_user("create a detailed summary of the conversation"), text(SUMMARY))
    with LiveClient(field) as agent:
        agent.say("MC-SAVE save where we are")
        agent.say("/clear")
        agent.say("MC-BACK /pl-resume")
        assert "MC-WORK" in restored(field, "MC")
        agent.say("/compact")
        session = agent.session_id
    assert not field.model.unused(), field.model.unused()
    (pre,) = [c for c in field.hooks("PreCompact") if c.payload["session_id"] == session]
    assert pre.payload["session_id"] == session
    brief = briefing(field, session, "compact")
    assert "restoring the Builder" in brief, brief[:300]
    assert "MC-PLAN Phase 1 of 2" in brief
    assert "MC-QUEUE" in brief


def test_four_agents_of_two_roles_at_once(field):
    """Two QA and two Builder agents, each saving, clearing, restoring and compacting while
    the others do the same."""
    agents = {"QA1": "qa", "QA2": "qa", "BU1": "builder", "BU2": "builder"}
    for mark, role in agents.items():
        script_agent(field, role, mark)
        field.model.reply(last_user(f"{mark}-COMPACT"), text(SUMMARY))
    sessions: dict[str, list[str]] = {}
    failures: list[BaseException] = []

    def work(mark: str) -> None:
        try:
            with LiveClient(field) as agent:
                agent.say(f"{mark}-SAVE save where we are")
                first = agent.session_id
                agent.say("/clear")
                agent.say(f"{mark}-BACK /pl-resume")
                agent.say(f"/compact {mark}-COMPACT keep the plan")
                sessions[mark] = [first, agent.session_id]
        except BaseException as exc:  # noqa: BLE001 -- reported by the test thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(mark,)) for mark in agents]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not failures, failures
    assert not field.model.unused(), field.model.unused()
    for mark, role in agents.items():
        others = [m for m in agents if m != mark]
        got = restored(field, mark)
        assert f"{mark}-WORK" in got, mark
        assert not any(f"{m}-WORK" in got for m in others), mark
        for source, session in (("clear", sessions[mark][1]), ("compact", sessions[mark][1])):
            brief = briefing(field, session, source)
            assert not any(f"{m}-WORK" in brief for m in others), (mark, source)
        compacted = briefing(field, sessions[mark][1], "compact")
        name = "QA" if role == "qa" else "Builder"
        assert f"restoring the {name}" in compacted, (mark, compacted[:300])
        assert f"{mark}-" in compacted, mark
    kept = archived(field)
    for mark in agents:  # every saved checkpoint taken exactly once
        assert sum(f"{mark}-WORK in progress" in k for k in kept) == 1, mark


MCP_TOOL = "mcp__purlin-resume__save_checkpoint"


def mentions(mark: str):
    """Requests of a conversation one of whose user messages holds ``mark``."""

    def match(request) -> bool:
        return bool(request.get("tools")) and any(mark in t for t in user_texts(request))

    match.__name__ = f"mentions({mark!r})"
    return match


def test_the_mcp_server_saves_for_the_session_it_serves_after_clear(field):
    assert field.purlin("install", "--mcp").returncode == 0
    (field.home / ".claude.json").write_text(
        json.dumps(
            {
                "projects": {
                    str(field.project): {
                        "hasTrustDialogAccepted": True,
                        "enabledMcpjsonServers": ["purlin-resume"],
                    }
                }
            }
        )
    )
    for mark in ("MM-BEFORE", "MM-AFTER"):
        field.model.reply(
            mentions(mark),
            tool_use(
                MCP_TOOL,
                role="builder",
                in_progress=f"{mark}-WORK",
                next=["n"],
                fields={"step": "2"},
            ),
        )
        field.model.reply(mentions(mark), text("Saved."))
    with LiveClient(field, tools=f"{MCP_TOOL} Bash") as agent:
        agent.say("hello")
        time.sleep(5)  # the client connects its MCP servers in the background
        agent.say("MM-BEFORE save")
        before = agent.session_id
        agent.say("/clear")
        agent.say("MM-AFTER save")
        after = agent.session_id
    assert not field.model.unused(), field.model.unused()
    folder = field.project / ".purlin" / "cache" / "checkpoints"
    assert "MM-AFTER-WORK" in (folder / f"{after}.md").read_text()
    # the save before /clear was keyed by its own session; the /clear briefing took it over
    (kept,) = (field.project / ".purlin" / "cache" / "archive").glob(f"{before}-*.md")
    assert "MM-BEFORE-WORK" in kept.read_text()
    assert [c["session"] for c in live_checkpoints(field)] == [after]


def test_after_two_clears_an_agent_gets_back_its_own_work(field):
    """A saves, clears; QA agent C saves and quits; A clears again and restores: A's own work,
    however many /clears ago it was saved, and C's is left for the next QA agent."""
    script_agent(field, "qa", "MA")
    script_save(field, "qa", "MC")
    with LiveClient(field) as a:
        a.say("MA-SAVE save where we are")
        a.say("/clear")
        assert field.claude("MC-SAVE save where we are").returncode == 0
        a.say("/clear")
        brief = briefing(field, a.session_id, "clear")
        assert "MA-WORK" in brief, brief[:400]
        assert "MC-WORK" not in brief
        a.say("MA-BACK /pl-resume")
    assert not field.model.unused(), field.model.unused()
    got = restored(field, "MA")
    assert "MA-WORK" in got, got[:400]
    assert "MC-WORK" not in got
    assert "Role: QA (from the agent's role)." in got
    (left,) = live_checkpoints(field)
    assert left["session"] != a.session_id
    assert "MC-WORK" in (field.project / left["path"]).read_text()


def test_a_checkpoint_replaced_after_clear_is_handed_to_no_one(field):
    """A saves OLD, clears, saves NEW and quits; two new QA agents restore one after the other:
    the first gets NEW, the second not the stale OLD."""
    script_save(field, "qa", "OLD")
    script_save(field, "qa", "NEW")
    script_restore(field, "N1")
    script_restore(field, "N2")
    with LiveClient(field) as a:
        a.say("OLD-SAVE save where we are")
        a.say("/clear")
        a.say("NEW-SAVE save where we are")
    for mark in ("N1", "N2"):
        with LiveClient(field, env={"PURLIN_ROLE": "qa"}) as agent:
            agent.say(f"{mark}-BACK /pl-resume")
    assert not field.model.unused(), field.model.unused()
    first, second = restored(field, "N1"), restored(field, "N2")
    assert "NEW-WORK" in first, first[:400]
    assert "OLD-WORK" not in first
    assert "remain" not in first
    assert "OLD-WORK" not in second, second[:400]
    assert "NEW-WORK" not in second
    assert live_checkpoints(field) == []


def test_two_agents_of_one_role_starting_together_are_not_briefed_with_one_checkpoint(field):
    """A QA agent saved and quit; two QA agents start at once: one successor is handed its
    checkpoint, and only that one restores it."""
    script_save(field, "qa", "MC")
    script_restore(field, "X")
    script_restore(field, "Y")
    assert field.claude("MC-SAVE save where we are").returncode == 0
    with (
        LiveClient(field, env={"PURLIN_ROLE": "qa"}) as x,
        LiveClient(field, env={"PURLIN_ROLE": "qa"}) as y,
    ):
        x.say("X-BACK /pl-resume")
        y.say("Y-BACK /pl-resume")
        briefs = {"X": briefing(field, x.session_id, "startup")}
        briefs["Y"] = briefing(field, y.session_id, "startup")
    assert not field.model.unused(), field.model.unused()
    handed = [mark for mark, brief in briefs.items() if "MC-WORK" in brief]
    assert len(handed) == 1, {mark: brief[:300] for mark, brief in briefs.items()}
    (taker,) = handed
    (other,) = {"X", "Y"} - {taker}
    assert "MC-WORK" in restored(field, taker)
    assert "MC-WORK" not in restored(field, other)
    assert live_checkpoints(field) == []
    assert sum("MC-WORK in progress" in k for k in archived(field)) == 1
