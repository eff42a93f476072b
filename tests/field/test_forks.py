"""A fork of a dead agent in the real Claude Code (``claude --resume X --fork-session
--session-id N``, as ``revive --native`` and ``open --fork`` start it): the client reports X at
SessionStart and only SessionEnd names N."""

from __future__ import annotations

import json
import uuid

from tests.field.scripted_model import conversation, last_user, text


def agents(field) -> dict[str, dict]:
    return json.loads((field.project / ".purlin" / "agents.json").read_text())["agents"]


def test_a_fork_of_a_dead_agent_registers_as_its_successor(field):
    field.model.reply(conversation("FK-DEAD"), text("Schema migrated."))
    field.model.reply(last_user("FK-FORK"), text("Carrying on."))
    dead = field.claude("FK-DEAD migrate the schema", env={"PURLIN_ROLE": "qa"})
    assert dead.returncode == 0, dead.stderr
    new = str(uuid.uuid4())
    # what revive --native starts: the lineage in the environment, one role name
    lineage = {"PURLIN_PREVIOUS_AGENT_ID": dead.session_id, "PURLIN_AGENT_ID": new}
    fork = field.claude(
        "FK-FORK go on",
        "--resume",
        dead.session_id,
        "--fork-session",
        "--session-id",
        new,
        env={**lineage, "PURLIN_ROLE": "qa"},
    )
    assert fork.returncode == 0, fork.stderr
    assert not field.model.unused()
    starts = [c.payload["session_id"] for c in field.hooks("SessionStart")]
    ends = [c.payload["session_id"] for c in field.hooks("SessionEnd")]
    assert starts[-1] in (dead.session_id, new)  # what the client reports
    assert ends[-1] == new
    registered = agents(field)
    assert registered[dead.session_id]["ended_at"] is not None  # the dead agent stays dead
    assert registered[dead.session_id].get("previous_agent_id") in (None, "")
    successor = registered[new]
    assert successor["previous_agent_id"] == dead.session_id
    assert successor["role"] == "qa"
    assert successor["ended_at"] is not None
    assert successor["transcript_path"].endswith(f"{new}.jsonl")
    assert field.session_file(new).exists()
