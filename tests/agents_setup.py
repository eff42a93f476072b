"""Shared set-up for the revival and stall tests: a project wired to a private tmux server and
the stand-in ``claude``."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from purlin_resume.core import tmux
from tests.resurrection_data import write_config

STANDIN = Path(__file__).resolve().parent / "standin_claude.py"
ROOT = Path(__file__).resolve().parents[1]
KINDS = ("paste", "lines")  # the stand-in showing a paste placeholder, the one echoing lines


SESSION_START = f"{sys.executable} -m purlin_resume hook session-start"


def standin_command(
    record: Path, kind: str = "paste", hooks: bool = False, paste_delay: float = 0.0
) -> str:
    """The command line of the stand-in agent of ``kind`` recording into ``record``; with
    ``hooks`` it runs our SessionStart hook first, as an installed Claude Code does; a paste
    shows ``paste_delay`` seconds after it arrived."""
    mode = " --echo-lines" if kind == "lines" else ""
    hook = f" --hook={shlex.quote(SESSION_START)}" if hooks else ""
    delay = f" --paste-delay={paste_delay}" if paste_delay else ""
    return f"{sys.executable} {STANDIN}{mode}{hook}{delay} {record}"


def socket_setting(server: tmux.Server) -> str:
    return str(server.socket) if server.socket is not None else server.name or ""


def configure(root: Path, server: tmux.Server, record: Path, kind: str = "paste", **extra) -> None:
    """Point the project's settings at the private tmux server and the stand-in agent."""
    record.mkdir(parents=True, exist_ok=True)
    settings = {
        "tmux_socket": socket_setting(server),
        "agent_command": standin_command(record, kind),
        "agent_ready_timeout": 15,
        "inject_settle_seconds": 0.2,
        **extra,
    }
    write_config(root, **settings)


def write_registry(root: Path, agents: dict) -> Path:
    folder = root / ".purlin"
    folder.mkdir(exist_ok=True)
    path = folder / "agents.json"
    path.write_text(json.dumps({"version": 1, "agents": agents}, indent=2))
    return path


def agent_record(root: Path, **values) -> dict:
    record = {
        "pid": None,
        "cwd": str(root),
        "started_at": "2026-01-15T14:00:00Z",
        "ended_at": None,
        "transcript_path": None,
        "tmux_pane": None,
        "role": None,
        "previous_agent_id": None,
    }
    record.update(values)
    return record


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def prompts(record: Path, count: int, timeout: float = 15) -> list[str]:
    """The inputs the stand-in received, once there are ``count`` of them."""
    path = record / "prompts.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.is_file():
            lines = path.read_text().splitlines()
            if len(lines) >= count:
                return [json.loads(line)["text"] for line in lines]
        time.sleep(0.1)
    found = path.read_text().splitlines() if path.is_file() else []
    raise AssertionError(f"expected {count} inputs, the stand-in received {len(found)}")


def start_standin(
    server: tmux.Server,
    root: Path,
    record: Path,
    session: str = "agents",
    kind: str = "paste",
    paste_delay: float = 0.0,
) -> str:
    """A stand-in agent in its own pane, ready for input; returns the pane id."""
    record.mkdir(parents=True, exist_ok=True)
    command = standin_command(record, kind, paste_delay=paste_delay)
    pane = tmux.new_window(server, session, root, command)
    assert tmux.wait_for(server, pane, "? for shortcuts", timeout=15)
    return pane


def writing(uuid: str, name: object, data: object, **extra) -> dict:
    """An assistant record, as Claude Code writes one, calling the tool ``name`` with ``data``."""
    return {
        "type": "assistant",
        "uuid": uuid,
        "timestamp": "2026-01-15T14:00:00.000Z",
        "message": {
            "id": f"msg-{uuid}",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"toolu-{uuid}", "name": name, "input": data}],
        },
        **extra,
    }


def slow_tmux(folder: Path, *commands: str, seconds: float = 1) -> str:
    """A folder holding ``tmux``: the real one, waiting ``seconds`` before each of ``commands``
    (as on a loaded machine), so that two processes started together overlap for sure."""
    script = folder / "slow-tmux" / "tmux"
    script.parent.mkdir()
    cases = "|".join(f'*" {command} "*' for command in commands)
    script.write_text(
        f'#!/bin/sh\ncase " $* " in {cases}) sleep {seconds} ;; esac\n'
        f'exec {shutil.which("tmux")} "$@"\n'
    )
    script.chmod(0o755)
    return str(script.parent)


def at_once(
    cwd: Path, *commands: list[str], path: str | None = None
) -> list[subprocess.CompletedProcess]:
    """``purlin-resume ARGS`` for each of ``commands``, as processes started together (``path``
    first on their PATH); each one's exit code and output, in the order given."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if path:
        env["PATH"] = f"{path}{os.pathsep}{env['PATH']}"
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "purlin_resume", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    done = []
    for process in started:
        out, err = process.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done
