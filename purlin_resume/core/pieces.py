"""Where a secret may be written in pieces: string literals joined with ``+`` or side by side
(``"ghp_ab" "cd…"``), the literals of a join call (``"".join([...])``, JavaScript's
``[...].join("")``) or of a list a loop walks over, a template filled with literals
(``"%s%s" % ("ghp_ab", "cd…")``, ``"{}{}".format(…)``), names given string literals then
joined (``head + tail``, ``f"{head}{tail}"``, ``"${HEAD}${TAIL}"``) or added to
(``t += "cd…"``). The scanner reads each run of pieces joined, and ``Run.spans`` says where
what it finds there lies in the text. The expressions are kept as text and compiled when first
used (``secret_rules.compiled``): most texts need none of them.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from typing import NamedTuple

from purlin_resume.core.secret_rules import compiled

REACH = 256  # how far a secret written in pieces may reach past a joint
NAMED_REACH = 2048  # how far after the literals given to names they may be joined

# between two string literals joined with ``+`` (quotes escaped, a line break); found from the
# ``+`` (a literal: fast to look for)
_JOINT = (
    r"\+(?:(?<=[\"'] \+)|(?<=[\"']\+)|(?<=[\"']\t\+))[ \t]*(?:(?:\r?\n|\\n)[ \t]*)?\\{0,3}[\"']"
)
_QUOTE = r"\\{0,3}[\"']"
_LINE_BREAK = r"(?:\r?\n|\\{1,3}n)"  # raw or escaped
# between two string literals side by side (Python's and C's ``"ab" "cd"``, shell's ``"ab""cd"``),
# where a token's characters stand on both sides; found from the closing quote, one expression
# for each quote (a literal to look for is fast to find)
_SIDE_BY_SIDE = {
    q: (
        rf"{q}(?=[ \t\r\n\\\"'])(?:(?<=[\w.+/~-]{q})|(?<=[\w.+/~-]\\{q})|(?<=[\w.+/~-]\\\\\\{q}))"
        rf"[ \t]*(?:{_LINE_BREAK}[ \t]*)?{_QUOTE}(?=[\w.+/~-])"
    )
    for q in "\"'"
}
_LITERAL = r"""\\{0,3}"[^"\\\r\n]{0,256}\\{0,3}"|'[^'\\\r\n]{0,256}'"""
_SPACE = r"(?:[ \t\r\n]|\\{1,3}[nrt])*"  # raw or escaped
_LIST = rf"(?:{_LITERAL})(?:{_SPACE},{_SPACE}(?:{_LITERAL}))+"
_EMPTIES = ('""', "''", '\\"\\"', '\\\\\\"\\\\\\"')  # an empty literal, escaped or not
# a join call's literals, looked for where ``.join(`` is: after it (Python), before it (JavaScript)
_PYTHON_JOIN = rf"\({_SPACE}[\[(]?{_SPACE}(?P<list>{_LIST})"
_JAVASCRIPT_JOIN = rf"\[{_SPACE}(?P<list>{_LIST}){_SPACE},?{_SPACE}\]\Z"
_JOIN_REACH = 4096  # how long a join's list may be
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# the literals a loop walks over (``for part in ["ghp_ab", "cd…"]:``, JavaScript's
# ``for (const part of [...])``): a body adding each to a name joins them in order; found from
# ``for``
_LOOP = (
    r"for(?:(?<=\\[nrt]for)|(?<![\w$.\\]for))[ \t]*\(?[ \t]*(?:(?:const|let|var)[ \t]+)?"
    rf"{_NAME}[ \t]+(?:in|of)[ \t]+[\[(]{_SPACE}(?P<list>{_LIST})"
)
_STARTS = r"(?:(?<=\\[nrt])|(?<![\w.$\\]))"  # a name's start: not inside a word, or after \n
_NAMES_ADDED = rf"{_STARTS}{_NAME}(?:[ \t]*\+[ \t]*{_NAME})+(?![\w(.\[])"
_NAMES_PLACED = rf"\$?\{{{_NAME}\}}(?:\$?\{{{_NAME}\}})+"  # f-string, template, shell
_NAMES_ADDED_JOINT = r"\+(?:(?<=\w \+)|(?<=\w\+))[ \t]*[A-Za-z_]"
_NAMES_PLACED_JOINT = r"\}(?<=\w\})\$?\{"
_NAME_JOINED = f"{_NAMES_ADDED_JOINT}|{_NAMES_PLACED_JOINT}"
# ``NAME = "literal"`` (``:=``, ``const NAME = ``, shell's ``NAME="literal"``), a literal a token
# may be a piece of (no space in it); found from ``=``
_ASSIGNED = rf"=(?<![=!<>]=)(?!=)[ \t]*(?P<q>{_QUOTE})(?P<v>[A-Za-z0-9_.+/=:~-]{{2,256}})(?P=q)"
_NAME_BEFORE = rf"{_STARTS}({_NAME})[ \t]*:?\Z"
_ADDED_TO = rf"\+=[ \t]*{_QUOTE}[A-Za-z0-9_.+/=:~-]"  # ``t += "cd…"``


