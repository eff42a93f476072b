"""Run the real Codex CLI, Gemini CLI and opencode offline against ``ScriptedAPIs``.

The CLIs come from npm into the field cache (``install-other-clis`` beside this file puts them
there); each run gets a private HOME with a git project in it, and the CLI is pointed at the
stand-in on 127.0.0.1 through its own configuration. ``record_*`` write the sessions the fixture
folders under ``tests/fixtures/<cli>`` hold (``python -m tests.field.record_sessions OUT``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

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


def installed(cli: str) -> bool:
    return BINARIES[cli].exists()


def need(cli: str) -> None:
    """Skip the test when ``cli`` is not in the field cache; in CI, fail it."""
    import pytest

    if not installed(cli):
        message = f"{cli} is not installed: run tests/field/install-other-clis"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


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

    def run(self, args: list[str], env: dict[str, str], timeout: float = 180):
        return subprocess.run(
            args,
            cwd=self.project,
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


def record_codex(root: Path) -> Path:
    """A ``codex exec`` session with a shell command, one that spawns a child agent, and one
    cut off by Ctrl-C while the model answers; their ``$CODEX_HOME``."""
    home = Home(root)
    codex = str(BINARIES["codex"])
    exec_args = [codex, "exec", "--skip-git-repo-check", "--sandbox", "workspace-write"]
    with ScriptedAPIs() as api:
        env = codex_config(home, api)
        api.reply("FIELD-SHELL", tool="exec_command", args={"cmd": "git log --oneline"}, last=True)
        api.reply("start", text="The project has one commit: start.", last=True)
        home.run([*exec_args, "FIELD-SHELL show the git log"], env)
    with ScriptedAPIs() as api:
        env = codex_config(home, api)
        api.reply(
            "FIELD-PARENT",
            tool="spawn_agent",
            namespace="multi_agent_v1",
            args={"message": "FIELD-CHILD count the files in the project"},
            last=True,
        )
        api.reply("FIELD-CHILD", tool="exec_command", args={"cmd": "ls | wc -l"}, last=True)
        api.reply("Process exited", text="There is 1 file.", last=True)
        api.reply(
            "FIELD-PARENT", tool="wait_agent", namespace="multi_agent_v1", args=_spawned_agent
        )
        api.reply("FIELD-PARENT", text="The child agent counted 1 file.")
        home.run([*exec_args, "FIELD-PARENT ask a child agent to count the files"], env)
    with ScriptedAPIs() as api:
        env = codex_config(home, api)
        api.reply("FIELD-STOP", text="never sent", hang=True, last=True)
        home.interrupted([*exec_args, "FIELD-STOP this turn is cut off"], env, api)
    return home.root / ".codex"


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


def record_gemini(root: Path, log: list | None = None) -> Path:
    """A ``gemini -p`` session with a shell command, one that invokes the generalist subagent,
    and one cut off by Ctrl-C while the model answers; their ``~/.gemini``."""
    home = Home(root)
    args = [str(BINARIES["gemini"]), "--yolo", "-m", "gemini-2.5-pro", "-p"]
    with ScriptedAPIs() as api:
        env = gemini_config(home, api)
        api.reply(
            "FIELD-SHELL",
            tool="run_shell_command",
            args={"command": "git log --oneline"},
            last=True,
        )
        api.reply("start", text="The project has one commit: start.", last=True)
        home.run([*args, "FIELD-SHELL show the git log"], env)
    with ScriptedAPIs() as api:
        env = gemini_config(home, api)
        api.reply(
            "FIELD-PARENT",
            tool="invoke_agent",
            args={
                "agent_name": "generalist",
                "prompt": "FIELD-CHILD count the files in the project",
            },
            last=True,
        )
        api.reply(
            "FIELD-CHILD", tool="run_shell_command", args={"command": "ls | wc -l"}, last=True
        )
        api.reply(
            "Output: 1",
            tool="complete_task",
            args={"result": {"response": "There is 1 file."}},
            last=True,
        )
        api.reply("FIELD-PARENT", text="The subagent counted 1 file.")
        out = home.run([*args, "FIELD-PARENT ask the generalist to count the files"], env)
        if log is not None:
            log.extend(api.log)
            log.append(out)
    with ScriptedAPIs() as api:
        env = gemini_config(home, api)
        api.reply("FIELD-STOP", text="never sent", hang=True, last=True)
        home.interrupted([*args, "FIELD-STOP this turn is cut off"], env, api)
    return home.root / ".gemini"


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


def record_opencode(root: Path) -> Path:
    """An ``opencode run`` session with a shell command, one whose task tool starts a child
    session, and one cut off by Ctrl-C while the model answers; their data folder."""
    home = Home(root)
    args = [str(BINARIES["opencode"]), "run"]
    with ScriptedAPIs() as api:
        env = opencode_config(home, api)
        api.reply(
            "FIELD-SHELL",
            tool="bash",
            args={"command": "git log --oneline", "description": "Show the git log"},
            last=True,
        )
        api.reply("start", text="The project has one commit: start.", last=True)
        home.run([*args, "FIELD-SHELL show the git log"], env)
    with ScriptedAPIs() as api:
        env = opencode_config(home, api)
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
        home.run([*args, "FIELD-PARENT ask a subagent to count the files"], env)
    with ScriptedAPIs() as api:
        env = opencode_config(home, api)
        api.reply("FIELD-STOP", text="never sent", hang=True, last=True)
        home.interrupted([*args, "FIELD-STOP this turn is cut off"], env, api)
    return home.root / ".local" / "share" / "opencode"


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
    args = [str(BINARIES["codex"]), "exec", "--skip-git-repo-check", "--sandbox", "workspace-write"]
    args += list(extra)
    done = subprocess.run(
        [*args, prompt],
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
