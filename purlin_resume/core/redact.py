"""Secret redaction: everything that leaves purlin-resume (briefings, exports, logs, prompts,
indexes, caches) passes through here first. The rules are data, in ``secret_rules``; this module
holds the scanner that finds them in text, and ``redact`` / ``redact_data``.

Escaped text is covered too: a token after ``\\n`` or inside ``\\"…\\"`` is found, so the rules
also work as a second net over a serialised document. Callers still redact each text value
before serialising it (``redact_data``), never only the escaped document.

Each secret becomes a stable typed placeholder, ``[REDACTED:<kind>:<8 hex of its sha256>]``: the
same secret always reads the same, so a reader can still tell two secrets apart without seeing
either.

All rules are compiled into one regular expression, scanned once over each text value. Every
alternative starts at its rarest literal character (``_`` of ``ghp_``, ``J`` of ``eyJ``, the
``=`` or ``:`` of an assignment) and checks what comes before with look-behinds. Secret-named
keys are recognised by a look-behind trie of their last five characters, and Python checks the
whole key at the few places that pass.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import itertools
import json
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from purlin_resume.core import encoded, pieces, secret_rules
from purlin_resume.core.secret_rules import (
    ASSIGNMENT,
    AWS_SECRET_BEFORE,
    CLOSERS,
    ESCAPES,
    FLAG,
    FLAG_FORMS,
    KEY_TAILS,
    PASSWORD_FLAGS,
    RULES,
    SCHEMES,
    SHORT_FLAGS,
    USER_PASSWORD_FLAGS,
    Rule,
    assigned_kind,
    compiled,
    is_assigned_secret,
    is_placeholder,
    mixed,
)

PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")
_INSIDE_PLACEHOLDER = r"\[REDACTED:[a-z0-9-]*$"
# the key: the whole run of key characters (starting inside one only finds the same again, one
# character at a time: slow on text made of keys)
_KEY_BEFORE = r"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]*)[\"'`\]\\ ]{0,3}[ \t]*[:]?$"
_KEY_LONGEST = max(map(len, KEY_TAILS))
_FLAG_NEXT = frozenset("-pwaukPUNsdt")  # what follows the ``-`` of a flag the rules look at
_PASSWORD_SOURCES = ("pass", "env", "file", "fd")  # OpenSSL's: where a password is read from
# how much a process looks at rule by rule, from the characters they stop at, before it compiles
# the whole expression: a character costs 1, one rules stop at more (real output: about 2 in all)
_SHORT_BUDGET, _CHARACTER_COST = 20_000, 10
# a process's first text (a short command's whole output) up to what compiling costs: ~50 ms of
# CPU, as much as ~170,000 looked at so (~0.3 µs each; a 29,000-character listing: ~60,000)
_FIRST_BUDGET = 170_000


def _behind(ends: set[str], skip: int = 0, fold: bool = False) -> str:
    """A look-behind test that succeeds when the text ``skip`` characters before the place ends
    with one of ``ends`` (letters in any case when ``fold``): one look-behind per character
    from the end (or per run of characters every one of ``ends`` has there), listing what may
    stand there, each followed by the test of what may precede it. The engine passes over a
    listed literal that differs without trying it; each look-behind it enters costs more."""
    if "" in ends:
        return ""
    groups: dict[str, set[str]] = defaultdict(set)
    for end in ends:
        groups[end[-1]].add(end[:-1])
    after = "." * skip
    if len(groups) == 1:  # one path on: one look-behind for as far as it goes
        run = 1
        while all(len(end) > run for end in ends) and len({end[-run - 1] for end in ends}) == 1:
            run += 1
        shared = next(iter(ends))[-run:]
        inner = _behind({end[:-run] for end in ends}, run, fold)
        return f"(?<={_literal(shared, fold)}{inner}{after})"
    options = [
        _literal(char, fold) + _behind(rest, 1, fold) for char, rest in sorted(groups.items())
    ]
    return f"(?<=(?:{'|'.join(options)}){after})"


def _literal(text: str, fold: bool) -> str:
    return "".join(_any_case(char) if fold else re.escape(char) for char in text)


def _any_case(char: str) -> str:
    return f"[{char}{char.upper()}]" if char.isalpha() else re.escape(char)


def _one_of(chars: Iterable[str]) -> str:
    """A class of ``chars``, letters in any case."""
    chars = set(chars)
    chars |= {char.upper() for char in chars}
    return "[" + "".join(map(re.escape, sorted(chars))) + "]"


_GUARD_DEPTH = 5  # the scan checks a key's last five characters; ``_key_before`` all of it


def _key_guard() -> str:
    """The look-behind test, right after the operator, that a key may end before it behind a
    closer: up to as many characters as the longest closer has, each one of theirs (a few
    strings more than ``CLOSERS``), then the key's last three characters, each of a class, then
    its last ``_GUARD_DEPTH`` characters (``_key_before`` checks the key and closer exactly).
    One look-behind per character from the operator back: at most places the first two fail."""
    tails = {tail[-_GUARD_DEPTH:] for tail in KEY_TAILS}  # each of three characters or more
    last = [_one_of({tail[-at] for tail in tails}) for at in (3, 2, 1)]
    key = f"{last[2]}(?<={last[0]}{last[1]}.){_behind(tails, fold=True)}"
    closer = _one_of("".join(CLOSERS))
    test = ""
    for _ in range(max(map(len, CLOSERS)) + 1):
        test = f"(?<=(?:{key}|{closer}{test}).)" if test else f"(?<={key}.)"
    return test


def _key_before(text: str, op: int) -> bool:
    """Does a secret-named key end right before the operator at ``op``, behind any closer?"""
    for closer in CLOSERS:
        end = op - len(closer)
        if (
            end > 0
            and text.startswith(closer, end)
            and text[max(0, end - _KEY_LONGEST) : end].lower().endswith(KEY_TAILS)
        ):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# the scanner


_COMMON = "d_-=:.$"  # of the characters alternatives start with, the most frequent in transcripts
_RARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ_-:$=")


def _anchor(prefix: str, rule: Rule) -> int:
    """Where in ``prefix`` the scan stops: where ``rule.anchor`` says (an index, or the first of
    the characters it gives), else at its last rare character (else its first)."""
    if isinstance(rule.anchor, str):
        return min(prefix.index(char) for char in rule.anchor if char in prefix)
    if rule.anchor is not None:
        return rule.anchor
    for index in range(len(prefix) - 1, -1, -1):
        if prefix[index] in _RARE:
            return index
    return 0


def _prefix_checks(prefixes: list[str], rule: Rule) -> str:
    """The regex, placed after ``prefixes`` (of one length, the same after their anchor), that
    checks what precedes their anchor."""
    at = _anchor(prefixes[0], rule)
    whole = "|".join(re.escape(prefix) for prefix in prefixes)
    whole = f"(?:{whole})" if len(prefixes) > 1 else whole
    parts = []
    if at:
        parts.append(f"(?<={whole})")
    if rule.word_start:
        escaped = "".join(f"|(?<={escape}{whole})" for escape in ESCAPES)
        parts.append(f"(?:(?<![A-Za-z0-9]{whole}){escaped})")
    return "".join(parts)


def _prefix_groups(rule: Rule) -> list[list[str]]:
    """``rule``'s prefixes, grouped when one expression serves them all (the same anchor, the
    same length, the same text after the anchor): fewer alternatives to compile and try."""
    groups: dict[tuple[int, int, str], list[str]] = defaultdict(list)
    for prefix in rule.prefixes:
        at = _anchor(prefix, rule)
        groups[(at, len(prefix), prefix[at:])].append(prefix)
    return list(groups.values())


class _Branch(NamedTuple):
    """One alternative of the scanner's expression: its group, the kind it finds, and its rule
    (None for the assignments and flags every rule shares)."""

    name: str
    kind: str
    back: int  # how many characters before the match the token starts
    rule: Rule | None
    prefixes: tuple[str, ...] = ()  # a rule's, one of which starts ``back`` characters before

    def may_start(self, text: str, at: int) -> bool:
        """Can this alternative, an assignment's or a flag's, match at ``at`` (cheaper to tell
        than its expression)? A rule's: ``_Started``."""
        if self.name == "assign":
            return _key_before(text, at)
        return text[at + 1 : at + 2] in _FLAG_NEXT