class Filling(NamedTuple):
    """A way to fill a template literal with literals: ``marker`` follows the template (a
    closing quote before it) and starts with ``literal``, ``arguments`` matches from it,
    ``placeholder`` is one in the template (group 1: the argument's number, when written)."""

    literal: str
    marker: str
    arguments: str
    placeholder: str


_ARGUMENTS = rf"(?P<list>(?:{_LITERAL})(?:{_SPACE},{_SPACE}(?:{_LITERAL}))*)"
FILLINGS = (
    Filling(  # ``"%s%s" % ("ghp_ab", "cd…")``, ``"ghp_%s" % "ab…"``
        "%",
        r"%(?:(?<=[\"'] %)|(?<=[\"']%))",
        rf"%[ \t]*\(?{_SPACE}{_ARGUMENTS}{_SPACE},?{_SPACE}\)?",
        r"%s()",
    ),
    Filling(  # ``"{}{}".format("sk-ant-", "…")``, ``"{0}{1}"``
        ".format(",
        r"\.format\((?<=[\"']\.format\()",
        rf"\.format\({_SPACE}{_ARGUMENTS}{_SPACE},?{_SPACE}\)",
        r"\{(\d*)\}",
    ),
)


class Run(NamedTuple):
    """Pieces of text a secret may be written in, in the order they are joined; ``side_by_side``:
    each follows the one before with only a joint between (a secret crossing them is replaced
    whole, joints and all)."""

    pieces: tuple[tuple[int, int], ...]
    side_by_side: bool

    def spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """Where the characters ``start``–``end`` of the joined pieces lie in the text: nothing
        when they lie in one piece (a scan of the text finds them there)."""
        offsets = list(itertools.accumulate((e - s for s, e in self.pieces), initial=0))
        first = bisect.bisect_right(offsets, start) - 1
        last = bisect.bisect_left(offsets, end) - 1
        if first == last:
            return []
        spans = [
            (s + max(0, start - offsets[n]), s + min(e - s, end - offsets[n]))
            for n, (s, e) in enumerate(self.pieces[first : last + 1], first)
        ]
        return [(spans[0][0], spans[-1][1])] if self.side_by_side else spans


def quoted(text: str) -> bool:
    """Has ``text`` a quote? Every way of writing pieces joins string literals, so text without
    one holds none (most text: two searches for one character)."""
    return '"' in text or "'" in text


def may_hold(text: str) -> bool:
    """Has ``text`` pieces to join (``runs`` finds some), told from the first mark found (a
    cheap test most text fails)?"""
    if not quoted(text):
        return False
    plus, brace, join = "+" in text, "}" in text, ".join(" in text
    if plus and compiled(_JOINT).search(text) is not None:
        return True
    if join and _join_call_joints(text):
        return True
    if _side_by_side_found(text) or (plus and _added_to(text)):
        return True
    if _filled(text):
        return True
    if "for" in text and compiled(_LOOP).search(text) is not None:
        return True
    if not ((plus or brace) and _names_joined(text) and _joined_given(text)):
        return False
    return next(_named(text), None) is not None


def _names_joined(text: str) -> bool:
    """Does ``_NAME_JOINED`` match in ``text``? Each of its two joints searched alone, once its
    literal is in the text: a search for one literal is many times faster than for either."""
    if "+" in text and compiled(_NAMES_ADDED_JOINT).search(text) is not None:
        return True
    return ("}{" in text or "}${" in text) and compiled(_NAMES_PLACED_JOINT).search(
        text
    ) is not None


def runs(text: str) -> list[Run]:
    """The runs of pieces in ``text``: literals side by side around their joints (``+``, a
    join call's or a loop's list, nothing but space; as far as a secret may reach), templates
    filled with literals, and literals given to names that are then joined or added to."""
    joints = (
        [*_plus_joints(text), *_join_call_joints(text)] if "+" in text or ".join(" in text else []
    )
    joints += _side_by_side_joints(text)
    joints += [
        (before[1], after[0])
        for loop in (compiled(_LOOP).finditer(text) if "for" in text else ())
        for before, after in itertools.pairwise(_contents(text, *loop.span("list")))
    ]
    found = [_side_by_side(window) for window in _windows(sorted(joints), len(text))]
    return [*found, *_filled(text), *_named(text), *_added_to(text)]


