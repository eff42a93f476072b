"""The only code that talks to tmux (its real binary).

A ``Server`` names the tmux server to use: the default one (the user's, ``$TMUX``), or a private
one by socket path (tests, isolated runs). Text goes into a pane through a named buffer pasted as
one unit (bracketed paste), never through ``send-keys`` of the text itself, which splits and cuts
long multi-line input.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from purlin_resume.errors import PurlinError

TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class Server:
    socket: Path | None = None  # -S path; None: the default server

    def argv(self, *args: str) -> list[str]:
        return ["tmux", *(["-S", str(self.socket)] if self.socket else []), *args]


def available() -> bool:
    return shutil.which("tmux") is not None


def run(server: Server, *args: str, input: str | None = None, check: bool = True) -> str:
    """Run one tmux command; a failure is a PurlinError carrying tmux's own message."""
    if not available():
        raise PurlinError("tmux is not installed (apt-get install tmux)")
    try:
        done = subprocess.run(
            server.argv(*args), input=input, capture_output=True, text=True, timeout=TIMEOUT_SECONDS
        )
    except subprocess.TimeoutExpired:
        raise PurlinError(f"tmux {args[0]} did not answer within {TIMEOUT_SECONDS} s") from None
    if check and done.returncode != 0:
        detail = done.stderr.strip().splitlines()
        raise PurlinError(
            f"tmux {args[0]} failed: {detail[-1] if detail else 'exit ' + str(done.returncode)}"
        )
    return done.stdout


def _env_args(env: Mapping[str, str] | None) -> list[str]:
    return [arg for key, value in (env or {}).items() for arg in ("-e", f"{key}={value}")]


def inside_tmux(environ: Mapping[str, str] = os.environ) -> bool:
    return bool(environ.get("TMUX"))


def session_exists(server: Server, name: str) -> bool:
    done = subprocess.run(server.argv("has-session", "-t", f"={name}"), capture_output=True)
    return done.returncode == 0


def new_session(
    server: Server,
    name: str,
    cwd: Path,
    command: str | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """Start a detached session; returns the pane id (``%N``) of its first window."""
    args = [
        "new-session",
        "-d",
        "-s",
        name,
        "-c",
        str(cwd),
        "-P",
        "-F",
        "#{pane_id}",
        *_env_args(env),
    ]
    return run(server, *args, *([command] if command else [])).strip()


def new_window(
    server: Server,
    session: str,
    cwd: Path,
    command: str | None = None,
    env: Mapping[str, str] | None = None,
    name: str | None = None,
) -> str:
    """Open a window in ``session`` (created when absent); returns its pane id."""
    if not session_exists(server, session):
        return new_session(server, session, cwd, command, env)
    args = ["new-window", "-d", "-t", f"={session}:", "-c", str(cwd), "-P", "-F", "#{pane_id}"]
    args += [*(["-n", name] if name else []), *_env_args(env)]
    return run(server, *args, *([command] if command else [])).strip()


def pane_info(server: Server, pane: str) -> dict[str, str] | None:
    """``pane_id``, ``pane_pid``, ``pane_dead``, ``pane_current_command``, ``session_name`` of a
    pane; None when the pane does not exist."""
    fields = ("pane_id", "pane_pid", "pane_dead", "pane_current_command", "session_name")
    done = subprocess.run(
        server.argv("display-message", "-p", "-t", pane, "\t".join(f"#{{{f}}}" for f in fields)),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    values = dict(zip(fields, done.stdout.rstrip("\n").split("\t"), strict=False))
    return values if values.get("pane_id") == pane else None


def pane_alive(server: Server, pane: str) -> bool:
    info = pane_info(server, pane)
    return info is not None and info.get("pane_dead") != "1"


def capture(server: Server, pane: str, lines: int = 200) -> str:
    """The visible text of a pane plus ``lines`` of history, wrapped lines joined."""
    return run(server, "capture-pane", "-p", "-J", "-t", pane, "-S", f"-{lines}")


def paste(server: Server, pane: str, text: str, buffer: str = "purlin-resume") -> None:
    """Put ``text`` into the pane as one unit: load a named buffer, paste it bracketed, delete it."""
    name = f"{buffer}-{os.getpid()}"
    run(server, "load-buffer", "-b", name, "-", input=text)
    run(server, "paste-buffer", "-d", "-p", "-b", name, "-t", pane)


def send_enter(server: Server, pane: str) -> None:
    run(server, "send-keys", "-t", pane, "Enter")


def wait_for(server: Server, pane: str, needle: str, timeout: float, interval: float = 0.1) -> bool:
    """Wait until ``needle`` shows in the pane (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if needle in capture(server, pane):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def kill_server(server: Server) -> None:
    subprocess.run(server.argv("kill-server"), capture_output=True)


def current_session(server: Server) -> str | None:
    """The session of the client this process runs in (inside tmux), else None."""
    done = subprocess.run(
        server.argv("display-message", "-p", "#{session_name}"), capture_output=True, text=True
    )
    name = done.stdout.strip()
    return name if done.returncode == 0 and name else None


def wait_quiet(
    server: Server, pane: str, needle: str, timeout: float, settle: float, interval: float = 0.1
) -> bool:
    """Wait until ``needle`` shows and the pane stays unchanged for ``settle`` seconds (True);
    False when ``timeout`` seconds pass or the pane goes away. ``a|b`` waits for either text."""
    needles = [part.strip() for part in needle.split("|") if part.strip()] or [needle]
    deadline = time.monotonic() + timeout
    previous, since = None, time.monotonic()
    while True:
        if not pane_alive(server, pane):
            return False
        screen = capture(server, pane)
        if screen != previous:
            previous, since = screen, time.monotonic()
        elif any(n in screen for n in needles) and time.monotonic() - since >= settle:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


ATTEMPTS = 3


def inject(
    server: Server,
    pane: str,
    text: str,
    *,
    settle: float = 0.5,
    shown: tuple[str, ...] = (),
    attempts: int = ATTEMPTS,
) -> int:
    """Type ``text`` into the program in ``pane`` and submit it; returns the attempt that worked.

    Each attempt pastes the text as one unit, waits ``settle`` seconds, and captures the pane:
    the text has arrived when its first line, or one of ``shown`` (how the program abbreviates a
    long paste, e.g. ``[Pasted text``), is on screen where it was not before. Only then is Enter
    sent, separately. An attempt that shows nothing is repeated, up to ``attempts`` times.
    """
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")[:60]
    needles = tuple(n for n in (first, *shown) if n)
    for attempt in range(1, attempts + 1):
        if not pane_alive(server, pane):
            raise PurlinError(f"tmux pane {pane} is gone; nothing was sent")
        before = capture(server, pane)
        paste(server, pane, text)
        deadline = time.monotonic() + max(settle, 0.1) * 4
        time.sleep(settle)
        while True:
            after = capture(server, pane)
            if any(after.count(n) > before.count(n) for n in needles):
                send_enter(server, pane)
                return attempt
            if time.monotonic() >= deadline:
                break
            time.sleep(0.1)
    last = next((line for line in reversed(capture(server, pane).splitlines()) if line.strip()), "")
    raise PurlinError(
        f"the text did not show in tmux pane {pane} after {attempts} attempts "
        f"(the pane ends with {last.strip()[:60]!r}); look at the pane and send it by hand"
    )


def kill_pane(server: Server, pane: str) -> None:
    """Close ``pane`` (and its window when it was the only pane); a pane already gone is fine."""
    subprocess.run(server.argv("kill-pane", "-t", pane), capture_output=True)
