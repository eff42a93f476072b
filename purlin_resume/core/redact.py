"""Secret redaction: everything that leaves purlin-resume (briefings, exports, logs, prompts,
indexes, caches) passes through here first.

The rules are data (``RULES``): a kind, the literal prefixes a token starts with, the pattern of
the rest, optional context words that must stand shortly before it, and an optional validator.
Their coverage follows the documented rule lists of gitleaks (``config/gitleaks.toml``: cloud,
VCS, chat, payment, AI, package registries, databases, private keys) and detect-secrets (its
``AWSKeyDetector``, ``AzureStorageKeyDetector``, ``BasicAuthDetector``, ``JwtTokenDetector``,
``KeywordDetector``, ``PrivateKeyDetector``, ``TwilioKeyDetector``, ``NpmDetector``,
``PypiTokenDetector``, ``SendGridDetector``, ``SlackDetector``, ``StripeDetector`` ...); the
patterns here are our own. Beside them:

- values assigned to a secret-named key (``PASSWORD=``, ``"client_secret": "…"``, ``api_key:``,
  ``"SecretAccessKey"``, ``AccountKey=``, Docker's ``"auth"``), whatever their entropy, unless
  the value is a placeholder (``${VAR}``, ``<token>``, ``changeme``) or code
  (``token = Base.url_encode64(payload)``, ``password: str``);
- credentials in URLs (``postgres://u:p@``, ``redis://:p@``), ``Authorization`` headers,
  ``mysql -pPASSWORD``, ``--password VALUE``, and a value put on the next line with a shell
  line continuation.

Escaped text is covered too: a token after ``\\n`` or inside ``\\"…\\"`` is found, so the rules
also work as a second net over a serialised document. Callers still redact each text value
before serialising it (``redact_data``), never only the escaped document.

Each secret becomes a stable typed placeholder, ``[REDACTED:<kind>:<8 hex of its sha256>]``: the
same secret always reads the same, so a reader can still tell two secrets apart without seeing
either.

Speed: all rules are compiled into one regular expression, scanned once over each text value.
Every alternative starts at its rarest literal character (``_`` of ``ghp_``, ``J`` of ``eyJ``,
the ``=`` or ``:`` of an assignment) and checks what comes before with look-behinds, so the
engine skips over ordinary text without entering any rule. Secret-named keys are recognised by
a look-behind trie ending at the assignment operator: of their last five characters only, so
the expression stays small (it is compiled when first needed, and that is most of a short
command's cost), and Python checks the whole key at the few places that pass. ``redact_data``
looks at a repeated string once.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from purlin_resume.core import compiled_patterns
from purlin_resume.core.digest import sha256

TYPE_CHECKING = False  # (``typing`` is not loaded for this: short commands do without it)
if TYPE_CHECKING:
    from typing import Any

PLACEHOLDER = compiled_patterns.Later(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")
_INSIDE_PLACEHOLDER = compiled_patterns.Later(r"\[REDACTED:[a-z0-9-]*$")
_ESCAPE = r"\\[nrt]"  # a value starting a line inside an escaped (JSON) string


# ---------------------------------------------------------------------------------------------
# validators


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _high_entropy(value: str) -> bool:
    return entropy(value) >= 3.0


@dataclass(frozen=True)
class Rule:
    """A kind of secret.

    ``prefixes`` are the literals a token starts with; ``body`` is the pattern of the rest. The
    secret is the group ``s`` when the body has one, else prefix and body together; ``pair``
    is an optional second secret in the same match (an AWS secret key written next to its id),
    reported as ``pair_kind``. ``context`` words (any case) must stand within 200 characters
    before the match; ``validator`` gets the secret and may reject it. ``word_start``: the
    token may not follow a letter or digit. ``source`` names the public rule it follows.
    ``anchor``: where in each prefix the scan stops, when not at its last rare character (see
    ``_AHEAD`` for what must follow a ``_`` or ``-``).
    """

    kind: str
    prefixes: tuple[str, ...]
    body: str
    context: tuple[str, ...] = ()
    validator: Callable[[str], bool] | None = None
    word_start: bool = True
    pair_kind: str | None = None
    source: str = ""
    anchor: int | None = None


def _r(kind: str, prefixes: Iterable[str] | str, body: str, **options: Any) -> Rule:
    if isinstance(prefixes, str):
        prefixes = (prefixes,)
    return Rule(kind, tuple(prefixes), body, **options)


_B64 = r"[A-Za-z0-9+/]"
_END = r"(?![A-Za-z0-9])"
# between an AWS key id and its secret key: a separator, or a line break (raw or escaped),
# with quotes and spaces around; the secret: 40 base64 characters, not a 40-digit hex hash
_AWS_BETWEEN = r"[ \t\"'\\]{0,6}(?:(?:[,;|:=\t ]|\r?\n|\\[nrt])[ \t\"'\\]{0,6}){1,3}"
_SPACED = r"[ \t]+\\{0,3}[\"']?"  # a value after a space, maybe quoted (escaped or not)
_AWS_SECRET = rf"(?![0-9a-f]{{40}})(?P<pair>{_B64}{{40}})(?![A-Za-z0-9+/=])"

RULES: tuple[Rule, ...] = (
    # cloud
    _r(
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        rf"[A-Z0-9]?[A-Z2-7]{{16}}{_END}(?=(?:{_AWS_BETWEEN}{_AWS_SECRET})?)",
        pair_kind="aws-secret-key",  # after the id, or before it (``_PAIR_BEFORE``)
        source="gitleaks aws-access-token; detect-secrets AWSKeyDetector",
    ),
    _r(
        "aws-secret-key",
        "aws_secret_access_key",  # ``aws configure set aws_secret_access_key VALUE``
        rf"{_SPACED}(?P<s>{_B64}{{40}})(?![A-Za-z0-9+/=])",
        anchor=3,
        source="gitleaks aws-access-token (its secret); the aws cli's configure set",
    ),
    _r(
        "aws-session-token",
        "aws_session_token",  # ``aws configure set aws_session_token VALUE``
        rf"{_SPACED}(?P<s>{_B64}{{100,}}={{0,2}})",
        anchor=3,
        source="the aws cli's configure set",
    ),
    _r(
        "google-api-key",
        "AIza",
        r"[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        source="gitleaks gcp-api-key",
    ),
    _r(
        "digitalocean-token",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        rf"[a-f0-9]{{64}}{_END}",
        source="gitleaks digitalocean-pat",
    ),
    _r(
        "alibaba-access-key",
        "LTAI",
        rf"[a-zA-Z0-9]{{20}}{_END}",
        source="gitleaks alibaba-access-key-id",
    ),
    _r(
        "azure-storage-key",
        ("AccountKey=", "SharedAccessKey=", "accountkey="),
        rf"(?P<s>{_B64}{{20,88}}={{0,2}})",
        word_start=False,
        source="detect-secrets AzureStorageKeyDetector; gitleaks azure-ad-client-secret",
    ),
    # version control
    _r(
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        rf"[A-Za-z0-9]{{36,255}}{_END}",
        source="gitleaks github-pat, github-oauth, github-app-token, github-refresh-token",
    ),
    _r(
        "github-token",
        "github_pat_",
        rf"[A-Za-z0-9_]{{22,255}}{_END}",
        anchor=6,  # its first _: letters follow (the token's own may start with _)
        source="gitleaks github-fine-grained-pat",
    ),
    _r(
        "gitlab-token",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glsoat-", "glft-", "glimt-", "glagent-"),
        r"[A-Za-z0-9_-]{20,}",
        source="gitleaks gitlab-pat and the other gitlab-* rules",
    ),
    # chat
    _r(
        "slack-token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-"),
        r"(?:\d+-)?[A-Za-z0-9-]{10,}",
        source="gitleaks slack-bot-token, slack-user-token, slack-app-token",
    ),
    _r(
        "slack-webhook",
        "://hooks.slack.com/",
        r"(?P<s>(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,})",
        word_start=False,
        source="gitleaks slack-webhook-url",
    ),
    _r(
        "discord-webhook",
        ("://discord.com/api/webhooks/", "://discordapp.com/api/webhooks/"),
        r"(?P<s>\d{5,30}/[A-Za-z0-9_-]{60,80})",
        word_start=False,
        source="gitleaks discord-webhook",
    ),
    _r(
        "telegram-bot-token",
        ":AA",
        r"[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])",
        word_start=False,
        source="gitleaks telegram-bot-api-token",
    ),
    _r(
        "twilio-key",
        "SK",
        rf"[0-9a-fA-F]{{32}}{_END}",
        source="gitleaks twilio-api-key; detect-secrets TwilioKeyDetector",
    ),
    _r(
        "sendgrid-key",
        "SG.",
        r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        source="gitleaks sendgrid-api-token; detect-secrets SendGridDetector",
    ),
    _r(
        "mailgun-key",
        "key-",
        rf"[a-f0-9]{{32}}{_END}",
        context=("mailgun",),
        source="gitleaks mailgun-private-api-token",
    ),
    # payment
    _r(
        "stripe-key",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
        r"[A-Za-z0-9]{20,}",
        source="gitleaks stripe-access-token; detect-secrets StripeDetector",
    ),
    _r(
        "square-token",
        ("sq0atp-", "sq0csp-", "EAAA"),
        r"[A-Za-z0-9_-]{22,60}(?![A-Za-z0-9_-])",
        source="gitleaks square-access-token, square-secret",
    ),
    _r(
        "shopify-token",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        rf"[a-fA-F0-9]{{32}}{_END}",
        source="gitleaks shopify-access-token, shopify-shared-secret",
    ),
    _r(
        "braintree-token",
        "access_token$production$",
        r"[a-z0-9]{16}\$[a-f0-9]{32}",
        word_start=False,
        source="gitleaks (paypal) braintree access token",
    ),
    # AI providers
    _r(
        "anthropic-key",
        ("sk-ant-api", "sk-ant-admin", "sk-ant-oat", "sk-ant-sid"),
        r"\d{0,2}-[A-Za-z0-9_-]{20,}",
        source="gitleaks anthropic-api-key, anthropic-admin-api-key",
    ),
    _r(
        "openai-key",
        ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"),
        r"[A-Za-z0-9_-]{20,}",
        source="gitleaks openai-api-key",
    ),
    _r(
        "openai-key",
        "sk-",
        r"(?:[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48}" + _END + ")",
        source="gitleaks openai-api-key",
    ),
    _r(
        "huggingface-token",
        ("hf_", "api_org_"),
        rf"[A-Za-z]{{34}}{_END}",
        source="gitleaks huggingface-access-token, huggingface-organization-api-token",
    ),
    _r(
        "replicate-token",
        "r8_",
        rf"[A-Za-z0-9]{{37}}{_END}",
        source="gitleaks (replicate) r8_ token",
    ),
    _r("groq-key", "gsk_", rf"[A-Za-z0-9]{{52}}{_END}", source="gitleaks (groq) gsk_ key"),
    _r(
        "perplexity-key", "pplx-", rf"[A-Za-z0-9]{{48}}{_END}", source="gitleaks perplexity-api-key"
    ),
    _r(
        "databricks-token",
        "dapi",
        rf"[a-f0-9]{{32}}(?:-\d)?{_END}",
        source="gitleaks databricks-api-token",
    ),
    # package registries
    _r(
        "npm-token",
        "npm_",
        rf"[A-Za-z0-9]{{36}}{_END}",
        source="gitleaks npm-access-token; detect-secrets NpmDetector",
    ),
    _r(
        "pypi-token",
        "pypi-AgE",
        r"[A-Za-z0-9_-]{50,}",
        source="gitleaks pypi-upload-token; detect-secrets PypiTokenDetector",
    ),
    _r(
        "rubygems-token",
        "rubygems_",
        rf"[a-f0-9]{{48}}{_END}",
        source="gitleaks rubygems-api-token",
    ),
    _r(
        "dockerhub-token",
        ("dckr_pat_", "dckr_oat_"),
        r"[A-Za-z0-9_-]{27,}",
        anchor=4,  # its first _: letters follow (the token's own may start with _ or -)
        source="gitleaks (docker) dckr_pat_ token",
    ),
    # keys and tokens of any origin
    _r(
        "private-key",
        "-----BEGIN",
        r"[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-(?!----)){0,16384}?"
        r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        word_start=False,
        source="gitleaks private-key; detect-secrets PrivateKeyDetector",
    ),
    _r(
        "jwt",
        "eyJ",
        r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        source="gitleaks jwt; detect-secrets JwtTokenDetector",
    ),
    _r(
        "url-credentials",
        "://",
        r"[^\s:/@'\"\\]{0,128}:(?P<s>[^\s:/@'\"\\]{1,256})@",
        word_start=False,
        source="detect-secrets BasicAuthDetector; gitleaks generic URL credentials",
    ),
    _r(
        "bearer-token",
        ("Bearer", "BEARER"),
        r"[ \t]+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)",
        source="gitleaks (authorization header) bearer token",
    ),
)

# Keys whose values are secrets, matched at the end of the key's name (any case, so also
# DB_PASSWORD, clientSecret, SecretAccessKey). Strong keys: any value that is not a placeholder
# or code is a secret. The others also need a value that looks like a token.
_STRONG_KEYS = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "_pass",
    "-pass",
    "secret",
    "credentials",
    "credential",
)
_TOKEN_KEYS = (
    "token", "api_key", "apikey", "api-key", "access_key", "accesskey", "access-key",
    "secret_key", "secretkey", "private_key", "privatekey", "private-key", "account_key",
    "accountkey", "auth", "authorization", "key_base", "signing_key", "encryption_key",
    "master_key", "client_key", "sharedaccesskey",
)  # fmt: skip
# what may stand between a key and its operator: quotes, escaped once or twice (JSON inside JSON)
_CLOSERS = ("", '"', "'", " ", '" ', "' ", '\\"', "\\'", '\\\\\\"', "`", "  ", "] ", '\\" ')
_FLAG_KEYS = (
    "password",
    "passwd",
    "token",
    "secret",
    "api-key",
    "apikey",
    "auth-token",
    "access-token",
    "client-secret",
)


_KEY_TAILS = tuple(sorted(set(_STRONG_KEYS + _TOKEN_KEYS)))
_KEY_LONGEST = max(map(len, _KEY_TAILS))


def _reverse_trie(tails: set[str], depth: int = 0, skip: int = 0, limit: int = 99) -> str:
    """A look-behind test, placed right after a one-character operator, that succeeds when the
    text ``skip`` characters before the operator ends with one of ``tails`` (letters in any
    case), looking at ``limit`` characters at most."""
    if depth >= limit or any(len(tail) == depth for tail in tails):
        return ""
    after = "." * (depth + 1 + skip)
    groups: dict[str, set[str]] = defaultdict(set)
    for tail in tails:
        groups[tail[-(depth + 1)]].add(tail)
    if len(groups) == 1:  # one path on: one look-behind for as far as it goes
        end = depth + 1
        while end < limit and all(len(tail) > end for tail in tails):
            if len({tail[-(end + 1)] for tail in tails}) > 1:
                break
            end += 1
        path = next(iter(tails))[-end : len(next(iter(tails))) - depth]
        return f"(?<={''.join(map(_any_case, path))}{after})" + _reverse_trie(
            tails, end, skip, limit
        )
    alternatives = [_reverse_trie(group, depth, skip, limit) for _, group in sorted(groups.items())]
    # one class test first: most places fail it, and never try the alternatives
    chars = "".join(
        _any_case(char)[1:-1] if char.isalpha() else _any_case(char) for char in sorted(groups)
    )
    return f"(?<=[{chars}]{after})(?:" + "|".join(alternatives) + ")"


def _any_case(char: str) -> str:
    return f"[{char}{char.upper()}]" if char.isalpha() else re.escape(char)


_GUARD_DEPTH = 5  # the scan checks a key's last five characters; ``_key_before`` all of it


def _key_guard() -> str:
    """The look-behind test, right after the operator, that a key may end before it (behind
    any closer): its last ``_GUARD_DEPTH`` characters. Small, so it compiles fast."""
    by_length: dict[int, list[str]] = defaultdict(list)
    for closer in _CLOSERS:
        by_length[len(closer)].append(closer)
    options = []
    for length, closers in sorted(by_length.items()):
        test = "|".join(re.escape(closer) for closer in closers)
        before = f"(?<=(?:{test}).)" if length else ""
        options.append(before + _reverse_trie(set(_KEY_TAILS), skip=length, limit=_GUARD_DEPTH))
    return "(?:" + "|".join(options) + ")"


def _key_before(text: str, op: int) -> bool:
    """Does a secret-named key end right before the operator at ``op``, behind any closer?"""
    for closer in _CLOSERS:
        end = op - len(closer)
        if (
            end > 0
            and text.startswith(closer, end)
            and text[max(0, end - _KEY_LONGEST) : end].lower().endswith(_KEY_TAILS)
        ):
            return True
    return False


_CONTINUATION = r"(?:(?:\\+\r?\n|\\{2,}n)[ \t]*)?"  # a shell line continuation, raw or escaped
_VALUE = (
    r"(?:(?P<q>\\{0,3}[\"'`])(?P<qv>[^\s\"'`\\]{1,256})"
    r"|(?P<uv>[^\s\"'`\\<>(){}\[\],;|]{1,256}))"
)
_ASSIGNMENT = (  # after the operator; the key before it: ``_key_guard``, then ``_key_before``
    rf"[=>]?[ \t]{{0,4}}{_CONTINUATION}"
    rf"(?:(?P<scheme>Basic|Bearer|bearer|BEARER|Token|token|Bot)[ \t]+)?{_VALUE}"
)
_FLAG = (
    r"-(?<![^\s\"']-)"  # a flag: after a space or a quote, or first
    rf"(?:-(?i:{'|'.join(re.escape(k) for k in _FLAG_KEYS)})(?:=|[ \t]+{_CONTINUATION})"
    r"|p(?=[^\s\"'-]))"
    rf"{_VALUE}"
)
_PLACEHOLDER_VALUE = compiled_patterns.Later(
    r"^(?:\$.*|%.*|\{\{.*|\{.*\}|<.*|\[.*|#\{.*|x+|X+|\*+|\.+|…|-+|_+|0+|"
    r"(?:none|null|nil|true|false|undefined|redacted|changeme|change_me|example|placeholder|"
    r"secret|password|passwd|token|env|string|str|int|bool|bytes|any|optional|required|"
    r"inherit|hidden|masked|dummy|test|todo|tbd|fake|sample|foo|bar|yes|no|on|off)\W*|"
    r"(?:your|my|the|an?|some|insert|enter|replace|put|add)[_\- ].*|.*_here|.*[_-]placeholder)$",
    re.I,
)
# how code names things: snake_case, camelCase, PascalCase, attribute paths, `self.x`, `@x`
_WORD = r"(?:[a-z_][a-z0-9_]*|[a-z]+(?:[A-Z][a-z0-9]+)+|(?:[A-Z][a-z0-9]+)+|[A-Z][A-Z0-9_]*)"
_IDENTIFIER = compiled_patterns.Later(rf"[@:&*]?{_WORD}(?:(?:\.|::|->){_WORD})*[?!]?")
_SECRET_WORD = compiled_patterns.Later(r"pass|pwd|secret|token|key|auth|cred", re.I)
_MYSQL = compiled_patterns.Later(r"mysql|mariadb")
_SCHEMES = {"basic": "basic-auth", "bearer": "bearer-token"}
# the key: the whole run of key characters (starting inside one only finds the same again, one
# character at a time: slow on text made of keys)
_KEY_BEFORE = compiled_patterns.Later(
    r"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]*)[\"'`\]\\ ]{0,3}[ \t]*[:]?$"
)


def _assigned_kind(key: str) -> str:
    low = key.lower().replace("-", "_")
    if "accountkey" in low or "account_key" in low or "sharedaccesskey" in low:
        return "azure-storage-key"
    if "secretaccesskey" in low or ("aws" in low and "secret" in low):
        return "aws-secret-key"
    if low == "auth":
        return "auth-credential"
    return "assigned-secret"


def _assigned_value_is_secret(key: str, value: str, quoted: bool, after: str, spaced: bool) -> bool:
    """A value given to a secret-named key: is it a secret, or a placeholder or code?"""
    if _PLACEHOLDER_VALUE.match(value) or value.startswith("-----BEGIN"):
        return False
    low = key.lower()
    strong = any(low.endswith(k) for k in _STRONG_KEYS) and not low.endswith(("_key", "token"))
    if not quoted:
        if after in "([.{" and after:  # a call, subscript or attribute: code
            return False
        if _IDENTIFIER.fullmatch(value) and (
            spaced
            or "_" in value
            or "." in value
            or _SECRET_WORD.search(value)
            or (not strong and len(value) < 16)
        ):
            return False  # code: a variable, a type, an attribute path (``KEY=value``: a value)
        if value.isdigit() and len(value) < 6:
            return False
    if strong:
        return len(value) >= 3
    return len(value) >= 8 and (
        (any(c.isdigit() for c in value) and any(c.isalpha() for c in value))
        or entropy(value) >= 3.5
    )


# ---------------------------------------------------------------------------------------------
# the scanner

# an AWS secret key right before its key id (the text searched ends at the id)
_PAIR_BEFORE = compiled_patterns.Later(
    rf"(?<![A-Za-z0-9+/=])(?![0-9a-f]{{40}})({_B64}{{40}}){_AWS_BETWEEN}$"
)
# what follows the frequent characters some tokens stop at: every token stopping at _ goes on
# with three letters or digits, then seven token characters or more; at -, ten or more
_AHEAD = {"_": "(?=[A-Za-z0-9]{3}[A-Za-z0-9_-]{7})", "-": "(?=[A-Za-z0-9_-]{10})"}
_COMMON = "d_-=:.$"  # of the characters alternatives start with, the most frequent in transcripts
_RARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ_-:$=")


def _anchor(prefix: str, rule: Rule) -> int:
    """Where in ``prefix`` the scan stops: its last rare character (else its first)."""
    if rule.anchor is not None:
        return rule.anchor
    for index in range(len(prefix) - 1, -1, -1):
        if prefix[index] in _RARE:
            return index
    return 0


def _prefix_rest(prefixes: list[str], rule: Rule) -> str:
    """The regex of what follows the anchor character of ``prefixes`` (of one length, the same
    after their anchor), checking what precedes it."""
    at = _anchor(prefixes[0], rule)
    whole = "|".join(re.escape(prefix) for prefix in prefixes)
    whole = f"(?:{whole})" if len(prefixes) > 1 else whole
    parts = [re.escape(prefixes[0][at + 1 :])]
    if at:
        parts.append(f"(?<={whole})")
    if rule.word_start:
        parts.append(f"(?:(?<![A-Za-z0-9]{whole})|(?<={_ESCAPE}{whole}))")
    return "".join(parts)


def _prefix_groups(rule: Rule) -> list[list[str]]:
    """``rule``'s prefixes, grouped when one expression serves them all (the same anchor, the
    same length, the same text after the anchor): fewer alternatives to compile and try."""
    groups: dict[tuple[int, int, str], list[str]] = defaultdict(list)
    for prefix in rule.prefixes:
        at = _anchor(prefix, rule)
        groups[(at, len(prefix), prefix[at:])].append(prefix)
    return list(groups.values())


@dataclass(frozen=True)
class _Branch:
    """One alternative of the scanner's expression: its group, the kind it finds, and its rule
    (None for the assignments and flags every rule shares)."""

    name: str
    kind: str
    back: int  # how many characters before the match the token starts
    rule: Rule | None


def _no_groups(regex: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", regex)


PREFILTER_CHARS = 1024  # a text this long is looked at by RE2 first, where it is installed, …
PREFILTER_AFTER = 4 << 20  # … once this much has been scanned (loading RE2 costs a short command)
_UNKNOWN: Any = object()


class Places:
    """Where the scanner's ``pattern`` matches in one text, asked for in order: ``next(pos)``
    is the first such position from ``pos`` on (None: there is none). The last answer is kept:
    asking again from anywhere between its question and it costs nothing. ``first``: the first
    place, when the caller found it already."""

    def __init__(self, pattern: re.Pattern[str], text: str, first: int | None = None):
        self._pattern, self._text = pattern, text
        # the first place from ``_asked`` on is ``_at``
        self._asked, self._at = (-1, None) if first is None else (0, first)

    def next(self, pos: int) -> int | None:
        if 0 <= self._asked <= pos and (self._at is None or pos <= self._at):
            return self._at
        self._asked, self._at = pos, self._first(pos)
        return self._at

    def _first(self, pos: int) -> int | None:
        match = self._pattern.search(self._text, pos)
        return None if match is None else match.start()


class _Prefiltered(Places):
    """``Places`` found by trying ``pattern`` only where RE2 (a linear scan, several times
    faster than ``re`` over long text) found a piece of text that holds a place ``pattern``
    may match (``_prefilter_source``): the same places, as ``pattern`` itself decides."""

    def __init__(self, pattern: re.Pattern[str], text: str, program: Any, anchors: frozenset):
        super().__init__(pattern, text)
        self._candidates = _candidates(program, text, anchors)

    def _first(self, pos: int) -> int | None:
        match, text = self._pattern.match, self._text
        for at in itertools.islice(
            self._candidates, bisect.bisect_left(self._candidates, pos), None
        ):
            if match(text, at) is not None:
                return at
        return None


def _candidates(program: Any, text: str, anchors: frozenset) -> list[int]:
    """The positions, in ``text``, of every character ``pattern`` may start at that lies in a
    piece of text RE2's ``program`` matches, at every start (the longest match there).

    RE2 reads bytes: ``text`` is given as ASCII, each other character a ``?`` (what
    ``pattern`` looks for at these places is ASCII: see ``_prefilter_source``), so that a
    byte's position is its character's."""
    data = text.encode("ascii", "replace")
    found: set[int] = set()
    search, at = program.search, 0
    while (match := search(data, at)) is not None:
        start, end = match.span()
        found.update(q for q in range(start, end) if data[q] in anchors)
        at = start + 1
    return sorted(found)


def _prefilter_source() -> str:
    """RE2's expression of pieces of text holding every place the scanner's ``pattern`` may
    match: each rule's prefix (it holds the character the scan stops at, and ``_prefix_rest``
    checks the whole prefix, as written), the last ``_GUARD_DEPTH`` characters of a
    secret-named key in any ASCII case, then a closer and the operator (``_key_guard`` checks
    no more, in ASCII letters; the piece ends at the operator), and a flag's first characters
    (``_FLAG``: after the start, a blank or a quote (Python's blanks beyond ASCII are ``?``
    here), ``-p`` and a character that is none of those nor a dash, or two dashes and the
    first letter of a key in any case, or a character beyond ASCII that IGNORECASE takes for
    one; the piece holds the dash). All of it ASCII."""

    def literal(text: str) -> str:
        return "".join(
            char if char.isascii() and char.isalnum() else f"\\x{{{ord(char):02x}}}"
            for char in text
        )

    prefixes = sorted({prefix for rule in RULES for prefix in rule.prefixes})
    tails = sorted({tail[-_GUARD_DEPTH:] for tail in _KEY_TAILS})
    keys = "|".join(literal(tail) for tail in tails)
    closers = "|".join(literal(closer) for closer in sorted(set(_CLOSERS)))
    firsts = "".join(sorted({c for key in _FLAG_KEYS for c in (key[0].lower(), key[0].upper())}))
    blank = r"\t\n\x0b\x0c\r \x1c-\x1f\"'?"  # Python's \s for text, and quotes
    assert all(text.isascii() for text in [*prefixes, *tails, *_CLOSERS, *_FLAG_KEYS])
    return (
        "|".join(literal(prefix) for prefix in prefixes)
        + f"|(?i:{keys})(?:{closers})[:=]"
        + f"|(?:^|[{blank}])-(?:-[{firsts}?]|p[^{blank[:-1]}\\-])"
    )


def _prefilter_program() -> Any:
    """RE2's program of ``_prefilter_source``; None when RE2 is not installed (the ``fast``
    extra) or refuses it."""
    try:
        import re2
    except ImportError:
        return None
    options = re2.Options()
    options.longest_match = True  # at each start the longest piece: it holds every shorter one
    options.max_mem = 64 << 20
    try:
        return re2.compile(_prefilter_source(), options)
    except re2.error:
        return None


class Scanner:
    """All rules as one compiled expression, plus a config's extra patterns and allow-list.

    The expression has no groups (the engine's cost per tried position grows with their
    number): it only says where some rule may match. Its alternatives are grouped by the
    character they stop at, and a look-behind trie of the prefixes ending there rules out most
    places at once (for a secret-named key, of the key's last characters only: the expression
    stays small and compiles fast, and ``_key_before`` checks the whole key). The rules of the
    character found are then matched one by one, in order, each with its own groups. Each
    expression is compiled when first needed.
    """

    def __init__(self, extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()):
        self._by_first: dict[str, list[tuple[str, _Branch]]] | None = None
        self._pattern: re.Pattern[str] | None = None
        self._prefilter: Any = _UNKNOWN  # RE2's program of ``_prefilter_source``, when it runs
        self._anchors: frozenset[int] = frozenset()  # the characters ``pattern`` may start at
        self._scanned = 0  # characters of long texts scanned without RE2
        self._compiled: dict[str, re.Pattern[str]] = {}  # of ``by_first``, when first needed
        self.extra = [(_kind_name(kind), re.compile(pattern)) for kind, pattern in extra]
        self.allow = [re.compile(pattern) for pattern in allow]

    @property
    def pattern(self) -> re.Pattern[str]:
        """Where some rule may match (assembled by ``_assemble`` when it is not kept already).
        Kept under this file's checksum: everything ``_assemble`` reads must stay in this file."""
        if self._pattern is None:
            self._pattern = compiled_patterns.compiled_from(self._assemble, __file__)
        return self._pattern

    @property
    def by_first(self) -> dict[str, list[tuple[str, _Branch]]]:
        """Per character, each alternative's own expression (compiled when first needed)."""
        if self._by_first is None:
            self._assemble()
        assert self._by_first is not None
        return self._by_first

    def _assemble(self) -> str:
        """Fill ``by_first``; the expression of the whole scan."""
        by_first: dict[str, list[tuple[str, _Branch]]] = defaultdict(list)
        free: dict[str, list[str]] = defaultdict(list)  # alternatives with their own checks
        prefixed: dict[str, list[tuple[str, str]]] = defaultdict(list)  # (head, rest)

        assign = _Branch("assign", "assigned-secret", 0, None)
        for op in ":=":  # one source for both operators: compiled once
            by_first[op].append(("[:=]" + _ASSIGNMENT, assign))
        by_first["-"].append(
            (re.escape("-") + _FLAG[1:], _Branch("flag", "assigned-secret", 0, None))
        )
        free["-"].append(_no_groups(_FLAG[1:]))
        for rule in RULES:
            for prefixes in _prefix_groups(rule):
                at = _anchor(prefixes[0], rule)
                rest = _prefix_rest(prefixes, rule) + rule.body
                first = prefixes[0][at]
                by_first[first].append(
                    (re.escape(first) + rest, _Branch("rule", rule.kind, at, rule))
                )
                for prefix in prefixes:
                    prefixed[prefix[at]].append((prefix[:at], _no_groups(rest)))
        self._by_first = by_first
        # the assignments first: the most frequent characters, with a key before them
        assigned = _key_guard() + _no_groups(_ASSIGNMENT)
        alternatives = [f":{assigned}", f"={assigned}"]
        # the most frequent characters first: each place found tries the alternatives in order
        for char in sorted(set(free) | set(prefixed), key=lambda c: (_COMMON.find(c) % 99, c)):
            options = list(free[char])
            heads = {head for head, _ in prefixed[char]}
            if heads:
                rests = "|".join(dict.fromkeys(rest for _, rest in prefixed[char]))
                trie = _reverse_trie({h.lower() for h in heads}) if "" not in heads else ""
                ahead = _AHEAD.get(char, "")
                options.append(f"{ahead}{trie}(?:{rests})")
            alternatives.append(f"{re.escape(char)}(?:{'|'.join(options)})")
        # each alternative starts with its character: the engine skips fast to one of them
        return "|".join(alternatives)

    def _findings(self, text: str, at: int, assignments: bool) -> list[Finding] | None:
        """The findings of the first rule that matches at ``at`` and is not rejected."""
        for source, branch in self.by_first[text[at]]:
            if branch.rule is None and not assignments:
                continue
            if branch.name == "assign" and not _key_before(text, at):
                continue  # the scan looked at the key's last characters only
            compiled = self._compiled.get(source)
            if compiled is None:
                compiled = self._compiled[source] = re.compile(source)
            match = compiled.match(text, at)
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
        if rule.context and not any(
            word in text[max(0, start - 200) : start].lower() for word in rule.context
        ):
            return None
        if rule.validator is not None and not rule.validator(secret):
            return None
        found = [Finding(branch.kind, start, end, secret)]
        if rule.pair_kind and match.start("pair") != -1:
            found.append(Finding(rule.pair_kind, *match.span("pair"), match.group("pair")))
        elif rule.pair_kind:
            before = _PAIR_BEFORE.search(text, max(0, start - 60), start)
            if before is not None:
                found.insert(0, Finding(rule.pair_kind, *before.span(1), before.group(1)))
        return found

    def _assigned(self, text: str, match: re.Match[str], name: str) -> list[Finding] | None:
        """A value given to a secret-named key, a ``--password`` flag or ``mysql -p``."""
        quote = match.group("q")
        group = "qv" if quote else "uv"
        start, end = match.span(group)
        value = text[start:end]
        if _PLACEHOLDER_VALUE.match(value):
            return None  # the cheapest test first
        op = match.start()
        before = text[max(0, op - 64) : op]
        if _INSIDE_PLACEHOLDER.search(before):
            return None
        after = text[end : end + 1]
        if quote and text[end : end + 4].lstrip("\\")[:1] != quote[-1]:
            return None  # a quote that does not close right after one word: prose
        if name == "flag":
            key = "password" if match.group()[1] == "p" else "token"
            line = before[before.rfind("\n") + 1 :]
            if key == "password" and not _MYSQL.search(line):
                return None
            spaced = False
        else:
            found = _KEY_BEFORE.search(before)
            key = found.group(1) if found else ""
            spaced = text[op - 1 : op] == " " or text[op + 1 : op + 2] in (" ", "\t")
        if not _assigned_value_is_secret(key, value, bool(quote), after, spaced):
            return None
        inner = self.find(value, assignments=False)
        if inner:  # a provider's token keeps its own kind
            return [Finding(f.kind, start + f.start, start + f.end, f.secret) for f in inner]
        scheme = match.group("scheme") if name != "flag" else None
        kind = _SCHEMES.get(scheme.lower()) if scheme else None
        return [Finding(kind or _assigned_kind(key), start, end, value)]

    def places(self, text: str) -> Places:
        """Where ``pattern`` matches in ``text``, asked for in order (``Places``); in a long
        text of a process that has scanned much, found through RE2 where it is installed
        (``_Prefiltered``: the same places)."""
        if len(text) >= PREFILTER_CHARS:
            if self._prefilter is _UNKNOWN and self._scanned < PREFILTER_AFTER:
                self._scanned += len(text)
            elif (program := self._program()) is not None:
                return _Prefiltered(self.pattern, text, program, self._anchors)
        return Places(self.pattern, text)

    def any_places(self, text: str) -> Places | None:
        """``places(text)``, or None when ``pattern`` matches nowhere in it (most text): for a
        short text, found without making a ``Places``."""
        if len(text) < PREFILTER_CHARS:
            match = self.pattern.search(text)
            return None if match is None else Places(self.pattern, text, match.start())
        places = self.places(text)
        return None if places.next(0) is None else places

    def _program(self) -> Any:
        """RE2's program of ``_prefilter_source`` (compiled when first needed), or None."""
        if self._prefilter is _UNKNOWN:
            self._anchors = frozenset(ord(char) for char in self.by_first)
            self._prefilter = _prefilter_program()
        return self._prefilter

    def find(
        self, text: str, assignments: bool = True, places: Places | None = None
    ) -> list[Finding]:
        """The secrets in ``text``; ``assignments=False``: only providers' tokens and the like.
        ``places``: where ``pattern`` matches in ``text``, when the caller looked already (the
        scan goes on from what it found instead of reading the text again)."""
        found: list[Finding] = []
        places = places if places is not None else self.places(text)
        at = places.next(0)
        while at is not None:
            findings = self._findings(text, at, assignments) or []
            for finding in findings:
                if found and finding.start < found[-1].end:
                    continue
                if PLACEHOLDER.fullmatch(finding.secret) or self._allowed(finding.secret):
                    continue
                found.append(finding)
            at = places.next(max([at + 1] + [f.end for f in findings]))
        if self.extra:
            found = self._with_extra(text, found)
        return found

    def _allowed(self, secret: str) -> bool:
        return any(pattern.fullmatch(secret) for pattern in self.allow)

    def _with_extra(self, text: str, found: list[Finding]) -> list[Finding]:
        """Add the matches of the config's own patterns that overlap no finding."""
        more = [
            Finding(
                kind,
                *m.span("s" if "s" in pattern.groupindex else 0),
                m.group("s" if "s" in pattern.groupindex else 0),
            )
            for kind, pattern in self.extra
            for m in pattern.finditer(text)
            if m.end() > m.start()
        ]
        chosen: list[Finding] = []
        for finding in sorted(found + more, key=lambda f: (f.start, -f.end)):
            if chosen and finding.start < chosen[-1].end:
                continue
            if finding in more and self._allowed(finding.secret):
                continue
            chosen.append(finding)
        return chosen


