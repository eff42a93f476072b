"""The only code that talks to tmux (its real binary).

A ``Server`` names the tmux server to use: the default one, one by name (``tmux -L NAME``) or
one by socket path (``tmux -S PATH``). ``Server.parse`` reads the ``tmux_socket`` setting and
``--tmux-socket`` (a value with a ``/`` is a path, else a name); ``Server.of_client`` reads
``$TMUX``, which names the socket of the server a program runs in. Text goes into a pane through
a named buffer pasted as one unit (bracketed paste), never through ``send-keys`` of the text
itself, which splits and cuts long multi-line input; ``paste`` is the only way text enters a pane
(``injection.deliver`` is its caller).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from purlin_resume.core.errors import PurlinError

TIMEOUT_SECONDS = 10


@dataclass(frozen=True)
class Server:
    socket: Path | None = None  # -S path
    name: str | None = None  # -L name; neither: the default server

    def argv(self, *args: str) -> list[str]:
        if self.socket is not None:
            return ["tmux", "-S", str(self.socket), *args]
        return ["tmux", *(["-L", self.name] if self.name else []), *args]

    @property
    def label(self) -> str:
        """How a message names this server: ``-S PATH``, ``-L NAME`` or ``the default server``."""
        if self.socket is not None:
            return f"-S {self.socket}"
        return f"-L {self.name}" if self.name else "the default server"

    @classmethod
    def parse(cls, spec: str | Path | None) -> Server:
        """A server from a setting or option: empty is the default server, a value with a ``/``
        (or starting with ``~``) a socket path, anything else a socket name."""
        text = str(spec or "").strip()
        if not text:
            return cls()
        if any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise PurlinError(f"tmux socket {text!r} holds control characters")
        if "/" in text or text.startswith("~"):
            return cls(socket=Path(text).expanduser())
        return cls(name=text)

    @classmethod
    def of_client(cls, environ: Mapping[str, str] = os.environ) -> Server | None:
        """The server this process runs inside (``$TMUX`` is ``SOCKET,PID,SESSION``), else None."""
        value = environ.get("TMUX", "")
        socket = value.rsplit(",", 2)[0] if value.count(",") >= 2 else value
        return cls(socket=Path(socket)) if socket.startswith("/") else None


def is_socket(path: Path) -> bool:
    """``path`` is a socket (where a tmux server listens)."""
    try:
        return stat.S_ISSOCK(path.stat().st_mode)
    except OSError:
        return False


def available() -> bool:
    return shutil.which("tmux") is not None


def _completed(argv: list[str], **options) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, **options)``."""
    return subprocess.run(argv, **options)