def _plus_joints(text: str) -> list[tuple[int, int]]:
    """From the closing quote (and the backslashes escaping it) to the opening one."""
    spans = []
    for joint in compiled(_JOINT).finditer(text):
        start = joint.start() - 1
        while text[start] in " \t":
            start -= 1
        spans.append((_escapes_before(text, start), joint.end()))
    return spans


def _side_by_side_found(text: str) -> bool:
    """Are two literals side by side anywhere in ``text`` (each quote looked for if present)?"""
    return ('"' in text and compiled(_SIDE_BY_SIDE['"']).search(text) is not None) or (
        "'" in text and compiled(_SIDE_BY_SIDE["'"]).search(text) is not None
    )


def _side_by_side_joints(text: str) -> list[tuple[int, int]]:
    """From the closing quote (and the backslashes escaping it) to the opening one."""
    return [
        (_escapes_before(text, joint.start()), joint.end())
        for quote, joints in _SIDE_BY_SIDE.items()
        if quote in text
        for joint in compiled(joints).finditer(text)
    ]


def _escapes_before(text: str, quote: int) -> int:
    """Where the backslashes escaping the quote at ``quote`` start."""
    start = quote
    while start > 0 and text[start - 1] == "\\" and quote - start < 7:
        start -= 1
    return start


