"""The MCP server in a real Claude Code session: registered by ``install --mcp``, listed to the
model, called by the scripted model, its result handed back to the model."""

from __future__ import annotations

import json

from tests.field.scripted_model import conversation, text, tool_use

TOOL = "mcp__purlin-resume__agents_status"


def _tool_results(request) -> list[dict]:
    return [
        block
        for message in request.body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def _text_of(result: dict) -> str:
    content = result.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or ""


def test_the_model_calls_an_mcp_tool_and_receives_its_result(field):
    installed = field.purlin("install", "--mcp")
    assert installed.returncode == 0, installed.stderr
    registered = json.loads((field.project / ".mcp.json").read_text())
    assert registered["mcpServers"]["purlin-resume"] == {
        "command": "purlin-resume",
        "args": ["mcp"],
    }
    # The user trusts the folder and approves its .mcp.json server, as Claude Code asks them to
    # on the first interactive start (it keeps both answers in ~/.claude.json).
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
    deferred = field.shows("deferred MCP tools")
    if deferred:  # the model fetches the tool's schema with ToolSearch, then calls it
        field.model.reply(
            conversation("MCP-1"), tool_use("ToolSearch", query=f"select:{TOOL}", max_results=1)
        )
    field.model.reply(conversation("MCP-1"), tool_use(TOOL))
    field.model.reply(conversation("MCP-1"), text("The agents are listed."))

    run = field.claude("MCP-1 which agents are registered here?", tools=TOOL)

    assert run.returncode == 0, run.stderr + run.stdout
    assert not field.model.unused(), field.model.unused()
    scripted = [r for r in field.model.messages if r.scripted]
    first_offer = {tool["name"] for tool in scripted[0].body.get("tools", [])}
    if deferred:
        assert "ToolSearch" in first_offer, first_offer
        assert TOOL not in first_offer, first_offer
        _, fetched, called = scripted
        (schema,) = _tool_results(fetched)
        assert TOOL in json.dumps(schema["content"])  # ToolSearch found our tool
    else:
        assert TOOL in first_offer, first_offer
        assert "ToolSearch" not in first_offer, first_offer
        _, called = scripted
    offered = {tool["name"]: tool for tool in called.body.get("tools", [])}
    assert TOOL in offered  # with our schema
    assert "project" in json.dumps(offered[TOOL])
    results = _tool_results(called)
    assert len(results) == 1 + deferred, results
    assert not results[-1].get("is_error"), results
    status = json.loads(_text_of(results[-1]))
    # The result is the product's own: this very session, registered by its SessionStart hook.
    assert status["project"] == str(field.project.resolve())
    assert run.session_id in [agent["agent_id"] for agent in status["agents"]]