def run(server: Server, *args: str, input: str | None = None, check: bool = True) -> str:
    """Run one tmux command; a failure is a PurlinError carrying tmux's own message."""
    if not available():
        raise PurlinError("tmux is not installed (apt-get install tmux)")
    try:
        done = _completed(
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


def reachable(server: Server) -> bool:
    """True when a tmux server answers on ``server``'s socket."""
    if not available():
        return False
    done = _completed(server.argv("list-sessions"), capture_output=True, timeout=TIMEOUT_SECONDS)
    return done.returncode == 0


def socket_path(server: Server) -> Path | None:
    """The socket file of a running server (what ``$TMUX`` names), else None."""
    done = _completed(
        server.argv("display-message", "-p", "#{socket_path}"),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    found = done.stdout.strip()
    return Path(found) if done.returncode == 0 and found.startswith("/") else None


def unreachable(server: Server, reason: str = "") -> PurlinError:
    """The one error for a server that cannot be reached (nothing was opened or sent)."""
    why = f" ({reason})" if reason else ""
    return PurlinError(
        f"the tmux server {server.label} is not reachable{why}; nothing was opened or sent "
        "(check --tmux-socket or resume.tmux_socket)"
    )


def session_exists(server: Server, name: str) -> bool:
    done = _completed(server.argv("has-session", "-t", f"={name}"), capture_output=True)
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
    return _pane_id(server, run(server, *args, *([command] if command else [])))


def _pane_id(server: Server, output: str) -> str:
    """The ``%N`` tmux printed for a new pane. A server that could not start (its socket folder is
    missing, say) still lets the client exit 0 with nothing printed: that is an unreachable server."""
    pane = output.strip()
    if not (pane.startswith("%") and pane[1:].isdigit()):
        where = server.socket.parent if server.socket is not None else None
        reason = f"{where} does not exist" if where is not None and not where.is_dir() else ""
        raise unreachable(server, reason or "tmux opened no pane")
    return pane


def new_window(
    server: Server,
    session: str,
    cwd: Path,
    command: str | None = None,
    env: Mapping[str, str] | None = None,
    name: str | None = None,
) -> str:
    """Open a window in ``session`` (created when absent); returns its pane id. ``env`` is
    the window's own: a session created for it does not keep it for later windows. A session
    another process creates at the same moment is used as it is."""
    if not session_exists(server, session):
        try:
            pane = new_session(server, session, cwd, command, env)
        except PurlinError as exc:
            if "duplicate session" not in exc.message:
                raise
        else:
            for key in env or {}:
                run(server, "set-environment", "-t", f"={session}", "-u", key, check=False)
            return pane
    args = ["new-window", "-d", "-t", f"={session}:", "-c", str(cwd), "-P", "-F", "#{pane_id}"]
    args += [*(["-n", name] if name else []), *_env_args(env)]
    return _pane_id(server, run(server, *args, *([command] if command else [])))


def pane_info(server: Server, pane: str) -> dict[str, str] | None:
    """``pane_id``, ``pane_pid``, ``pane_dead``, ``pane_current_command``, ``session_name`` of a
    pane; None when the pane does not exist."""
    fields = ("pane_id", "pane_pid", "pane_dead", "pane_current_command", "session_name")
    done = _completed(
        server.argv("display-message", "-p", "-t", pane, "\t".join(f"#{{{f}}}" for f in fields)),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 or not done.stdout.strip():
        return None
    values = dict(zip(fields, done.stdout.rstrip("\n").split("\t"), strict=False))
    return values if values.get("pane_id") == pane else None


def live_panes(server: Server) -> set[str] | None:
    """The ids of every pane of the server whose command still runs, in one call; None when
    tmux cannot tell (not installed, an error other than no server running)."""
    if not available():
        return None
    done = _completed(
        server.argv("list-panes", "-a", "-F", "#{pane_id}\t#{pane_dead}"),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        no_server = "no server running" in done.stderr or "error connecting" in done.stderr
        return set() if no_server else None
    return {
        pane
        for pane, _, dead in (line.partition("\t") for line in done.stdout.splitlines())
        if dead != "1"
    }


def pane_alive(server: Server, pane: str) -> bool:
    info = pane_info(server, pane)
    return info is not None and info.get("pane_dead") != "1"


def capture(server: Server, pane: str, lines: int | None = 200) -> str:
    """The visible text of a pane plus ``lines`` of history (None: all of it), wrapped lines
    joined."""
    start = "-" if lines is None else f"-{lines}"
    return run(server, "capture-pane", "-p", "-J", "-t", pane, "-S", start)


def capture_if_alive(server: Server, pane: str, lines: int | None = 200) -> str | None:
    """``capture``, or None when the pane is gone, even when it died after a liveness check
    (tmux then says "can't find pane" or "no current target")."""
    if not pane_alive(server, pane):
        return None
    try:
        return capture(server, pane, lines)
    except PurlinError:
        if pane_alive(server, pane):
            raise
        return None


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
    _completed(server.argv("kill-server"), capture_output=True)


def current_session(server: Server) -> str | None:
    """The session of the client this process runs in (inside tmux), else None."""
    done = _completed(
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
        screen = capture_if_alive(server, pane)
        if screen is None:
            return False
        if screen != previous:
            previous, since = screen, time.monotonic()
        elif any(n in screen for n in needles) and time.monotonic() - since >= settle:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def kill_pane(server: Server, pane: str) -> None:
    """Close ``pane`` (and its window when it was the only pane); a pane already gone is fine."""
    _completed(server.argv("kill-pane", "-t", pane), capture_output=True)
