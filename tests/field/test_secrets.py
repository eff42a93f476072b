"""Scenario 6: a secret the real session read is redacted in everything the product says or writes."""

from __future__ import annotations

import secrets
import string

from tests.field.scripted_model import agent, bash, conversation, text


def planted_token() -> str:
    alphabet = string.ascii_letters + string.digits
    return "ghp_" + "".join(secrets.choice(alphabet) for _ in range(36))


def files_and_times(field) -> dict:
    return {p: p.stat().st_mtime_ns for p in field.written_files()}


def test_a_secret_from_a_tool_result_is_redacted_everywhere(field):
    token = planted_token()
    (field.project / ".env").write_text(f"GITHUB_TOKEN={token}\n")
    model = field.model
    model.reply(conversation("S6-MAIN"), bash("cat .env", "Show the environment file"))
    model.reply(
        conversation("S6-MAIN"),
        text(f"The token is {token}."),
        agent(f"Deploy with {token}", f"S6-SUB deploy using the token {token}"),
    )
    model.reply(conversation("S6-SUB"), bash("cat .env", "Read the token"))
    model.reply(conversation("S6-SUB"), text(f"Deployed with {token}."))
    model.reply(conversation("S6-MAIN"), text("Deploy started."))

    run = field.claude("S6-MAIN deploy the project")
    assert run.returncode == 0, run.stderr
    assert not model.unused()
    session = run.session_id
    (agent_file,) = field.agent_files(session)
    agent_id = agent_file.stem.removeprefix("agent-")
    assert token in field.session_file(session).read_text()  # the secret really is in the history

    before = files_and_times(field)
    outputs = {}
    for args in (
        ("sessions", "--json"),
        ("agents", session, "--json"),
        ("agents", session),
        ("transcript", session),
        ("transcript", session, "--include-tools", "--json"),
        ("transcript", agent_id, "--include-tools"),
        ("export", session, "--include-tools"),
        ("export", session, "--format", "md", "--include-tools"),
        ("export", agent_id, "--include-tools"),
        ("find", "deploy"),
        ("resurrect", "--session", session, "--yes", "--task", "carry on"),
        ("resurrect", "--session", session, "--agent", agent_id, "--yes", "--method", "full"),
        ("history", "list"),
    ):
        done = field.purlin(*args)
        assert done.returncode == 0, (args, done.stderr)
        outputs[" ".join(args)] = done.stdout + done.stderr

    shown = outputs[f"transcript {session} --include-tools --json"]
    assert "cat .env" in shown  # the tool result is there, redacted
    assert "[REDACTED:" in shown
    leaked = [name for name, out in outputs.items() if token in out]
    assert not leaked, f"printed unredacted by: {leaked}"

    after = files_and_times(field)
    written = [p for p, t in after.items() if before.get(p) != t]
    written += [p for p in field.project.rglob("*") if p.is_file() and ".git" not in p.parts]
    ours = [
        p
        for p in set(written)
        if p != field.project / ".env" and field.projects_dir() not in p.parents
    ]
    assert any(p.name == "agent-history.json" for p in ours)
    leaked_files = [str(p) for p in ours if token in p.read_text(errors="replace")]
    assert not leaked_files, f"written unredacted: {leaked_files}"
