"""Text written percent-encoded (a URL's query, a form's body, a web server's log line): where
it lies in a text and what it reads decoded. A separator written ``%3D``, ``%3A``, ``%22`` or
``%20`` hides the secret after it from the rules (``client_secret%3D…``,
``%22password%22%3A%22…``, ``Bearer%20…``); the scanner reads each such run decoded, and
``Decoded.span`` says where what it finds there lies in the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import NamedTuple

# a space, a quote, ``&``, a colon, ``=``, ``@``, escaped: what a rule may need to see
_SEPARATOR = re.compile(r"%(?:2[026]|3[AaDd]|40)")
_ESCAPE = re.compile(r"%[0-7][0-9A-Fa-f]")  # one ASCII character (others stay as they are)
_STOPS = " \t\r\n\"'<>\\"  # what ends a run of encoded text
REACH = 4096  # how far a run reaches before and after an escaped separator


def may_hold(text: str) -> bool:
    """Has ``text`` an escaped separator (most text: one search for ``%``)?"""
    return "%" in text and _SEPARATOR.search(text) is not None


def runs(text: str) -> Iterator[tuple[int, int]]:
    """The runs of ``text`` (between spaces, quotes, angle brackets) that hold an escaped
    separator, each as far as ``REACH`` on either side of one."""
    end = 0
    for separator in _SEPARATOR.finditer(text):
        at = separator.start()
        if at < end:
            continue
        low, high = max(0, at - REACH), min(len(text), separator.end() + REACH)
        start = max(text.rfind(stop, low, at) for stop in _STOPS) + 1 or low
        ends = [text.find(stop, separator.end(), high) for stop in _STOPS]
        end = min([e for e in ends if e != -1], default=high)
        yield start, end


class Decoded(NamedTuple):
    """A run decoded; ``marks``: (offset in ``text``, offset in the text it was read from) on
    either side of each escape, between which characters stand one for one."""

    text: str
    marks: list[tuple[int, int]]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where the characters ``start``–``end`` of the decoded text stand in the original."""
        return self._origin(start), self._origin(end)

    def _origin(self, offset: int) -> int:
        mark = self.marks[bisect.bisect_right(self.marks, (offset, float("inf"))) - 1]
        return mark[1] + offset - mark[0]


def decoded(text: str, start: int, end: int) -> Decoded:
    """The run ``start``–``end`` of ``text`` with each ASCII character's escape decoded."""
    parts, marks, at, length = [], [(0, start)], start, 0
    for escape in _ESCAPE.finditer(text, start, end):
        parts += [text[at : escape.start()], chr(int(escape.group()[1:], 16))]
        length += escape.start() - at
        marks += [(length, escape.start()), (length + 1, escape.end())]
        length, at = length + 1, escape.end()
    parts.append(text[at:end])
    return Decoded("".join(parts), marks)
