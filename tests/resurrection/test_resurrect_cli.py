"""`resurrect`, `find`, `bookmark` and `resurrections` end to end, over the real transcripts."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from purlin_resume.resurrection import log as resurrection_log
from tests.core.test_redact import PLANTED
from tests.resurrection_data import session, session_with_command, write_config

ROOT = Path(__file__).resolve().parents[2]


def _log(claude: Path) -> list[dict]:
    return resurrection_log.read(claude / "history" / resurrection_log.FILE_NAME)[0]


def _ok(result):
    assert result.exit_code == 0, result.stderr
    return result


def _fails(result, code: int, *words: str):
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert lines[-1] == errors[0], result.stderr  # warnings may precede
    for word in words:
        assert word in errors[0]
    return errors[0]


TMUX_EXPERT = ["bookmark", "add", "tmux-expert", "--session", "8463", "--agent", "a7be2f0"]


# the three modes, autonomous -----------------------------------------------------------------


def test_direct_resurrection_prints_the_prompt_and_logs_every_field(cli, fixtures_copy, repo):
    result = _ok(
        cli(
            "resurrect",
            "--session",
            "4d56",
            "--agent",
            "agent-a2898e3",
            "--yes",
            "--task",
            "Design the export API",
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    prompt = result.stdout
    assert prompt.startswith("You are a resurrection of agent a2898e3 from 2026-02-12.")
    for heading in (
        "## Original context",
        "## Original agent's findings",
        "## Original agent's final output",
    ):
        assert heading in prompt
    assert prompt.rstrip().endswith("Design the export API")
    [entry] = _log(fixtures_copy)
    assert set(resurrection_log.FIELDS) <= set(entry)
    assert entry["resurrection_mode"] == "direct"
    assert entry["context_extraction_method"] == "hybrid"
    assert entry["resurrected_from_agent_id"] == "a2898e3"
    assert entry["resurrected_from_session_id"].startswith("4d5611e5")
    assert entry["resurrected_in_project"] == str(repo)
    assert entry["cross_repo"] is True
    # the fixtures' projects are on another machine: a note, not an outcome (the context is
    # whole); no agent was started, so none is named
    assert (entry["outcome"], entry["outcome_reason"]) == ("success", None)
    assert "is not on this machine" in entry["notes"]
    assert entry["resurrected_as_agent_id"] is None
    assert entry["context_size_tokens"] < entry["context_tokens_before"] / 2
    assert "autonomous" in entry["notes"]
    assert entry["resurrection_id"] in result.stderr


def test_the_original_transcripts_are_never_modified(cli, fixtures_copy, repo):
    before = {p: p.read_bytes() for p in fixtures_copy.glob("projects/**/*.jsonl")}
    _ok(cli("resurrect", "--session", "8463", "--yes", "--claude-dir", str(fixtures_copy)))
    assert {p: p.read_bytes() for p in fixtures_copy.glob("projects/**/*.jsonl")} == before


def test_fuzzy_resurrection_picks_the_best_match_and_logs_the_decision(cli, fixtures_copy, repo):
    result = _ok(
        cli(
            "resurrect",
            "find",
            "tmux module test setup",
            "--yes",
            "--json",
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    data = json.loads(result.stdout)
    assert data["agent_id"] == "a7be2f0"
    assert data["mode"] == "fuzzy"
    assert data["candidate"]["score"] > 0
    assert "word tmux" in data["candidate"]["reasons"]
    assert data["prompt"].startswith("You are a resurrection of agent a7be2f0")
    [entry] = _log(fixtures_copy)
    assert entry["query"] == "tmux module test setup"
    assert "picked agent a7be2f0" in entry["notes"]


def test_bookmark_resurrection_counts_on_the_bookmark(cli, fixtures_copy, repo):
    _ok(
        cli(
            *TMUX_EXPERT,
            "--description",
            "knows the tmux module",
            "--tag",
            "tmux",
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    marks = [
        json.loads(line) for line in (repo / ".purlin" / "bookmarks.jsonl").read_text().splitlines()
    ]
    assert marks[0]["name"] == "tmux-expert"
    assert marks[0]["bookmark_id"].startswith("bmk-")
    assert (fixtures_copy / "history" / marks[0]["archive"]).is_file()
    for _ in range(2):
        _ok(cli("resurrect", "tmux-expert", "--yes", "--claude-dir", str(fixtures_copy)))
    shown = json.loads(
        _ok(
            cli("bookmark", "show", "tmux-expert", "--json", "--claude-dir", str(fixtures_copy))
        ).stdout
    )
    assert shown["resurrection_count"] == 2
    assert shown["last_resurrected"]
    entries = _log(fixtures_copy)
    assert [e["bookmark_id"] for e in entries] == [marks[0]["bookmark_id"]] * 2
    assert len({e["resurrection_id"] for e in entries}) == 2


def test_a_bookmarked_agent_resurrected_by_its_ids_counts_on_the_bookmark(cli, fixtures_copy, repo):
    _ok(cli(*TMUX_EXPERT, "--claude-dir", str(fixtures_copy)))
    ids = ("--session", "8463", "--agent", "a7be2f0", "--yes", "--claude-dir", str(fixtures_copy))
    _ok(cli("resurrect", *ids))
    shown = json.loads(
        _ok(
            cli("bookmark", "show", "tmux-expert", "--json", "--claude-dir", str(fixtures_copy))
        ).stdout
    )
    assert shown["resurrection_count"] == 1
    [entry] = _log(fixtures_copy)
    assert (entry["resurrection_mode"], entry["bookmark_id"]) == ("direct", shown["bookmark_id"])


def test_a_bookmark_outlives_its_transcripts_through_the_archive(cli, fixtures_copy, repo):
    _ok(
        cli(
            "bookmark",
            "add",
            "dov-explorer",
            "--session",
            "4d56",
            "--agent",
            "a2898e3",
            "--global",
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    folder = next(fixtures_copy.glob("projects/*spotter-dov"))
    for path in sorted(folder.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    found = json.loads(_ok(cli("find", "dov", "--json", "--claude-dir", str(fixtures_copy))).stdout)
    assert found["results"][0]["bookmark"] == "dov-explorer"  # by a part of its name
    assert "transcripts archived" in found["results"][0]["reasons"]
    # Claude Code cannot resume a conversation it deleted: no ``open``, the archive is read
    assert found["results"][0]["open"] is None
    listed = _ok(cli("find", "dov", "--claude-dir", str(fixtures_copy))).stdout
    first = listed.split("\n 2. ")[0]
    assert "purlin-resume open" not in first
    assert "read it: purlin-resume transcript a2898e3" in first
    tree = cli("agents", "4d56", "--claude-dir", str(fixtures_copy))
    assert tree.exit_code == 0, tree.output
    assert "a2898e3" in tree.stdout
    assert "read from the archive of session 4d56" in tree.stderr
    result = _ok(
        cli("resurrect", "dov-explorer", "--yes", "--json", "--claude-dir", str(fixtures_copy))
    )
    data = json.loads(result.stdout)
    assert data["archived"] is True
    assert any(c["name"] == "accessible" and c["level"] == "warn" for c in data["checks"])
    assert "Explore transcript rendering codebase" in data["prompt"]


def test_a_bookmark_archives_what_linked_transcripts_hold(cli, fixtures_copy, repo, tmp_path):
    """Session files that are links (to a folder elsewhere) are archived as what they lead to:
    the bookmark still resurrects once the files and the links are gone. A FIFO beside them
    holds no transcript: it is left out, never waited on."""
    folder = next(fixtures_copy.glob("projects/*spotter-dov"))
    elsewhere = tmp_path / "elsewhere"
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        moved = elsewhere / path.relative_to(folder)
        moved.parent.mkdir(parents=True, exist_ok=True)
        path.rename(moved)
        path.symlink_to(moved)
    os.mkfifo(next(folder.rglob("subagents")) / "agent-fifo.jsonl")
    claude = ("--claude-dir", str(fixtures_copy))
    _ok(cli("bookmark", "add", "dov", "--session", "4d56", "--agent", "a2898e3", *claude))
    shutil.rmtree(elsewhere)
    shutil.rmtree(folder)

    data = json.loads(_ok(cli("resurrect", "dov", "--yes", "--json", *claude)).stdout)
    assert data["archived"] is True
    assert "Explore transcript rendering codebase" in data["prompt"]


def test_a_session_the_user_may_not_read_is_not_bookmarked(cli, fixtures_copy, repo, monkeypatch):
    from tests.conftest import unreadable

    locked = next(fixtures_copy.rglob("4d5611e5-*.jsonl"))
    unreadable(locked, monkeypatch)
    _fails(
        cli("bookmark", "add", "dov", "--session", "4d56", "--claude-dir", str(fixtures_copy)),
        1,
        f"cannot read {locked}: Permission denied; nothing was bookmarked",
    )
    assert not (repo / ".purlin" / "bookmarks.jsonl").exists()


def test_no_terminal_and_no_yes_is_a_usage_error(cli, fixtures_copy, repo):
    _fails(cli("resurrect", "--session", "short", "--claude-dir", str(fixtures_copy)), 2, "--yes")
    assert _log(fixtures_copy) == []


def test_output_file_and_methods(cli, fixtures_copy, repo, tmp_path):
    out = tmp_path / "prompt.md"
    _ok(
        cli(
            "resurrect",
            "--session",
            "short",
            "--yes",
            "--method",
            "full",
            "-o",
            str(out),
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    assert "### The whole conversation" in out.read_text()
    _fails(
        cli(
            "resurrect",
            "--session",
            "short",
            "--yes",
            "-o",
            str(tmp_path / "no" / "x.md"),
            "--claude-dir",
            str(fixtures_copy),
        ),
        2,
        "-o",
    )
    _fails(
        cli(
            "resurrect",
            "--session",
            "short",
            "--yes",
            "--method",
            "tiny",
            "--claude-dir",
            str(fixtures_copy),
        ),
        2,
    )


def test_concurrent_resurrections_get_distinct_ids(fixtures_copy, repo):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "purlin_resume",
                "resurrect",
                "--session",
                "short",
                "--yes",
                "--claude-dir",
                str(fixtures_copy),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(5)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    ids = [e["resurrection_id"] for e in _log(fixtures_copy)]
    assert len(ids) == 5
    assert len(set(ids)) == 5


# pre-flight ----------------------------------------------------------------------------------


def test_unknown_session_agent_and_bookmark_fail_with_suggestions(cli, fixtures_copy, repo):
    claude = str(fixtures_copy)
    _fails(
        cli("resurrect", "--session", "4d57", "--yes", "--claude-dir", claude),
        1,
        "session 4d57 not found",
        "resurrect find",
    )
    _fails(
        cli("resurrect", "--session", "4d56", "--agent", "zzz", "--yes", "--claude-dir", claude),
        1,
        "agent zzz not found",
        "a2898e3",
    )
    _fails(
        cli("resurrect", "--session", "short", "--agent", "abc", "--yes", "--claude-dir", claude),
        1,
        "no subagents",
        "--session 55604662-cf2a-4331-851a-ec234028f8ca",  # the id short.jsonl's records carry
    )
    _ok(cli(*TMUX_EXPERT, "--claude-dir", claude))
    _fails(
        cli("resurrect", "tmux-expret", "--yes", "--claude-dir", claude),
        1,
        "no bookmark named 'tmux-expret'",
        "did you mean tmux-expert",
    )
    _fails(cli("resurrect", "find", "zqxwv", "--yes", "--claude-dir", claude), 1, "nothing matches")
    failures = [e for e in _log(fixtures_copy) if e["outcome"] == "failure"]
    assert len(failures) == 5
    assert all(e["outcome_reason"] for e in failures)


def test_an_empty_conversation_is_not_meaningful(cli, tmp_path, repo):
    claude = tmp_path / "claude"
    session(claude, "empty", "/srv/empty", [])
    _fails(
        cli("resurrect", "--session", "empty", "--yes", "--claude-dir", str(claude)),
        1,
        "the conversation is empty",
    )


def test_a_binary_transcript_is_not_extractable(cli, tmp_path, repo):
    claude = tmp_path / "claude"
    path = claude / "projects" / "-work-bin" / "bin.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x00\x01\x02" * 1000)
    _fails(
        cli("resurrect", "--session", "bin", "--yes", "--claude-dir", str(claude)),
        1,
        "is not a JSONL transcript (binary)",
    )


def test_an_unreadable_transcript_is_not_extractable(cli, tmp_path, repo):
    # A regular file that no one can read, root included: /proc/self/mem fails with an I/O
    # error at offset 0 (nothing is mapped there), where file permissions would not stop root.
    claude = tmp_path / "claude"
    path = session(claude, "locked", "/srv/locked", [("user", "hi"), ("agent", "hello")])
    path.unlink()
    path.symlink_to("/proc/self/mem")
    error = _fails(
        cli("resurrect", "--session", "locked", "--yes", "--claude-dir", str(claude)),
        1,
        "could not read",
    )
    assert str(path) in error
    [entry] = _log(claude)
    assert entry["outcome"] == "failure"
    assert "could not read" in entry["outcome_reason"]


@pytest.mark.parametrize(
    ("turns", "tail", "words"),
    [
        (
            [("user", "go"), ("agent", "working"), ("user", "[Request interrupted by user]")],
            b"",
            "interrupted",
        ),
        ([("user", "go"), ("agent", "API Error: 529 overloaded")], b"", "API error"),
        ([("user", "go"), ("agent", "half way")], b'{"type":"assistant","mess', "cut short"),
    ],
)
def test_incomplete_agents_warn_and_resurrect_partially(cli, tmp_path, repo, turns, tail, words):
    claude = tmp_path / "claude"
    session(claude, "partial", "/srv/partial", turns, tail)
    result = _ok(
        cli("resurrect", "--session", "partial", "--yes", "--json", "--claude-dir", str(claude))
    )
    data = json.loads(result.stdout)
    complete = next(c for c in data["checks"] if c["name"] == "complete")
    assert complete["level"] == "warn"
    assert words in complete["message"]
    assert "[warn] complete" in result.stderr
    [entry] = _log(claude)
    assert entry["outcome"] == "partial"
    assert words in entry["outcome_reason"]


def test_a_bookmark_from_another_host_warns(cli, fixtures_copy, repo):
    _ok(cli("bookmark", "add", "far", "--session", "short", "--claude-dir", str(fixtures_copy)))
    path = repo / ".purlin" / "bookmarks.jsonl"
    mark = json.loads(path.read_text())
    mark["hostname"] = "elsewhere.example"
    path.write_text(json.dumps(mark) + "\n")
    result = _ok(cli("resurrect", "far", "--yes", "--claude-dir", str(fixtures_copy)))
    assert "[warn] accessible: bookmarked on host elsewhere.example" in result.stderr
    [entry] = _log(fixtures_copy)
    assert entry["resurrected_from_hostname"] == "elsewhere.example"
    # a note: the context is whole (the archive is there if the transcript is not)
    assert (entry["outcome"], entry["outcome_reason"]) == ("success", None)
    assert "bookmarked on host elsewhere.example" in entry["notes"]


def test_context_size_warns_and_asks_by_configured_thresholds(cli, fixtures_copy, repo):
    write_config(repo, context_warn_tokens=100, context_confirm_tokens=5000)
    claude = str(fixtures_copy)
    small = _ok(cli("resurrect", "--session", "short", "--yes", "--claude-dir", claude))
    assert "[warn] size: the context is" in small.stderr
    assert "over 100" in small.stderr
    big = _ok(
        cli("resurrect", "--session", "4d56", "--agent", "a2898e3", "--yes", "--claude-dir", claude)
    )
    assert "[ask] size" in big.stderr
    assert "--method summarized" in big.stderr
    assert "went on past" in _log(fixtures_copy)[-1]["notes"]
    full = _ok(
        cli("resurrect", "--session", "8463", "--method", "full", "--yes", "--claude-dir", claude)
    )
    assert "meant for agents of at most 10 turns" in full.stderr


# path safety ---------------------------------------------------------------------------------


def test_from_path_traversal_symlinks_and_outside_roots_are_refused(cli, tmp_path, repo):
    home = Path(os.environ["HOME"])
    claude = tmp_path / "claude"
    (home / "proj").mkdir()
    session(claude, "inhome", str(home / "proj"), [("user", "hi"), ("agent", "hello there")])
    base = ["resurrect", "--session", "inhome", "--yes", "--claude-dir", str(claude)]
    _ok(cli(*base, "--from", str(home / "proj")))
    _fails(cli(*base, "--from", f"{home}/proj/../proj"), 2, "'..' is not allowed")
    _fails(cli(*base, "--from", str(tmp_path)), 2, "outside the allowed folders")
    outside = tmp_path / "outside"
    outside.mkdir()
    (home / "link").symlink_to(outside)
    _fails(cli(*base, "--from", str(home / "link")), 2, "symbolic link")
    (home / "other").mkdir()
    _fails(cli(*base, "--from", str(home / "other")), 1, "belongs to", "not to --from")


def test_a_source_project_that_escapes_through_a_symlink_is_refused(cli, tmp_path, repo):
    home = Path(os.environ["HOME"])
    outside = tmp_path / "outside-project"
    outside.mkdir()
    (home / "proj").symlink_to(outside)
    claude = tmp_path / "claude"
    session(claude, "escape", str(home / "proj"), [("user", "hi"), ("agent", "hello there")])
    _fails(
        cli("resurrect", "--session", "escape", "--yes", "--claude-dir", str(claude)),
        2,
        "source project",
        "symbolic link",
    )


# redaction (SEC-1) ---------------------------------------------------------------------------

KEYWORD_SECRETS = {
    "url-credentials": ("postgres://admin:S3cr3tPassw0rd@db.internal/app", "S3cr3tPassw0rd"),
    "bearer-token": ("Authorization: Bearer abcDEF123456ghiJKL789", "abcDEF123456ghiJKL789"),
    "assigned-secret": ("DB_PASSWORD=hunter2Xy9zQ", "hunter2Xy9zQ"),
}


def test_a_planted_secrets_corpus_is_fully_redacted(cli, tmp_path, repo):
    claude = tmp_path / "claude"
    said = [f"{kind} is {secret}" for kind, secret in PLANTED.items()]
    said += [text for text, _ in KEYWORD_SECRETS.values()]
    turns = [("user", "keep these: " + said[0])]
    for index, line in enumerate(said[1:]):
        turns.append(("agent" if index % 2 else "user", line))
    turns.append(("agent", "Final: the key was " + PLANTED["aws-access-key"]))
    session(claude, "leaky", "/srv/leaky", turns)
    secrets = [*PLANTED.values(), *(s for _, s in KEYWORD_SECRETS.values())]
    for method in ("full", "hybrid", "summarized"):
        result = _ok(
            cli(
                "resurrect",
                "--session",
                "leaky",
                "--yes",
                "--json",
                "--method",
                method,
                "--task",
                "use " + PLANTED["github-token"],
                "--notes",
                "token=" + "Zk3Lq9Wm2Rt7Yv5N",
                "--claude-dir",
                str(claude),
            )
        )
        for secret in secrets:
            assert secret not in result.stdout
        data = json.loads(result.stdout)
        if method == "full":
            assert set(data["redactions"]) == {*PLANTED, *KEYWORD_SECRETS}
    cached = [p for p in (Path.home() / ".cache" / "purlin-resume").rglob("*") if p.is_file()]
    assert cached  # contexts were cached, and the index built: neither holds a secret
    for secret in secrets:
        assert not any(secret.encode() in p.read_bytes() for p in cached)
    log_text = (claude / "history" / resurrection_log.FILE_NAME).read_text()
    assert "Zk3Lq9Wm2Rt7Yv5N" not in log_text
    assert "[REDACTED:" in log_text
    plain = _ok(
        cli(
            "resurrect",
            "--session",
            "leaky",
            "--yes",
            "--no-redact",
            "--method",
            "full",
            "--claude-dir",
            str(claude),
        )
    )
    assert PLANTED["github-token"] in plain.stdout
    leaky = ("--session", "leaky", "--yes", "--method", "full", "--claude-dir", str(claude))
    noted = ("--notes", "token=Qw8Er5Ty2Ui9Op4A")
    global_flag = _ok(cli("--no-redact", "resurrect", *leaky, *noted))
    assert PLANTED["github-token"] in global_flag.stdout  # the global flag, as for all
    cached = [p for p in (Path.home() / ".cache" / "purlin-resume").rglob("*") if p.is_file()]
    assert not any(PLANTED["github-token"].encode() in p.read_bytes() for p in cached)
    log_text = (claude / "history" / resurrection_log.FILE_NAME).read_text()
    assert "Qw8Er5Ty2Ui9Op4A" not in log_text  # --no-redact shows a prompt, never keeps one


def test_a_password_a_command_showed_is_hidden_where_the_answer_repeats_it(cli, tmp_path, repo):
    claude, password = tmp_path / "claude", "S3cr3tPassw0rdXyz"
    session_with_command(
        claude,
        "repeats",
        str(repo),
        f"mysql -u root -p{password} app",
        f"Done: the password {password} works.",
    )
    given = ("--session", "repeats", "--yes", "--claude-dir", str(claude))
    for method in ("full", "hybrid", "summarized"):
        result = _ok(cli("resurrect", *given, "--method", method))
        assert password not in result.stdout
        if method == "full":  # the answer as it was written
            assert "Done: the password [REDACTED:" in result.stdout
    found = _ok(cli("find", "database", "--claude-dir", str(claude)))
    assert "repeats" in found.stdout
    assert "Nothing matches" in _ok(cli("find", password, "--claude-dir", str(claude))).stdout
    cached = [p for p in (Path.home() / ".cache" / "purlin-resume").rglob("*") if p.is_file()]
    assert cached  # the contexts kept and the search index
    assert not any(password.encode() in p.read_bytes() for p in cached)


def test_the_fixtures_lose_nothing_to_redaction(cli, fixtures_copy, repo):
    for ident in (["--session", "4d56"], ["--session", "fe5e", "--agent", "f4ab"]):
        data = json.loads(
            _ok(
                cli(
                    "resurrect",
                    *ident,
                    "--yes",
                    "--json",
                    "--method",
                    "full",
                    "--claude-dir",
                    str(fixtures_copy),
                )
            ).stdout
        )
        assert data["redactions"] == {}


# spawning ------------------------------------------------------------------------------------


def _stand_in(folder: Path, code: int = 0) -> Path:
    """A stand-in for the claude binary: records its prompt and environment, exits ``code``."""
    script = folder / "fake-claude"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s" "$1" > "{folder}/prompt.txt"\n'
        f'printf "%s" "$PURLIN_RESURRECTION_ID" > "{folder}/id.txt"\n'
        f"exit {code}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_spawn_claude_runs_the_agent_command_with_the_prompt(cli, fixtures_copy, repo, tmp_path):
    write_config(repo, agent_command=str(_stand_in(tmp_path)))
    result = _ok(
        cli(
            "resurrect",
            "--session",
            "short",
            "--yes",
            "--spawn",
            "claude",
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    assert (tmp_path / "prompt.txt").read_text().startswith("You are a resurrection of")
    [entry] = _log(fixtures_copy)
    assert (tmp_path / "id.txt").read_text() == entry["resurrection_id"]
    assert isinstance(entry["new_agent_duration_ms"], int)
    assert "You are a resurrection" not in result.stdout


def test_spawn_failures_are_logged(cli, fixtures_copy, repo, tmp_path):
    args = ["resurrect", "--session", "short", "--yes", "--spawn", "claude"]
    args += ["--claude-dir", str(fixtures_copy)]
    write_config(repo, agent_command=str(_stand_in(tmp_path, code=3)))
    _fails(cli(*args), 1, "exited with 3")
    write_config(repo, agent_command=str(tmp_path / "missing-binary"))
    _fails(cli(*args), 1, "could not start", "agent_command")
    outcomes = [(e["outcome"], e["outcome_reason"]) for e in _log(fixtures_copy)]
    assert outcomes[0] == ("failure", "agent command exited with 3")
    assert outcomes[1][0] == "failure"
    assert "could not start" in outcomes[1][1]


def _spawn_tmux(cli, claude, server):
    from purlin_resume.core import tmux

    tmux.new_session(server, "editor", claude, "cat")  # --tmux-socket names a running server
    args = ["resurrect", "--session", "short", "--yes", "--spawn", "tmux", "--json"]
    return cli(*args, "--tmux-socket", str(server.socket), "--claude-dir", str(claude))


def test_spawn_tmux_waits_for_the_agent_then_types_the_prompt(
    cli, fixtures_copy, repo, tmp_path, tmux_server
):
    from purlin_resume.core import tmux
    from tests.agents_setup import STANDIN, configure, prompts

    record = tmp_path / "agent"
    # The agent takes a moment to start and then discards what was typed before it was ready
    # (raw mode flushes the terminal's input), as Claude Code does.
    command = f"sh -c 'sleep 1; exec {sys.executable} {STANDIN} {record}'"
    configure(repo, tmux_server, record, agent_command=command)

    data = json.loads(_ok(_spawn_tmux(cli, fixtures_copy, tmux_server)).stdout)

    [received] = prompts(record, 1)
    assert received == data["prompt"].rstrip()  # a final newline is not typed
    assert received.startswith("You are a resurrection of")
    assert data["launch"]["attempts"] == [1]
    started = json.loads((record / "started.json").read_text())
    rid = data["resurrection"]["resurrection_id"]
    assert started["env"]["PURLIN_RESURRECTION_ID"] == rid
    assert tmux.pane_alive(tmux_server, data["launch"]["pane"])
    [entry] = _log(fixtures_copy)
    assert entry["resurrection_id"] == rid
    assert entry["outcome"] != "failure"


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (
            "sh -c 'echo starting; exec cat'",
            ("did not show '? for shortcuts|shift+tab to cycle' within 1 s",),
        ),
        ("false", ("the new agent's command exited", "resume.agent_command")),
    ],
)
def test_spawn_tmux_an_agent_that_never_gets_ready_is_a_logged_failure(
    cli, fixtures_copy, repo, tmp_path, tmux_server, command, words
):
    from purlin_resume.core import tmux
    from tests.agents_setup import configure

    configure(repo, tmux_server, tmp_path / "agent", agent_command=command, agent_ready_timeout=1)

    error = _fails(_spawn_tmux(cli, fixtures_copy, tmux_server), 1, *words, "window closed")

    [entry] = _log(fixtures_copy)
    assert entry["resurrection_id"] in error
    assert entry["outcome"] == "failure"
    assert words[0] in entry["outcome_reason"]
    windows = tmux.run(tmux_server, "list-windows", "-a", "-F", "#{window_name}", check=False)
    assert entry["resurrection_id"] not in windows


# done, history, stats ------------------------------------------------------------------------


def test_done_completes_an_entry(cli, fixtures_copy, repo):
    data = json.loads(
        _ok(
            cli(
                "resurrect",
                "--session",
                "short",
                "--yes",
                "--json",
                "--claude-dir",
                str(fixtures_copy),
            )
        ).stdout
    )
    rid = data["resurrection"]["resurrection_id"]
    _ok(
        cli(
            "resurrect",
            "done",
            rid,
            "--agent-id",
            "agent-new1",
            "--outcome",
            "failure",
            "--reason",
            "ran out of turns",
            "--duration-ms",
            "4500",
            "--tool-calls",
            "12",
            "--notes",
            "tried",
            "--claude-dir",
            str(fixtures_copy),
        )
    )
    [entry] = _log(fixtures_copy)
    assert entry["resurrected_as_agent_id"] == "agent-new1"
    assert (entry["outcome"], entry["outcome_reason"]) == ("failure", "ran out of turns")
    assert (entry["new_agent_duration_ms"], entry["new_agent_tool_calls"]) == (4500, 12)
    _ok(cli("resurrect", "done", rid, "--outcome", "success", "--claude-dir", str(fixtures_copy)))
    assert _log(fixtures_copy)[0]["outcome_reason"] is None
    _fails(
        cli(
            "resurrect",
            "done",
            "res-2000-01-01-001",
            "--outcome",
            "success",
            "--claude-dir",
            str(fixtures_copy),
        ),
        1,
        "no resurrection",
    )
    _fails(
        cli(
            "resurrect", "done", "bogus", "--outcome", "success", "--claude-dir", str(fixtures_copy)
        ),
        2,
        "not a resurrection id",
    )
    _fails(
        cli("resurrect", "done", rid, "--outcome", "great", "--claude-dir", str(fixtures_copy)), 2
    )


def test_resurrections_filters_and_stats(cli, fixtures_copy, repo):
    claude = str(fixtures_copy)
    _ok(cli("resurrect", "--session", "short", "--yes", "--claude-dir", claude))
    first = _log(fixtures_copy)[0]["resurrection_id"]
    _ok(cli("resurrect", "done", first, "--outcome", "success", "--claude-dir", claude))
    _ok(cli("resurrect", "find", "tmux module", "--yes", "--claude-dir", claude))
    _fails(cli("resurrect", "--session", "nope", "--yes", "--claude-dir", claude), 1)
    listed = json.loads(_ok(cli("resurrections", "--json", "--claude-dir", claude)).stdout)
    assert len(listed["resurrections"]) == 3
    assert listed["resurrections"][0]["outcome"] == "failure"  # newest first
    by_mode = json.loads(
        _ok(cli("resurrections", "--mode", "fuzzy", "--json", "--claude-dir", claude)).stdout
    )
    assert [e["resurrection_mode"] for e in by_mode["resurrections"]] == ["fuzzy"]
    by_agent = json.loads(
        _ok(cli("resurrections", "--agent", "a7be", "--json", "--claude-dir", claude)).stdout
    )
    assert len(by_agent["resurrections"]) == 1
    failed = json.loads(
        _ok(
            cli(
                "resurrections",
                "--outcome",
                "failure",
                "--since",
                "1d",
                "--json",
                "--claude-dir",
                claude,
            )
        ).stdout
    )
    assert len(failed["resurrections"]) == 1
    stats = json.loads(_ok(cli("resurrections", "stats", "--json", "--claude-dir", claude)).stdout)
    assert stats["total"] == 3
    assert stats["success_rate_by_mode"]["direct"] == {"success": 1, "total": 2, "rate": 0.5}
    assert stats["top_failure_reasons"][0]["count"] == 1
    assert stats["latency_ms"]["p50"] is not None
    text = _ok(cli("resurrections", "stats", "--claude-dir", claude)).stdout
    assert "Success rate by mode" in text
    assert "Latency ms" in text
    _fails(cli("resurrections", "--since", "someday", "--claude-dir", claude), 2, "--since")
    log = fixtures_copy / "history" / resurrection_log.FILE_NAME
    with open(log, "a") as handle:
        handle.write("garbage\n")
    assert (
        json.loads(_ok(cli("resurrections", "--json", "--claude-dir", claude)).stdout)[
            "skipped_lines"
        ]
        == 1
    )


def test_no_log_yet_is_not_an_error(cli, tmp_path, repo):
    assert "No resurrections" in _ok(cli("resurrections", "--claude-dir", str(tmp_path))).stdout


# find and bookmarks --------------------------------------------------------------------------


def test_find_shows_scores_and_reasons(cli, fixtures_copy, repo):
    data = json.loads(
        _ok(cli("find", "nextjs", "todo", "--json", "--claude-dir", str(fixtures_copy))).stdout
    )
    top = data["results"][0]
    assert top["agent_id"].startswith("60dade70")
    assert top["score"] > 0
    assert "word nextjs" in top["reasons"]
    text = _ok(cli("find", "phoenix server", "--claude-dir", str(fixtures_copy))).stdout
    assert "why: word phoenix" in text
    _fails(cli("find", "--claude-dir", str(fixtures_copy)), 2)
    _fails(cli("find", "x", "--claude-dir", str(repo / "nowhere")), 1, "no Claude Code transcripts")


def test_bookmark_commands_and_bad_input(cli, fixtures_copy, repo, tmp_path):
    claude = str(fixtures_copy)
    _ok(cli("bookmark", "add", "one", "--session", "short", "--claude-dir", claude))
    _ok(
        cli(
            "bookmark",
            "add",
            "two",
            "--session",
            "fe5e",
            "--agent",
            "f4ab",
            "--global",
            "--tag",
            "web",
            "--claude-dir",
            claude,
        )
    )
    listed = json.loads(_ok(cli("bookmark", "list", "--json", "--claude-dir", claude)).stdout)
    assert [(m["name"], m["scope"]) for m in listed["bookmarks"]] == [
        ("one", "local"),
        ("two", "global"),
    ]
    assert listed["bookmarks"][1]["agent_id"].startswith("f4ab2bf6")
    web = json.loads(
        _ok(cli("bookmark", "list", "--tag", "web", "--json", "--claude-dir", claude)).stdout
    )
    assert [m["name"] for m in web["bookmarks"]] == ["two"]
    _ok(
        cli(
            "bookmark",
            "update",
            "one",
            "--name",
            "uno",
            "--description",
            "short one",
            "--claude-dir",
            claude,
        )
    )
    assert "short one" in _ok(cli("bookmark", "show", "uno", "--claude-dir", claude)).stdout
    _ok(cli("bookmark", "rm", "two", "--global", "--claude-dir", claude))
    _fails(cli("bookmark", "rm", "two", "--global", "--claude-dir", claude), 1, "no bookmark")
    _fails(cli("bookmark", "add", "uno", "--session", "short", "--claude-dir", claude), 1, "exists")
    _fails(cli("bookmark", "add", "x", "--session", "nope", "--claude-dir", claude), 1, "not found")
    _fails(cli("bookmark", "add", "bad/name", "--session", "short", "--claude-dir", claude), 2)
    _fails(cli("bookmark", "update", "uno", "--claude-dir", claude), 2, "nothing to change")
    _fails(cli("bookmark", "show", "nobody", "--claude-dir", claude), 1, "no bookmark")
    path = repo / ".purlin" / "bookmarks.jsonl"
    path.write_text(path.read_text() + "{broken\n")
    before = path.read_bytes()
    _fails(
        cli("bookmark", "add", "three", "--session", "short", "--claude-dir", claude), 1, "corrupt"
    )
    assert path.read_bytes() == before
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    os.chdir(outside)
    _fails(
        cli("bookmark", "add", "four", "--session", "short", "--claude-dir", claude), 2, "--global"
    )


def test_the_slash_command_calls_the_cli_with_its_arguments():
    text = (ROOT / "plugin" / "commands" / "resurrect.md").read_text()
    assert "purlin-resume resurrect $ARGUMENTS" in text


def test_exports_are_redacted_unless_asked_not_to(cli, tmp_path, repo):
    claude = tmp_path / "claude"
    session(
        claude,
        "leaky",
        "/srv/leaky",
        [("user", "use " + PLANTED["stripe-key"]), ("agent", "ok " + PLANTED["jwt"])],
    )
    for fmt in ("json", "md"):
        out = _ok(cli("export", "leaky", "--format", fmt, "--claude-dir", str(claude))).stdout
        assert PLANTED["stripe-key"] not in out
        assert PLANTED["jwt"] not in out
        assert "[REDACTED:stripe-key:" in out
        assert "[REDACTED:jwt:" in out
    written = _ok(
        cli("export", "leaky", "-o", str(tmp_path / "x.json"), "--claude-dir", str(claude))
    )
    # counted where they were replaced in what was written: the document names the first prompt
    # and the final answer again in its header
    assert written.stderr == "redacted 4 secret(s): jwt 2, stripe-key 2\n"
    assert PLANTED["jwt"] not in (tmp_path / "x.json").read_text()
    plain = _ok(cli("export", "leaky", "--no-redact", "--claude-dir", str(claude))).stdout
    assert PLANTED["stripe-key"] in plain


def test_a_cached_context_is_not_reused_once_the_transcript_changes(cli, tmp_path, repo):
    claude = tmp_path / "claude"
    path = session(
        claude, "growing", "/srv/growing", [("user", "start"), ("agent", "first answer")]
    )
    args = ["resurrect", "--session", "growing", "--yes", "--claude-dir", str(claude)]
    assert "first answer" in _ok(cli(*args)).stdout
    session(
        claude,
        "growing",
        "/srv/growing",
        [
            ("user", "start"),
            ("agent", "first answer"),
            ("user", "more"),
            ("agent", "a later, different answer"),
        ],
    )
    assert path.exists()
    assert "a later, different answer" in _ok(cli(*args)).stdout


@pytest.mark.parametrize(
    "changed",
    [
        lambda kept: {"created": 0},  # a part missing
        lambda kept: {"facts": {}, "context": {"method": 5}, "full_tokens": 1, "redactions": {}},
        lambda kept: {**kept, "facts": {}},  # facts of an older version: no turn count
    ],
    ids=["a part missing", "a part of another type", "facts without turns"],
)
def test_a_cached_context_of_another_shape_is_made_again(cli, tmp_path, repo, changed):
    import sqlite3

    from purlin_resume.core import cache_home

    claude = tmp_path / "claude"
    session(claude, "kept", "/srv/kept", [("user", "start"), ("agent", "the answer")])
    args = ["resurrect", "--session", "kept", "--yes", "--claude-dir", str(claude)]
    assert "the answer" in _ok(cli(*args)).stdout
    with sqlite3.connect(Path(cache_home.folder()) / cache_home.FILE_NAME) as db:
        (kept,) = db.execute("SELECT entry FROM contexts").fetchone()
        entry = json.dumps(changed(json.loads(kept)))
        assert db.execute("UPDATE contexts SET entry = ?", (entry,)).rowcount == 1
    assert "the answer" in _ok(cli(*args)).stdout


def test_concurrent_finds_build_one_consistent_index(fixtures_copy, repo):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "purlin_resume", "find", "tmux module", "--json"]
    argv += ["--claude-dir", str(fixtures_copy)]
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    results = [json.loads(out)["results"] for out, _ in outputs]
    assert all(r == results[0] for r in results)
    assert results[0]
    ids = [(r["session_id"], r["agent_id"]) for r in results[0]]
    assert len(ids) == len(set(ids))  # no conversation indexed twice


def test_an_unwritable_history_folder_is_one_error_line(cli, fixtures_copy, repo):
    (fixtures_copy / "history").write_text("a file where the folder should be")
    _fails(
        cli("resurrect", "--session", "short", "--yes", "--claude-dir", str(fixtures_copy)),
        1,
        f"{fixtures_copy / 'history'}: it is not a folder",
    )
    assert (fixtures_copy / "history").read_text() == "a file where the folder should be"


def _linked(folder: Path) -> None:
    (folder.parent / "elsewhere").mkdir()
    folder.symlink_to(folder.parent / "elsewhere")


def _open_to_others(folder: Path) -> None:
    folder.mkdir()
    folder.chmod(0o777)


@pytest.mark.parametrize(
    ("make", "reason"),
    [(_linked, "is a symbolic link"), (_open_to_others, "is open to others (mode 777)")],
)
def test_a_refused_cache_folder_is_one_line_saying_why(cli, fixtures_copy, tmp_path, make, reason):
    cache = tmp_path / "cache"
    cache.mkdir()
    make(cache / "purlin-resume")
    result = cli(
        "find", "tmux", "--claude-dir", str(fixtures_copy), env={"XDG_CACHE_HOME": str(cache)}
    )
    line = _fails(result, 1, "cannot create the search index", reason, "XDG_CACHE_HOME")
    assert str(cache / "purlin-resume") in line


def test_an_unwritable_cache_folder_is_one_error_line_for_find(cli, fixtures_copy, repo, tmp_path):
    blocker = tmp_path / "cache-file"
    blocker.write_text("not a folder")
    result = cli(
        "find", "tmux", "--claude-dir", str(fixtures_copy), env={"XDG_CACHE_HOME": str(blocker)}
    )
    _fails(result, 1, "cannot create the search index", "XDG_CACHE_HOME")
    # resurrecting by ids needs no index, and a cache it cannot write is skipped
    _ok(
        cli(
            "resurrect",
            "--session",
            "short",
            "--yes",
            "--claude-dir",
            str(fixtures_copy),
            env={"XDG_CACHE_HOME": str(blocker)},
        )
    )


def test_spawn_tmux_uses_the_tmux_settings_when_no_socket_is_given(
    cli, fixtures_copy, repo, tmp_path, tmux_server
):
    from purlin_resume.core import tmux
    from tests.agents_setup import configure, prompts

    record = tmp_path / "agent"
    configure(repo, tmux_server, record, tmux_session="agents-here")
    args = ["resurrect", "--session", "short", "--yes", "--spawn", "tmux", "--json"]
    data = json.loads(_ok(cli(*args, "--claude-dir", str(fixtures_copy))).stdout)
    [received] = prompts(record, 1)
    assert received == data["prompt"].rstrip()  # a final newline is not typed
    info = tmux.pane_info(tmux_server, data["launch"]["pane"])
    assert info is not None
    assert info["session_name"] == "agents-here"


def test_a_session_id_given_as_a_bookmark_name_is_pointed_to_session(cli, fixtures_copy, repo):
    _fails(
        cli("resurrect", "55604662", "--yes", "--claude-dir", str(fixtures_copy)),
        1,
        "no bookmark named '55604662'",
        "'purlin-resume resurrect --session 55604662'",
    )
