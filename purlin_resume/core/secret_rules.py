"""The redaction rules, as data: the kinds of secret, the literal prefixes a token starts with,
the pattern of its rest, and the keys, flags and values that make an assignment a secret.

Their coverage follows the documented rule lists of gitleaks (``config/gitleaks.toml``: cloud,
VCS, chat, payment, AI, package registries, databases, private keys) and detect-secrets (its
``AWSKeyDetector``, ``AzureStorageKeyDetector``, ``BasicAuthDetector``, ``JwtTokenDetector``,
``KeywordDetector``, ``PrivateKeyDetector``, ``TwilioKeyDetector``, ``NpmDetector``,
``PypiTokenDetector``, ``SendGridDetector``, ``SlackDetector``, ``StripeDetector`` ...); the
patterns here are our own. ``redact`` compiles them into its scanner.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

ESCAPE = r"\\[nrt]"  # a value starting a line inside an escaped (JSON) string


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


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
        pair_kind="aws-secret-key",  # after the id, or before it (``AWS_SECRET_BEFORE``)
        source="gitleaks aws-access-token; detect-secrets AWSKeyDetector",
    ),
    _r(
        "aws-secret-key",
        "aws_secret_access_key",  # ``aws configure set … VALUE``; ``~/.aws/credentials``: `` = VALUE``
        rf"(?:[ \t]*=[ \t]*\\{{0,3}}[\"']?|{_SPACED})(?P<s>{_B64}{{40}})(?![A-Za-z0-9+/=])",
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
        source="gitleaks digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token",
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
        source="gitleaks github-pat, github-oauth, github-app-token, github-refresh-token; "
        "detect-secrets GitHubTokenDetector",
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
        source="gitleaks gitlab-pat, gitlab-deploy-token, gitlab-ptt, "
        "gitlab-cicd-job-token, gitlab-scim-token, gitlab-feed-token, gitlab-incoming-mail-token, "
        "gitlab-kubernetes-agent-token, gitlab-runner-authentication-token; "
        "detect-secrets GitLabTokenDetector",
    ),
    # chat
    _r(
        "slack-token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-"),
        r"(?:\d+-)?[A-Za-z0-9-]{10,}",
        source="gitleaks slack-bot-token, slack-user-token, slack-app-token, "
        "slack-legacy-token, slack-legacy-bot-token, slack-legacy-workspace-token, "
        "slack-config-access-token, slack-config-refresh-token; detect-secrets SlackDetector",
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
        source="gitleaks telegram-bot-api-token; detect-secrets TelegramBotTokenDetector",
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
        source="gitleaks square-access-token, square-secret; detect-secrets SquareOAuthDetector",
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
        source="gitleaks openai-api-key; detect-secrets OpenAIDetector",
    ),
    _r(
        "openai-key",
        "sk-",
        r"(?:[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48}" + _END + ")",
        source="gitleaks openai-api-key; detect-secrets OpenAIDetector",
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
    # secrets managers, observability, project tools
    _r(
        "vault-token",
        ("hvs.", "hvb.", "hvr."),
        r"[A-Za-z0-9_-]{24,}",
        anchor=3,
        source="gitleaks vault-service-token, vault-batch-token",
    ),
    _r(
        "doppler-token",
        ("dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."),
        rf"[A-Za-z0-9]{{40,44}}{_END}",
        anchor=2,
        source="gitleaks doppler-api-token",
    ),
    _r(
        "postman-token",
        "PMAK-",
        rf"[a-fA-F0-9]{{24}}-[a-fA-F0-9]{{34}}{_END}",
        source="gitleaks postman-api-token",
    ),
    _r("linear-key", "lin_api_", rf"[A-Za-z0-9]{{40}}{_END}", source="gitleaks linear-api-key"),
    _r(
        "grafana-token",
        ("glsa_", "glc_"),
        rf"[A-Za-z0-9+/]{{32,400}}(?:_[A-Fa-f0-9]{{8}})?={{0,2}}{_END}",
        source="gitleaks grafana-service-account-token, grafana-cloud-api-token",
    ),
    _r(
        "atlassian-token",
        ("ATATT3", "ATCTT3"),
        r"[A-Za-z0-9_=-]{50,}",
        source="gitleaks atlassian-api-token",
    ),
    _r("pulumi-token", "pul-", rf"[a-f0-9]{{40}}{_END}", source="gitleaks pulumi-api-token"),
    _r(
        "age-secret-key",
        "AGE-SECRET-KEY-1",
        rf"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{{58}}{_END}",
        source="gitleaks age-secret-key",
    ),
    _r(
        "newrelic-key",
        ("NRAK-", "NRJS-", "NRII-"),
        rf"[A-Za-z0-9]{{27}}{_END}",
        source="gitleaks new-relic-user-api-key, new-relic-browser-api-token, new-relic-insert-key",
    ),
    _r(
        "sentry-token",
        ("sntryu_", "sntrys_"),
        r"[A-Za-z0-9_=+/-]{40,}",
        source="gitleaks sentry-user-token, sentry-org-token",
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
        r"[^\s:/@'\"\\]{0,128}:(?P<s>[^\s:/@'\"\\]{1,4096})@",
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
STRONG_KEYS = (
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
TOKEN_KEYS = (
    "token", "api_key", "apikey", "api-key", "access_key", "accesskey", "access-key",
    "secret_key", "secretkey", "private_key", "privatekey", "private-key", "account_key",
    "accountkey", "auth", "authorization", "key_base", "signing_key", "encryption_key",
    "master_key", "client_key", "sharedaccesskey",
)  # fmt: skip
# what may stand between a key and its operator: quotes, escaped once or twice (JSON inside JSON)
CLOSERS = ("", '"', "'", " ", '" ', "' ", '\\"', "\\'", '\\\\\\"', "`", "  ", "] ", '\\" ')
FLAG_KEYS = (
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


KEY_TAILS = tuple(sorted(set(STRONG_KEYS + TOKEN_KEYS)))


_CONTINUATION = r"(?:(?:\\+\r?\n|\\{2,}n)[ \t]*)?"  # a shell line continuation, raw or escaped
_VALUE = (
    r"(?:(?P<q>\\{0,3}[\"'`])(?P<qv>[^\s\"'`\\]{1,16384})"
    r"|(?P<uv>[^\s\"'`\\<>(){}\[\],;|]{1,16384}))"
)
ASSIGNMENT = (  # after the operator; the key before it: ``_key_guard``, then ``_key_before``
    rf"[=>]?[ \t]{{0,4}}{_CONTINUATION}"
    rf"(?:(?P<scheme>Basic|Bearer|bearer|BEARER|Token|token|Bot)[ \t]+)?{_VALUE}"
)
FLAG = (
    r"-(?<![^\s\"']-)"  # a flag: after a space or a quote, or first
    rf"(?:-(?i:{'|'.join(re.escape(k) for k in FLAG_KEYS)})(?:=|[ \t]+{_CONTINUATION})"
    r"|p(?=[^\s\"'-]))"
    rf"{_VALUE}"
)
PLACEHOLDER_VALUE = re.compile(
    r"^(?:\$.*|%.*|\{\{.*|\{.*\}|<.*|\[.*|#\{.*|x+|X+|\*+|\.+|…|-+|_+|0+|"
    r"(?:none|null|nil|true|false|undefined|redacted|changeme|change_me|example|placeholder|"
    r"secret|password|passwd|token|env|string|str|int|bool|bytes|any|optional|required|"
    r"inherit|hidden|masked|dummy|test|todo|tbd|fake|sample|foo|bar|yes|no|on|off)\W*|"
    r"(?:your|my|the|an?|some|insert|enter|replace|put|add)[_\- ].*|.*_here|.*[_-]placeholder)$",
    re.I,
)
# how code names things: snake_case, camelCase, PascalCase, attribute paths, `self.x`, `@x`
_WORD = r"(?:[a-z_][a-z0-9_]*|[a-z]+(?:[A-Z][a-z0-9]+)+|(?:[A-Z][a-z0-9]+)+|[A-Z][A-Z0-9_]*)"
_IDENTIFIER = re.compile(rf"[@:&*]?{_WORD}(?:(?:\.|::|->){_WORD})*[?!]?")
_SECRET_WORD = re.compile(r"pass|pwd|secret|token|key|auth|cred", re.I)
MYSQL = re.compile(r"mysql|mariadb")
SCHEMES = {"basic": "basic-auth", "bearer": "bearer-token"}


def assigned_kind(key: str) -> str:
    low = key.lower().replace("-", "_")
    if "accountkey" in low or "account_key" in low or "sharedaccesskey" in low:
        return "azure-storage-key"
    if "secretaccesskey" in low or ("aws" in low and "secret" in low):
        return "aws-secret-key"
    if low == "auth":
        return "auth-credential"
    return "assigned-secret"


def is_assigned_secret(key: str, value: str, quoted: bool, after: str, spaced: bool) -> bool:
    """A value given to a secret-named key: is it a secret, or a placeholder or code?"""
    if PLACEHOLDER_VALUE.match(value) or value.startswith("-----BEGIN"):
        return False
    low = key.lower()
    strong = any(low.endswith(k) for k in STRONG_KEYS) and not low.endswith(("_key", "token"))
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


# an AWS secret key right before its key id (the text searched ends at the id)
AWS_SECRET_BEFORE = re.compile(
    rf"(?<![A-Za-z0-9+/=])(?![0-9a-f]{{40}})({_B64}{{40}}){_AWS_BETWEEN}$"
)
