"""Secret redaction: everything that leaves purlin-resume (briefings, exports, logs, prompts)
passes through here first.

Rules are in the shape of gitleaks' rules: provider tokens with a recognisable prefix, private key
blocks, JWTs, credentials inside URLs, Bearer headers, and values assigned to a secret-like
keyword (password, secret, token, api_key, ...). Entropy is only ever used beside such a keyword,
so uuids, commit hashes and ids elsewhere are never touched. Each secret becomes a stable typed
placeholder, ``[REDACTED:<kind>:<8 hex of its sha256>]``: the same secret always reads the same,
so a reader can still tell two secrets apart without seeing either.

Speed: every rule starts at a literal trigger ("AKIA", "ghp_", "://", "token", ...). The text is
searched for triggers with ``str.find`` and a rule's pattern is only tried where its trigger
stands, so clean text is scanned at memory speed.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")
_VALUE = r"[A-Za-z0-9_\-+/=.~!@#$%^&*]{8,256}"
_ASSIGN = r"['\"]?\s{0,3}(?::=|=>|=|:)\s{0,3}['\"]?"


@dataclass(frozen=True)
class Rule:
    """A kind of secret: where it can start (triggers) and its pattern, matched at a trigger.

    The secret is the pattern's group ``s`` when it has one, else the whole match. With
    ``fold_case`` the triggers are looked up in the lower-cased text. With ``word_start`` a match
    must not follow a letter or digit.
    """

    kind: str
    triggers: tuple[str, ...]
    pattern: re.Pattern[str]
    fold_case: bool = False
    word_start: bool = True
    keyword_value: bool = False


def _rule(kind, triggers, pattern, **options) -> Rule:
    return Rule(kind, tuple(triggers), re.compile(pattern), **options)


RULES: tuple[Rule, ...] = (
    _rule(
        "private-key",
        ["-----BEGIN"],
        r"-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,16384}?-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        word_start=False,
    ),
    _rule(
        "aws-access-key",
        ["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])",
    ),
    _rule(
        "github-token",
        ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9])",
    ),
    _rule(
        "gitlab-token",
        ["glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glsoat-", "glft-", "glimt-", "glagent-"],
        r"gl[a-z]{2,6}-[A-Za-z0-9_-]{20,}",
    ),
    _rule(
        "slack-token",
        ["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"],
        r"xox[abposr]-(?:\d+-)?[A-Za-z0-9-]{10,}",
    ),
    _rule(
        "slack-webhook",
        ["hooks.slack.com/"],
        r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}",
        word_start=False,
    ),
    _rule(
        "stripe-key",
        ["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{20,}",
    ),
    _rule("anthropic-key", ["sk-ant-"], r"sk-ant-[a-z]{3,8}\d{0,2}-[A-Za-z0-9_-]{20,}"),
    _rule(
        "openai-key",
        ["sk-"],
        r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{48}(?![A-Za-z0-9])",
    ),
    _rule("google-api-key", ["AIza"], r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _rule("jwt", ["eyJ"], r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    _rule(
        "url-credentials",
        ["://"],
        r"://[^\s:/@'\"]{1,128}:(?P<s>[^\s:/@'\"]{3,256})@",
        word_start=False,
    ),
    _rule(
        "bearer-token", ["bearer"], r"(?i:bearer)\s+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)", fold_case=True
    ),
    _rule(
        "assigned-secret",
        [
            "pass",
            "pwd",
            "secret",
            "token",
            "apikey",
            "api_key",
            "api-key",
            "access_key",
            "access-key",
            "private_key",
            "private-key",
            "auth",
            "credential",
        ],
        r"(?i:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]key|private[_-]key|auth|credentials?)"
        rf"[A-Za-z0-9_-]{{0,40}}?{_ASSIGN}(?P<s>{_VALUE})",
        fold_case=True,
        word_start=False,
        keyword_value=True,
    ),
)

_NOT_A_VALUE = re.compile(
    r"^(?:\$\{.*|\{\{.*|<.*|x+|\*+|\.+|(?:none|null|true|false|undefined|redacted|changeme|example|placeholder)\W*)$",
    re.I,
)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _keyword_value_is_secret(value: str) -> bool:
    """A value beside a secret-like keyword: long enough, mixed, random enough, not a placeholder."""
    return (
        not _NOT_A_VALUE.match(value)
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and _entropy(value) >= 3.0
    )


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    secret: str

    @property
    def placeholder(self) -> str:
        digest = hashlib.sha256(self.secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        return f"[REDACTED:{self.kind}:{digest}]"


def _candidates(text: str) -> list[Finding]:
    lowered: str | None = None
    found: list[Finding] = []
    for rule in RULES:
        if rule.fold_case:
            lowered = text.lower() if lowered is None else lowered
        haystack = lowered if rule.fold_case else text
        for trigger in rule.triggers:
            at = haystack.find(trigger)
            while at != -1:
                match = rule.pattern.match(text, at)
                if match and not (rule.word_start and at and text[at - 1].isalnum()):
                    span = match.span("s") if "s" in rule.pattern.groupindex else match.span()
                    secret = text[span[0] : span[1]]
                    if not (rule.keyword_value and not _keyword_value_is_secret(secret)):
                        found.append(Finding(rule.kind, span[0], span[1], secret))
                at = haystack.find(trigger, at + 1)
    return found


def find(text: str) -> list[Finding]:
    """The secrets in ``text``, in order, never overlapping (the earliest, then longest, wins)."""
    chosen: list[Finding] = []
    for finding in sorted(_candidates(text), key=lambda f: (f.start, -f.end)):
        if chosen and finding.start < chosen[-1].end:
            continue
        if PLACEHOLDER.fullmatch(finding.secret):
            continue
        chosen.append(finding)
    return chosen


@dataclass
class Redacted:
    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def redact(text: str) -> Redacted:
    """``text`` with every secret replaced by its placeholder, and the counts by kind."""
    findings = find(text)
    if not findings:
        return Redacted(text)
    parts: list[str] = []
    last = 0
    for finding in findings:
        parts += [text[last : finding.start], finding.placeholder]
        last = finding.end
    parts.append(text[last:])
    return Redacted("".join(parts), dict(Counter(f.kind for f in findings)))


def redact_data(data: Any) -> tuple[Any, dict[str, int]]:
    """Redact every string inside a JSON-like structure (keys included); returns (copy, counts)."""
    counts: Counter[str] = Counter()
    seen: dict[str, Redacted] = {}  # keys and values repeat (a list of records): look once

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            done = seen.get(value)
            if done is None:
                done = seen[value] = redact(value)
            if done.counts:
                counts.update(done.counts)
            return done.text
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        return value

    return walk(data), dict(counts)
