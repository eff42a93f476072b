"""A stand-in for the ``claude`` command in tmux tests: prompt, bracketed paste, Enter to submit.

    python standin_claude.py RECORD_DIR [args...]

Writes ``started.json`` (argv, cwd, the PURLIN_* and CLAUDE_* environment) and appends every
submitted input to ``prompts.jsonl`` in RECORD_DIR. Without a terminal on stdin (run by exec from
a test) it records and exits. Like Claude Code it asks the terminal for bracketed paste, shows
a multi-line paste as ``[Pasted text #N +L lines]`` and shows ``? for shortcuts`` when idle.
"""

import json
import os
import sys
import termios
import tty

START, END = b"\x1b[200~", b"\x1b[201~"
READY = "> \r\n  ? for shortcuts\r\n"


def out(text: str) -> None:
    os.write(1, text.encode())


def main() -> None:
    record = sys.argv[1]
    env = {k: v for k, v in os.environ.items() if k.startswith(("PURLIN_", "CLAUDE_"))}
    with open(os.path.join(record, "started.json"), "w") as handle:
        json.dump({"argv": sys.argv[2:], "cwd": os.getcwd(), "env": env}, handle)
    fd = sys.stdin.fileno()
    if not os.isatty(fd):
        return
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    pastes = 0
    try:
        out("\x1b[?2004hStand-in Claude\r\n" + READY)
        buffer, pending, pasting = "", b"", False
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
                        buffer += pending[:-keep].decode(errors="replace").replace("\r", "\n")
                        pending = pending[-keep:]
                        break
                    buffer += pending[:end].decode(errors="replace").replace("\r", "\n")
                    pending, pasting = pending[end + len(END) :], False
                    pastes += 1
                    lines = buffer.count("\n")
                    shown = f"[Pasted text #{pastes} +{lines} lines]" if lines else buffer
                    out(shown + "\r\n")
                    continue
                if pending.startswith(START):
                    pending, pasting = pending[len(START) :], True
                    continue
                if START.startswith(pending[: len(START)]) and len(pending) < len(START):
                    break
                byte, pending = pending[:1], pending[1:]
                if byte in (b"\x03", b"\x04"):
                    return
                if byte == b"\r":
                    with open(os.path.join(record, "prompts.jsonl"), "a") as handle:
                        handle.write(json.dumps({"text": buffer}) + "\n")
                    out(f"\r\n* received {len(buffer)} characters\r\n" + READY)
                    buffer = ""
                else:
                    buffer += byte.decode(errors="replace")
                    out(byte.decode(errors="replace"))
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


main()
