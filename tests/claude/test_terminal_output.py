"""Text from a transcript shown on a terminal: no escape sequence or control character reaches it.

A transcript quotes whatever a model read or a tool printed: a file or a web page can carry
``ESC]52`` (write the clipboard), ``ESC]0`` (the window title), ``ESC[2J`` (clear the screen), an
8-bit CSI, or a carriage return that overwrites the start of a line. On a terminal they are
shown as nothing; written to a pipe or a file the output stays byte for byte what it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.claude_records import Conversation, text, write_jsonl
from tests.terminal import on_a_terminal

SESSION = "33333333-cccc-4000-8000-000000000003"
HOSTILE = (
    "read the notes\x1b]52;c;cm0gLXJmIH4=\x07 then"
    "\x1b]0;owned\x07 fix\x1b[2J the bug\x9b31m now\r"
    "HIDDEN\x00 done\tok\n"
    "last line"
)


def _claude(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    c = Conversation(SESSION, cwd="/srv/demo")
    write_jsonl(
        root / "projects" / "-srv-demo" / f"{SESSION}.jsonl",
        [c.user(HOSTILE), c.assistant("msg_1", text("answer \x1b[8mconcealed\x1b[0m"))],
    )
    return root


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def _shown(argv: list[str], env: dict[str, str]) -> str:
    """Standard output of ``argv`` when it is a pseudo-terminal."""
    code, _, seen = on_a_terminal(argv, "stdout", env)
    assert code == 0
    return seen.decode()


def _argv(root: Path, *command: str) -> list[str]:
    return [sys.executable, "-m", "purlin_resume", *command, "--claude-dir", str(root)]


def test_a_terminal_gets_the_words_without_escapes_or_controls(tmp_path):
    root = _claude(tmp_path)
    shown = _shown(_argv(root, "transcript", SESSION), _env(tmp_path))
    assert "\x1b" not in shown
    assert "\x9b" not in shown
    assert "\x00" not in shown
    assert "\x07" not in shown
    # the pty turns "\n" into "\r\n": no other carriage return is left
    assert "\r" not in shown.replace("\r\n", "\n")
    for word in ("read the notes", "then", "fix", "the bug", "now", "HIDDEN", "done\tok"):
        assert word in shown
    assert "answer concealed" in shown


def test_json_on_a_terminal_loses_the_c1_controls_json_does_not_escape(tmp_path):
    root = _claude(tmp_path)
    shown = _shown(_argv(root, "transcript", SESSION, "--json"), _env(tmp_path))
    assert "\x9b" not in shown
    assert "\x1b" not in shown
    assert "the bug" in shown


def test_a_pipe_and_a_file_are_not_cleaned_for_a_terminal(tmp_path):
    root = _claude(tmp_path)
    piped = subprocess.run(
        _argv(root, "transcript", SESSION), capture_output=True, env=_env(tmp_path), check=True
    ).stdout.decode()
    # (Click drops CSI sequences such as ESC[2J on a pipe by itself; the rest goes through)
    assert "\x1b]52;c;" in piped
    assert "\x9b31m" in piped
    assert "now\rHIDDEN" in piped
    out = tmp_path / "t.md"
    subprocess.run(
        _argv(root, "transcript", SESSION, "-o", str(out)),
        capture_output=True,
        env=_env(tmp_path),
        check=True,
    )
    assert "fix\x1b[2J the bug\x9b31m now\rHIDDEN\x00 done" in out.read_bytes().decode()
