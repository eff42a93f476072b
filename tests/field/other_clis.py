"""Run the real Codex CLI, Gemini CLI and opencode offline against ``ScriptedAPIs``.

The CLIs come from npm into the field cache (``install-other-clis`` beside this file puts them
there); each run gets a private HOME with a git project in it, and the CLI is pointed at the
stand-in on 127.0.0.1 through its own configuration. ``record`` writes the sessions the fixture
folders under ``tests/fixtures/<cli>`` hold (``python -m tests.field.record_sessions``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import missing_binary
from tests.field.harness import CACHE
from tests.field.scripted_apis import ScriptedAPIs

BINARIES = {
    "codex": CACHE / "codex" / "node_modules" / ".bin" / "codex",
    "gemini": CACHE / "gemini" / "node_modules" / ".bin" / "gemini",
    "opencode": CACHE / "opencode" / "node_modules" / ".bin" / "opencode",
}
PACKAGES = {
    "codex": CACHE / "codex/node_modules/@openai/codex/package.json",
    "gemini": CACHE / "gemini/node_modules/@google/gemini-cli/package.json",
    "opencode": CACHE / "opencode/node_modules/opencode-ai/package.json",
}


def version(cli: str) -> str | None:
    try:
        return json.loads(PACKAGES[cli].read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def need(cli: str) -> None:
    """Skip the test when ``cli`` is not in the field cache (naming what installs it); in CI,
    fail it."""
    if not installed(cli):
        missing_binary(cli, "tests/field/install-other-clis")


def installed(cli: str) -> bool:
    return BINARIES[cli].exists()


class Home:
    """A private HOME with a git project ``project`` in it, for one CLI run."""

    def __init__(self, root: Path):
        shutil.rmtree(root, ignore_errors=True)
        self.root = root
        self.project = root / "project"
        self.project.mkdir(parents=True)
        git = ["git", "-c", "user.name=field", "-c", "user.email=field@example.invalid"]
        subprocess.run([*git, "init", "-q", "-b", "main"], cwd=self.project, check=True)
        (self.project / "notes.txt").write_text("field notes\n")
        subprocess.run([*git, "add", "."], cwd=self.project, check=True)
        subprocess.run([*git, "commit", "-qm", "start"], cwd=self.project, check=True)

    def env(self, **extra: str) -> dict[str, str]:
        return {
            "HOME": str(self.root),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            **extra,
        }

    def run(self, args: list[str], env: dict[str, str], timeout: float = 180, cwd=None):
        """``args`` run headless in ``cwd`` (the home's project)."""
        return subprocess.run(
            args,
            cwd=cwd or self.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def interrupted(self, args: list[str], env: dict[str, str], api: ScriptedAPIs) -> int:
        """Start ``args``, wait until the model holds a request, then Ctrl-C it (SIGINT)."""
        process = subprocess.Popen(
            args,
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            api.hung.wait(120)
            time.sleep(1.0)
            os.killpg(process.pid, signal.SIGINT)
            try:
                return process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                return process.wait(30)
        finally:
            api.release()


# Codex CLI -------------------------------------------------------------------------------------

_THREAD_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _spawned_agent(body: dict) -> dict:
    """wait_agent's arguments: the id spawn_agent answered with (the newest output item)."""
    for item in reversed(body.get("input") or []):
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            found = _THREAD_ID.findall(json.dumps(item.get("output")))
            if found:
                return {"targets": [found[0]], "timeout_ms": 60000}
    return {"targets": [], "timeout_ms": 10000}


def codex_config(home: Home, api: ScriptedAPIs) -> dict[str, str]:
    codex_home = home.root / ".codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "scripted-model"\n'
        'model_provider = "field"\n'
        "[model_providers.field]\n"
        'name = "field"\n'
        f'base_url = "{api.url}/v1"\n'
        'env_key = "FIELD_API_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )
    return home.env(CODEX_HOME=str(codex_home), FIELD_API_KEY="sk-field-not-a-key")


# Gemini CLI ------------------------------------------------------------------------------------


def gemini_config(home: Home, api: ScriptedAPIs) -> dict[str, str]:
    folder = home.root / ".gemini"
    folder.mkdir(exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True},
        "privacy": {"usageStatisticsEnabled": False},
    }
    (folder / "settings.json").write_text(json.dumps(settings))
    return home.env(
        GOOGLE_GEMINI_BASE_URL=api.url,
        GEMINI_API_KEY="field-not-a-key",
        GEMINI_CLI_NO_RELAUNCH="true",
    )


def gemini_with_hooks(field, api: ScriptedAPIs, prompt: str) -> dict[str, str]:
    """Gemini CLI against ``api`` with our hooks (``install --cli gemini --user``), run headless
    in the field project with ``prompt``; the variables that reach its data and the stand-in."""
    home = Home(field.home / "gemini-user")
    env = {**gemini_config(home, api), "PATH": field.env["PATH"]}
    env["GEMINI_CLI_HOME"] = str(home.root)
    installed = field.purlin("install", "--cli", "gemini", "--user", env=env)
    assert installed.returncode == 0, installed.stderr
    command = RECORDINGS["gemini"].command()
    ran = home.run([*command, prompt], env, cwd=field.project)
    assert ran.returncode == 0, ran.stderr
    keep = ("GEMINI_CLI_HOME", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY", "GEMINI_CLI_NO_RELAUNCH")
    return {k: env[k] for k in keep}


def checkpoints_of(field, session: str) -> list[str]:
    found = sorted((field.project / ".purlin" / "cache").glob(f"**/{session}*.md"))
    return [path.read_text() for path in found]


# opencode --------------------------------------------------------------------------------------


def opencode_config(home: Home, api: ScriptedAPIs) -> dict[str, str]:
    folder = home.root / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": "field/scripted-model",
        "small_model": "field/scripted-model",
        "provider": {
            "field": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "field",
                "options": {"baseURL": f"{api.url}/v1", "apiKey": "field-not-a-key"},
                "models": {"scripted-model": {"name": "scripted model", "tool_call": True}},
            }
        },
        "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow"},
    }
    (folder / "opencode.json").write_text(json.dumps(config, indent=1))
    return home.env(
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
        XDG_CONFIG_HOME=str(home.root / ".config"),
        XDG_DATA_HOME=str(home.root / ".local" / "share"),
        XDG_STATE_HOME=str(home.root / ".local" / "state"),
        XDG_CACHE_HOME=str(home.root / ".cache"),
    )


