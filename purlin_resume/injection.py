"""Typing text into an agent that was just started in a tmux pane.

A new agent needs a moment before it reads input: text pasted earlier is lost or lands in a
half-drawn screen. ``when_ready`` therefore waits, before each text, until the pane shows
``agent_ready_text`` and has stayed unchanged for ``inject_settle_seconds``, then types the text
through ``tmux.inject`` (pasted as one unit, Enter only once it shows). Revival and
``resurrect --spawn tmux`` both brief their new agent this way.
"""

from __future__ import annotations

from collections.abc import Iterable

from purlin_resume import tmux
from purlin_resume.config import Settings
from purlin_resume.errors import PurlinError

PASTE_MARKERS = ("[Pasted text",)  # how Claude Code shows a long paste in its input box


def when_ready(
    server: tmux.Server,
    pane: str,
    texts: Iterable[str],
    settings: Settings,
    command: str,
    who: str = "the agent",
) -> list[int]:
    """Wait until the agent in ``pane`` is ready before each text, then inject it.

    Returns the attempt that worked for each text. Raises PurlinError when ``command`` (the one
    the pane runs) exited, or when the agent did not show ``settings.agent_ready_text`` in time.
    """
    settle = settings.inject_settle_seconds
    attempts = []
    for text in texts:
        if not tmux.wait_quiet(
            server, pane, settings.agent_ready_text, settings.agent_ready_timeout, settle
        ):
            if not tmux.pane_alive(server, pane):
                raise PurlinError(
                    f"{who}'s command exited in tmux pane {pane} "
                    f"({command!r}); check resume.agent_command"
                )
            raise PurlinError(
                f"{who} in tmux pane {pane} did not show {settings.agent_ready_text!r} "
                f"within {settings.agent_ready_timeout:g} s; look at the agent "
                "(resume.agent_ready_text sets what to wait for)"
            )
        attempts.append(tmux.inject(server, pane, text, settle=settle, shown=PASTE_MARKERS))
    return attempts
