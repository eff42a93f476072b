"""The product's hooks in Codex CLI and Gemini CLI, with the real clients: their sessions land in
the registry, and a compaction writes the automatic checkpoint from the CLI's own session."""

from __future__ import annotations

import json

from tests.field import other_clis
from tests.field.scripted_apis import ScriptedAPIs


def test_gemini_hooks_register_its_session(field):
    other_clis.need("gemini")
    with ScriptedAPIs() as api:
        api.reply("X39-GEMINI", text="X39-ANSWER the tests pass.", last=True)
        other_clis.gemini_with_hooks(field, api, "X39-GEMINI run the tests")
    calls = [(c.hook_event_name, c.payload.get("trigger")) for c in field.hooks()]
    # Gemini CLI asks PreCompress (auto) before each request, whether the context is full or not
    assert calls == [("SessionStart", None), ("PreCompress", "auto"), ("SessionEnd", None)]
    session = field.hooks()[0].payload["session_id"]
    agents = json.loads((field.project / ".purlin" / "agents.json").read_text())["agents"]
    assert (agents[session]["cli"], bool(agents[session]["ended_at"])) == ("gemini", True)
    assert other_clis.checkpoints_of(field, session) == []  # no compression: no checkpoint
    assert not (field.project / ".purlin" / "cache" / "hook.log").exists()


def test_a_codex_compaction_writes_the_checkpoint_from_its_rollout(field):
    other_clis.need("codex")
    home = other_clis.Home(field.home / "codex-user")
    codex_home = home.root / ".codex"
    codex_home.mkdir()
    reach = {"CODEX_HOME": str(codex_home)}
    assert field.purlin("install", "--cli", "codex", "--user", env=reach).returncode == 0
    with ScriptedAPIs() as api:
        tool, args = other_clis.RECORDINGS["codex"].shell
        api.reply("X39-COMPACT", tool=tool, args=args, last=True, tokens=5000)
        api.reply(
            other_clis.RECORDINGS["codex"].summary_request, text=other_clis.SUMMARY, side=True
        )
        api.reply("", text="X39-AFTER the log shows one commit.")
        session = other_clis.codex_exec(
            home,
            api,
            "X39-COMPACT show the git log",
            field.project,
            "--dangerously-bypass-hook-trust",
            "-c",
            "model_auto_compact_token_limit=1000",
            path=field.env["PATH"],
        )
    (pre,) = field.hooks("PreCompact")
    assert (pre.payload["session_id"], pre.payload["trigger"]) == (session, "auto")
    (checkpoint,) = other_clis.checkpoints_of(field, session)
    assert "**Source:** PreCompact hook (auto compaction)" in checkpoint
    assert "X39-COMPACT show the git log" in checkpoint  # the request, from Codex's rollout
    assert not (field.project / ".purlin" / "cache" / "hook.log").exists()