def _no_groups(regex: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", regex)


def _flag(match: re.Match[str], before: str) -> tuple[str, str] | None:
    """The key a flag gives its value to, and what stands between a user and the password in
    that value ("" when it is the password alone); None: not a password for the command on the
    line before it (``-p`` is a password for mysql)."""
    escaped = before.rfind("\\n")  # a line break inside an escaped (JSON) string
    line = before[max(before.rfind("\n") + 1, escaped + 2 if escaped >= 0 else 0) :]
    long = match.group("long") or match.group("single")
    if long and long.lower() not in USER_PASSWORD_FLAGS:
        return ("password" if long.lower() in PASSWORD_FLAGS else long.lower()), ""
    flag = "u " if long else match.group("short") + " " * bool(match.group("gap"))
    command = SHORT_FLAGS.get(flag)
    if command is None or not compiled(command).search(line):
        return None
    return "password", USER_PASSWORD_FLAGS.get(flag, "")


_Prefixed = dict[str, list[tuple[str, str, str]]]


class _Alternative:
    """A branch of the character the scan stopped at, with its own expression (with groups),
    built and compiled when first tried: most processes try few of them."""

    __slots__ = ("branch", "_pattern")

    def __init__(self, branch: _Branch):
        self.branch = branch
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = compiled(_expression_of(self.branch))
        return self._pattern


def _expression_of(branch: _Branch) -> str:
    """``branch``'s own expression, from the character the scan stops at."""
    if branch.rule is None:  # the same for both operators: compiled once
        return "[:=]" + ASSIGNMENT if branch.name == "assign" else re.escape("-") + FLAG[1:]
    prefixes = list(branch.prefixes)
    rest = _prefix_checks(prefixes, branch.rule) + branch.rule.body
    return re.escape(prefixes[0][branch.back :]) + rest


def _branches() -> dict[str, list[_Alternative]]:
    """Per character a rule stops at, each alternative that starts there."""
    by_first: dict[str, list[_Alternative]] = defaultdict(list)
    assign = _Branch("assign", "assigned-secret", 0, None)
    for op in ":=":
        by_first[op].append(_Alternative(assign))
    by_first["-"].append(_Alternative(_Branch("flag", "assigned-secret", 0, None)))
    for rule, prefixes, at in _groups():
        branch = _Branch("rule", rule.kind, at, rule, tuple(prefixes))
        by_first[prefixes[0][at]].append(_Alternative(branch))
    return by_first


def _prefixed() -> _Prefixed:
    """Per character a rule stops at, its prefixes' heads (what precedes it), what follows it,
    and the rest of their expression (without groups)."""
    prefixed: _Prefixed = defaultdict(list)
    for rule, prefixes, at in _groups():
        rest = _no_groups(_prefix_checks(prefixes, rule) + rule.body)
        for prefix in prefixes:
            prefixed[prefix[at]].append((prefix[:at], prefix[at + 1 :], rest))
    return prefixed


def _groups() -> Iterator[tuple[Rule, list[str], int]]:
    """Each rule's prefixes, grouped (``_prefix_groups``), with where in them the scan stops."""
    for rule in RULES:
        for prefixes in _prefix_groups(rule):
            yield rule, prefixes, _anchor(prefixes[0], rule)


def _forward(options: list[tuple[str, str]]) -> list[str]:
    """The branches of one expression for ``(literal, rest)`` pairs: a trie of the literals,
    each followed by its rests (the engine passes over a branch whose first character differs
    without trying it: a list of literals sharing their first characters costs as much as
    one)."""
    rests = [rest for literal, rest in options if not literal]
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for literal, rest in options:
        if literal:
            groups[literal[0]].append((literal[1:], rest))
    branches = list(dict.fromkeys(rests))
    for char, group in sorted(groups.items()):
        branches.append(re.escape(char) + "(?:" + "|".join(_forward(group)) + ")")
    return branches


class _Started:
    """The alternatives of one character that may start at a place: those that check what
    precedes the place themselves, and the rules' whose prefix stands there. Whether any may:
    the prefixes that start as many characters before the place, tested at once
    (``str.startswith`` takes them all); which, by position: a lookup of the text before the
    place for each of the prefixes' lengths and distances (at ``-`` some 60 rules stop: far
    fewer lookups than prefixes)."""

    def __init__(self, alternatives: list[_Alternative]):
        self.own: list[tuple[int, _Branch]] = []
        backs: dict[int, list[str]] = {}
        tables: dict[tuple[int, int], dict[str, list[int]]] = {}
        for n, each in enumerate(alternatives):
            branch = each.branch
            if branch.rule is None:
                self.own.append((n, branch))
            backs.setdefault(branch.back, []).extend(branch.prefixes)
            for prefix in branch.prefixes:
                tables.setdefault((branch.back, len(prefix)), {}).setdefault(prefix, []).append(n)
        self.backs = [(back, tuple(prefixes)) for back, prefixes in backs.items() if prefixes]
        self.tables = [(back, length, table) for (back, length), table in tables.items()]

    def positions(self, text: str, at: int) -> list[int]:
        """Where those that may start at ``at`` stand among the alternatives, in their order
        (those that check what precedes the place themselves: all of them)."""
        found = [n for n, _ in self.own]
        for back, length, table in self.tables:
            if at >= back:
                found += table.get(text[at - back : at - back + length], ())
        return sorted(found)

    def any(self, text: str, at: int) -> bool:
        """May one of them start at ``at``?"""
        for _, branch in self.own:
            if branch.may_start(text, at):
                return True
        for back, prefixes in self.backs:
            if at >= back and text.startswith(prefixes, at - back):
                return True
        return False


def _start(match: re.Match[str] | None) -> int | None:
    return None if match is None else match.start()


class Places:
    """Where some rule may match in one text, asked for in order: ``next(pos)`` is the first
    such position from ``pos`` on (None: there is none), as ``first(text, pos)`` finds it. The
    last answer is kept: asking again from anywhere between its question and it costs nothing.
    ``at``: the first place, when the caller found it already; ``joins``: the text holds
    pieces to join, as ``pieces.may_hold`` found already."""

    def __init__(
        self,
        first: Callable[[str, int], int | None],
        text: str,
        at: int | None = None,
        known: bool = False,
        joins: bool = False,
    ):
        self._first, self._text = first, text
        self.joins = joins
        # the first place from ``_asked`` on is ``_at``
        self._asked: int = 0 if at is not None or known else -1
        self._at: int | None = at

    def next(self, pos: int) -> int | None:
        if 0 <= self._asked <= pos and (self._at is None or pos <= self._at):
            return self._at
        self._asked, self._at = pos, self._first(self._text, pos)
        return self._at


class Scanner:
    """All rules as one compiled expression, plus a config's extra patterns and allow-list.

    The expression has no groups (the engine's cost per tried position grows with their
    number): it only says where some rule may match. Its alternatives are grouped by the
    character they stop at, and a look-behind of the prefixes ending there rules out most
    places at once (for a secret-named key, of the key's last characters only: the expression
    stays small and compiles fast, and ``_key_before`` checks the whole key). The rules of the
    character found are then matched one by one, in order, each with its own groups, once one
    of their prefixes is there. Each expression is compiled when first needed; a process's
    first texts are looked at from the characters alone (``_finder``).
    """

    def __init__(
        self,
        extra: Iterable[tuple[str, str]] = (),
        allow: Iterable[str] = (),
        bounded: Iterable[tuple[str, str]] = (),
    ):
        self._by_first: dict[str, list[_Alternative]] | None = None
        self._pattern: re.Pattern[str] | None = None
        self._starts: re.Pattern[str] | None = None  # the characters alternatives start with
        self._started: dict[str, _Started] = {}  # per character, its alternatives by prefix
        self._spent = self._limit = 0  # on looking at texts from the characters rules stop at
        extra, allow, bounded = tuple(extra), tuple(allow), tuple(bounded)
        self.given = repr((extra, allow, bounded))  # what ``fingerprint`` tells apart
        self.extra = [(_kind_name(kind), re.compile(pattern)) for kind, pattern in extra]
        self.extra += _linear(bounded)
        self.allow = [re.compile(pattern) for pattern in allow]

    @property
    def pattern(self) -> re.Pattern[str]:
        """Where some rule may match (assembled and compiled when first needed)."""
        if self._pattern is None:
            self._pattern = re.compile(self._expression())
        return self._pattern

    @property
    def by_first(self) -> dict[str, list[_Alternative]]:
        """Per character, each alternative (its expression compiled when first tried)."""
        if self._by_first is None:
            self._by_first = _branches()
        return self._by_first

    def _started_at(self, char: str) -> _Started:
        """``char``'s alternatives by prefix (built when first needed)."""
        started = self._started.get(char)
        if started is None:
            started = self._started[char] = _Started(self.by_first[char])
        return started

    def _finder(self, text: str) -> Callable[[str, int], int | None]:
        """How ``Places`` finds the places in ``text``: with the whole expression, or, while the
        process has not spent ``_SHORT_BUDGET`` (its first text: ``_FIRST_BUDGET``), from the
        characters rules stop at, by their prefixes and keys (a short text costs less to look at
        so than the expression costs to compile: a hook redacting one task, a short command
        printing its listing never compile it)."""
        if self._pattern is not None:
            return self._first_by_expression
        limit = _FIRST_BUDGET if self._spent == 0 else _SHORT_BUDGET
        if self._spent + 2 * len(text) <= limit:  # expected to fit: none spent half-way
            self._spent, self._limit = self._spent + len(text), limit
            return self._first_by_prefix
        return self._first_by_expression

    def _first_by_expression(self, text: str, pos: int) -> int | None:
        return _start(self.pattern.search(text, pos))

    def _first_by_prefix(self, text: str, pos: int) -> int | None:
        if self._starts is None:
            self._starts = re.compile("[" + "".join(map(re.escape, sorted(self.by_first))) + "]")
        while (match := self._starts.search(text, pos)) is not None:
            self._spent += _CHARACTER_COST
            if self._spent > self._limit:  # spent: the expression from here on
                return self._first_by_expression(text, match.start())
            at = match.start()
            if self._started_at(text[at]).any(text, at):
                return at
            pos = at + 1
        return None

    def _expression(self) -> str:
        """The expression of the whole scan."""
        free = {"-": [_no_groups(form) for form in FLAG_FORMS]}
        prefixed = _prefixed()
        assigned = _key_guard() + _no_groups(ASSIGNMENT)
        # one alternative per character, starting with it: when every alternative starts with a
        # literal, the engine skips to the next of those characters without trying the
        # expression in between; the most frequent characters first (each place found tries
        # the alternatives in order), and at an operator the assignment first (a key before it)
        alternatives = []
        chars = set(free) | set(prefixed) | set(":=")
        for char in sorted(chars, key=lambda c: (_COMMON.find(c) % 99, c)):
            options = [assigned] if char in ":=" else []
            options += free.get(char, [])
            # prefixes that start at the character or go on after it (what follows is looked
            # at first), then those a look-behind of what precedes it rules out at most places
            entries = prefixed[char]
            ahead = [(after, rest) for head, after, rest in entries if after or not head]
            closed = [(head, rest) for head, after, rest in entries if head and not after]
            options += _forward(ahead)
            if closed:
                rests = "|".join(dict.fromkeys(rest for _, rest in closed))
                before = _behind({head for head, _ in closed}, 1)
                options.append(f"{before}(?:{rests})")
            alternatives.append(f"{re.escape(char)}(?:{'|'.join(options)})")
        return "|".join(alternatives)

    def _findings(self, text: str, at: int, assignments: bool) -> list[Finding] | None:
        """The findings of the first rule that matches at ``at`` and is not rejected."""
        alternatives = self.by_first.get(text[at])
        if alternatives is None:
            return None
        for position in self._started_at(text[at]).positions(text, at):
            alternative = alternatives[position]
            branch = alternative.branch
            if branch.rule is None and not (assignments and branch.may_start(text, at)):
                continue  # the scan looked at a key's last characters only
            match = alternative.pattern.match(text, at)
            if match is None:
                continue
            found = self._branch_findings(text, match, branch)
            if found is not None:
                return found
        return None

    def _branch_findings(
        self, text: str, match: re.Match[str], branch: _Branch
    ) -> list[Finding] | None:
        rule = branch.rule
        if rule is None:
            return self._assigned(text, match, branch.name)
        if "s" in match.re.groupindex and match.start("s") != -1:
            start, end = match.span("s")
        else:
            start, end = match.start() - branch.back, match.end()
        secret = text[start:end]
        if rule.context and not _near(rule, text, start, end):
            return None
        if rule.before:
            preceding = _ending_at(rule.before, text, match.start() - branch.back)
            if preceding is None:
                return None
            if "s" in preceding.re.groupindex:  # the secret stands before the prefix
                start, end = preceding.span("s")
                secret = text[start:end]
        if rule.validator is not None and not rule.validator(secret):
            return None
        if rule.parts:  # the secrets inside the block: each of its values
            return [
                Finding(branch.kind, start + part.start("v"), start + part.end("v"), value)
                for part in compiled(rule.parts).finditer(secret)
                if not is_placeholder(value := part.group("v"))
            ] or None
        found = [Finding(branch.kind, start, end, secret)]
        if rule.pair_kind and match.start("pair") != -1:
            found.append(Finding(rule.pair_kind, *match.span("pair"), match.group("pair")))
        elif rule.pair_kind:
            before = compiled(AWS_SECRET_BEFORE).search(text, max(0, start - 60), start)
            if before is not None:
                found.insert(0, Finding(rule.pair_kind, *before.span(1), before.group(1)))
        return found

    def _assigned(self, text: str, match: re.Match[str], name: str) -> list[Finding] | None:
        """A value given to a secret-named key, a ``--password`` flag or ``mysql -p``."""
        quote = match.group("q")
        group = "qv" if quote else "uv"
        start, end = match.span(group)
        value = text[start:end]
        if is_placeholder(value):
            return None  # the cheapest test first
        op = match.start()
        before = text[max(0, op - 64) : op]
        if compiled(_INSIDE_PLACEHOLDER).search(before):
            return None
        after = text[end : end + 1]
        if quote and text[end : end + 4].lstrip("\\")[:1] != quote[-1]:
            return None  # a quote that does not close right after one word: prose
        if name == "flag":
            flag = _flag(match, text[max(0, op - 256) : op])
            if flag is None or value.startswith("-"):  # another flag: ``--ask-pass --check``
                return None
            key, between = flag
            if between:  # ``curl -u USER:PASSWORD``: the password only
                after_user = value.find(between) + 1
                if after_user <= 1 or is_placeholder(value[after_user:]):
                    return None
                start, value = start + after_user, value[after_user:]
            source, _, password = value.partition(":")  # OpenSSL's ``-passin pass:VALUE``
            if password and source in _PASSWORD_SOURCES:
                if source != "pass":
                    return None  # the password is read from elsewhere
                start, value = start + len(source) + 1, password
            # a command's argument is a literal; after a flag of more words (``--admin-password``,
            # but ``--ask-become-pass`` is a switch) a name or a file (``site.yml``) is not
            compound = match.start("long") > op + 2
            quote, spaced = (quote if compound else quote or ""), False
        else:
            found = compiled(_KEY_BEFORE).search(before)
            key = found.group(1) if found else ""
            spaced = text[op - 1 : op] == " " or text[op + 1 : op + 2] in (" ", "\t")
        if not is_assigned_secret(key, value, quote is not None, after, spaced):
            return None
        inner = self.find(value, assignments=False)
        if inner:  # a provider's token keeps its own kind
            return [Finding(f.kind, start + f.start, start + f.end, f.secret) for f in inner]
        scheme = match.group("scheme") if name != "flag" else None
        kind = SCHEMES.get(scheme.lower()) if scheme else None
        return [Finding(kind or assigned_kind(key), start, end, value)]

    def places(self, text: str) -> Places:
        """Where a rule may match in ``text``, asked for in order (``Places``)."""
        return Places(self._finder(text), text)

    def any_places(self, text: str) -> Places | None:
        """``places(text)``, or None when no rule may match anywhere in it and no string
        literals are joined in it (most text: one search)."""
        pattern = self._pattern
        finder = self._finder(text) if pattern is None else self._first_by_expression
        at = finder(text, 0) if pattern is None else _start(pattern.search(text))
        if at is not None:
            return Places(finder, text, at)
        if pieces.may_hold(text):
            return Places(finder, text, known=True, joins=True)  # none, but pieces to join
        if encoded.may_hold(text):
            return Places(finder, text, known=True)  # none, but text to read decoded
        return None

    def find(
        self, text: str, assignments: bool = True, places: Places | None = None
    ) -> list[Finding]:
        """The secrets in ``text``; ``assignments=False``: only providers' tokens and the like.
        ``places``: where ``pattern`` matches in ``text``, when the caller looked already (the
        scan goes on from what it found instead of reading the text again)."""
        found = self._scan(text, assignments, places)
        if (places is not None and places.joins) or pieces.may_hold(text):
            found = self._with_pieces(text, found, assignments)
        if encoded.may_hold(text):
            found = self._with_decoded(text, found, assignments)
        if self.extra:
            found = self._with_extra(text, found)
        if found or _remembered.secrets:
            found = _with_repeats(text, found)
            _remembered.add(found)
        return found

    def _scan(self, text: str, assignments: bool, places: Places | None = None) -> list[Finding]:
        found: list[Finding] = []
        places = places if places is not None else self.places(text)
        at = places.next(0)
        while at is not None:
            findings = self._findings(text, at, assignments) or []
            for finding in findings:
                # one that stands before the place (``echo VALUE | sudo -S``) goes where it
                # stands, unless an earlier finding covers it
                if found and finding.start < found[-1].end and not _outside([finding], found):
                    continue
                if PLACEHOLDER.fullmatch(finding.secret) or self._allowed(finding.secret):
                    continue
                bisect.insort(found, finding, key=lambda f: f.start)
            at = places.next(max([at + 1] + [f.end for f in findings]))
        return found

    def _with_pieces(self, text: str, found: list[Finding], assignments: bool) -> list[Finding]:
        """Add the secrets written in pieces (``"ghp_abc" + "def…"``, a join of a list of
        literals, names given literals and joined): each run of pieces is scanned joined; a
        secret that crosses from one piece to another replaces what the first scan found inside
        it, whole where the pieces lie side by side, else piece by piece."""
        crossing = []
        for run in pieces.runs(text):
            joined = "".join(text[start:end] for start, end in run.pieces)
            for finding in self._scan(joined, assignments):
                spans = run.spans(finding.start, finding.end)
                crossing += [Finding(finding.kind, *span, finding.secret) for span in spans]
        if not crossing:
            return found
        kept = _outside(found, crossing)
        # a token found whole where a piece of it stands is kept whole
        crossing += _outside(_elsewhere(text, crossing), kept)
        return _first_of_each(kept + crossing)

    def _with_decoded(self, text: str, found: list[Finding], assignments: bool) -> list[Finding]:
        """Add the secrets ``text`` holds read decoded (``encoded``), where the first scan found
        none (a password holding ``%40`` reads to its end there)."""
        more = []
        for decoded in encoded.decodings(text):
            for finding in self._scan(decoded.text, assignments):
                span = decoded.span(finding.start, finding.end)
                more.append(Finding(finding.kind, *span, finding.secret))
        return _first_of_each(found + _outside(more, found)) if more else found

    def _allowed(self, secret: str) -> bool:
        return any(pattern.fullmatch(secret) for pattern in self.allow)

    def _with_extra(self, text: str, found: list[Finding]) -> list[Finding]:
        """Add the matches of the config's own patterns that overlap no finding."""
        more = [
            Finding(kind, start, end, text[start:end])
            for kind, pattern in self.extra
            for group in [pattern.groupindex.get("s", 0)]
            for m in pattern.finditer(text)
            # the group ``s``; the whole match when ``s`` has no part in it
            for start, end in [m.span(group) if m.start(group) != -1 else m.span()]
            if end > start
        ]
        chosen: list[Finding] = []
        for finding in sorted(found + more, key=lambda f: (f.start, -f.end)):
            if chosen and finding.start < chosen[-1].end:
                continue
            if finding in more and self._allowed(finding.secret):
                continue
            chosen.append(finding)
        return chosen


def _outside(findings: list[Finding], others: list[Finding]) -> list[Finding]:
    """The findings that overlap none of ``others``."""
    return [f for f in findings if not any(f.start < o.end and o.start < f.end for o in others)]


def _first_of_each(findings: list[Finding]) -> list[Finding]:
    """``findings`` in order, never overlapping (the earliest, then the longest, wins)."""
    chosen: list[Finding] = []
    for finding in sorted(set(findings), key=lambda f: (f.start, -f.end)):
        if not chosen or finding.start >= chosen[-1].end:
            chosen.append(finding)
    return chosen


_REPEATED = 12  # a secret this long, letters and digits mixed, is one wherever it stands
_REPEATS = 64  # the distinct secrets looked for again (each a pass over the text)


class _Remembered(threading.local):
    """The secrets of that kind found so far in the texts of one conversation (``remembering``;
    up to ``_REPEATS``): each is one in every text of it redacted after, so a password a command
    showed is also hidden where an answer repeats it in another text ("the password S3cr…
    works"). Each thread has its own (the dashboard answers requests in several)."""

    def __init__(self) -> None:
        self.depth = 0  # how many ``remembering`` blocks are open
        self.secrets: dict[str, str] = {}  # secret -> its kind
        self._pattern: re.Pattern[str] | None = None  # any of them (a search of one pass)
        self._shortest = 0  # a text shorter than this holds none

    def add(self, found: list[Finding]) -> None:
        for finding in found if self.depth else ():
            if len(self.secrets) >= _REPEATS:
                return
            if finding.secret not in self.secrets and _repeatable(finding):
                self.secrets[finding.secret] = finding.kind
                self._pattern, self._shortest = None, min(map(len, self.secrets))

    def held(self, text: str) -> bool:
        """Does ``text`` hold one of them?"""
        if not self.secrets or len(text) < self._shortest:
            return False
        if self._pattern is None:
            self._pattern = _any_of(self.secrets)
        return self._pattern.search(text) is not None

    def clear(self) -> None:
        self.secrets.clear()
        self._pattern, self._shortest = None, 0


_remembered = _Remembered()


def _any_of(secrets: Iterable[str]) -> re.Pattern[str]:
    """Where one of ``secrets`` stands (one pass over a text)."""
    return re.compile("|".join(map(re.escape, secrets)))


@contextlib.contextmanager
def remembering() -> Iterator[None]:
    """Redact the texts of one conversation: within, a secret found in one text (of the kind
    ``_with_repeats`` looks for again) is hidden in every text redacted after it."""
    _remembered.depth += 1
    try:
        yield
    finally:
        _remembered.depth -= 1
        if not _remembered.depth:
            _remembered.clear()


def _repeatable(finding: Finding) -> bool:
    secret = finding.secret
    return len(secret) >= _REPEATED and mixed(secret)


def _with_repeats(text: str, found: list[Finding]) -> list[Finding]:
    """``found`` and the other places ``text`` holds one of its secrets (a password set in one
    command and typed again in the next), or one found earlier (``_remembered``): a secret that
    looks random, long and mixing letters and digits, not a word the text may use otherwise (a
    password ``postgres``)."""
    secrets: dict[str, str] = {}
    for finding in found:
        if finding.secret not in secrets and _repeatable(finding):
            secrets[finding.secret] = finding.kind
    for secret, kind in _remembered.secrets.items():
        secrets.setdefault(secret, kind)
    starts = [f.start for f in found]
    more = []
    for secret, kind in itertools.islice(secrets.items(), _REPEATS):
        for at in _places_of(text, secret):
            end = at + len(secret)
            before = bisect.bisect_right(starts, at) - 1  # the finding at or before ``at``
            clear = before < 0 or found[before].end <= at
            if clear and (before + 1 == len(found) or found[before + 1].start >= end):
                more.append(Finding(kind, at, end, secret))
    return _first_of_each(found + more) if more else found


def _places_of(text: str, shown: str) -> Iterator[int]:
    """Where ``text`` holds ``shown``, each place after the one before."""
    at = text.find(shown)
    while at >= 0:
        yield at
        at = text.find(shown, at + len(shown))


_PIECE_SHOWN = 8  # a piece of a secret this long is the secret's wherever it stands


def _elsewhere(text: str, crossing: list[Finding]) -> list[Finding]:
    """The other places of ``text`` that hold a piece of a secret found joined: a tool call
    shown on one line and again as its input holds the same literal twice, joined once."""
    more = []
    for piece in crossing:
        shown = text[piece.start : piece.end]
        if len(shown) < _PIECE_SHOWN:
            continue
        more += [
            Finding(piece.kind, at, at + len(shown), piece.secret)
            for at in _places_of(text, shown)
            if at != piece.start
        ]
    return more


def _near(rule: Rule, text: str, start: int, end: int) -> bool:
    """Does one of ``rule``'s context words stand within its reach of ``start``–``end``?"""
    near = text[max(0, start - rule.within) : end + rule.within].lower()
    return any(word in near for word in rule.context)


def _ending_at(pattern: str, text: str, at: int) -> re.Match[str] | None:
    """``pattern`` where it ends right before ``at`` (looking at 256 characters at most)."""
    return compiled(f"(?:{pattern})\\Z").search(text, max(0, at - 256), at)


def _linear(patterns: Iterable[tuple[str, str]]) -> list[tuple[str, Any]]:
    """Patterns from a file the user has not trusted, compiled by RE2, whose time grows with the
    text only (``(a+)+b`` cannot hang a command); without RE2, or where RE2 refuses one
    (look-arounds, back-references), they are not run at all."""
    patterns = list(patterns)
    if not patterns:
        return []
    try:
        import re2
    except ImportError:
        return []
    options = re2.Options()
    options.log_errors = False
    linear = []
    for kind, pattern in patterns:
        try:
            linear.append((_kind_name(kind), re2.compile(pattern, options)))
        except re2.error:
            continue
    return linear


def _kind_name(kind: str) -> str:
    """A user's kind name as placeholders spell kinds: lower-case letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "custom"


class Finding(NamedTuple):
    """A secret found in a text: its kind and where it lies."""

    kind: str
    start: int
    end: int
    secret: str

    @property
    def placeholder(self) -> str:
        import hashlib  # only once a secret is found (most processes find none)

        secret = _unescaped(self.secret).encode("utf-8", "surrogatepass")
        return f"[REDACTED:{self.kind}:{hashlib.sha256(secret).hexdigest()[:8]}]"


def _unescaped(secret: str) -> str:
    """``secret`` as it was written, when it is found inside JSON text (escaped once or twice:
    a key's ``\\n``): the same secret gets the same placeholder in a rendered conversation and in
    its raw or JSON form."""
    for _ in range(2):
        if "\\" not in secret:
            break
        try:
            secret = json.loads(f'"{secret}"')
        except ValueError:
            break
    return secret


_SHORTEST = 7  # no rule matches less: ``pwd=abc``
_scanner: Scanner | None = None  # with a config's own patterns
_builtin: Scanner | None = None
_configured = False  # whether a config (or the choice of the built-in rules) was applied


def scanner() -> Scanner:
    """The scanner in use: the built-in rules plus whatever ``configure`` added."""
    global _builtin
    if _scanner is not None:
        return _scanner
    if _builtin is None:
        _builtin = Scanner()
    return _builtin


def configure(
    extra: Iterable[tuple[str, str]] = (),
    allow: Iterable[str] = (),
    bounded: Iterable[tuple[str, str]] = (),
) -> None:
    """Add a config's extra patterns ``(kind, regex)`` and allow-list (regexes a secret may
    fully match to be left alone) to the rules used from now on, and patterns from a file not
    trusted (``bounded``: run in linear time or not at all); none: the built-in rules."""
    global _scanner, _configured
    extra, allow, bounded = tuple(extra), tuple(allow), tuple(bounded)
    _scanner = Scanner(extra, allow, bounded) if (extra or allow or bounded) else None
    _configured = True


def configured() -> bool:
    """Whether ``configure`` was called since the start (or the last ``forget``)."""
    return _configured


def forget() -> None:
    """Back to the built-in rules, as before any config was read: a new command run in the
    same process reads its own."""
    global _scanner, _configured
    _scanner, _configured = None, False
    _remembered.clear()


_BUILT_IN: list[str] = []  # the digest of the built-in rules, once computed


def fingerprint() -> str:
    """The rules in use, as a short digest: the built-in ones (the code of this module and of
    its rules) and a config's own. Redacted text a cache keeps is good under these rules only:
    a new release's rules, or a pattern added since, may find more in it."""
    import hashlib

    if not _BUILT_IN:
        digest = hashlib.sha256()
        for module in (__file__, secret_rules.__file__, pieces.__file__, encoded.__file__):
            digest.update(Path(module).read_bytes())
        _BUILT_IN.append(digest.hexdigest())
    return hashlib.sha256((_BUILT_IN[0] + scanner().given).encode()).hexdigest()[:16]


def find(text: str) -> list[Finding]:
    """The secrets in ``text``, in order, never overlapping (the earliest wins)."""
    return scanner().find(text)


@dataclass
class Redacted:
    """A text with its secrets replaced, and how many of each kind were."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def redact(text: str, places: Places | None = None) -> Redacted:
    """``text`` with every secret replaced by its placeholder, and the counts by kind.
    ``places``: the scanner's ``places`` of ``text``, when the caller asked for them already."""
    current = scanner()
    if not current.extra:
        places = places if places is not None else current.any_places(text)
        if places is None and not _remembered.held(text):
            return Redacted(text)
    findings = current.find(text, places=places)
    if not findings:
        return Redacted(text)
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts += [text[last : finding.start], finding.placeholder]
        last = finding.end
    parts.append(text[last:])
    return Redacted("".join(parts), dict(Counter(f.kind for f in findings)))


_LONGEST_SECRET = 17_000  # a private key's body is matched up to 16 KiB
_LONG_SECRET = 4096  # as far as any other secret reaches (a JWT's claims, a long password)


def one_line(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with ``…`` where no secret (nor a
    placeholder) is cut in two: a secret the cut would cross goes whole, so the redaction of
    what is shown (which needs the whole secret) still finds every one left; so does one the
    text holds again past the cut (what makes it a secret may stand there). Only the start of
    a long text is looked at: as far as a secret may reach past the cut (a private key's far
    further than any other's)."""
    reach = _LONG_SECRET if "-----BEGIN" not in text[: limit + _LONG_SECRET] else _LONGEST_SECRET
    line = " ".join(text[: limit + reach].split())
    if len(line) <= limit:
        return line
    end = limit - 1
    findings = scanner().find(line)
    past = {f.secret for f in findings if f.end > end}
    for finding in findings:
        if finding.start >= end:
            break
        if finding.end > end or finding.secret in past:
            end = finding.start
            break
    opened = line.rfind("[REDACTED:", 0, end)
    if opened != -1 and line.find("]", opened) >= end:
        end = opened
    return line[:end] + "…"


_UNSEEN = Redacted("")
_PLAIN = frozenset({type(None), int, float, bool})  # values with no text inside
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _init_fields(kind: type) -> tuple[str, ...] | None:
    """The fields a dataclass's ``__init__`` takes (``dataclasses.replace`` needs no others);
    None for a type that is not a dataclass."""
    if kind not in _FIELDS:
        is_class = dataclasses.is_dataclass(kind) and isinstance(kind, type)
        _FIELDS[kind] = (
            tuple(f.name for f in dataclasses.fields(kind) if f.init) if is_class else None
        )
    return _FIELDS[kind]


def _redacted_text(current: Scanner, text: str) -> Redacted | None:
    """``redact(text)``, or None when nothing in it is redacted; most text has no place a rule
    may match, which is looked for first (a config's own patterns: looked at in every text)."""
    done: Redacted | None
    if current.extra:
        done = redact(text)
    else:
        places = current.any_places(text)
        held = places is not None or _remembered.held(text)
        done = redact(text, places) if held else None
    return done if done is not None and done.counts else None


def remember(data: Any) -> None:
    """Look for the secrets in ``data`` (as ``redact_data`` does) only to remember them: the
    texts redacted next in the same ``remembering`` block hide them wherever they stand."""
    redact_data(data)


def redact_data(data: Any) -> tuple[Any, dict[str, int]]:
    """Redact every string inside a JSON-like structure (keys included), or inside dataclasses
    such as a read transcript, before it is rendered or serialised; returns (result, counts).

    The result shares every part in which nothing was redacted with ``data`` (most of a
    conversation holds no secret, and copying it would cost more than scanning it); the parts
    that changed are new objects, so ``data`` itself is never modified. A secret found in one
    of its texts is hidden in all of them (``remembering``)."""
    current = scanner()
    shortest = 0 if current.extra else _SHORTEST
    if type(data) is str:  # one text (a tool's output, a thought): no walk to set up
        done = _redacted_text(current, data) if len(data) >= shortest else None
        return (data, {}) if done is None else (done.text, done.counts)
    walk = _Walk(current, shortest)
    known = len(_remembered.secrets)
    try:
        with remembering():  # one structure: a secret found in one text is one in the others
            done = walk.value(data)
            if len(_remembered.secrets) > known:  # it may stand in a text looked at before
                done = walk.again(done, list(_remembered.secrets)[known:])
        return done, dict(walk.counts)
    except RecursionError:
        # nested deeper than Python recurses (JSON only): the rules also work on its escaped
        # text, and placeholders hold no character JSON escapes
        done = redact(json.dumps(data, ensure_ascii=False))
        return json.loads(done.text), done.counts


class _Walk:
    """One ``redact_data`` walk: what it redacted (``counts``), and each text it looked at
    (keys and values repeat: a list of records, a tool's result both in the message and in
    ``toolUseResult``; each is looked at once; None: nothing to redact)."""

    __slots__ = ("counts", "current", "seen", "shortest")

    def __init__(self, current: Scanner, shortest: int):
        self.current, self.shortest = current, shortest
        self.counts: Counter[str] = Counter()
        self.seen: dict[str, Redacted | None] = {}

    def text(self, value: str) -> str:
        if len(value) < self.shortest:
            return value
        done = self.seen.get(value, _UNSEEN)
        if done is _UNSEEN:
            done = self.seen[value] = _redacted_text(self.current, value)
        if done is None:
            return value
        self.counts.update(done.counts)
        return done.text

    def again(self, data: Any, secrets: list[str]) -> Any:
        """``data`` (this walk's result) with the texts that hold one of ``secrets`` looked at
        again (none: ``data`` as it is); the others are known already."""
        holding = _any_of(secrets)
        seen: dict[str, Redacted | None] = {}
        for value, done in self.seen.items():
            text = value if done is None else done.text
            if holding.search(text) is None:
                seen[text] = None
        if len(seen) == len(self.seen):
            return data  # no text holds one again (a text redacted leaves no other)
        self.seen = seen
        return self.value(data)

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return self.text(value)
        if kind in _PLAIN:
            return value  # the most common values besides text: nothing to look into
        if kind is dict:  # (one frame a level: the depth reached before RecursionError)
            changed: dict | None = None
            for number, (key, item) in enumerate(value.items()):
                new_key, new = self.value(key), self.value(item)
                if changed is None:
                    if new_key is key and new is item:
                        continue
                    changed = dict(itertools.islice(value.items(), number))
                changed[new_key] = new
            return value if changed is None else changed
        if kind is list or kind is tuple:
            items = None
            for number, item in enumerate(value):
                new = self.value(item)
                if items is None:
                    if new is item:
                        continue
                    items = list(value[:number])
                items.append(new)
            if items is None:
                return value
            return items if kind is list else tuple(items)
        return self.fields(value, kind)

    def fields(self, value: Any, kind: type) -> Any:
        """A dataclass with the fields its ``__init__`` takes redacted, a str subclass (an
        enum's value, say) redacted; any other value as is."""
        if isinstance(value, str):
            done = redact(value)
            self.counts.update(done.counts)
            return done.text if done.counts else value
        names = _init_fields(kind)
        if names is None:
            return value
        changes = {}
        for name in names:
            old = getattr(value, name)
            if type(old) in _PLAIN:
                continue
            new = self.text(old) if type(old) is str else self.value(old)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value
