"""A stand-in for the ``claude`` command in tmux tests: a prompt, typed input, Enter to submit.

    python standin_claude.py [--echo-lines] [--hook=COMMAND] [--paste-delay=S] RECORD_DIR [args...]

Writes ``started.json`` (argv, cwd, PURLIN_* and CLAUDE_CONFIG_DIR environment) and appends every
submitted input to ``prompts.jsonl`` in RECORD_DIR. It shows ``? for shortcuts`` when idle. An
input submitted with a leading ``!`` runs in ``sh`` (Claude Code's shell mode). Without a
terminal on stdin (run by exec from a test) it records and exits.
With ``--hook``, it first runs COMMAND through ``sh -c`` with a SessionStart payload on stdin, as
Claude Code runs its SessionStart hooks (the session id is ``--session-id``'s, else a new one).
With ``--paste-delay``, a paste shows S seconds after it arrived (a client on a busy machine).

Two kinds of agent:

- default (like Claude Code): asks the terminal for bracketed paste and shows a multi-line paste
  as ``[Pasted text #N +L lines]``; the paste is one input, submitted by Enter.
- ``--echo-lines``: an agent that reads plain lines. It does not ask for bracketed paste, echoes
  every character it reads and submits each line on its own (a pasted newline ends a line).
"""

import json
import os
import subprocess
import sys
import termios
import time
import tty
import uuid

START, END = b"\x1b[200~", b"\x1b[201~"
READY = "> \r\n  ? for shortcuts\r\n"


def out(text: str) -> None:
    os.write(1, text.encode())


class Agent:
    def __init__(self, record: str, echo_lines: bool, paste_delay: float = 0.0):
        self.record = record
        self.echo_lines = echo_lines
        self.paste_delay = paste_delay
        self.buffer = ""
        self.typing = b""
        self.pastes = 0

    def submit(self) -> None:
        with open(os.path.join(self.record, "prompts.jsonl"), "a") as handle:
            handle.write(json.dumps({"text": self.buffer}) + "\n")
        if self.buffer.startswith("!"):  # Claude Code's shell mode
            subprocess.run(["sh", "-c", self.buffer[1:]], stdin=subprocess.DEVNULL)
        out(f"\r\n* received {len(self.buffer)} characters\r\n" + READY)
        self.buffer = ""

    def pasted(self, text: str) -> None:
        self.pastes += 1
        self.buffer += self.typing.decode(errors="replace") + text
        self.typing = b""
        lines = self.buffer.count("\n")
        time.sleep(self.paste_delay)
        out((f"[Pasted text #{self.pastes} +{lines} lines]" if lines else self.buffer) + "\r\n")

    def typed(self, byte: bytes) -> None:
        if byte in (b"\r", b"\n"):
            if self.echo_lines or byte == b"\r":
                self.buffer += self.typing.decode(errors="replace")
                self.typing = b""
                self.submit()
            return
        self.typing += byte  # decoded whole: a character may take several bytes
        os.write(1, byte)

    def run(self, fd: int) -> None:
        out(("" if self.echo_lines else "\x1b[?2004h") + "Stand-in Claude\r\n" + READY)
        pending, pasting, pasted = b"", False, b""
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            pending += chunk
            while pending:
                if pasting:
                    end = pending.find(END)
                    if end < 0:
                        keep = len(END) - 1
                        pasted, pending = pasted + pending[:-keep], pending[-keep:]
                        break
                    pasted += pending[:end]
                    pending, pasting = pending[end + len(END) :], False
                    self.pasted(pasted.decode(errors="replace").replace("\r", "\n"))
                    pasted = b""
                    continue
                if not self.echo_lines and pending.startswith(START):
                    pending, pasting = pending[len(START) :], True
                    continue
                partial = START.startswith(pending[: len(START)]) and len(pending) < len(START)
                if not self.echo_lines and partial:
                    break
                byte, pending = pending[:1], pending[1:]
                if byte in (b"\x03", b"\x04"):
                    return
                self.typed(byte)


def session_start(hook: str, args: list[str]) -> None:
    flag = args.index("--session-id") if "--session-id" in args[:-1] else None
    payload = {
        "session_id": args[flag + 1] if flag is not None else str(uuid.uuid4()),
        "transcript_path": "",
        "cwd": os.getcwd(),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    subprocess.run(["sh", "-c", hook], input=json.dumps(payload), text=True, capture_output=True)


def main() -> None:
    args = sys.argv[1:]
    echo_lines, hook, paste_delay = False, None, 0.0
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        echo_lines = echo_lines or flag == "--echo-lines"
        hook = flag.split("=", 1)[1] if flag.startswith("--hook=") else hook
        paste_delay = (
            float(flag.split("=", 1)[1]) if flag.startswith("--paste-delay=") else paste_delay
        )
    record = args[0]
    if hook:
        session_start(hook, args[1:])
    env = {
        k: v for k, v in os.environ.items() if k.startswith("PURLIN_") or k == "CLAUDE_CONFIG_DIR"
    }
    started = os.path.join(record, "started.json")
    with open(started + ".tmp", "w") as handle:  # whole or not there: tests wait for it
        json.dump({"argv": args[1:], "cwd": os.getcwd(), "env": env}, handle)
    os.replace(started + ".tmp", started)
    fd = sys.stdin.fileno()
    if not os.isatty(fd):  # started by exec from a test, not in a terminal: recorded, done
        return
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    try:
        Agent(record, echo_lines, paste_delay).run(fd)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


main()