def _kind_name(kind: str) -> str:
    """A user's kind name as placeholders spell kinds: lower-case letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "custom"


@dataclass(frozen=True)
class Finding:
    """A secret found in a text: its kind and where it lies."""

    kind: str
    start: int
    end: int
    secret: str

    @property
    def placeholder(self) -> str:
        digest = sha256(self.secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        return f"[REDACTED:{self.kind}:{digest}]"


_SHORTEST = 7  # no rule matches less: ``pwd=abc``
_scanner: Scanner | None = None  # with a config's own patterns
_builtin: Scanner | None = None


def scanner() -> Scanner:
    """The scanner in use: the built-in rules plus whatever ``configure`` added."""
    global _builtin
    if _scanner is not None:
        return _scanner
    if _builtin is None:
        _builtin = Scanner()
    return _builtin


def configure(extra: Iterable[tuple[str, str]] = (), allow: Iterable[str] = ()) -> None:
    """Add a config's extra patterns ``(kind, regex)`` and allow-list (regexes a secret may
    fully match to be left alone) to the rules used from now on; none: the built-in rules."""
    global _scanner
    extra, allow = tuple(extra), tuple(allow)
    _scanner = Scanner(extra, allow) if (extra or allow) else None


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
        if places is None:
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
    if current.extra:
        done = redact(text)
    else:
        places = current.any_places(text)
        done = None if places is None else redact(text, places)
    return done if done is not None and done.counts else None


def redact_data(data: Any) -> tuple[Any, dict[str, int]]:
    """Redact every string inside a JSON-like structure (keys included), or inside dataclasses
    such as a read transcript, before it is rendered or serialised; returns (result, counts).

    The result shares every part in which nothing was redacted with ``data`` (most of a
    conversation holds no secret, and copying it would cost more than scanning it); the parts
    that changed are new objects, so ``data`` itself is never modified."""
    current = scanner()
    shortest = 0 if current.extra else _SHORTEST
    if type(data) is str:  # one text (a tool's output, a thought): no walk to set up
        done = _redacted_text(current, data) if len(data) >= shortest else None
        return (data, {}) if done is None else (done.text, done.counts)
    counts: Counter[str] = Counter()
    # keys and values repeat (a list of records; a tool's result both in the message and in
    # ``toolUseResult``): each is looked at once; None: nothing to redact
    seen: dict[str, Redacted | None] = {}

    def text(value: str) -> str:
        if len(value) < shortest:
            return value
        done = seen.get(value, _UNSEEN)
        if done is _UNSEEN:
            done = seen[value] = _redacted_text(current, value)
        if done is None:
            return value
        counts.update(done.counts)
        return done.text

    def walk(value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return text(value)
        if kind in _PLAIN:
            return value  # the most common values besides text: nothing to look into
        if kind is dict:
            changed: dict | None = None
            for number, (key, item) in enumerate(value.items()):
                new_key, new = walk(key), walk(item)
                if changed is None:
                    if new_key is key and new is item:
                        continue
                    changed = dict(itertools.islice(value.items(), number))
                changed[new_key] = new
            return value if changed is None else changed
        if kind is list or kind is tuple:
            items = None
            for number, item in enumerate(value):
                new = walk(item)
                if items is None:
                    if new is item:
                        continue
                    items = list(value[:number])
                items.append(new)
            if items is None:
                return value
            return items if kind is list else tuple(items)
        if isinstance(value, str):  # a str subclass (an enum's value, say)
            done = redact(value)
            counts.update(done.counts)
            return done.text if done.counts else value
        names = _init_fields(kind)
        if names is None:
            return value
        changes = {}
        for name in names:
            old = getattr(value, name)
            if type(old) in _PLAIN:
                continue
            new = text(old) if type(old) is str else walk(old)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value

    try:
        return walk(data), dict(counts)
    except RecursionError:
        # nested deeper than Python recurses (JSON only): the rules also work on its escaped
        # text, and placeholders hold no character JSON escapes
        import json

        done = redact(json.dumps(data, ensure_ascii=False))
        return json.loads(done.text), done.counts
