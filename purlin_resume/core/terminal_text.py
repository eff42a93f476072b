"""Text that goes to a terminal: typed into an agent's pane, or shown as one line of error.

Text pasted into a pane comes from transcripts, personas, checkpoints and branches, so it is
not trusted. Its escape sequences and control characters could end the bracketed paste early
(``ESC[201~``), after which every carriage return acts as Enter and a line starting with ``!``
runs in Claude Code's shell mode. ``neutralised`` keeps the words, newlines and tabs, and drops
everything a terminal would act on.
"""

from __future__ import annotations

import re

# CSI, OSC/DCS/APC/PM strings, and two-character escapes, as a terminal parses them
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b[\]PX^_].*?(?:\x07|\x1b\\|$)"
    r"|\x1b.?",
    re.DOTALL,
)
# C0 controls but tab and newline, DEL, C1 controls (U+009B is an 8-bit CSI)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_DISPLAY_RISK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # ESC and CR among them
_SHELL_MODE = "!"  # a prompt starting with it runs in Claude Code's shell


def neutralised(text: str) -> str:
    """``text`` safe to paste into a terminal program: escape sequences removed, carriage returns
    turned into newlines, other control characters dropped, newlines and tabs kept; a leading
    ``!`` (Claude Code's shell mode) gets a space before it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROLS.sub("", _ESCAPES.sub("", text))
    return " " + text if text.startswith(_SHELL_MODE) else text


def displayed(text: str) -> str:
    """``text`` safe to show on a terminal: escape sequences (colours, title, clipboard, screen
    clearing) and control characters gone, carriage returns (which would let a line overwrite
    what came before it) as newlines; newlines and tabs kept."""
    if not _DISPLAY_RISK.search(text):
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def one_line(text: str) -> str:
    """``text`` as one line for a message: escapes and control characters gone, every run of
    whitespace (newlines included) one space."""
    return " ".join(_CONTROLS.sub(" ", _ESCAPES.sub("", str(text)).replace("\n", " ")).split())
