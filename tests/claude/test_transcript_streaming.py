"""`transcript` and `export` written as they are rendered: the same bytes as the whole document,
on real transcripts and on hostile ones, to files, pipes and closed pipes."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.claude import export, rendering
from purlin_resume.claude import transcript_output as output_of
from purlin_resume.claude.catalog import Catalog, open_target
from purlin_resume.claude.transcript import ReadOptions
from purlin_resume.cli.common import Redaction
from purlin_resume.core import store
from purlin_resume.mcp import server
from tests.claude_records import Conversation, text, tool, write_jsonl

MODES = [(False, False), (True, False), (False, True), (True, True)]
DOV_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
SESSION = "5e55a000-0000-4000-8000-000000000001"


def run(cli, root: Path, *args: str):
    return cli(*args, "--claude-dir", str(root))


def conversations(root: Path) -> list[str]:
    """Every conversation of the fixtures: sessions, their agents and compaction runs."""
    catalog = Catalog(root)
    found = []
    for session in catalog.session_files():
        view = catalog.view(session)
        found += [session.id, *view.agents, *(run.id for run in view.compaction_runs)]
    return found


def whole_and_streamed(root: Path, identifier: str, tools: bool, thinking: bool):
    """(Markdown, JSON) of the conversation read whole into memory and rendered at once, and of
    the same one read deferred and written piece by piece."""
    results = []
    for deferred in (False, True):
        options = ReadOptions(tools=tools, thinking=thinking, deferred=deferred)
        opened = open_target(Catalog(root), identifier, options)
        kind = {"inline": "agent"}.get(opened.target.kind, opened.target.kind)
        markdown = rendering.MarkdownOptions(tools=tools, thinking=thinking)
        subagent = opened.subagent
        if deferred:
            md = "".join(rendering.chunks(opened.transcript, markdown, subagent, kind))
            doc = export.document(
                opened.transcript, subagent, tools=tools, thinking=thinking, kind=kind,
                streamed=True,
            )  # fmt: skip
            js = "".join(export.json_chunks(doc))
        else:
            md = rendering.render(opened.transcript, markdown, subagent, kind)[0]
            doc = export.document(
                opened.transcript, subagent, tools=tools, thinking=thinking, kind=kind
            )
            js = store.dump_json(doc)
        results.append((md, js))
    return results


@pytest.mark.parametrize(("tools", "thinking"), MODES)
def test_streamed_output_is_the_whole_document_on_every_fixture(fixtures_copy, tools, thinking):
    identifiers = conversations(fixtures_copy)
    assert DOV_SESSION in identifiers
    assert len(identifiers) >= 10
    for identifier in identifiers:
        whole, streamed = whole_and_streamed(fixtures_copy, identifier, tools, thinking)
        assert streamed[0] == whole[0], identifier
        assert streamed[1] == whole[1], identifier


def test_the_json_writer_matches_json_dumps_on_awkward_values():
    values = {
        "empty list": iter([]),
        "empty dict": {},
        "nested": iter([{"a": [], "b": {}, "c": [1, {"d": 'é\n\u2028\x00"'}]}, [], "x", None]),
        "numbers": [1.5, -0.0, 10**30, True],
        "ünïcode key": "💥",
    }
    streamed = "".join(export.json_chunks(values))
    values["empty list"] = []
    values["nested"] = [{"a": [], "b": {}, "c": [1, {"d": 'é\n\u2028\x00"'}]}, [], "x", None]
    assert streamed == store.dump_json(values)
    empty = "".join(export.json_chunks({"conversation": iter([])}))
    assert empty == store.dump_json({"conversation": []})


def hostile_session(root: Path, *extra_lines: bytes, result: str = "done") -> Path:
    """A session whose Bash call, thinking and answer come after ``extra_lines`` (malformed or
    blank lines, multi-byte text), so deferred values are found by byte offsets past them."""
    convo = Conversation(SESSION)
    records = [
        convo.user("ünïcödé prompt 💥 " * 50),
        convo.assistant(
            "msg_1",
            {"type": "thinking", "thinking": "I should list the files 🧐"},
            tool("toolu_1", "Bash", command="ls -la", description="list"),
        ),
    ]
    path = root / "projects" / "-srv-demo" / f"{SESSION}.jsonl"
    write_jsonl(path, records)
    tail = [
        convo.result("toolu_1", result),
        convo.assistant("msg_2", text("The folder holds one file.")),
    ]
    with open(path, "ab") as out:
        for line in extra_lines:
            out.write(line)
        for record in tail:
            out.write(json.dumps(record, ensure_ascii=False).encode() + b"\n")
    return path


def test_a_malformed_line_in_the_middle_is_skipped_and_later_values_are_found(cli, tmp_path):
    root = tmp_path / "claude"
    hostile_session(root, b'{"type":"user","message":{"content":"cut sho\n', b"\n", b"\r\n")
    result = run(cli, root, "transcript", SESSION, "--include-tools", "--include-thinking")
    assert result.exit_code == 0, result.stderr
    assert "- Skipped: 1 malformed line(s)" in result.stdout
    assert "Result:\n```text\ndone\n```" in result.stdout
    assert "> I should list the files 🧐" in result.stdout
    assert '"command": "ls -la"' in result.stdout
    document = json.loads(run(cli, root, "export", SESSION, "--include-tools").stdout)
    results = [item for item in document["conversation"] if item["role"] == "user"]
    assert results[-1]["content"][0]["content"] == "done"


def test_a_huge_single_record_is_written_whole(cli, tmp_path):
    root = tmp_path / "claude"
    huge = "".join(f"line {n:07d} of a very long build log\n" for n in range(200_000))
    hostile_session(root, result=huge)
    target = tmp_path / "out.md"
    result = run(cli, root, "transcript", SESSION, "--include-tools", "-o", str(target))
    assert result.exit_code == 0, result.stderr
    written = target.read_text()
    assert f"Result:\n```text\n{huge}```\n" in written
    assert f"wrote {target} ({len(written)} characters)" in result.stdout
    exported = run(cli, root, "export", SESSION, "--include-tools").stdout
    assert json.loads(exported)["conversation"][2]["content"][0]["content"] == huge


def test_deeply_nested_tool_input(cli, tmp_path):
    root = tmp_path / "claude"
    nested: dict = {"leaf": "bottom"}
    for _ in range(400):
        nested = {"down": nested}
    convo = Conversation(SESSION)
    deep = b'{"down":' * 100_000 + b"1" + b"}" * 100_000
    records = [
        convo.user("go deep"),
        convo.assistant("msg_1", tool("toolu_1", "Query", query="q", tree=nested)),
        convo.result("toolu_1", "ok"),
    ]
    path = write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records, deep + b"\n")
    assert path.exists()
    result = run(cli, root, "transcript", SESSION, "--include-tools", "--max-chars", "0")
    assert result.exit_code == 0, result.stderr
    assert "- Skipped: 1 malformed line(s)" in result.stdout
    assert result.stdout.count('"down": {') == 400
    assert '"leaf": "bottom"' in result.stdout
    exported = run(cli, root, "export", SESSION, "--include-tools")
    assert exported.exit_code == 0, exported.stderr
    assert json.loads(exported.stdout)["conversation"][1]["content"][0]["input"]["tree"] == nested


def thought_and_command(root: Path, thought: str, command: str, answer: str) -> None:
    """A session: a prompt, then a turn that thinks ``thought`` and runs ``command``, whose
    result is ``answer``."""
    convo = Conversation(SESSION)
    records = [
        convo.user("deploy it"),
        convo.assistant(
            "msg_1",
            {"type": "thinking", "thinking": thought},
            tool("toolu_1", "Bash", command=command),
        ),
        convo.result("toolu_1", answer),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)


def test_secrets_in_deferred_values_are_redacted_everywhere(cli, tmp_path, repo):
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    root = tmp_path / "claude"
    thought_and_command(
        root,
        f"the token is {secret}",
        f"curl -H 'Authorization: token {secret}' x",
        f"echoed {secret}",
    )
    flags = ("--include-tools", "--include-thinking")
    target = tmp_path / "out.md"
    outputs = {
        "transcript": run(cli, root, "transcript", SESSION, *flags),
        "transcript --json": run(cli, root, "transcript", SESSION, "--json", *flags),
        "export": run(cli, root, "export", SESSION, *flags),
        "export md": run(cli, root, "export", SESSION, "--format", "md", *flags),
        "transcript -o": run(cli, root, "transcript", SESSION, "-o", str(target), *flags),
    }
    for name, result in outputs.items():
        assert result.exit_code == 0, (name, result.stderr)
        assert secret not in result.stdout, name
        assert "redacted" in result.stderr, name
    written = target.read_text()
    assert secret not in written
    assert written.count("[REDACTED") >= 3
    kept = run(cli, root, "export", SESSION, "--no-redact", *flags).stdout
    assert kept.count(secret) == 3


def test_a_password_a_command_showed_is_hidden_where_a_later_batch_repeats_it(cli, tmp_path):
    password = "S3cr3tPassw0rdXyz"
    root = tmp_path / "claude"
    convo = Conversation(SESSION)
    filler = "Reading the migration notes line by line before going on.\n" * 2000  # > a batch
    records = [
        convo.user("check the database"),
        convo.assistant("msg_1", tool("toolu_1", "Bash", command=f"mysql -u root -p{password}")),
        convo.result("toolu_1", "ok"),
        convo.assistant("msg_2", text(filler)),
        convo.assistant("msg_3", text(f"Done: the password {password} works.")),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    assert len(filler) > output_of.BATCH_CHARS
    for flags in (("--include-tools",), ("--json", "--include-tools")):
        shown = run(cli, root, "transcript", SESSION, "--max-chars", "0", *flags)
        assert shown.exit_code == 0, shown.stderr
        assert password not in shown.stdout, flags
        assert "Done: the password [REDACTED:assigned-secret:" in shown.stdout, flags


@pytest.mark.parametrize(
    "call",
    [
        lambda code: {"name": "Write", "file_path": "a.py", "content": code},
        lambda code: {"name": "Bash", "command": code},  # shown on its line and in its input
    ],
    ids=["Write", "Bash"],
)
def test_a_token_built_across_two_turns_is_redacted_in_every_output(
    cli, tmp_path, call, monkeypatch
):
    """``t = "ghp_…"`` in one tool call, ``t += "…"`` in a later turn: every output joins them,
    the digest of a long transcript and the file it points to, the JSON documents (each piece
    redacted where it stands, counted once) and the MCP server's pages too."""
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    root = tmp_path / "claude"
    convo = Conversation(SESSION)
    filler = "Reading the deploy notes line by line before going on.\n" * 80
    records = [
        convo.user("set the token up"),
        convo.assistant("msg_1", tool("toolu_1", **call(f't="{secret[:14]}"'))),
        convo.result("toolu_1", "ok"),
        convo.assistant("msg_2", text("Now the rest of it.")),
        convo.assistant("msg_3", tool("toolu_2", **call(f't+="{secret[14:]}"'))),
        convo.result("toolu_2", "ok"),
        convo.assistant("msg_4", text(filler)),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    written = tmp_path / "export.json"
    both = ("--include-tools", "--include-thinking")
    outputs = {
        "whole": run(cli, root, "transcript", SESSION, "--include-tools", "--max-chars", "0"),
        "digest": run(cli, root, "transcript", SESSION, "--include-tools", "--max-chars", "3000"),
        "transcript --json": run(cli, root, "transcript", SESSION, "--json", *both),
        "export": run(cli, root, "export", SESSION, *both),
        "export -o": run(cli, root, "export", SESSION, "--include-tools", "-o", str(written)),
        "export md": run(cli, root, "export", SESSION, "--format", "md", "--include-tools"),
    }
    shown = {name: result.stdout for name, result in outputs.items()}
    assert "The full transcript is" in shown["digest"]
    whole = Path(shown["digest"].split("It was written to:\n\n")[1].split("\n")[0])
    shown["digest's file"] = whole.read_text()
    shown["export -o"] = written.read_text()
    monkeypatch.setitem(server._SERVED, "claude_dir", root)
    monkeypatch.delitem(server._SERVED, "redaction", raising=False)
    shown["MCP get_transcript"] = server.get_transcript(SESSION, include_tools=True)["text"]
    for name, result in outputs.items():
        assert result.exit_code == 0, (name, result.stderr)
    for name, out in shown.items():
        assert secret[:14] not in out, name
        assert secret[14:] not in out, name
    for name in ("transcript --json", "export", "export -o"):
        conversation = json.loads(shown[name])["conversation"]
        inputs = [item["content"][0]["input"] for item in conversation[1:5:3]]
        assert [field.startswith(("t=", "t+=")) for i in inputs for field in i.values()].count(
            True
        ) == 2, name  # each piece redacted where it stands, the document's shape kept
        assert all("[REDACTED:github-token" in json.dumps(i) for i in inputs), name
        # the two pieces, each once (not again when found on their own)
        assert outputs[name].stderr == "redacted 2 secret(s): github-token 2\n", name


def test_a_token_built_across_a_thought_and_a_tool_result_is_redacted_in_every_output(
    cli, tmp_path
):
    """The first piece in a thought, the rest in a later tool's result: every output redacts
    both where they stand (the thought quoted once redacted), the JSON documents' values still
    JSON."""
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    root = tmp_path / "claude"
    thought = f'I will start with t = "{secret[:14]}" here'
    thought_and_command(root, thought, "cat notes.txt", f'then the notes say: t += "{secret[14:]}"')
    both = ("--include-tools", "--include-thinking")
    for args in (
        ("export",),
        ("transcript", "--json"),
        ("transcript",),
        ("export", "--format", "md"),
    ):
        result = run(cli, root, *args, SESSION, *both)
        assert result.exit_code == 0, result.stderr
        assert secret[:14] not in result.stdout, args
        assert secret[14:] not in result.stdout, args
        assert result.stderr == "redacted 2 secret(s): github-token 2\n", args
        if "--json" in args or args == ("export",):
            conversation = json.loads(result.stdout)["conversation"]
            thought = conversation[1]["content"][0]["thinking"]
            answer = conversation[2]["content"][0]["content"]
            assert thought.startswith('I will start with t = "[REDACTED:github-token'), args
            assert answer.startswith('then the notes say: t += "[REDACTED:github-token'), args
        else:
            assert '> I will start with t = "[REDACTED:github-token' in result.stdout, args


def test_a_token_built_across_a_prompt_and_a_tool_input_leaves_the_json_documents_json(
    cli, tmp_path
):
    """The first piece in the user's prompt (the document's own text), the rest in a tool input
    holding quotes and backslashes: both redacted where they stand, each document still JSON."""
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    root = tmp_path / "claude"
    convo = Conversation(SESSION)
    code = f't += "{secret[14:]}"  # the "rest" \\ of it'
    records = [
        convo.user(f'set t = "{secret[:14]}" up'),
        convo.assistant("msg_1", tool("toolu_1", "Bash", command=code)),
        convo.result("toolu_1", "ok"),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    for args in (("export",), ("transcript", "--json")):
        result = run(cli, root, *args, SESSION, "--include-tools")
        assert result.exit_code == 0, result.stderr
        assert secret[:14] not in result.stdout, args
        assert secret[14:] not in result.stdout, args
        conversation = json.loads(result.stdout)["conversation"]
        command = conversation[1]["content"][0]["input"]["command"]
        assert command.startswith('t += "[REDACTED:github-token'), args
        assert command.endswith('"  # the "rest" \\ of it'), args


@pytest.mark.parametrize(
    ("odd", "shown"), [(float("nan"), "NaN"), ("half \ud800", '"half \ufffd"')]
)
def test_a_tool_input_msgspec_cannot_lay_out_is_redacted_and_counted_once(
    cli, tmp_path, odd, shown
):
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    root = tmp_path / "claude"
    convo = Conversation(SESSION)
    records = [
        convo.user("deploy it"),
        convo.assistant("msg_1", tool("toolu_1", "Deploy", odd=odd, token=secret)),
        convo.result("toolu_1", "done"),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    for args in (("export",), ("transcript", "--json")):
        result = run(cli, root, *args, SESSION, "--include-tools")
        assert result.exit_code == 0, result.stderr
        assert secret not in result.stdout
        assert result.stderr.count("redacted 1 secret(s)") == 1, result.stderr
        assert f'"odd": {shown},\n' in result.stdout  # laid out as json.dumps lays it out
        exported = json.loads(result.stdout)["conversation"][1]["content"][0]["input"]
        assert exported["token"].startswith("[REDACTED:github-token")


def purlin(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "purlin_resume", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("transcript", DOV_SESSION, "--include-tools", "--max-chars", "0"),
        ("export", DOV_SESSION, "--include-tools", "--include-thinking"),
    ],
)
def test_a_pipe_closed_early_ends_the_command_quietly(fixtures_copy, args):
    child = purlin(*args, "--claude-dir", str(fixtures_copy))
    assert child.stdout is not None
    assert child.stderr is not None
    start = child.stdout.read(200)
    child.stdout.close()  # as `| head -c 200` does
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=60) == 141  # as git's, not a failure of its own (1)
    assert start.startswith(b"# Session" if args[0] == "transcript" else b"{\n")
    assert "Traceback" not in stderr, stderr
    assert "Error" not in stderr, stderr


def test_output_file_is_replaced_whole_or_not_at_all(fixtures_copy, tmp_path):
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "out.md"
    target.write_text("the previous export\n")
    limit = 100_000  # the file-size limit the write runs into, past its first pieces

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    child = purlin(
        "transcript", DOV_SESSION, "--include-tools", "--include-thinking",
        "-o", str(target), "--claude-dir", str(fixtures_copy),
        preexec_fn=small_files,
    )  # fmt: skip
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 1
    assert stderr.decode().startswith(f"error: cannot write {target}: File too large")
    assert stderr.decode().count("\n") == 1
    assert target.read_text() == "the previous export\n"
    assert os.listdir(target.parent) == ["out.md"]  # no temporary file left beside it
    written = purlin(
        "transcript", DOV_SESSION, "--include-tools", "-o", str(target),
        "--claude-dir", str(fixtures_copy),
    )  # fmt: skip
    assert written.wait(timeout=60) == 0
    assert len(target.read_bytes()) > limit


@pytest.mark.parametrize(
    "between", ["", "\x00"], ids=["runs redacted as one text", "a run holding the separator"]
)
def test_each_run_of_a_batch_is_redacted_and_kept_in_its_place(between):
    """The plain runs around a piece already clean, and a piece to lay out once redacted, are
    redacted together, or each on its own when one of them holds the character that keeps them
    apart; nothing moves or is lost."""
    secret = "ghp_" + "Zq8rT2vX9mK4pL7nB3cF6hJ1sD5gW0yE2aU8"
    quoted = export.Unredacted(f"said {secret}", lambda text: f"> {text}\n")
    pieces = [f"token {secret}{between}\n", export.Clean("[thought]\n"), f"again {secret}\n"]
    redaction = Redaction()
    out = "".join(output_of.redacted_batches([*pieces, quoted], redaction))
    assert secret not in out
    assert out.startswith("token [REDACTED:github-token:")
    assert f"{between}\n[thought]\nagain [REDACTED:github-token:" in out
    placeholder = out[len("token ") : out.index("]") + 1]
    assert out.endswith(f"again {placeholder}\n> said {placeholder}\n")
    assert sum(redaction.text.values()) == 3


def test_a_secret_assignment_ending_a_tool_result_does_not_break_the_json(cli, tmp_path):
    """``password=…`` ends a tool's result: the redaction of the batch's runs joined takes the
    break after it into the secret, so each run is redacted alone, and a tool input without a
    secret of its own is still laid out as JSON."""
    root = tmp_path / "claude"
    convo = Conversation(SESSION)
    records = [
        convo.user("deploy it"),
        convo.assistant("msg_1", tool("toolu_1", "Bash", command="cat deploy.env")),
        convo.result("toolu_1", "password=Hunter2SuperSecret!"),
        convo.assistant("msg_2", text("Deployed.")),
    ]
    write_jsonl(root / "projects" / "-srv-demo" / f"{SESSION}.jsonl", records)
    for args in (("transcript", SESSION, "--json"), ("export", SESSION)):
        result = run(cli, root, *args, "--include-tools")
        assert result.exit_code == 0, result.stderr
        assert "Hunter2SuperSecret" not in result.stdout
        document = json.loads(result.stdout)
        assert document["conversation"][1]["content"][0]["input"] == {"command": "cat deploy.env"}