def _contents(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The insides of the string literals between ``start`` and ``end``."""
    spans = []
    for literal in compiled(_LITERAL).finditer(text, start, end):
        quote = compiled(_QUOTE).match(literal.group())
        width = quote.end() if quote else 1
        spans.append((literal.start() + width, literal.end() - width))
    return spans


def _join_call_joints(text: str) -> list[tuple[int, int]]:
    joints = []
    at = text.find(".join(")
    while at != -1:
        call = None
        if text.endswith(_EMPTIES, max(0, at - 8), at):
            call = compiled(_PYTHON_JOIN).match(text, at + 5, at + 5 + _JOIN_REACH)
        elif text.endswith("]", 0, at) and text.startswith(_EMPTIES, at + 6):
            call = compiled(_JAVASCRIPT_JOIN).search(text, max(0, at - _JOIN_REACH), at)
        if call is not None:
            insides = _contents(text, *call.span("list"))
            joints += [(before[1], after[0]) for before, after in itertools.pairwise(insides)]
        at = text.find(".join(", at + 6)
    return joints


def _windows(joints: list[tuple[int, int]], length: int) -> list[list[tuple[int, int]]]:
    """The joints grouped where they lie close, each group between the two spans of text
    around it (``(start, start)`` and ``(end, end)``) that a secret may reach."""
    groups: list[list[tuple[int, int]]] = []
    for joint in joints:
        if groups and joint[0] - groups[-1][-1][1] <= 2 * REACH:
            groups[-1].append(joint)
        else:
            groups.append([joint])
    return [
        [(max(0, g[0][0] - REACH),) * 2, *g, (min(length, g[-1][1] + REACH),) * 2] for g in groups
    ]


def _side_by_side(window: list[tuple[int, int]]) -> Run:
    pieces = tuple((after, before) for (_, after), (before, _) in itertools.pairwise(window))
    return Run(pieces, side_by_side=True)


def _uses(text: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """Names joined (``a + b``, ``{a}{b}``), found from the ``+`` or the ``}`` between them."""
    end, done = len(text) if end is None else end, start
    for joint in compiled(_NAME_JOINED).finditer(text, start, end):
        if joint.start() < done:
            continue
        names = _NAMES_ADDED if joint.group().startswith("+") else _NAMES_PLACED
        use = compiled(names).search(
            text, max(done, joint.start() - 128), min(end, joint.end() + 512)
        )
        if use is not None and use.start() <= joint.start() < use.end():
            done = use.end()
            yield use


def _named(text: str) -> Iterator[Run]:
    """Names given string literals, then joined (within ``NAMED_REACH`` of the literals): the
    literals, in the order of the names. Driven from the joints: text where no names are
    joined is not read for assignments."""
    if not _names_joined(text) or next(_uses(text), None) is None:
        return
    given: dict[str, tuple[int, int]] = {}  # each name's literal, the last given before a use
    assignments = compiled(_ASSIGNED).finditer(text)
    assigned = next(assignments, None)
    while assigned is not None:
        window = [assigned]  # the assignments that lie close, and the text after them
        while (assigned := next(assignments, None)) and assigned.start() < window[
            -1
        ].end() + NAMED_REACH:
            window.append(assigned)
        read = 0  # the literals of the window given to their names so far
        for use in _uses(text, window[0].end(), window[-1].end() + NAMED_REACH):
            while read < len(window) and window[read].start() < use.start():
                literal = window[read]
                name = compiled(_NAME_BEFORE).search(
                    text, max(0, literal.start() - 64), literal.start()
                )
                if name is not None:
                    given[name.group(1)] = literal.span("v")
                read += 1
            names = compiled(_NAME).findall(use.group())
            if len(names) > 1 and all(name in given for name in names):
                yield Run(tuple(given[name] for name in names), side_by_side=False)


def _joined_given(text: str) -> bool:
    """Is a name right before a joint of names (``_NAMES_ADDED_JOINT``, ``_NAMES_PLACED_JOINT``)
    also given a string literal somewhere (``_ASSIGNED``)? Every use ``_uses`` finds holds the
    name before the joint it was found from, so where none is, no use has all its names given
    literals (cheaper to tell than finding the uses)."""
    joined: set[str] = set()
    for joints, mark in ((_NAMES_ADDED_JOINT, "+" in text), (_NAMES_PLACED_JOINT, "}" in text)):
        for joint in compiled(joints).finditer(text) if mark else ():
            before = text[max(0, joint.start() - 81) : joint.start()]
            joined.update(_names_ending(before.removesuffix(" ")))
    joined.discard("")
    for literal in compiled(_ASSIGNED).finditer(text) if joined else ():
        before = text[max(0, literal.start() - 80) : literal.start()].removesuffix(":")
        if not joined.isdisjoint(_names_ending(before.rstrip(" \t"))):
            return True
    return False


_NAME_CHARACTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"


def _names_ending(before: str) -> tuple[str, str]:
    """The names ``before`` (80 characters at most: longer names are never given literals, see
    ``_NAME_BEFORE``) may end with: its last run of name characters, and that run without its
    first character (a name after an escaped ``\\n``)."""
    name = before[len(before.rstrip(_NAME_CHARACTERS)) :]
    return name, name[1:]


def _filled(text: str) -> list[Run]:
    """Templates filled with literals (``FILLINGS``): the template's own text and the
    arguments, in the order they are placed. A marker is looked for only where the text holds
    its literal (far faster to tell than the expression's search)."""
    found = []
    for filling in FILLINGS:
        markers = compiled(filling.marker).finditer(text) if filling.literal in text else ()
        for marker in markers:
            found += _filling(text, filling, marker.start())
    return found


def _filling(text: str, filling: Filling, at: int) -> list[Run]:
    template = _literal_before(text, at)
    arguments = compiled(filling.arguments).match(text, at, at + _JOIN_REACH)
    if template is None or arguments is None:
        return []
    [(start, end)] = _contents(text, *template)
    values = _contents(text, *arguments.span("list"))
    pieces, last = [], start
    for number, placeholder in enumerate(compiled(filling.placeholder).finditer(text, start, end)):
        placed = int(placeholder.group(1) or number)
        if placed >= len(values):
            return []  # not filled with these literals alone
        pieces += [(last, placeholder.start()), values[placed]]
        last = placeholder.end()
    pieces = [(s, e) for s, e in [*pieces, (last, end)] if e > s]
    return [Run(tuple(pieces), side_by_side=False)] if len(pieces) > 1 else []


def _literal_before(text: str, at: int) -> tuple[int, int] | None:
    """The string literal that ends right before ``at`` (or spaces before it)."""
    end = at
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    quote = text[end - 1 : end]
    opening = text.rfind(quote, max(0, end - 260), end - 1) if quote in ("'", '"') else -1
    literal = (
        compiled(_LITERAL).match(text, _escapes_before(text, opening), end)
        if opening >= 0
        else None
    )
    return literal.span() if literal is not None and literal.end() == end else None


def _added_to(text: str) -> list[Run]:
    """Names given a string literal, then literals added to them (``t = "ghp_ab"`` then
    ``t += "cd…"``, shell's ``T+="cd…"``), each within ``NAMED_REACH`` of the one before: the
    literals, in order."""
    first = compiled(_ADDED_TO).search(text)
    if first is None:
        return []
    chains: list[list[tuple[int, int]]] = []
    last: dict[str, tuple[list[tuple[int, int]], int]] = {}  # a name's chain, where it ends
    for assigned in compiled(_ASSIGNED).finditer(text, max(0, first.start() - NAMED_REACH)):
        adding = text[assigned.start() - 1 : assigned.start()] == "+"
        name = compiled(_NAME_BEFORE).search(
            text, max(0, assigned.start() - 64), assigned.start() - adding
        )
        if name is None:
            continue
        chain, end = last.get(name.group(1), ([], -NAMED_REACH))
        if not adding:
            chains.append(chain := [])
        elif not chain or assigned.start() - end > NAMED_REACH:
            continue
        chain.append(assigned.span("v"))
        last[name.group(1)] = (chain, assigned.end())
    return [Run(tuple(chain), side_by_side=False) for chain in chains if len(chain) > 1]