# the recordings ---------------------------------------------------------------------------------


def _codex_parent(api: ScriptedAPIs) -> None:
    api.reply(
        "FIELD-PARENT",
        tool="spawn_agent",
        namespace="multi_agent_v1",
        args={"message": "FIELD-CHILD count the files in the project"},
        last=True,
    )
    api.reply("FIELD-CHILD", tool="exec_command", args={"cmd": "ls | wc -l"}, last=True)
    api.reply("Process exited", text="There is 1 file.", last=True)
    api.reply("FIELD-PARENT", tool="wait_agent", namespace="multi_agent_v1", args=_spawned_agent)
    api.reply("FIELD-PARENT", text="The child agent counted 1 file.")


def _gemini_parent(api: ScriptedAPIs) -> None:
    api.reply(
        "FIELD-PARENT",
        tool="invoke_agent",
        args={"agent_name": "generalist", "prompt": "FIELD-CHILD count the files in the project"},
        last=True,
    )
    api.reply("FIELD-CHILD", tool="run_shell_command", args={"command": "ls | wc -l"}, last=True)
    api.reply(
        "Output: 1",
        tool="complete_task",
        args={"result": {"response": "There is 1 file."}},
        last=True,
    )
    api.reply("FIELD-PARENT", text="The subagent counted 1 file.")


def _opencode_parent(api: ScriptedAPIs) -> None:
    api.reply(
        "FIELD-PARENT",
        tool="task",
        args={
            "description": "Count the files",
            "prompt": "FIELD-CHILD count the files in the project",
            "subagent_type": "general",
        },
        last=True,
    )
    api.reply(
        "FIELD-CHILD",
        tool="bash",
        args={"command": "ls | wc -l", "description": "Count files"},
        last=True,
    )
    api.reply("1", text="There is 1 file.", last=True)
    api.reply("FIELD-PARENT", text="The subagent counted 1 file.")


_CODEX_COMPACTING = "model_auto_compact_token_limit = 1000\n"
_GEMINI_COMPACTING = {"model": {"compressionThreshold": 0.0001}}  # of 1,048,576 tokens
_OPENCODE_COMPACTING = {
    "provider": {
        "field": {"models": {"scripted-model": {"limit": {"context": 1000, "output": 200}}}}
    }
}


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + path.read_text())


def _merged(into: dict, more: dict) -> dict:
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merged(into[key], value)
        else:
            into[key] = value
    return into


def _settings(path: Path, more: dict) -> None:
    path.write_text(json.dumps(_merged(json.loads(path.read_text()), more), indent=1))


@dataclass(frozen=True)
class Recording:
    """How one CLI is run for the three fixture sessions: its command before the prompt, its
    configuration, its shell tool and arguments, the script of the session that starts a
    child, and where it keeps its sessions."""

    command: Callable[[], list[str]]
    config: Callable[[Home, ScriptedAPIs], dict[str, str]]
    shell: tuple[str, dict[str, Any]]
    parent: Callable[[ScriptedAPIs], None]
    parent_prompt: str
    data: str  # relative to HOME
    compacting: Callable[[Home], None] | None  # set the CLI to compact a context of 1,000 tokens
    summary_request: str  # a mark of the request that asks the model for the summary
    summary_asks: int = 1  # how many such requests (Gemini CLI asks again to check its summary)
    # the command that goes on with the latest session, where the CLI compacts only at a later
    # prompt (Gemini CLI: a history it can split at a prompt of the user's)
    resumed: Callable[[], list[str]] | None = None


