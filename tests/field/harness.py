"""Run the real Claude Code against the scripted model, in a private HOME and git project.

``Field`` is what the ``field`` fixture hands a test::

    field.model.reply(conversation("MARK"), bash("ls"))   # script the model
    run = field.claude("MARK list the files")                 # claude -p, waits for the end
    run.session_id, run.result                                # from --output-format json
    field.hooks(event="SessionStart")                         # every hook call: payload, stdout
    field.purlin("agents", run.session_id, "--json")          # the product, as a subprocess
    field.session_file(run.session_id), field.agent_files(run.session_id)

Each test gets a fresh HOME (``field.home``; Claude Code's folder is ``field.claude_dir``) and a
git project (``field.project``) with ``purlin-resume install`` applied. ``purlin-resume`` runs
through a shim that keeps, per hook call, the payload Claude Code sent, what our hook printed,
and the ``CLAUDE_CODE_SESSION_ID`` it saw. Every test runs on each Claude Code version of
``CLAUDE_CODE_VERSIONS`` beside this file (the pinned latest first, then the oldest release of
the last six months), from the cache that ``install-claude-code`` fills; ``$PURLIN_FIELD_CLAUDE``
(binaries separated by ``:``) runs other ones instead. ``field.version`` says which one runs;
where the versions behave differently, the test checks each one's behaviour (``SINCE``).
When a test ends, every process it started is stopped (``Field.stop_all``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.field.scripted_model import ScriptedModel

HERE = Path(__file__).resolve().parent
VERSIONS = (HERE / "CLAUDE_CODE_VERSIONS").read_text().split()
PINNED = VERSIONS[0]
# Read once at import, before any test points HOME at a temp folder.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "purlin-field"
DEFAULT_TOOLS = "Bash Agent Read Write Edit"


def cached_binary(version: str) -> Path:
    return CACHE / f"claude-code-{version}" / "bin" / "claude"


def claude_binary(version: str = PINNED) -> Path | None:
    """The Claude Code binary to test: the first of ``$PURLIN_FIELD_CLAUDE``, else the cached
    ``version``."""
    explicit = os.environ.get("PURLIN_FIELD_CLAUDE")
    if explicit:
        return Path(explicit.split(":")[0])
    path = cached_binary(version)
    return path if path.exists() else None


def binary_version(binary: Path) -> str:
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    return out.stdout.split()[0] if out.stdout.split() else ""


@dataclass(frozen=True)
class Version:
    """One Claude Code version the field tests run on, and its binary (None: not installed)."""

    number: str
    binary: Path | None

    def __str__(self) -> str:
        return self.number

    def at_least(self, other: str) -> bool:
        return _numbers(self.number) >= _numbers(other)


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def versions() -> list[Version]:
    """The versions to run: each binary of ``$PURLIN_FIELD_CLAUDE``, else ``VERSIONS`` from the
    cache."""
    explicit = os.environ.get("PURLIN_FIELD_CLAUDE")
    if explicit:
        return [Version(binary_version(Path(p)) or p, Path(p)) for p in explicit.split(":") if p]
    return [Version(v, p if (p := cached_binary(v)).exists() else None) for v in VERSIONS]


# Behaviour that differs between the tested versions: the first version known to show the newer
# one (it changed after 2.1.197, by 2.1.330; the release in between is not pinned down).
SINCE = {
    # The Agent tool returns at once (``async_launched``): PostToolUse names a subagent that still
    # runs. Before, a foreground subagent returns when it ends: one cut off gets no PostToolUse.
    "background subagents": "2.1.330",
    # MCP tools are deferred: the model fetches their schema with ToolSearch before calling one.
    # Before, they are offered in the first request and there is no ToolSearch.
    "deferred MCP tools": "2.1.330",
}


def _text_of(path: Path) -> str:
    """A file the shim writes, "" while it is not there yet (an async hook may still run)."""
    try:
        return path.read_text()
    except OSError:
        return ""


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


@dataclass
class HookCall:
    """One call Claude Code made to our hook: what it sent, what we printed."""

    event: str  # our hook name, e.g. "session-start"
    payload: dict[str, Any]
    stdout: str
    env_session_id: str | None  # CLAUDE_CODE_SESSION_ID as the hook saw it
    seconds: float | None = None  # how long the call took, shim included (None: still running)

    @property
    def hook_event_name(self) -> str | None:
        return self.payload.get("hook_event_name")


@dataclass
class ClaudeRun:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> dict[str, Any]:
        """The ``--output-format json`` result document ({} when there is none)."""
        for line in reversed(self.stdout.splitlines()):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("type") == "result":
                return data
        return {}

    @property
    def session_id(self) -> str | None:
        return self.output.get("session_id")

    @property
    def result(self) -> str | None:
        return self.output.get("result")


_SHIM = """#!/usr/bin/env bash
# purlin-resume, keeping a copy of every hook call's payload and output for the field tests.
if [ "$1" != hook ]; then exec {real} "$@"; fi
dir={calls}/$(date +%s%N)-$$-$2
mkdir -p "$dir"
printf '%s' "${{CLAUDE_CODE_SESSION_ID-}}" > "$dir/env_session_id"
tee "$dir/payload.json" | {real} "$@" | tee "$dir/stdout"
status=${{PIPESTATUS[1]}}
date +%s%N > "$dir/ended"
exit "$status"
"""


class Field:
    """A private HOME, a git project with our install, the scripted model and the real claude."""

    def __init__(self, root: Path, version: Version, model: ScriptedModel):
        assert version.binary is not None
        self.root = root
        self.version = version
        self.binary = binary = version.binary
        self.model = model
        self.home = root / "home"
        self.project = self.home / "src" / "project"  # projects live in the user's home
        self.claude_dir = self.home / ".claude"
        self.calls_dir = root / "hook-calls"
        self.bin_dir = root / "bin"
        for folder in (self.project, self.calls_dir, self.bin_dir):
            folder.mkdir(parents=True, exist_ok=True)
        real = Path(sys.executable).parent / "purlin-resume"
        shim = self.bin_dir / "purlin-resume"
        shim.write_text(_SHIM.format(real=real, calls=self.calls_dir))
        shim.chmod(0o755)
        (self.bin_dir / "claude").symlink_to(binary)  # what revive and resurrect start
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("CLAUDE", "ANTHROPIC", "PURLIN_", "TMUX", "XDG_"))
        }
        self.env.update(
            HOME=str(self.home),
            PATH=f"{self.bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            ANTHROPIC_BASE_URL=model.url,
            ANTHROPIC_API_KEY="sk-ant-field-test-key",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        self.git("init", "-q", "-b", "main")
        (self.project / "README.md").write_text("# field project\n")
        self.git("add", "README.md")
        self.git("commit", "-q", "-m", "initial commit")
        installed = self.purlin("install")
        assert installed.returncode == 0, installed.stderr
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "install purlin-resume")

    # running things ----------------------------------------------------------------------------
    def git(self, *args: str) -> str:
        env = {
            **self.env,
            "GIT_AUTHOR_NAME": "Field",
            "GIT_AUTHOR_EMAIL": "field@example.com",
            "GIT_COMMITTER_NAME": "Field",
            "GIT_COMMITTER_EMAIL": "field@example.com",
        }
        return subprocess.run(
            ["git", *args], cwd=self.project, env=env, check=True, capture_output=True, text=True
        ).stdout

    def purlin(self, *args: str, input: str | None = None, env: dict | None = None):
        """``purlin-resume ARGS`` in the project, as the user would run it."""
        return subprocess.run(
            [str(self.bin_dir / "purlin-resume"), *args],
            cwd=self.project,
            env={**self.env, **(env or {})},
            input=input,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def claude_args(self, prompt: str | None, *args: str, tools: str = DEFAULT_TOOLS) -> list[str]:
        argv = [str(self.binary), "-p", "--output-format", "json"]
        if tools:
            argv += ["--allowedTools", tools]
        argv += list(args)
        if prompt is not None:
            argv += ["--", prompt]
        return argv

    def claude(
        self,
        prompt: str | None,
        *args: str,
        tools: str = DEFAULT_TOOLS,
        timeout: float = 120,
        env: dict | None = None,
    ) -> ClaudeRun:
        """``claude -p PROMPT ARGS`` in the project; waits for it to end. ``env``: added
        variables (PURLIN_ROLE...)."""
        argv = self.claude_args(prompt, *args, tools=tools)
        process = subprocess.Popen(
            argv,
            cwd=self.project,
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop_all()
            raise
        return ClaudeRun(argv, process.returncode, stdout, stderr)

    def start(self, prompt: str | None, *args: str, tools: str = DEFAULT_TOOLS) -> subprocess.Popen:
        """``claude -p`` without waiting (to stop it mid-way); output goes to files under root."""
        argv = self.claude_args(prompt, *args, tools=tools)
        return subprocess.Popen(
            argv,
            cwd=self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=open(self.root / "claude.out", "w"),  # noqa: SIM115
            stderr=open(self.root / "claude.err", "w"),  # noqa: SIM115
            start_new_session=True,
        )

    def shows(self, behaviour: str) -> bool:
        """Whether the version under test shows the newer side of ``behaviour`` (see ``SINCE``)."""
        return self.version.at_least(SINCE[behaviour])

    def started_processes(self) -> list[int]:
        """Every process still running with this field's HOME: claude, its hooks and MCP
        servers, and what revive and resurrect started in tmux."""
        marker = f"HOME={self.home}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if marker in environ.split(b"\0"):
                found.append(int(entry.name))
        return found

    def stop_all(self) -> None:
        """Stop every process this field started (``started_processes``): TERM, then KILL."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = self.started_processes()
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + 5
            while pids and time.monotonic() < deadline:
                pids = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not _zombie(pid)]
                time.sleep(0.1)

    @staticmethod
    def stop(process: subprocess.Popen, sig: int = signal.SIGINT, timeout: float = 30) -> int:
        """Stop a started claude as a user would (Ctrl-C by default); kill it if it lingers."""
        process.send_signal(sig)
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait(10)

    def settle_interactive(self, tmux_socket: Path) -> None:
        """Make the interactive client start straight at its prompt, as for a user who has used
        it before: onboarding done, this project trusted, the API key approved (all in
        ``~/.claude.json``); and point revive and resurrect at the private tmux server."""
        state_path = self.home / ".claude.json"
        state = json.loads(state_path.read_text()) if state_path.exists() else {}
        state.update(hasCompletedOnboarding=True, theme="dark")
        state["customApiKeyResponses"] = {
            "approved": [self.env["ANTHROPIC_API_KEY"][-20:]],
            "rejected": [],
        }
        project = state.setdefault("projects", {}).setdefault(str(self.project), {})
        project.update(hasTrustDialogAccepted=True, hasCompletedProjectOnboarding=True)
        state_path.write_text(json.dumps(state, indent=2))
        # the user's own settings: a project's config may not name a tmux server
        config = self.home / ".config" / "purlin-resume" / "config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            json.dumps({"resume": {"tmux_socket": str(tmux_socket), "agent_ready_timeout": 90}})
        )

    # what was recorded -------------------------------------------------------------------------
    def hooks(self, event: str | None = None) -> list[HookCall]:
        """Every hook call so far, in order; only ``event`` (our name or Claude Code's) if given."""
        calls = []
        for folder in sorted(self.calls_dir.iterdir(), key=lambda p: int(p.name.split("-")[0])):
            name = folder.name.split("-", 2)[2]
            try:
                payload = json.loads((folder / "payload.json").read_text() or "{}")
            except (OSError, ValueError):
                payload = {}
            ended = _text_of(folder / "ended").strip()
            started = int(folder.name.split("-")[0])
            call = HookCall(
                name,
                payload,
                _text_of(folder / "stdout"),
                _text_of(folder / "env_session_id") or None,
                (int(ended) - started) / 1e9 if ended else None,
            )
            if event in (None, call.event, call.hook_event_name):
                calls.append(call)
        return calls

    def projects_dir(self) -> Path:
        return self.claude_dir / "projects"

    def session_file(self, session_id: str) -> Path:
        found = list(self.projects_dir().glob(f"*/{session_id}.jsonl"))
        assert found, f"no transcript for {session_id} under {self.projects_dir()}"
        return found[0]

    def agent_files(self, session_id: str) -> list[Path]:
        return sorted(self.projects_dir().glob(f"*/{session_id}/subagents/agent-*.jsonl"))

    def written_files(self) -> list[Path]:
        """Every file under HOME (the project too) except the project's ``.git``."""
        git = self.project / ".git"
        return [p for p in self.home.rglob("*") if p.is_file() and git not in p.parents]

    @staticmethod
    def records(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def history(self) -> dict[str, Any]:
        return json.loads((self.project / ".planning" / "agent-history.json").read_text())

    def observe(self) -> dict[str, Any]:
        """What this Claude Code version showed us: record types, hook payload keys, request
        keys, files and meta keys (``tests/field/latest`` compares them between versions)."""
        kinds, files, meta = set(), set(), set()
        sessions = {p.stem for p in self.projects_dir().glob("*/*.jsonl")}
        for path in self.projects_dir().rglob("*"):
            if not path.is_file():
                continue
            name = path.relative_to(self.projects_dir()).as_posix().split("/", 1)[1]
            for session in sessions:
                name = name.replace(session, "<session>")
            name = re.sub(r"agent-[0-9a-f]+", lambda m: f"agent-<{len(m[0]) - 6} hex>", name)
            files.add(name)
            if path.suffix == ".jsonl":
                for line in path.read_text(errors="replace").splitlines():
                    try:
                        record = json.loads(line)
                    except ValueError:
                        kinds.add("(malformed)")
                        continue
                    sub = record.get("subtype") or (record.get("attachment") or {}).get("type")
                    kinds.add(f"{record.get('type')}/{sub}" if sub else str(record.get("type")))
            elif path.name.endswith(".meta.json"):
                meta.update(json.loads(path.read_text()))
        hooks: dict[str, set] = {}
        for call in self.hooks():
            hooks.setdefault(call.hook_event_name or call.event, set()).update(call.payload)
        requests = set()
        for request in self.model.messages:
            requests.update(request.body)
        return {
            "record_types": sorted(kinds),
            "files": sorted(files),
            "meta_keys": sorted(meta),
            "hook_payload_keys": {event: sorted(keys) for event, keys in sorted(hooks.items())},
            "request_keys": sorted(requests),
        }

    def wait_for(self, condition, timeout: float = 60, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}")
