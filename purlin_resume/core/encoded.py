"""Text written escaped for the web: percent-encoded (a URL's query, a form's body, a web server's
log line) or with HTML character references (an attribute's value, a page). A separator
written ``%3D``, ``%22``, ``%20`` or ``&quot;`` hides the secret after it from the rules
(``client_secret%3D…``, ``%22password%22%3A%22…``, ``Bearer%20…``,
``{&quot;api_key&quot;: &quot;…``); the scanner reads such a text once more decoded, and
``Decoded.span`` says where what it finds there lies in the text.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import NamedTuple

from purlin_resume.core.secret_rules import compiled


class Encoding(NamedTuple):
    """One way of escaping: ``mark`` stands in every escape, ``separator`` matches an escaped
    character a rule may need to see (a quote, ``=``, ``:``…), ``escape`` any escape, which
    ``decode`` decodes (the expressions compiled when first used: most texts need none)."""

    mark: str
    separator: str
    escape: str
    decode: Callable[[str], str]


def _unescape(reference: str) -> str:
    import html  # here: its table of names loads only for a text that holds a reference

    return html.unescape(reference)


ENCODINGS = (
    Encoding(  # a space, a quote, ``&``, ``-``, a colon, ``=``, ``@``, ``_``; ASCII escapes only
        "%",
        r"%(?:2[026Dd]|3[AaDd]|40|5[Ff])",
        r"%[0-7][0-9A-Fa-f]",
        lambda escape: chr(int(escape[1:], 16)),
    ),
    Encoding(  # a quote, a colon, ``=``, ``<``, ``>``: named or by number
        "&",
        r"&(?:quot|apos|colon|equals|lt|gt"
        r"|#0*(?:34|39|58|60|61|62)|#[xX]0*(?:22|27|3[ACDEacde]));",
        r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});",
        _unescape,
    ),
)


_PERCENT, _REFERENCE = (encoding.separator for encoding in ENCODINGS)


def may_hold(text: str) -> bool:
    """Has ``text`` an escaped separator (most text: one search for ``%`` and for ``&``)?"""
    return ("%" in text and compiled(_PERCENT).search(text) is not None) or (
        "&" in text and compiled(_REFERENCE).search(text) is not None
    )


class Decoded(NamedTuple):
    """A text decoded; ``marks``: (offset in ``text``, offset in the text it was read from) on
    either side of each escape, between which characters stand one for one."""

    text: str
    marks: list[tuple[int, int]]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where the characters ``start``–``end`` of the decoded text stand in the original."""
        return self._origin(start), self._origin(end)

    def _origin(self, offset: int) -> int:
        mark = self.marks[bisect.bisect_right(self.marks, (offset, float("inf"))) - 1]
        return mark[1] + offset - mark[0]


def decodings(text: str) -> Iterator[Decoded]:
    """``text`` decoded, once for each way of escaping whose separators it holds: one more scan
    of it, however many escaped runs it has (a log of a thousand lines costs one)."""
    for encoding in ENCODINGS:
        if encoding.mark in text and compiled(encoding.separator).search(text) is not None:
            yield _decoded(text, encoding)


def _decoded(text: str, encoding: Encoding) -> Decoded:
    parts, marks, at, length = [], [(0, 0)], 0, 0
    for escape in compiled(encoding.escape).finditer(text):
        character = encoding.decode(escape.group())
        parts += [text[at : escape.start()], character]
        length += escape.start() - at
        marks += [(length, escape.start()), (length + len(character), escape.end())]
        length, at = length + len(character), escape.end()
    parts.append(text[at:])
    return Decoded("".join(parts), marks)
