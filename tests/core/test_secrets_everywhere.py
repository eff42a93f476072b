"""Secrets never leave: a corpus of fake secrets planted in a copy of a real transcript, in each
place a conversation holds text, plain and escaped, through every output and every file written;
none survives. Files holding conversation content are 0600 in 0700 folders under umask 022."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from purlin_resume.core import redact
from purlin_resume.core.project import Project
from purlin_resume.integration import githooks
from tests.conftest import FIXTURES
from tests.resurrection_data import session_with_command
from tests.secret_corpus import PLACES, SESSION, Planted, corpus, planted_session, spread

EXE = Path(sys.executable).with_name("purlin-resume")
ITEMS = corpus(11)


def test_the_corpus_is_big_and_varied_and_every_secret_is_found_in_its_line():
    assert len(ITEMS) >= 100
    assert len({item.kind for item in ITEMS}) >= 60
    for item in ITEMS:
        for text in (item.line, json.dumps(item.line)):
            done = redact.redact(f"before\n{text}\nafter")
            assert item.secret not in done.text, (item.kind, text)
            assert item.kind in done.counts, (item.kind, done.counts)
        twice = json.dumps(json.dumps(item.line))  # JSON printed inside JSON
        assert item.secret not in redact.redact(twice).text, (item.kind, twice)


def _surviving(text: str, items: list[Planted]) -> list[str]:
    return [f"{item.kind}: {item.line[:60]}" for item in items if item.secret in text]


def _ok(result):
    assert result.exit_code == 0, result.stderr
    return result


def _outputs(cli, claude: Path, out: Path) -> dict[str, str]:
    """Every way the conversation leaves through the command line, by name."""
    where = ["--claude-dir", str(claude)]
    runs: dict[str, str] = {}

    def run(name: str, *args: str) -> None:
        result = _ok(cli(*args, *where))
        runs[name] = result.stdout + result.stderr

    for extra in ([], ["--include-tools"], ["--include-thinking", "--include-tools"]):
        tag = "".join(extra)
        run(f"transcript{tag}", "transcript", SESSION, "--max-chars", "0", *extra)
        run(f"transcript --json{tag}", "transcript", SESSION, "--json", *extra)
        run(f"transcript -o{tag}", "transcript", SESSION, "-o", str(out / f"t{tag}.md"), *extra)
        for fmt in ("json", "md"):
            run(f"export {fmt}{tag}", "export", SESSION, "--format", fmt, *extra)
            run(
                f"export -o {fmt}{tag}",
                "export",
                SESSION,
                "--format",
                fmt,
                "-o",
                str(out / f"e{tag}.{fmt}"),
                *extra,
            )
    run("transcript digest", "transcript", SESSION, "--include-tools", "--max-chars", "2000")
    for method in ("full", "summarized", "hybrid"):
        resurrect = ("resurrect", "--session", SESSION, "--method", method, "--yes")
        run(f"resurrect {method}", *resurrect)
        run(f"resurrect {method} --json", *resurrect, "--json")
        run(f"resurrect {method} -o", *resurrect, "-o", str(out / f"r-{method}.md"))
    run("redact report", "redact", "report", SESSION)
    run("redact report --json", "redact", "report", SESSION, "--json")
    for path in sorted(out.iterdir()):
        runs[f"file {path.name}"] = path.read_text()
    return runs


@pytest.mark.parametrize("escaped", [False, True], ids=["plain", "escaped"])
@pytest.mark.parametrize("place", PLACES)
def test_no_planted_secret_survives_any_output(cli, fixtures_copy, repo, tmp_path, place, escaped):
    planted_session(fixtures_copy, {p: ITEMS if p == place else [] for p in PLACES}, escaped)
    out = tmp_path / "out"
    out.mkdir()
    survivors = {
        name: found
        for name, text in _outputs(cli, fixtures_copy, out).items()
        if (found := _surviving(text, ITEMS))
    }
    assert survivors == {}


def _files(*roots: Path) -> list[Path]:
    return [p for root in roots if root.exists() for p in root.rglob("*") if p.is_file()]


def _hook(event: str, payload: dict | str, root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root)}
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [str(EXE), "hook", event], input=text, capture_output=True, text=True,
        env=env, cwd=root, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("escaped", [False, True], ids=["plain", "escaped"])
def test_no_planted_secret_reaches_any_file_or_sink(
    cli, fixtures_copy, repo, tmp_path, monkeypatch, escaped
):
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    session_file = planted_session(fixtures_copy, spread(ITEMS), escaped)
    where = ["--claude-dir", str(fixtures_copy)]
    printed = []
    # find results and the search index on disk
    printed.append(_ok(cli("resurrect", "find", "please set configure", "--yes", *where)).stdout)
    # bookmarks: description and tags; the resurrection log: query and notes
    secret = next(i for i in ITEMS if i.kind == "github-token").secret
    printed.append(_ok(cli("bookmark", "add", "keys", "--session", SESSION, "--description", f"has {secret}",
                           "--tag", f"token={secret}", *where)).stdout)  # fmt: skip
    printed.append(_ok(cli("bookmark", "list", "--json", *where)).stdout)
    printed.append(
        _ok(cli("resurrect", "keys", "--yes", "--notes", f"used {secret}", *where)).stdout
    )
    printed.append(_ok(cli("resurrections", "--json", *where)).stdout)
    # hook-written checkpoints and the briefing that restores them
    payload = {"session_id": "hooked", "transcript_path": str(session_file), "cwd": str(repo)}
    compact = _hook(
        "pre-compact", {**payload, "hook_event_name": "PreCompact", "trigger": "auto"}, repo
    )
    assert compact.returncode == 0, compact.stderr
    checkpoint = repo / ".purlin" / "cache" / "checkpoints" / "hooked.md"
    assert checkpoint.is_file()
    start = _hook(
        "session-start", {**payload, "hook_event_name": "SessionStart", "source": "compact"}, repo
    )
    assert start.returncode == 0
    assert "additionalContext" in start.stdout
    printed.append(start.stdout)
    # a hook that fails logs a line, redacted
    bad = _hook("pre-compact", '{"session_id": "x", "cwd": "' + str(repo) + '", ' + secret, repo)
    assert bad.returncode == 0
    assert (repo / ".purlin" / "cache" / "hook.log").is_file()
    overflow = (
        Path(tempfile.gettempdir()) / f"purlin-resume-{os.getuid()}" / f"transcript-{SESSION}.md"
    )
    files = (
        _files(cache, fixtures_copy / "history", repo / ".purlin") + [overflow] * overflow.exists()
    )
    raw = [
        p
        for p in files
        if p.name.endswith(".tar.gz")
        or "/archive/" in p.as_posix()
        and "/projects/" in p.as_posix()
    ]
    assert any(p.name.endswith(".tar.gz") for p in raw)  # the archive keeps the raw transcripts...
    written = {str(p): p.read_bytes().decode("utf-8", "replace") for p in files if p not in raw}
    assert any(p.endswith(".sqlite") for p in written), sorted(written)  # the search index
    survivors = {
        name: found for name, text in [*written.items(), *enumerate(printed)]
        if (found := _surviving(text, ITEMS))
    }  # fmt: skip
    assert survivors == {}
    for path in raw:  # ...and is private
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_files_with_conversation_content_are_private_whatever_the_umask(
    cli, fixtures_copy, repo, tmp_path, monkeypatch, umask_022
):
    cache = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    where = ["--claude-dir", str(fixtures_copy)]
    # an existing hook log readable by all is tightened on its next write, and so is its folder
    log_dir = repo / ".purlin" / "cache"
    log_dir.mkdir(parents=True)
    os.chmod(log_dir, 0o755)
    (log_dir / "hook.log").write_text("{}\n")
    os.chmod(log_dir / "hook.log", 0o644)
    _ok(cli("resurrect", "find", "tmux module test setup", "--yes", *where))
    _ok(cli("bookmark", "add", "mine", "--session", "short", "--global", *where))
    _ok(cli("bookmark", "add", "here", "--session", "short", *where))
    assert _mode(repo / ".purlin" / "bookmarks.jsonl") == 0o600  # the project's own bookmarks
    _ok(cli("resurrect", "mine", "--yes", *where))
    session_file = next(fixtures_copy.glob("projects/*/short.jsonl"))
    payload = {"session_id": "s1", "transcript_path": str(session_file), "cwd": str(repo)}
    assert (
        _hook(
            "pre-compact", {**payload, "hook_event_name": "PreCompact", "trigger": "auto"}, repo
        ).returncode
        == 0
    )
    assert _hook("pre-compact", "{not json", repo).returncode == 0  # logged in hook.log
    private = _files(cache, fixtures_copy / "history", log_dir)
    assert {p.name for p in private} >= {
        "hook.log",
        "resurrection-log.jsonl",
        "bookmarks.jsonl",
        "s1.md",
    }
    assert any(p.name.endswith(".tar.gz") for p in private)
    assert any(p.suffix == ".sqlite" for p in private)
    assert any(p.name == "cache.sqlite" for p in private)  # with the extracted context
    for path in private:
        if path.name.endswith(".lock"):
            continue
        assert _mode(path) == 0o600, path
        assert _mode(path.parent) == 0o700, path.parent
    # a transcript written past --max-chars goes to a private file in a private folder
    folder = Path(tempfile.gettempdir()) / f"purlin-resume-{os.getuid()}"
    for old in folder.glob("transcript-*.md"):
        old.unlink()
    _ok(cli("transcript", "short", "--max-chars", "100", *where))
    (overflow,) = folder.glob("transcript-*.md")  # named after the session id its records carry
    assert _mode(overflow) == 0o600
    assert _mode(overflow.parent) == 0o700


CODE = [
    "token = Base.url_encode64(payload, padding: false)",
    "password = params[:password]",
    "api_key: str = Field(default=None)",
    "secret = os.environ['APP_SECRET']",
    "const token = await getToken();",
    "password: String!",
    "auth: AuthConfig",
    "export TOKEN=$GITHUB_TOKEN",
    'password: "${DB_PASSWORD}"',
    "token: ${{ secrets.NPM_TOKEN }}",
    "def check(password=password, token=None):",
    "self.secret = secret",
    "access_token = response.json()['access_token']",
    "| `max_tokens` | 4096 |",
    '"input_tokens": 1200, "output_tokens": 80',
    "redis://localhost:6379/0",
    "mkdir -p build && cp -p a b",
    "see https://example.com/a:b@c",  # no password in a path
]


@pytest.mark.parametrize("line", CODE)
def test_code_is_not_mangled(line):
    assert redact.redact(line).text == line


def test_real_transcripts_rendered_have_no_false_positives(cli, fixtures_copy):
    """Measured on what users see: every session and agent, rendered with tools and thinking."""
    from tests.core.test_redact import PHOENIX_SECRET

    listed = json.loads(
        _ok(cli("sessions", "--all", "--json", "--claude-dir", str(fixtures_copy))).stdout
    )
    ids = [s["id"] for s in listed["sessions"]]
    assert len(ids) >= 5
    for session in ids:
        for fmt in ("json", "md"):
            result = _ok(cli("export", session, "--format", fmt, "--include-tools", "--include-thinking",
                             "--no-redact", "--claude-dir", str(fixtures_copy)))  # fmt: skip
            found = [f for f in redact.find(result.stdout) if f.secret != PHOENIX_SECRET]
            assert found == [], (session, fmt, [(f.kind, f.secret[:16]) for f in found])


def test_the_no_secrets_git_hook_catches_planted_secrets_in_agent_history(repo):
    planted = [
        i
        for i in ITEMS
        if i.kind
        in ("assigned-secret", "url-credentials", "aws-secret-key", "private-key", "bearer-token")
    ][:5]
    entries = [
        {"agent_id": f"a{n}", "task_description": item.line, "status": "spawned"}
        for n, item in enumerate(planted)
    ]
    history = repo / ".planning" / "agent-history.json"
    history.parent.mkdir()
    history.write_text(json.dumps({"version": "1.2", "entries": entries}, indent=2))
    verdict = githooks.no_secrets(Project(repo), [".planning/agent-history.json"])
    lines = {problem.split(":")[1] for problem in verdict.problems}
    assert len(lines) == len(planted) == 5, verdict.problems  # every planted entry is named


def test_config_adds_patterns_and_an_allow_list(cli, fixtures_copy, repo):
    (repo / ".purlin").mkdir()
    (repo / ".purlin" / "config.json").write_text(json.dumps({"resume": {"redact": {
        "extra": [{"kind": "Internal Ticket", "pattern": r"ACME-[0-9]{6}"}, r"corp_(?P<s>[a-z]{12})"],
        "allow": [r"AKIAIOSFODNN7EXAMPLE"],
    }}}))  # fmt: skip
    assert cli("trust").exit_code == 0  # the allow-list loosens: only from a trusted project
    from tests.resurrection_data import session

    session(
        fixtures_copy,
        "cfg",
        str(repo),
        [("user", "ACME-123456 corp_abcdefghijkl AKIAIOSFODNN7EXAMPLE"), ("agent", "ACME-654321")],
    )
    out = _ok(cli("transcript", "cfg", "--claude-dir", str(fixtures_copy))).stdout
    assert "ACME-123456" not in out
    assert "[REDACTED:internal-ticket:" in out
    assert "abcdefghijkl" not in out
    assert "corp_[REDACTED:custom:" in out
    assert "AKIAIOSFODNN7EXAMPLE" in out  # allowed: the documented example key
    assert "ACME-654321" not in out  # a text the built-in rules find nothing in
    (repo / ".purlin" / "config.json").write_text('{"resume": {"redact": {"extra": ["("]}}}')
    bad = cli("transcript", "cfg", "--claude-dir", str(fixtures_copy))
    assert bad.exit_code == 1
    assert "resume.redact.extra[0]" in bad.stderr
    redact.configure()


def test_redact_report_names_kind_place_and_line_and_hides_the_secret(cli, fixtures_copy, repo):
    planted_session(fixtures_copy, spread(ITEMS[:3]), escaped=False)
    report = json.loads(
        _ok(cli("redact", "report", SESSION, "--json", "--claude-dir", str(fixtures_copy))).stdout
    )
    places = {"user text", "tool input", "tool result", "assistant text", "thinking"}
    assert report["by_place"].keys() >= places
    assert report["by_kind"]["aws-access-key"] >= 5
    assert all(f["line"] > 1 for f in report["findings"])
    # each finding is shown as its placeholder: no character of the secret
    assert all(redact.PLACEHOLDER.fullmatch(f["placeholder"]) for f in report["findings"])
    text = _ok(cli("redact", "report", SESSION, "--claude-dir", str(fixtures_copy))).stdout
    for item in ITEMS[:3]:
        assert item.secret not in text
        assert f"{item.secret[:2]}…{item.secret[-2:]}" not in text
    assert "aws-access-key" in text
    missing = cli("redact", "report", "nope", "--claude-dir", str(fixtures_copy))
    assert missing.exit_code == 1
    assert missing.stderr.startswith("error: ")


@pytest.mark.parametrize("form", [(), ("--json",)], ids=["text", "json"])
def test_redact_report_prints_the_report_alone(cli, fixtures_copy, repo, form):
    """The report counts the secrets; no "redacted N secret(s)" note repeats it on stderr (the
    note is for output whose own text had secrets taken out: the report shows placeholders)."""
    planted_session(fixtures_copy, spread(ITEMS), escaped=False)
    result = cli("redact", "report", SESSION, *form, "--claude-dir", str(fixtures_copy))
    assert result.exit_code == 0, result.stderr
    assert "secret" in result.stdout
    assert result.stderr == ""


def test_a_huge_value_is_scanned_in_time_and_large_strings_are_not_slower():
    text = (
        (FIXTURES / "projects").rglob("*.jsonl").__next__().read_text()
        if FIXTURES.is_dir()
        else "x = 1\n" * 100_000
    )
    big = (text * (2_000_000 // max(len(text), 1) + 1))[:2_000_000] + "\nPASSWORD=hunter2xyz\n"
    assert redact.redact(big).counts.get("assigned-secret", 0) >= 1


def test_hostile_values_are_redacted_and_finish():
    deep = json.loads("[" * 900 + '"PASSWORD=hunter2abc"' + "]" * 900)
    clean, counts = redact.redact_data(deep)
    assert counts == {"assigned-secret": 1}
    assert "hunter2abc" not in json.dumps(clean)
    begins = "-----BEGIN RSA PRIVATE KEY-----" * 2000  # no END: once quadratic
    assert redact.redact(begins).text == begins
    repeated = "password=" * 3000
    assert "password=password" not in redact.redact(repeated).text
    assert redact.redact("\\\\" * 50_000 + "password=abc").counts == {"assigned-secret": 1}


def test_output_is_redacted_when_the_working_folder_is_gone(
    cli, fixtures_copy, tmp_path, monkeypatch
):
    from tests.resurrection_data import session

    secret = next(i for i in ITEMS if i.kind == "stripe-key").secret
    session(fixtures_copy, "gone", "/srv/gone", [("user", f"pay with {secret}")])
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)  # restored after the test
    gone.rmdir()
    out = _ok(cli("transcript", "gone", "--claude-dir", str(fixtures_copy))).stdout
    assert secret not in out
    assert "[REDACTED:stripe-key:" in out


def test_redact_report_counts_a_secret_where_a_later_text_repeats_it(cli, tmp_path):
    password = "S3cr3tPassw0rdXyz"
    claude = tmp_path / "claude"
    session_with_command(
        claude, "repeats", "/srv/app", f"mysql -u root -p{password}", f"It works: {password}"
    )
    found = _ok(cli("redact", "report", "repeats", "--json", "--claude-dir", str(claude))).stdout
    places = [f["place"] for f in json.loads(found)["findings"]]
    assert places == ["tool input", "assistant text"]
    assert password not in found
