"""How each agent CLI is started with a first prompt, resumed and forked by session id, told
apart from the others by the variables it sets for the commands it runs, and when its
interactive screen waits for input.

The arguments were checked against each CLI's ``--help`` (Claude Code 2.1.330, Codex CLI
0.171.0, Gemini CLI 0.61.0, opencode 1.18.33). Claude Code's command is the ``agent_command``
setting; the others are looked up on PATH by their program name.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass

from purlin_resume.agentcli.names import CLAUDE, CODEX, GEMINI, OPENCODE
from purlin_resume.claude.layout import FORK_FLAG, RESUME_FLAG, SESSION_FLAG
from purlin_resume.core.errors import UsageError


@dataclass(frozen=True)
class AgentProgram:
    """One agent CLI as the product starts it."""

    cli: str
    label: str
    program: str
    prompt_flag: tuple[str, ...]  # what goes before a first prompt (none: it is positional)
    resume_args: tuple[str, ...]  # ``{id}`` stands for the session id
    fork_args: tuple[str, ...] | None  # None: the CLI cannot fork a session
    markers: tuple[str, ...]  # variables the CLI sets for the commands its agent runs
    ready_text: str  # what its interactive screen shows while it waits (texts joined by |)
    data_vars: tuple[str, ...] = ()  # variables naming where it keeps its sessions
    dialog_text: str = ""  # what its screen shows while a dialog waits for the user (| joined)

    def data_env(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """Those of ``data_vars`` set here, to hand to an agent started elsewhere (tmux)."""
        environ = os.environ if environ is None else environ
        return {name: environ[name] for name in self.data_vars if environ.get(name)}

    def command(self, agent_command: str | None = None) -> list[str]:
        """The program's argv (Claude Code's: the ``agent_command`` setting)."""
        if self.cli == CLAUDE and agent_command:
            return shlex.split(agent_command)
        return [self.program]

    def not_on_path(self, agent_command: str | None = None) -> str | None:
        """The program ``command`` starts (after any ``NAME=value`` words), when it is named
        without a folder and is not on PATH: a window started with it would close at once.
        None: it is there, or named by a path (looked for where it runs)."""
        words = [word for word in self.command(agent_command) if "=" not in word]
        program = words[0] if words else self.program
        return None if "/" in program or shutil.which(program) else program

    def start(self, prompt: str, agent_command: str | None = None) -> list[str]:
        """The argv of a new interactive agent that begins with ``prompt``."""
        return [*self.command(agent_command), *self.prompt_flag, prompt]

    def resume(self, session_id: str, agent_command: str | None = None) -> list[str]:
        """The argv that continues session ``session_id`` in its own CLI."""
        return [*self.command(agent_command), *(a.format(id=session_id) for a in self.resume_args)]

    def fork(
        self, session_id: str, new_id: str, agent_command: str | None = None
    ) -> list[str] | None:
        """The argv that continues a copy of ``session_id`` (None: the CLI cannot fork)."""
        if self.fork_args is None:
            return None
        args = (a.format(id=session_id, new=new_id) for a in self.fork_args)
        return [*self.command(agent_command), *args]

    @property
    def forks_with_own_id(self) -> bool:
        """Whether a fork is given its id up front (Claude Code's ``--session-id``)."""
        return any("{new}" in a for a in self.fork_args or ())


PROGRAMS: dict[str, AgentProgram] = {
    CLAUDE: AgentProgram(
        CLAUDE,
        "Claude Code",
        "claude",
        (),
        (RESUME_FLAG, "{id}"),
        (RESUME_FLAG, "{id}", FORK_FLAG, SESSION_FLAG, "{new}"),
        ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"),
        "? for shortcuts|shift+tab to cycle",
        ("CLAUDE_CONFIG_DIR",),
        # a permission prompt ("Do you want to proceed?" / "1. Yes"), or any dialog's footer
        "Do you want to proceed?|Esc to cancel",
    ),
    CODEX: AgentProgram(
        CODEX,
        "Codex CLI",
        "codex",
        (),
        ("resume", "{id}"),
        ("fork", "{id}"),
        ("CODEX_THREAD_ID", "CODEX_SANDBOX"),
        "? for shortcuts|context left",
        ("CODEX_HOME",),
    ),
    GEMINI: AgentProgram(
        GEMINI,
        "Gemini CLI",
        "gemini",
        ("--prompt-interactive",),
        ("--resume", "{id}"),
        None,
        ("GEMINI_CLI",),
        "Type your message",
        ("GEMINI_CLI_HOME",),
    ),
    OPENCODE: AgentProgram(
        OPENCODE,
        "opencode",
        "opencode",
        ("--prompt",),
        ("--session", "{id}"),
        ("--session", "{id}", "--fork"),
        ("OPENCODE",),
        "ctrl+p",  # its status line: "ctrl+p commands", wrapped when the folder path is long
        ("XDG_DATA_HOME", "XDG_CONFIG_HOME"),
    ),
}
NAMES = tuple(PROGRAMS)


def program(cli: str) -> AgentProgram:
    try:
        return PROGRAMS[cli]
    except KeyError:
        raise UsageError(f"unknown agent CLI {cli!r}: one of {', '.join(NAMES)}") from None


def label(cli: str | None) -> str:
    return PROGRAMS[cli].label if cli in PROGRAMS else (cli or "an unknown CLI")


def running_in(environ: Mapping[str, str] | None = None) -> str | None:
    """The CLI whose agent runs this command, from the variables it sets (None: none of them).
    A CLI started from another one inherits that one's variables, so the others are asked first."""
    environ = os.environ if environ is None else environ
    for cli in (CODEX, GEMINI, OPENCODE, CLAUDE):
        if any(environ.get(name) for name in PROGRAMS[cli].markers):
            return cli
    return None