RECORDINGS = {
    "codex": Recording(
        lambda: (
            [str(BINARIES["codex"]), "exec", "--skip-git-repo-check"]
            + ["--sandbox", "workspace-write"]
        ),
        codex_config,
        ("exec_command", {"cmd": "git log --oneline"}),
        _codex_parent,
        "FIELD-PARENT ask a child agent to count the files",
        ".codex",
        lambda home: _prepend(home.root / ".codex/config.toml", _CODEX_COMPACTING),
        "CONTEXT CHECKPOINT COMPACTION",
    ),
    "gemini": Recording(
        lambda: [str(BINARIES["gemini"]), "--yolo", "-m", "gemini-2.5-pro", "-p"],
        gemini_config,
        ("run_shell_command", {"command": "git log --oneline"}),
        _gemini_parent,
        "FIELD-PARENT ask the generalist to count the files",
        ".gemini",
        lambda home: _settings(home.root / ".gemini/settings.json", _GEMINI_COMPACTING),
        "<state_snapshot>",
        2,
        lambda: (
            [str(BINARIES["gemini"]), "--yolo", "-m", "gemini-2.5-pro", "--resume", "latest"]
            + ["-p"]
        ),
    ),
    "opencode": Recording(
        lambda: [str(BINARIES["opencode"]), "run"],
        opencode_config,
        ("bash", {"command": "git log --oneline", "description": "Show the git log"}),
        _opencode_parent,
        "FIELD-PARENT ask a subagent to count the files",
        ".local/share/opencode",
        lambda home: _settings(home.root / ".config/opencode/opencode.json", _OPENCODE_COMPACTING),
        "context summarization agent",
    ),
}


def record(cli: str, root: Path) -> Path:
    """Run ``cli`` for a session with a shell command, one that starts a child (subagent)
    session, and one cut off by Ctrl-C while the model answers; the folder it keeps them in."""
    how, home = RECORDINGS[cli], Home(root)
    with ScriptedAPIs() as api:
        env = how.config(home, api)
        tool, args = how.shell
        api.reply("FIELD-SHELL", tool=tool, args=args, last=True)
        api.reply("start", text="The project has one commit: start.", last=True)
        home.run([*how.command(), "FIELD-SHELL show the git log"], env)
    with ScriptedAPIs() as api:
        env = how.config(home, api)
        how.parent(api)
        home.run([*how.command(), how.parent_prompt], env)
    with ScriptedAPIs() as api:
        env = how.config(home, api)
        api.reply("FIELD-STOP", text="never sent", hang=True, last=True)
        home.interrupted([*how.command(), "FIELD-STOP this turn is cut off"], env, api)
    return home.root / how.data


def record_compaction(cli: str, root: Path, later_minute: bool = False) -> Path:
    """Run ``cli`` for one session whose context overflows after a shell command (the stand-in
    reports 5,000 prompt tokens against a limit of about 1,000), so that the CLI compacts it
    with a scripted summary and goes on, then resume it (``later_minute``: once the clock's
    minute has turned, as a file name with the minute tells); the folder it keeps the session
    in."""
    how, home = RECORDINGS[cli], Home(root)
    assert how.compacting is not None, f"{cli} records no compaction"
    with ScriptedAPIs() as api:
        env = how.config(home, api)
        how.compacting(home)
        tool, args = how.shell
        api.reply("FIELD-COMPACT", tool=tool, args=args, last=True, tokens=5000)
        for _ in range(how.summary_asks):
            api.reply(how.summary_request, text=SUMMARY, side=True)
        api.reply("", text="The project has one commit: start.")
        home.run([*how.command(), "FIELD-COMPACT show the git log"], env)
        if how.resumed is not None:
            if later_minute:
                _next_minute()
            home.run([*how.resumed(), "FIELD-AGAIN is it still one commit?"], env)
    return home.root / how.data


def _next_minute() -> None:
    """Wait until the UTC clock's minute has turned (at most a minute: the clock moves)."""
    minute = time.gmtime().tm_min
    while time.gmtime().tm_min == minute:
        time.sleep(0.5)


SUMMARY = "FIELD-SUMMARY: the user asked for the git log; it shows one commit, start."


def trust_codex(codex_home: Path, folder: Path) -> None:
    """Codex CLI trusts ``folder`` (else its screen asks first)."""
    with open(codex_home / "config.toml", "a") as config:
        config.write(f'[projects."{folder}"]\ntrust_level = "trusted"\n')


def codex_exec(
    home: Home, api: ScriptedAPIs, prompt: str, cwd: Path | None = None, *extra: str, path=None
) -> str:
    """``codex exec PROMPT`` in ``cwd`` (the home's project); the id of the session it wrote.
    ``extra``: more options; ``path``: the PATH it runs with."""
    env = codex_config(home, api)
    if path:
        env["PATH"] = path
    done = subprocess.run(
        [*RECORDINGS["codex"].command(), *extra, prompt],
        cwd=cwd or home.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    found = re.search(r"^session id: (\S+)$", done.stderr, re.M)
    assert found, (done.stdout, done.stderr)
    return found.group(1)
