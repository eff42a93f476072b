"""Typing text into an agent in a tmux pane, exactly once.

``deliver`` is the one way text enters an agent's pane (revival, ``resurrect --spawn tmux`` and
the stall watch's nudges all go through it). It pastes the text as one unit, then reads the pane
to confirm that the text arrived *before* it presses Enter:

- **confirmed**: the pane shows the paste where it did not before: a paste placeholder such as
  Claude Code's ``[Pasted text #1 +40 lines]``, or the text's own last (or first) line, as an
  agent that echoes what it reads shows it. Enter is sent, once.
- **unverified**: the pane shows neither within the wait. The text may be in the agent's input
  or may not: typing it again could give the agent the same text twice, and Enter could submit
  half of it, so neither is done. The caller reports it and leaves the pane open for a person.

The text is pasted again only when it certainly did not arrive: tmux refused to load or paste
it (nothing reached the pane), up to ``ATTEMPTS`` times. A pane that is gone is an error.

A new agent needs a moment before it reads input: text pasted earlier is lost or lands in a
half-drawn screen. ``when_ready`` therefore waits, before each text, until the pane shows
``agent_ready_text`` and has stayed unchanged for ``inject_settle_seconds``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from purlin_resume.core import redact, tmux
from purlin_resume.core.config import Settings
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.terminal_text import neutralised

PASTE_MARKERS = ("[Pasted text",)  # how Claude Code shows a long paste in its input box
ATTEMPTS = 3
CONFIRMED, UNVERIFIED = "confirmed", "unverified"
NEEDLE_CHARS = 60  # of a line: enough to be specific, short enough not to wrap
SHOW_WAIT = 5.0  # seconds the pane is watched at least for the text to show (a busy machine)


@dataclass(frozen=True)
class Delivery:
    """What became of one text: ``confirmed`` (shown, then submitted) or ``unverified``."""

    pane: str
    status: str
    attempts: int  # pastes tmux accepted or refused; only a refused paste is repeated
    detail: str = ""

    @property
    def confirmed(self) -> bool:
        return self.status == CONFIRMED

    def to_dict(self) -> dict[str, object]:
        return {"status": self.status, "attempts": self.attempts, "detail": self.detail}


def needles(text: str, shown: Iterable[str] = PASTE_MARKERS) -> tuple[str, ...]:
    """What on screen shows that ``text`` arrived: its last and first non-blank lines (an
    echoing agent shows them; the last one stays on screen however long the text is), and the
    placeholders an agent shows instead of a long paste."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    own = (lines[-1][:NEEDLE_CHARS], lines[0][:NEEDLE_CHARS]) if lines else ()
    return tuple(dict.fromkeys(n for n in (*own, *shown) if n))


def arrived(before: str, after: str, wanted: Iterable[str]) -> bool:
    """True when ``after`` shows one of ``wanted`` more often than ``before`` did."""
    return any(after.count(needle) > before.count(needle) for needle in wanted)


def deliver(
    server: tmux.Server,
    pane: str,
    text: str,
    *,
    settle: float = 0.5,
    shown: tuple[str, ...] = PASTE_MARKERS,
    attempts: int = ATTEMPTS,
) -> Delivery:
    """Type ``text`` into the program in ``pane`` and submit it, never twice (see the module).

    The text is ``terminal_text.neutralised`` first, so nothing in it can end the paste or act as
    a key. Trailing blank lines are left off: in an agent that reads lines, a pasted final newline
    would submit the text before Enter, and Enter would then submit an empty line."""
    text = neutralised(text).rstrip()
    wanted = needles(text, shown)
    refused = ""
    for attempt in range(1, attempts + 1):
        before = tmux.capture_if_alive(server, pane, lines=None)
        if before is None:  # gone, perhaps between the liveness check and the capture
            raise PurlinError(f"tmux pane {pane} is gone; nothing was sent")
        try:
            tmux.paste(server, pane, text)
        except PurlinError as exc:  # nothing reached the pane: safe to try again
            refused = exc.message
            time.sleep(max(settle, 0.1))
            continue
        deadline = time.monotonic() + max(settle * 4, SHOW_WAIT)
        time.sleep(settle)
        while True:
            after = tmux.capture(server, pane, lines=None)
            if arrived(before, after, wanted):
                tmux.send_enter(server, pane)
                return Delivery(pane, CONFIRMED, attempt)
            if time.monotonic() >= deadline or not tmux.pane_alive(server, pane):
                break
            time.sleep(0.1)
        last = next((line for line in reversed(after.splitlines()) if line.strip()), "")
        last = redact.one_line(redact.redact(last).text, 60)  # redacted before it is cut
        return Delivery(
            pane,
            UNVERIFIED,
            attempt,
            f"the text was pasted once into tmux pane {pane} but the pane does not show it "
            f"(it ends with {last!r}); it was not sent again and Enter was not "
            "pressed: look at the pane, and press Enter there if the text is in the input",
        )
    raise PurlinError(
        f"tmux did not take the text for pane {pane} after {attempts} attempts ({refused}); "
        "nothing was sent"
    )


def when_ready(
    server: tmux.Server,
    pane: str,
    texts: Iterable[str],
    settings: Settings,
    command: str,
    who: str = "the agent",
) -> list[Delivery]:
    """Wait until the agent in ``pane`` is ready before each text, then deliver it.

    Stops after a text that is not confirmed: a later text must not land in an input that may
    hold the earlier one. Raises PurlinError when ``command`` (the one the pane runs) exited, or
    when the agent did not show ``settings.agent_ready_text`` in time.
    """
    settle = settings.inject_settle_seconds
    deliveries: list[Delivery] = []
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
        delivery = deliver(server, pane, text, settle=settle)
        deliveries.append(delivery)
        if not delivery.confirmed:
            break
    return deliveries
