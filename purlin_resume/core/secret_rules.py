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

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

# what may stand right before a token in place of a space or a quote: an escaped line break
# (JSON), a percent escape (a URL, a form: ``%22ghp_…``), a JSON escape of a character (``\u0022``)
ESCAPES = (r"\\[nrt]", r"%[0-9A-Fa-f]{2}", r"\\u[0-9A-Fa-f]{4}")
# where a word starts: not after a letter or digit, or right after an escape
_WORD_START = "(?:(?<![A-Za-z0-9])" + "".join(f"|(?<={escape})" for escape in ESCAPES) + ")"
# An expression kept as text, compiled when first used and kept (a process uses few of them).
compiled = functools.cache(re.compile)


def entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


class Rule(NamedTuple):
    """A kind of secret.

    ``prefixes`` are the literals a token starts with; ``body`` is the pattern of the rest. The
    secret is the group ``s`` when the body has one, else prefix and body together; ``pair``
    is an optional second secret in the same match (an AWS secret key written next to its id),
    reported as ``pair_kind``. ``context`` words (any case) must
    stand within ``within`` characters of the match, before or after it; ``before``: a pattern
    the text right before the token must end with (its group ``s``, when it has one, is the
    secret: ``echo VALUE | sudo -S``); ``validator`` gets the secret and may reject
    it. ``parts``: a pattern whose ``v`` groups are the secrets inside the matched block (each
    value of a manifest's ``data:``), when not the block itself. ``word_start``: the token may
    not follow a letter or digit. ``source`` names the public rule it follows. ``anchor``:
    where in each prefix the scan stops, when not at its last rare character: an index, or
    the first in the prefix of the characters given.
    """

    kind: str
    prefixes: tuple[str, ...]
    body: str
    context: tuple[str, ...] = ()
    within: int = 200
    before: str = ""
    parts: str = ""
    validator: Callable[[str], bool] | None = None
    word_start: bool = True
    pair_kind: str | None = None
    source: str = ""
    anchor: int | str | None = None


def _r(kind: str, prefixes: Iterable[str] | str, body: str, **options: Any) -> Rule:
    if isinstance(prefixes, str):
        prefixes = (prefixes,)
    return Rule(kind, tuple(prefixes), body, **options)


_B64 = r"[A-Za-z0-9+/]"
_BREAK = r"(?:\r?\n|(?:\\{1,3}r)?\\{1,3}n)"  # a line break, raw or escaped (once or twice)
_KEY_LINE = rf"[A-Za-z0-9+/=]{{16,}}(?=[ \t]*(?:{_BREAK}|$|[\"'\\]))"  # a whole line of a key
_END = r"(?![A-Za-z0-9])"
# between an AWS key id and its secret key: a separator, or a line break (raw or escaped),
# with quotes and spaces around; the secret: 40 base64 characters, not a 40-digit hex hash
# or words naming the secret (``AKIA… and secret key is …``)
_AWS_BETWEEN = (
    r"[ \t\"'\\]{0,6}(?:(?:[,;|:=\t ]|\r?\n|\\[nrt]|(?i:and|aws|secret|access|key|is)\b)"
    r"[ \t\"'\\]{0,6}){1,8}"
)
_SPACED = r"[ \t]+\\{0,3}[\"']?"  # a value after a space, maybe quoted (escaped or not)
_AWS_SECRET = rf"(?![0-9a-f]{{40}})(?P<pair>{_B64}{{40}})(?![A-Za-z0-9+/=])"


# Laravel's ``APP_KEY=base64:…`` too; ``=`` only as base64's padding (a run of ``Key=Key=…``
# is no key, and each of its places reads no further than the next)
_KEY_SHAPED = r"(?:base64:)?[A-Za-z0-9+/_-]{16,4096}={0,2}"
_UUID = r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"  # an id (``idempotency_key``)
_PG_NAME = r"[A-Za-z0-9_*.$-]"  # a database's in .pgpass (a class first: the scan tests it at once)


# a password given to a command as a word of its own: maybe quoted (escaped or not), ended by
# space, the end of a command or a closing parenthesis (``$(openssl passwd VALUE)``)
_OPENING = r"\\{0,3}[\"']?"
_COMMAND_VALUE = r"[^\s\"'`\\|;&<>()-][^\s\"'`\\|;&<>()]{0,255}"  # no flag
_CLOSING = r"(?![^\s\\\"'`;&|)])"  # a quote (escaped or not) may close it
_WORD_ARGUMENT = r"[^\s\"'`|;&<>-][^\s|;&<>]{0,255}"  # a command's argument that is no flag
# where a command's name starts: not inside a word, or right after an escaped line break
_COMMAND_START = r"(?:(?<![\w-])|(?<=\\[nrt]))"


# Windows' ``net use``, then a drive (or ``*``) maybe, then ``\\SERVER\SHARE`` (its backslashes
# escaped once or twice: 8 in JSON in JSON)
_NET_USE = (
    _COMMAND_START + r"(?i:net[ \t]+use)[ \t]+(?:(?:[A-Za-z]:|\*)[ \t]+)?\\{2,8}[^\s\\]+\\{1,4}\S*"
)
# a password before what a rule finds (in its ``before``: group ``s``), maybe quoted, no switch
_PASSWORD_WORD = (  # quoted, it may hold what ends a command (``&``, ``;``, ``|``, ``<``, ``>``)
    r"(?P<q>[\"']?)(?P<s>(?(q)[^\s\"'`]{1,256}|[^\s\"'`/*|;&<>][^\s\"'`|;&<>]{0,255}))(?P=q)"
)
_OPENING_PASSWORD = _PASSWORD_WORD + r"[ \t]+"
# what reads a password on its input (``sudo -S``, ``docker login --password-stdin``)
_READS_INPUT = (
    "--password-stdin",
    "passwd",  # ``passwd --stdin``, ``echo -e "VALUE\nVALUE" | passwd`` (not ``chpasswd``)
    "smbpasswd",
    "sudo -S",
    "sudo --stdin",
    "--with-token",
    "cryptsetup",  # a LUKS passphrase: ``echo -n VALUE | cryptsetup open DEV NAME``
    "--passphrase-fd",  # gpg's: ``gpg --batch --passphrase-fd 0 -c FILE <<< VALUE``
    "vncpasswd",
    "ssh-add",  # a key's passphrase, a Docker secret's value, Vercel's
    "docker secret create",
    "vercel env add",
    "keyring set",  # Python's keyring: ``keyring set SERVICE USER <<< VALUE``
)
# ``echo VALUE``, ``printf '%s' VALUE``, the value after ``user`` (a pattern); then a pipe
_ECHOED = (
    r"(?:echo(?:[ \t]+-[neE]+)*|printf(?:[ \t]+(?:%s|\\{{0,3}}[\"']%s(?:\\n)?\\{{0,3}}[\"']))?)[ \t]+"
    r"(?P<q>\\{{0,3}}[\"'])?{user}(?P<s>(?(q)(?:[^\"'`\\\r\n]|\\n)|[^\s\"'`\\|;&<>]){{1,256}})(?(q)(?P=q))"
)
_PIPED = _ECHOED + r"[ \t]*\|[ \t]*"
# what reads a secret on its input and has no character the scan stops at in its name: found
# from the pipe before it
_PIPED_TO = (
    r"gh[ \t]+secret[ \t]+set",
    "kinit",
    r"wrangler[ \t]+secret[ \t]+put",
    r"gcloud[ \t]+secrets[ \t]+(?:create|versions[ \t]+add)",
    r"pass[ \t]+insert",
)


# a quote around a value, maybe escaped (either kind at either end: no back-reference, the
# scanner's expression has no groups); an attribute's value inside
_QUOTE_MARK = r"\\{0,3}[\"']"
_ATTRIBUTE_VALUE = r"[^\"'\\<>\r\n]{1,256}"
# an element's start, then an attribute naming a password: ``type="password"``,
# ``name="db.password"`` (the name ends there: not ``passwordPolicy``)
_ELEMENT = r"<[A-Za-z][\w:.-]{0,64}\b[^<>]{0,200}?"
_PASSWORD_ATTRIBUTE = (
    r"[ \t\r\n](?:type|name|key)=\\{0,3}[\"']?[\w.:-]{0,64}?"
    r"(?i:password|passwd|passphrase)(?=\\{0,3}[\"'\s/>])"
)
_QUOTES = ('"', "'", '\\"')  # a quote, maybe escaped (JSON)
_ESCAPED_QUOTES = (*_QUOTES, '\\\\\\"')  # and escaped twice (JSON in JSON)
# the end of a selector of a password field (``#password``, ``input[name=password]``)
_PASSWORD_SELECTORS = tuple(
    f"{word}{bracket}{quote}"
    for word in ("password", "Password")
    for bracket in ("", "]")
    for quote in _QUOTES
)
# an argument before the secret's, and its comma: a string literal (``"cn=admin,dc=x"``), or
# another expression without a comma; the same, a literal only
_LITERAL_ARGUMENT = rf"{_QUOTE_MARK}[^\"'\\\r\n]{{0,256}}{_QUOTE_MARK}[ \t]*,[ \t]*"
_ARGUMENT = rf"(?:{_LITERAL_ARGUMENT}|[^,()\r\n]{{1,256}}?,[ \t]*)"
# an Expect (or pexpect) prompt for a password, then the end of that line or command
_PROMPTED = (
    r"expect\b[^\r\n]{0,128}?(?i:assword|assphrase)[^\r\n]{0,64}?"
    r"(?:\r?\n|\\{1,3}n|;|\{)[ \t]*"
)


def _argument(
    calls: Iterable[str], before_secret: str, source: str, anchor: int | str, **options: Any
) -> Rule:
    """A password given to one of ``calls`` as a string literal (maybe ``b"…"``) after
    ``before_secret`` (the arguments before it)."""
    return _keyword(
        "assigned-secret",
        calls,
        r"[ \t]*" + before_secret + "b?" + _QUOTE_MARK,
        r"[^\"'\\\r\n]{1,256}",
        after=_QUOTE_MARK,
        anchor=anchor,
        word_start=False,
        validator=_literal,
        source=source,
        **options,
    )


def _json_pair(value: str) -> str:
    """A JSON object's ``"key": "value"``, its quotes maybe escaped."""
    return rf'\\{{0,3}}"[\w.-]+\\{{0,3}}"[ \t]*:[ \t]*\\{{0,3}}"{value}\\{{0,3}}"'


# a Kubernetes Secret's kind, in YAML and in JSON (spaced or not, its quotes escaped or not)
_SECRET_KIND = ("kind: secret",) + tuple(
    f"{quote}kind{quote}:{space}{quote}secret"
    for quote in ('"', '\\"', '\\\\\\"')
    for space in (" ", "")
)


def _keyword(
    kind: str,
    keywords: Iterable[str] | str,
    separator: str,
    value: str,
    after: str = "",
    **options: Any,
) -> Rule:
    """A secret written after a keyword (a key, a command's option, an address) and a
    separator: the secret is ``value``, followed by ``after``."""
    return _r(kind, keywords, f"{separator}(?P<s>{value}){after}", **options)


def _token(
    kind: str, prefixes: Iterable[str] | str, value: str, source: str, **options: Any
) -> Rule:
    """A provider's token: a literal prefix, then ``value`` (which characters, how many), then
    the end of the word; ``source``: the gitleaks rules it follows."""
    return _r(kind, prefixes, value + _END, source=f"gitleaks {source}", **options)


def _command_word(
    keywords: Iterable[str] | str, separator: str, source: str, user: str = "", **options: Any
) -> Rule:
    """A password a command takes as a word of its own, after ``keywords`` and ``separator``
    (and ``user``, a pattern, inside its quotes); any value written out, unless a ``validator``
    is given."""
    options.setdefault("validator", _literal)
    return _keyword(
        "assigned-secret",
        keywords,
        separator + _OPENING + user,
        _COMMAND_VALUE,
        after=_CLOSING,
        source=source,
        **options,
    )


# what the validators ask of a secret a rule found
_PLACEHOLDER = (
    r"(?i)(?:\$.*|%.*|\{\{.*|\{.*\}|<.*|\[.*|#\{.*|x+|X+|\*+|\.+|…|-+|_+|0+|"
    r"(?:none|null|nil|true|false|undefined|redacted|changeme|change_me|example|placeholder|"
    r"secret|password|passwd|token|key|env|string|str|int|bool|bytes|any|optional|required|"
    r"inherit|hidden|masked|dummy|test|todo|tbd|fake|sample|foo|bar|yes|no|on|off)\W*|"
    r"(?:your|my|the|an?|some|insert|enter|replace|put|add)[_\- ].*)"
)
_PLACEHOLDER_ENDS = ("_here", "_placeholder", "-placeholder")  # told from the end: no scan


def is_placeholder(value: str) -> bool:
    """Does ``value`` stand for a secret instead of being one (``$TOKEN``, ``changeme``,
    ``<your-key>``, ``your_api_key_here``)?"""
    if compiled(_PLACEHOLDER).fullmatch(value) is not None:
        return True
    return value[-12:].lower().endswith(_PLACEHOLDER_ENDS)


def mixed(value: str) -> bool:
    """Does ``value`` mix digits and letters?"""
    return (
        compiled(r"\d").search(value) is not None
        and compiled(r"[^\W\d_]").search(value) is not None
    )


def _literal(value: str) -> bool:
    """A value written out, not a placeholder for one."""
    return not is_placeholder(value)


_JWT = r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"


def _wrapped_jwt(secret: str) -> bool:
    """A JWT broken into lines of one width: the first may be shorter (it starts after other
    text), the last no longer, the others all as wide (a JWT ending a line is not wrapped)."""
    lines = compiled(_BREAK).split(secret)
    width = len(lines[1]) if len(lines) > 2 else len(lines[0])
    return (
        len(lines[0]) <= width <= 128
        and all(len(line) == width for line in lines[1:-1])
        and len(lines[-1]) <= width
        and compiled(_JWT).fullmatch("".join(lines)) is not None
    )


RULES: tuple[Rule, ...] = (
    # cloud
    _r(
        "aws-access-key",
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        rf"[A-Z0-9]?[A-Z2-7]{{16}}{_END}(?=(?:{_AWS_BETWEEN}{_AWS_SECRET})?)",
        anchor=0,
        pair_kind="aws-secret-key",  # after the id, or before it (``AWS_SECRET_BEFORE``)
        source="gitleaks aws-access-token; detect-secrets AWSKeyDetector",
    ),
    _keyword(  # ``aws configure set … VALUE``; ``~/.aws/credentials``: `` = VALUE``
        "aws-secret-key",
        "aws_secret_access_key",
        rf"(?:[ \t]*=[ \t]*\\{{0,3}}[\"']?|{_SPACED})",
        rf"{_B64}{{40}}",
        after=r"(?![A-Za-z0-9+/=])",
        anchor=3,
        source="gitleaks aws-access-token (its secret); the aws cli's configure set",
    ),
    _command_word(  # a secret key set as a word of its own, not shaped like AWS's (an
        # S3-compatible store's): ``aws configure set aws_secret_access_key VALUE``, rclone's
        # ``config create NAME s3 … secret_access_key VALUE``
        "secret_access_key",
        r"[ \t]+",
        "the aws cli's configure set, rclone's config create",
        anchor="_",
        word_start=False,
        before=_COMMAND_START
        + r"(?:aws[ \t][^\r\n|;&<>]{0,64}?configure[ \t]+set[ \t]+(?:[^\s|;&<>.]+[ \t.]+)*aws_"
        + r"|rclone[ \t]+config[ \t]+(?:create|update)[ \t][^\r\n|;&<>]{0,200}?[ \t])",
        validator=lambda secret: is_assigned_secret("secret_access_key", secret, False, "", True),
    ),
    _keyword(  # ``aws configure set aws_session_token VALUE``
        "aws-session-token",
        "aws_session_token",
        rf"{_SPACED}",
        rf"{_B64}{{100,}}={{0,2}}",
        anchor=3,
        source="the aws cli's configure set",
    ),
    _r(
        "google-api-key",
        "AIza",
        r"[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        anchor=0,
        source="gitleaks gcp-api-key",
    ),
    _r(  # what ``gcloud auth print-access-token`` prints
        "google-oauth-token",
        "ya29.",
        r"[0-9A-Za-z_-]{20,2048}(?![0-9A-Za-z_-])",
        anchor=4,  # at the dot, where other rules stop already
        source="Google's OAuth 2.0 access tokens",
    ),
    _token(
        "digitalocean-token",
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        r"[a-f0-9]{64}",
        "digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token",
    ),
    _token("alibaba-access-key", "LTAI", r"[a-zA-Z0-9]{20}", "alibaba-access-key-id", anchor=2),
    _keyword(
        "azure-storage-key",
        ("AccountKey=", "SharedAccessKey=", "accountkey="),
        "",
        rf"{_B64}{{20,88}}={{0,2}}",
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
        (
            "glpat-",
            "gldt-",
            "glptt-",
            "glrt-",
            "glcbt-",
            "glsoat-",
            "glft-",
            "glimt-",
            "glagent-",
            "glffct-",
            "gloas-",
        ),  # fmt: skip
        r"[A-Za-z0-9_-]{20,}",
        source="gitleaks gitlab-pat, gitlab-deploy-token, gitlab-ptt, "
        "gitlab-cicd-job-token, gitlab-scim-token, gitlab-feed-token, gitlab-incoming-mail-token, "
        "gitlab-kubernetes-agent-token, gitlab-runner-authentication-token, gitlab-pat-routable, "
        "gitlab-runner-authentication-token-routable, gitlab-feature-flag-client-token, "
        "gitlab-oauth-app-secret; "
        "detect-secrets GitLabTokenDetector",
    ),
    _r(
        "gitlab-token",
        "GR1348941",
        r"[A-Za-z0-9_-]{20}(?![A-Za-z0-9_-])",
        anchor=0,
        source="gitleaks gitlab-rrt",
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
    _keyword(
        "slack-webhook",
        "://hooks.slack.com/",
        "",
        r"(?:services|workflows|triggers)/[A-Za-z0-9+/]{20,}",
        word_start=False,
        source="gitleaks slack-webhook-url",
    ),
    _keyword(
        "discord-webhook",
        ("://discord.com/api/webhooks/", "://discordapp.com/api/webhooks/"),
        "",
        r"\d{5,30}/[A-Za-z0-9_-]{60,80}",
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
    _token(
        "twilio-key", "SK", r"[0-9a-fA-F]{32}", "twilio-api-key; detect-secrets TwilioKeyDetector"
    ),
    _r(
        "sendgrid-key",
        "SG.",
        r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        source="gitleaks sendgrid-api-token; detect-secrets SendGridDetector",
    ),
    _r(  # a Discord bot's token: its user id (base64), a timestamp, then the HMAC (from the dot
        # before it: the id is public); the 6 characters between the dots are tested first
        "discord-bot-token",
        ".",
        r"(?<=\.[A-Za-z0-9_-]{6}\.)"
        + "(?:"
        + "|".join(rf"(?<=[MNO][A-Za-z0-9_-]{{{n}}}\.[A-Za-z0-9_-]{{6}}\.)" for n in (23, 24, 25))
        + r")[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])",
        anchor=0,
        word_start=False,
        source="detect-secrets DiscordBotTokenDetector",
    ),
    _r(  # Mailchimp's API key: 32 hex digits, then its data center (``-us21``)
        "mailchimp-key",
        "-us",
        r"[0-9]{1,2}(?![A-Za-z0-9])",
        anchor=0,
        word_start=False,
        before=_WORD_START + r"(?P<s>[0-9a-f]{32})",
        source="gitleaks mailchimp-api-key; detect-secrets MailchimpDetector",
    ),
    _r(
        "mailgun-key",
        "key-",
        rf"[a-f0-9]{{32}}{_END}",
        context=("mailgun",),
        source="gitleaks mailgun-private-api-token",
    ),
    _token("mailgun-key", "pubkey-", r"[a-f0-9]{32}", "mailgun-pub-key"),
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
        source="gitleaks shopify-access-token, shopify-shared-secret, shopify-custom-access-token, "
        "shopify-private-app-access-token",
    ),
    _r(
        "braintree-token",
        "access_token$production$",
        r"[a-z0-9]{16}\$[a-f0-9]{32}",
        word_start=False,
        anchor=6,  # at a character other rules stop at: one alternative fewer to pass over
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
    _token(
        "huggingface-token",
        ("hf_", "api_org_"),
        r"[A-Za-z]{34}",
        "huggingface-access-token, huggingface-organization-api-token",
    ),
    _token("replicate-token", "r8_", r"[A-Za-z0-9]{37}", "(replicate) r8_ token"),
    _token("groq-key", "gsk_", r"[A-Za-z0-9]{52}", "(groq) gsk_ key"),
    _token("perplexity-key", "pplx-", r"[A-Za-z0-9]{48}", "perplexity-api-key"),
    _token("databricks-token", "dapi", r"[a-f0-9]{32}(?:-\d)?", "databricks-api-token"),
    # package registries
    _token("npm-token", "npm_", r"[A-Za-z0-9]{36}", "npm-access-token; detect-secrets NpmDetector"),
    _r(
        "pypi-token",
        "pypi-AgE",
        r"[A-Za-z0-9_-]{50,}",
        anchor=4,
        source="gitleaks pypi-upload-token; detect-secrets PypiTokenDetector",
    ),
    _token("rubygems-token", "rubygems_", r"[a-f0-9]{48}", "rubygems-api-token"),
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
    _token("postman-token", "PMAK-", r"[a-fA-F0-9]{24}-[a-fA-F0-9]{34}", "postman-api-token"),
    _token("linear-key", "lin_api_", r"[A-Za-z0-9]{40}", "linear-api-key"),
    _token(
        "grafana-token",
        ("glsa_", "glc_"),
        r"[A-Za-z0-9+/]{32,400}(?:_[A-Fa-f0-9]{8})?={0,2}",
        "grafana-service-account-token, grafana-cloud-api-token",
    ),
    _token("grafana-token", "eyJrIjoi", r"[A-Za-z0-9]{70,400}={0,3}", "grafana-api-key", anchor=2),
    _r(
        "atlassian-token",
        ("ATATT3", "ATCTT3"),
        r"[A-Za-z0-9_=-]{50,}",
        anchor=0,
        source="gitleaks atlassian-api-token",
    ),
    _token("pulumi-token", "pul-", r"[a-f0-9]{40}", "pulumi-api-token"),
    _token(
        "age-secret-key",
        "AGE-SECRET-KEY-1",
        r"[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        "age-secret-key",
    ),
    _token(
        "newrelic-key",
        ("NRAK-", "NRJS-", "NRII-"),
        r"[A-Za-z0-9]{27}",
        "new-relic-user-api-key, new-relic-browser-api-token, new-relic-insert-key",
    ),
    _r(
        "sentry-token",
        ("sntryu_", "sntrys_"),
        r"[A-Za-z0-9_=+/-]{40,}",
        source="gitleaks sentry-user-token, sentry-org-token",
    ),
    # more providers (gitleaks' default rule set)
    _r(
        "1password-token",
        "ops_eyJ",
        rf"{_B64}{{250,}}={{0,3}}",
        source="gitleaks 1password-service-account-token",
    ),
    _token(
        "1password-secret-key",
        "A3-",
        r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}",
        "1password-secret-key",
    ),
    _r(
        "artifactory-token",
        "AKCp",
        rf"[A-Za-z0-9]{{69}}{_END}",
        anchor=1,
        source="gitleaks artifactory-api-key; detect-secrets ArtifactoryDetector",
    ),
    _token("artifactory-token", "cmVmdGtu", r"[A-Za-z0-9]{56}", "artifactory-reference-token"),
    _r(
        "aws-bedrock-key",
        ("ABSK", "bedrock-api-key-"),
        rf"{_B64}{{100,2000}}={{0,2}}(?![A-Za-z0-9+/=])",
        source="gitleaks aws-amazon-bedrock-api-key-long-lived, "
        "aws-amazon-bedrock-api-key-short-lived",
    ),
    _token("clojars-token", "CLOJARS_", r"[a-z0-9]{60}", "clojars-api-token"),
    _r(
        "defined-networking-token",
        "dnkey-",
        r"[a-z0-9=_-]{26}-[a-z0-9=_-]{52}",
        source="gitleaks defined-networking-api-token",
    ),
    _r(
        "duffel-token",
        ("duffel_test_", "duffel_live_"),
        r"[A-Za-z0-9_=-]{43}",
        source="gitleaks duffel-api-token",
    ),
    _r(
        "dynatrace-token",
        "dt0c01.",
        rf"[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{64}}{_END}",
        anchor=6,
        source="gitleaks dynatrace-api-token",
    ),
    _token(
        "easypost-token",
        ("EZAK", "EZTK"),
        r"[A-Za-z0-9]{54}",
        "easypost-api-token, easypost-test-api-token",
    ),
    _r(
        "flutterwave-key",
        ("FLWSECK_TEST-", "FLWSECK-", "FLWPUBK_TEST-", "FLWPUBK-"),
        rf"[a-hA-H0-9]{{12}}(?:[a-hA-H0-9]{{20}}-X)?{_END}",
        source="gitleaks flutterwave-secret-key, flutterwave-public-key, "
        "flutterwave-encryption-key",
    ),
    _r(
        "flyio-token",
        ("fo1_", "fm1_", "fm2_", "fm1a_", "fm1r_", "fm2a_", "fm2r_"),
        r"[A-Za-z0-9_+/-]{43,}={0,3}",
        source="gitleaks flyio-access-token",
    ),
    _r("frameio-token", "fio-u-", r"[A-Za-z0-9_=-]{64}", source="gitleaks frameio-api-token"),
    _r(
        "terraform-token",
        ".atlasv1.",
        rf"[A-Za-z0-9_=-]{{60,70}}{_END}",
        word_start=False,
        anchor=8,
        source="gitleaks hashicorp-tf-api-token",
    ),
    _r("heroku-key", "HRKU-AA", r"[0-9A-Za-z_-]{58}", source="gitleaks heroku-api-key-v2"),
    _token("infracost-token", "ico-", r"[A-Za-z0-9]{32}", "infracost-api-token"),
    _token("mapbox-token", "sk.eyJ", r"[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}", "mapbox-api-token"),
    _token("notion-token", "ntn_", r"\d{11}[A-Za-z0-9]{35}", "notion-api-token"),
    _r(
        "openshift-token",
        "sha256~",
        r"[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
        anchor=6,
        source="gitleaks openshift-user-token",
    ),
    _r(
        "planetscale-token",
        ("pscale_tkn_", "pscale_pw_", "pscale_oauth_"),
        r"[A-Za-z0-9_=.-]{32,64}",
        source="gitleaks planetscale-api-token, planetscale-password, planetscale-oauth-token",
    ),
    _token("prefect-token", "pnu_", r"[A-Za-z0-9]{36}", "prefect-api-token"),
    _token("readme-token", "rdme_", r"[a-z0-9]{70}", "readme-api-token"),
    _r("scalingo-token", "tk-us-", r"[A-Za-z0-9_-]{48}", source="gitleaks scalingo-api-token"),
    _token("sendinblue-key", "xkeysib-", r"[a-f0-9]{64}-[A-Za-z0-9]{16}", "sendinblue-api-token"),
    _r(
        "settlemint-token",
        ("sm_pat_", "sm_aat_", "sm_sat_"),
        rf"[A-Za-z0-9]{{16}}{_END}",
        source="gitleaks settlemint-personal-access-token, "
        "settlemint-application-access-token, settlemint-service-access-token",
    ),
    _token(
        "shippo-token", ("shippo_live_", "shippo_test_"), r"[a-fA-F0-9]{40}", "shippo-api-token"
    ),
    _token("sonar-token", ("squ_", "sqp_", "sqa_"), r"[a-f0-9]{40}", "sonar-api-token"),
    _token(
        "sourcegraph-token",
        "sgp_",
        r"(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}",
        "sourcegraph-access-token",
    ),
    _r("typeform-token", "tfp_", r"[A-Za-z0-9_.=-]{59}", source="gitleaks typeform-api-token"),
    _keyword(
        "teams-webhook",
        "/IncomingWebhook/",
        "",
        r"[A-Za-z0-9]{32}/[A-Za-z0-9-]{36}",
        anchor=9,
        word_start=False,
        source="gitleaks microsoft-teams-webhook",
    ),
    _token(
        "cloudflare-origin-ca-key",
        "v1.0-",
        r"[a-f0-9]{24}-[a-f0-9]{146}",
        "cloudflare-origin-ca-key",
    ),
    _r(
        "harness-token",
        ("pat.", "sat."),
        rf"[A-Za-z0-9_-]{{22}}\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{20}}{_END}",
        anchor=3,
        source="gitleaks harness-api-key",
    ),
    _keyword(
        "gitlab-session-cookie",
        "_gitlab_session=",
        "",
        r"[0-9a-z]{32}",
        after=rf"{_END}",
        word_start=False,
        source="gitleaks gitlab-session-cookie",
    ),
    _keyword(  # a web app's session in a cookie: ``Set-Cookie: sessionid=…``, ``curl -b``
        "session-cookie",
        ("session=", "sessionid=", "session_id=", "sessionId=", "SessionId=", "SESSID=")
        + ("SESSIONID=", "sid="),
        "",
        r"[^\s;,'\"\\]{16,4096}",
        after=r"(?![^\s;,'\"\\])",
        word_start=False,
        context=("cookie", " -b "),
        within=256,
        # a JWT in a cookie keeps its own kind
        validator=lambda secret: _literal(secret) and not compiled(_JWT).match(secret),
        source="session cookies (Django, Rails, Express, PHP, Java, ASP.NET, Flask)",
    ),
    _r(
        "yandex-key",
        "AQVN",
        r"[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])",
        anchor=0,
        source="gitleaks yandex-api-key",
    ),
    _r(
        "dropbox-token",
        "sl.",
        r"[A-Za-z0-9_=.-]{135,}",
        anchor=2,
        source="gitleaks dropbox-short-lived-api-token",
    ),
    _r(
        "facebook-token",
        ("EAAM", "EAAC"),
        rf"[A-Za-z0-9]{{100,}}{_END}",
        anchor=2,
        source="gitleaks facebook-page-access-token, facebook-access-token",
    ),
    _token("octopus-deploy-key", "API-", r"[A-Z0-9]{26}", "octopus-deploy-api-key"),
    _token(
        "plaid-token",
        ("access-sandbox-", "access-development-", "access-production-"),
        r"[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}",
        "plaid-api-token",
    ),
    _token("adobe-client-secret", "p8e-", r"[A-Za-z0-9]{32}", "adobe-client-secret"),
    _r(
        "azure-ad-client-secret",
        "Q~",
        r"[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        word_start=False,
        anchor=1,
        before=r"(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}\d",
        source="gitleaks azure-ad-client-secret",
    ),
    _r(
        "docker-config",  # base64 of a docker config: ``{"auths":``, ``{\n  "auths":``
        ("eyJhdXRocyI6", "ewogICJhdXRocyI6"),
        rf"{_B64}{{16,}}={{0,2}}",
        word_start=False,
        anchor="J",
        source="kubernetes .dockerconfigjson",
    ),
    # keys and tokens of any origin
    _r(
        "private-key",
        "-----BEGIN",
        r"[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[^-]|-(?!----)){0,16384}?"
        r"-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        word_start=False,
        anchor=4,
        source="gitleaks private-key; detect-secrets PrivateKeyDetector",
    ),
    _r(
        "private-key",  # cut short (``head -4``): the lines after BEGIN, with no END
        "-----BEGIN",
        rf"[ A-Z0-9_-]{{0,40}}PRIVATE KEY(?: BLOCK)?-----"
        rf"(?:{_BREAK}[A-Za-z-]+: [^\r\n\\]*)*(?:{_BREAK})?{_BREAK}"
        rf"(?P<s>{_KEY_LINE}(?:{_BREAK}{_KEY_LINE})*)",
        word_start=False,
        anchor=4,
        source="gitleaks private-key; detect-secrets PrivateKeyDetector",
    ),
    _r(
        "jwt",  # wrapped at a fixed width (``base64 -w 76``, mail, logs)
        "eyJ",
        rf"(?:[A-Za-z0-9_.-]{{17,}}{_BREAK})+[A-Za-z0-9_.-]+",
        validator=_wrapped_jwt,
        source="gitleaks jwt; detect-secrets JwtTokenDetector",
    ),
    _r(
        "jwt",
        "eyJ",
        r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        source="gitleaks jwt; detect-secrets JwtTokenDetector",
    ),
    _r(
        "jwt",  # a JWT in base64 (``eyJhbGciOi`` encoded again)
        "ZXlKaGJHY2lPaU",
        rf"{_B64}{{40,}}={{0,2}}",
        anchor=3,
        source="gitleaks jwt-base64",
    ),
    _keyword(
        "url-credentials",
        "://",
        r"[^\s:/@'\"\\]{0,128}:",
        r"[^\s:/@'\"\\]{1,4096}",
        after=r"@",
        word_start=False,
        source="detect-secrets BasicAuthDetector; gitleaks generic URL credentials, "
        "sidekiq-sensitive-url",
    ),
    _keyword(  # a token alone as the address's user (``git clone https://TOKEN@host/…``): long,
        # letters and digits mixed, nothing else (a user's name is shorter, or has words)
        "url-credentials",
        "://",
        "",
        r"[A-Za-z0-9]{32,128}",
        after="@",
        word_start=False,
        validator=mixed,
        source="a git remote's token (Azure DevOps, GitHub's older tokens)",
    ),
    _keyword(  # a Go MySQL driver's DSN, ``user:VALUE@tcp(host)/db``, given to ``sql.Open`` or
        # a ``dsn``
        "assigned-secret",
        ("sql.Open(", "mysql.Open(", "dsn :=", "dsn =", "dsn=", "dsn:", "DSN =", "DSN=", "DSN:"),
        r"[ \t]*(?:\\{0,3}\"[\w-]{1,32}\\{0,3}\"[ \t]*,[ \t]*)?\\{0,3}[\"'`]?"
        r"[^\s:\"'`@\\/]{1,64}:",
        r"[^\s\"'`@\\]{1,256}",
        after=r"@(?:tcp\(|unix\(|/)",
        anchor=".:=",
        validator=_literal,
        source="the Go MySQL driver's data source name",
    ),
    _keyword(
        "bearer-token",
        ("Bearer", "BEARER"),
        r"[ \t]+",
        r"[A-Za-z0-9._~+/-]{16,}=*",
        anchor=0,
        source="gitleaks (authorization header) bearer token",
    ),
    # configuration files and manifests
    _keyword(  # each value under a Secret's ``data:`` (base64) or ``stringData:``
        "kubernetes-secret",
        ("data:", "stringData:"),
        "",
        rf"(?:[ \t]*{_BREAK}[ \t]+[\w.-]+:[ \t]*[^\s\\][^\r\n\\]*)+",
        context=_SECRET_KIND,
        within=4000,
        parts=r"[\w.-]+:[ \t]*(?P<v>[^\s\\](?:[^\r\n\\]*[^\s\\])?)",
        anchor="dD",  # not at the colon: one stands before most values in JSON
        source="gitleaks kubernetes-secret-yaml",
    ),
    *(
        _keyword(  # the same in JSON (``kubectl get secret -o json``), maybe escaped
            "kubernetes-secret",
            tuple(f"{quote}{key}{quote}:" for quote in ('"', '\\"', '\\\\\\"')),
            r"[ \t]*\{",
            rf"(?:[\s,]|\\{{1,3}}[nrt]|{_json_pair(value)})+",
            after=r"\}",
            context=_SECRET_KIND,
            within=4000,
            parts=r'\\{0,3}"[\w.-]+\\{0,3}"[ \t]*:[ \t]*\\{0,3}"(?P<v>[^"\\]+)',
            anchor="dD",
            source="gitleaks kubernetes-secret-yaml (in JSON)",
        )
        for key, value in (("data", rf"{_B64}*={{0,2}}"), ("stringData", r'[^"\\]*'))
    ),
    _keyword(  # ``machine HOST login USER password VALUE``
        "netrc-password",
        ("password ", "password\t"),  # the scan stops at d, and looks at what follows first
        r"[ \t]*",
        r"[^\s'\"\\]+",
        anchor=7,
        context=("machine",),
        within=300,
        validator=_literal,
        source="curl and git's .netrc",
    ),
    _r(
        "pgpass-password",  # ``host:port:database:user:password``, one to a line
        ":",  # the one after the port: most colons are followed by none of its characters
        rf"{_PG_NAME}{_PG_NAME}*:[A-Za-z0-9_*.@$-]+:"
        r"(?P<s>[^\s:'\"\\]{3,})(?=[ \t]*(?:\r?\n|\\+[rn]|$|\\*['\"]))",
        word_start=False,
        before=r"(?:^|[\s'\"]|\\n)[A-Za-z0-9_.*-]+:(?:\d{1,5}|\*)",
        validator=_literal,
        source="PostgreSQL's .pgpass",
    ),
    *(
        _keyword(  # ``CREATE USER … IDENTIFIED BY 'VALUE'``, ``ALTER ROLE … PASSWORD 'VALUE'``
            "sql-password",
            keywords,
            r"(?:[ \t]+|\()[\"']",  # MySQL's ``PASSWORD('VALUE')`` too; MySQL takes "VALUE"
            r"[^\"'\\\r\n]{1,256}",
            after="[\"']",
            anchor=anchor,  # at a d, where other rules stop already (not at a common y)
            validator=_literal,
            source="SQL's CREATE and ALTER USER and ROLE",
        )
        for keywords, anchor in (
            (("IDENTIFIED BY", "identified by"), 9),
            (("PASSWORD", "password"), 7),
        )
    ),
    # passwords a command takes as a word of its own, not after a flag
    _command_word(  # ``htpasswd -b FILE USER VALUE``, ``htpasswd -nb USER VALUE``
        "htpasswd",
        rf"[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*[ \t]+(?:{_WORD_ARGUMENT}[ \t]+){{1,2}}",
        "Apache's htpasswd",
        anchor="d",
    ),
    _command_word(  # ``doppler secrets set NAME VALUE``, ``netlify env:set NAME VALUE``
        ("doppler secrets set", "netlify env:set"),
        rf"[ \t]+{_WORD_ARGUMENT}[ \t]+",
        "Doppler's and Netlify's CLIs",
        anchor="d:",
    ),
    _command_word(  # ``rabbitmqctl add_user USER VALUE``
        ("rabbitmqctl add_user", "rabbitmqctl change_password"),
        rf"[ \t]+{_WORD_ARGUMENT}[ \t]+",
        "RabbitMQ's rabbitmqctl",
        anchor="_",
    ),
    _command_word(  # ``openssl passwd -6 -salt SALT VALUE``: the password a hash is made of
        "openssl passwd",
        r"(?:[ \t]+-(?:(?:salt|in)[ \t]+\S+|(?!(?:salt|in)\b)[A-Za-z0-9]+))*[ \t]+",
        "OpenSSL's passwd",
        anchor="d",
    ),
    _command_word(  # ``neo4j-admin dbms set-initial-password VALUE``
        "set-initial-password",
        r"[ \t]+",
        "Neo4j's neo4j-admin",
        anchor="-",
    ),
    _keyword(  # prose: ``the (AWS) secret key is VALUE``, 40 characters of base64 as AWS's
        "aws-secret-key",
        tuple(
            f"{word} {verb} "
            for word in ("secret key", "secret access key")
            for verb in ("is", "was")
        ),
        _OPENING,
        rf"(?![0-9a-f]{{40}}){_B64}{{40}}",
        after=r"(?![A-Za-z0-9+/=])",
        anchor="y",
        validator=mixed,
        source="an AWS secret key written in prose",
    ),
    _keyword(  # prose: ``the password is VALUE``, a value that looks random (a word does not)
        "assigned-secret",
        tuple(f"{word} {verb} " for word in ("password", "Password") for verb in ("is", "was")),
        _OPENING,
        r"[^\s\"'`\\,;()<>]{7,255}[^\s\"'`\\,;()<>.:!?]",
        after=r"(?![^\s\"'`\\,;()<>.:!?])",
        anchor="d",
        validator=lambda secret: mixed(secret) and _literal(secret),
        source="a password written in prose",
    ),
    _command_word(  # ``mysqladmin -u root password VALUE``
        ("password ", "password\t"),
        r"[ \t]*",
        "MySQL's mysqladmin",
        anchor=7,
        before=r"mysqladmin(?:[ \t]+-\S+(?:[ \t]+[^\s-]\S*)?)*[ \t]+",  # flags only
    ),
    _command_word(  # ``gh secret set NAME --body VALUE``
        ("--body", "-b"),
        r"(?:=|[ \t]+|(?=\\{0,3}[\"']))",  # ``-b"VALUE"`` too
        "GitHub CLI's gh secret set",
        anchor=0,
        before=r"gh[ \t]+secret[ \t]+set\b[^\r\n|;&]*[ \t]",
    ),
    _command_word(  # a call's user and password: ``auth=("USER", "VALUE")``, ``smtp.login(…)``
        # MongoDB's shell: ``db.auth(USER, VALUE)``; .NET's ``new NetworkCredential(…)``
        ("auth=(", "Auth(", ".login(", ".auth(", "Credential("),
        r"[ \t]*\\{0,3}[\"'][^\"'\\\r\n]{1,256}\\{0,3}[\"'][ \t]*,[ \t]*\\{0,3}[\"']",
        "requests' auth, HTTPBasicAuth, smtplib's and ftplib's login, MongoDB's db.auth, .NET's"
        " NetworkCredential",
        word_start=False,
        anchor="=A.d",  # where other rules stop already
    ),
    _command_word(  # PowerShell's ``ConvertTo-SecureString "VALUE" -AsPlainText``
        "ConvertTo-SecureString",
        r"(?:[ \t]+-(?:String|AsPlainText|Force)\b)*[ \t]+",
        "PowerShell's ConvertTo-SecureString",
        anchor="-",
    ),
    _command_word(  # FreeRDP's ``xfreerdp /u:USER /p:VALUE``
        "/p:",
        "",
        "FreeRDP's /p:",
        anchor=":",
        word_start=False,
        before=_COMMAND_START + r"(?:[xw]freerdp3?|sdl-freerdp3?)\b[^\r\n|;&]*[ \t]",
    ),
    _command_word(  # Windows' ``cmdkey /add:TARGET /user:USER /pass:VALUE``
        "/pass:",
        "",
        "Windows' cmdkey",
        anchor=":",
        word_start=False,
        before=_COMMAND_START + r"cmdkey\b[^\r\n|;&]*[ \t]",
    ),
    _command_word(  # Windows' ``net use \\SERVER\SHARE /user:USER VALUE``
        "/user:",
        rf"{_WORD_ARGUMENT}[ \t]+(?!/)",
        "Windows' net use",
        anchor=":",
        word_start=False,
        before=_NET_USE + r"[^\r\n|;&]*[ \t]",
    ),
    _r(  # ``net use \\SERVER\SHARE VALUE /user:USER``: the password before the user
        "assigned-secret",
        "/user:",
        "",
        anchor=":",
        word_start=False,
        before=_NET_USE + r"[ \t]+" + _OPENING_PASSWORD,
        validator=_literal,
        source="Windows' net use",
    ),
    _r(  # Windows' ``net user USER VALUE /add``: the password before the switch
        "assigned-secret",
        ("/add", "/ADD", "/domain", "/DOMAIN"),
        "",
        anchor="dD",
        word_start=False,
        before=rf"{_COMMAND_START}(?i:net[ \t]+user)[ \t]+{_WORD_ARGUMENT}[ \t]+"
        + _OPENING_PASSWORD,
        validator=_literal,
        source="Windows' net user",
    ),
    _keyword(  # Oracle's ``sqlplus USER/VALUE@DATABASE``, its Data Pump and SQL*Loader the same
        "assigned-secret",
        ("sqlplus", "expdp", "impdp", "sqlldr"),
        r"(?:[ \t]+-[A-Za-z]+)*[ \t]+\\{0,3}[\"']?[A-Za-z][A-Za-z0-9_$#]{0,127}/",
        r"[^\s@/\"'`\\|;&<>()]{1,256}",
        after=r"(?![^\s@\"'`\\])",
        anchor="qd",
        validator=_literal,
        source="Oracle's sqlplus, expdp, impdp, sqlldr",
    ),
    _command_word(  # ``nmcli device wifi connect SSID password VALUE``, ``… wifi-sec.psk VALUE``
        ("password ", "password\t", ".psk ", ".psk\t"),
        r"[ \t]*",
        "NetworkManager's nmcli",
        anchor="d.",
        word_start=False,
        # an object first (``device``, ``connection``, abridged or not): not prose about nmcli
        before=_COMMAND_START
        + r"nmcli(?:[ \t]+-\S+)*[ \t]+(?:d|dev|device|c|con|connection)\b[^\r\n|;&]*",
    ),
    _command_word(  # ``lftp -u USER,VALUE HOST``
        "-u",
        r"[ \t]+",
        "lftp",
        user=r"[^\s,\"'`|;&<>]{1,64},",
        anchor="-",
        word_start=False,
        before=_COMMAND_START + r"lftp\b[^\r\n|;&]*[ \t]",
    ),
    _keyword(  # ``wpa_passphrase SSID VALUE``: a passphrase of 8 to 63 characters
        "assigned-secret",
        "wpa_passphrase",
        rf"[ \t]+(?:\"[^\"\r\n]{{1,64}}\"|'[^'\r\n]{{1,64}}'|{_WORD_ARGUMENT})[ \t]+" + _OPENING,
        r"[^\s\"'`\\|;&<>()-][^\s\"'`\\|;&<>()]{7,62}",
        after=_CLOSING,
        anchor="_",
        validator=_literal,
        source="wpa_supplicant's wpa_passphrase",
    ),
    _r(  # a password written to a file named for one: ``echo VALUE > ~/.vault_pass``
        "assigned-secret",
        ("_pass", "-pass", ".pass"),  # ``.vault_pass``, ``vault-password.txt``, ``db.passwd``
        # the file's name ends there (not a call, ``get_password(``, nor a key, ``user_pass=``)
        r"(?:word|wd|phrase)?(?:[._-][A-Za-z0-9]+)*(?=[\s\\\"';&|)]|$)",
        anchor="_-.",
        word_start=False,
        before=_COMMAND_START
        + r"echo(?:[ \t]+-[neE]+)*[ \t]+"
        + _PASSWORD_WORD
        + r"[ \t]*(?:>>?|\|[ \t]*(?:sudo[ \t]+)?tee(?:[ \t]+-a)?)[ \t]*[^\s|;&<>\"']*",
        validator=_literal,
        source="a password file (Ansible's vault password file and the like)",
    ),
    # a password written to a command that reads it on its input: ``echo VALUE | sudo -S …``,
    # ``echo VALUE | docker login -u USER --password-stdin``, ``echo USER:VALUE | chpasswd``
    _r(
        "assigned-secret",
        _READS_INPUT,
        "",
        anchor="-yd",
        before=_PIPED.format(user="") + r"(?:[^\s|;&][^|\r\n;&]*[ \t])?",
        validator=_literal,
        source="sudo -S, docker login --password-stdin, passwd --stdin, gh auth login, cryptsetup",
    ),
    _r(  # the same found from the pipe: ``echo VALUE | gh secret set NAME``, ``| kinit USER``
        "assigned-secret",
        "|",
        rf"[ \t]*(?:sudo[ \t]+)?(?:{'|'.join(_PIPED_TO)})(?![\w-])",
        anchor=0,
        word_start=False,
        before=_ECHOED.format(user="") + r"[ \t]*",
        validator=_literal,
        source="gh secret set, kinit, wrangler secret put, gcloud secrets, pass insert",
    ),
    _command_word(  # and with a here-string, found from it: ``kinit USER <<< VALUE``
        "<<<",
        r"[ \t]*",
        "kinit, gh secret set, wrangler secret put, gcloud secrets, pass insert",
        anchor=0,
        word_start=False,
        before=_COMMAND_START
        + rf"(?:sudo[ \t]+)?(?:{'|'.join(_PIPED_TO)})(?![\w-])[^\r\n|;&<>]{{0,256}}",
    ),
    _command_word(  # the same with a here-string: ``sudo -S CMD <<< VALUE``
        _READS_INPUT,
        r"[^\r\n|;&<>]{0,256}<<<[ \t]*",  # bounded: each place reads no further
        "sudo -S, docker login --password-stdin, passwd --stdin, cryptsetup",
        anchor="-yd",
    ),
    _command_word(  # ``chpasswd <<< USER:VALUE``
        "chpasswd",
        r"[ \t]*<<<[ \t]*",
        "chpasswd",
        user=r"[^\s:\"'`|;&<>]{1,64}:",
        anchor="d",
    ),
    _r(
        "assigned-secret",
        "chpasswd",
        "",
        anchor="d",
        before=_PIPED.format(user=r"[^\s:\"'`|;&<>]{1,64}:") + r"(?:sudo[ \t]+)?",
        validator=_literal,
        source="chpasswd",
    ),
    _token(  # a Vault token given to ``vault login`` as a word of its own (``s.…``, ``b.…``)
        "vault-token",
        ("s.", "b.", "r."),
        r"[A-Za-z0-9_-]{20,1024}",
        "vault-service-token, vault-batch-token (their older forms)",
        anchor=".",
        before=r"vault[ \t]+login(?:[ \t]+-[\w-]+(?:=[^\s\"'`|;&<>]*)?)*[ \t]+\\{0,3}[\"']?",
        validator=_literal,
    ),
    *(
        _keyword(  # the ``value`` of an element named for a password, before or after it: an
            # HTML password field (``<input type="password" value="VALUE">``, ``<input
            # value="VALUE" type=password>``), a Spring or Ant ``<property name="db.password"
            # value="VALUE"/>``, a ``<param name="password" value="VALUE">``
            "assigned-secret",
            "value=",
            _QUOTE_MARK,
            _ATTRIBUTE_VALUE,
            after=_QUOTE_MARK + after,
            anchor="=",
            word_start=False,
            before=_ELEMENT + before,
            validator=_literal,
            source="an HTML password field, an XML property named for a password",
        )
        for before, after in (
            (_PASSWORD_ATTRIBUTE + r"[^<>]{0,200}?[ \t\r\n]", ""),
            (r"[ \t\r\n]", rf"(?=[^<>]{{0,200}}?{_PASSWORD_ATTRIBUTE})"),
        )
    ),
    _keyword(  # an element's text, the element named for a password: ``<entry
        # key="password">VALUE</entry>``
        "assigned-secret",
        tuple(f"{word}{quote}>" for word in ("password", "Password") for quote in _QUOTES),
        "",
        r"[^<>\s][^<>]{0,1023}?",
        after=r"</",
        anchor=7,
        word_start=False,
        before=_ELEMENT + r"[ \t\r\n](?:name|key)=\\{0,3}[\"'][\w.:-]{0,64}",
        validator=_literal,
        source="an XML entry named for a password (Java's properties in XML)",
    ),
    # a call given a password as a string literal: its third argument (a database's host or
    # address, its user, then the password), its second (a directory's name), its first (a key)
    _argument(  # JDBC's ``DriverManager.getConnection(url, "USER", "VALUE")``
        (".getConnection(", "Sequelize(", "PDO(", "mysqli_connect(", "mysqli(", "FTP("),
        _ARGUMENT + _LITERAL_ARGUMENT,
        "JDBC's getConnection, Sequelize, PHP's PDO and mysqli, Python's ftplib.FTP",
        anchor=".qPy",
    ),
    _argument(  # python-ldap's ``simple_bind_s("cn=admin,dc=example", "VALUE")``
        ("simple_bind_s(", "simple_bind("), _ARGUMENT, "python-ldap's simple_bind", anchor="_"
    ),
    _argument(  # a JWT's signing key: ``jwt.encode(payload, "VALUE")``, ``jwt.sign(…)``,
        # ``jwt.decode(token, "VALUE")``; Node's ``crypto.createHmac("sha256", "VALUE")``
        ("jwt.encode(", "jwt.sign(", "jwt.decode(", "jwt.verify(", ".createHmac("),
        _ARGUMENT,
        "PyJWT's encode and decode, jsonwebtoken's sign and verify, Node's createHmac",
        anchor=".",
    ),
    _argument(  # a key: ``hmac.new(b"VALUE", …)``, ``AES.new(b"VALUE", …)``
        ("hmac.new(", "AES.new("), "", "Python's hmac.new, PyCryptodome's AES.new", anchor="."
    ),
    _r(  # a key given to ``Fernet(b"VALUE=")``: 32 bytes in URL-safe base64, 43 characters then
        # ``=``; the scan stops at the ``=`` and looks behind it for the 43 (``Fernet(`` has no
        # character it stops at, and ``=")`` alone is no place)
        "assigned-secret",
        tuple(f"={quote})" for quote in _ESCAPED_QUOTES),
        "(?:"
        + "|".join(f"(?<=[A-Za-z0-9_-]{{43}}={re.escape(q)}\\))" for q in _ESCAPED_QUOTES)
        + ")",
        anchor=0,
        word_start=False,
        before=r"(?<![\w.])Fernet\([ \t]*(?:key[ \t]*=[ \t]*)?b?"
        + _QUOTE_MARK
        + r"(?P<s>[A-Za-z0-9_-]{43})",
        source="cryptography's Fernet",
    ),
    _argument(  # a browser test typing into a password field: ``page.fill("#password", "VALUE")``,
        # Capybara's ``fill_in "Password", with: "VALUE"``
        _PASSWORD_SELECTORS,
        r"\)?[ \t]*,[ \t]*(?:with:[ \t]*)?",
        "Playwright's and Puppeteer's fill and type, Capybara's fill_in",
        anchor=7,
        before=r"(?i:fill(?:_in)?|type|send_?keys|set_?value)[ \t]*\(?[ \t]*\\{0,3}[\"'][^\"'\r\n]{0,64}",
    ),
    _argument(  # the same chained: ``getByLabel("Password").fill("VALUE")``, Cypress's
        # ``cy.get("#password").type("VALUE")``, Selenium's ``….send_keys("VALUE")``
        tuple(f"{selector})." for selector in _PASSWORD_SELECTORS),
        r"(?:fill|type|send_keys|sendKeys|setValue|set_value|pressSequentially)\(",
        "Playwright, Cypress and Selenium filling a password field",
        anchor=7,
    ),
    _argument(  # nodemailer's ``auth: { user: "USER", pass: "VALUE" }``, a sign-in's
        # ``{"username": "USER", "pass": "VALUE"}``
        ("pass:", 'pass":', "pass':", 'pass\\":'),
        "",
        "a user and password object (nodemailer's auth, a sign-in's body)",
        anchor=":",
        before=r"\b(?:user(?:name)?|login|email)\\{0,3}[\"']?[ \t]*:[ \t]*"
        + _LITERAL_ARGUMENT
        + r"\\{0,3}[\"']?",
    ),
    _keyword(  # a Redis or keepalived configuration's ``requirepass VALUE``, ``auth_pass VALUE``
        "assigned-secret",
        ("requirepass", "auth_pass"),
        r"[ \t]+" + _OPENING,
        _COMMAND_VALUE,
        after=r"(?:\\{0,3}[\"'])?[ \t]*(?=$|\r?\n|\\{1,3}[rn]|[\"'`])",  # the line's last word
        anchor="q_",
        word_start=False,
        # a line's first word (maybe a string's), or after ``CONFIG SET``: not prose about it
        before=r"(?:(?:(?<![^\n])|(?<=\\n)|(?<=[\"'`]))[ \t]*|(?i:config[ \t]+set)[ \t]+)",
        validator=_literal,
        source="Redis's requirepass, keepalived's auth_pass",
    ),
    _keyword(  # npm's ``npm config set //registry.example.com/:_authToken VALUE``
        "assigned-secret",
        (":_authToken", ":_auth", ":_password"),
        r"[ \t]+" + _OPENING,
        r"[^\s\"'`\\|;&<>()-][^\s\"'`\\|;&<>()]{7,255}",
        after=_CLOSING,
        anchor="_",
        word_start=False,
        validator=_literal,
        source="npm's registry credentials",
    ),
    _keyword(  # Expect's ``send "VALUE\r"`` right after a prompt for a password
        "assigned-secret",
        ("send ", "send\t"),
        r"[ \t]*(?:-[-\w]*[ \t]+)*(?:\\{0,3}\"|\{)",
        r"[^\"\\{}\r\n]{1,256}",
        after=r"(?:\\{1,4}[rn])?(?:\\{0,3}\"|\})",
        anchor="d",
        word_start=False,
        before=_COMMAND_START + _PROMPTED,
        validator=_literal,
        source="Expect's send after a password prompt",
    ),
    _keyword(  # pexpect's ``child.sendline("VALUE")`` right after a prompt for a password
        "assigned-secret",
        (".sendline(", ".send("),
        r"[ \t]*" + _QUOTE_MARK,
        r"[^\"'\\\r\n]{1,256}",
        after=r"(?:\\{1,4}[rn])?" + _QUOTE_MARK,
        anchor=".",
        word_start=False,
        before=_COMMAND_START + _PROMPTED + r"[A-Za-z_][\w.]{0,63}",
        validator=_literal,
        source="pexpect's sendline after a password prompt",
    ),
    _keyword(  # a key named only ``…_KEY`` or ``…Key`` (``APP_KEY=base64:…``, ``signingKey``),
        # after a letter or digit (S3's ``"Key"`` names an object), its value one that looks like
        # a key (``_key_shaped``); ``API_KEY``, ``apiKey`` and the like are secret-named keys
        # (``TOKEN_KEYS``), found before this rule at the same operator
        "assigned-secret",
        tuple(
            f"{key}{quote}{operator}"
            # ``APP_KEY``, ``hmac_key``, ``signingKey``, a header's ``Subscription-Key``
            for key in ("_KEY", "_key", "Key", "-Key", "-key")
            for quote in ("", '"', '\\"', '\\\\\\"')  # a JSON key, escaped once or twice
            for operator in ("=", ":", " =")
        ),
        r"[ \t]*\\{0,3}[\"'`]?",
        _KEY_SHAPED,
        after=r"(?![A-Za-z0-9+/=_-])",
        word_start=False,
        anchor="=:",
        before="[A-Za-z0-9]",
        validator=lambda secret: _key_shaped(secret),
        source="gitleaks generic-api-key (a key named …_KEY)",
    ),
    _keyword(  # a signed address's signature: S3's and Cloud Storage's presigned URLs
        "url-signature",
        ("X-Amz-Signature=", "x-amz-signature=", "X-Goog-Signature=", "x-goog-signature="),
        "",
        r"[0-9a-fA-F]{64,1024}",
        after=r"(?![0-9a-fA-F])",
        word_start=False,
        anchor="=",
        source="presigned S3 and Cloud Storage URLs",
    ),
    _keyword(  # an Azure shared access signature's ``sig=``
        "url-signature",
        ("?sig=", "&sig=", "&amp;sig="),
        "",
        r"[A-Za-z0-9%+/=_-]{20,256}",
        after=r"(?![A-Za-z0-9%+/=_-])",
        word_start=False,
        anchor="=",
        validator=_literal,
        source="Azure's shared access signatures",
    ),
    _keyword(  # an address's ``?key=VALUE`` (Google's APIs and others take their key so)
        "assigned-secret",
        ("?key=", "&key="),
        "",
        _KEY_SHAPED,
        after=r"(?![A-Za-z0-9+/=_-])",
        word_start=False,
        anchor="=",
        validator=lambda secret: _key_shaped(secret),
        source="gitleaks generic-api-key (an address's key)",
    ),
    _keyword(  # ``<password>VALUE</password>``, ``<db:Password>``
        "xml-password",
        ("password>", "Password>"),
        "",
        r"[^<>\s][^<>]{0,1023}?",
        after=r"</",
        anchor=7,
        word_start=False,
        before=r"<[A-Za-z0-9_:.-]*",
        validator=_literal,
        source="XML configuration (Maven settings, Tomcat, .NET)",
    ),
    _keyword(  # a kubeconfig's, in base64
        "private-key",
        ("client-key-data:", 'client-key-data":', 'client-key-data\\":'),
        r"[ \t]*\\{0,3}\"?",
        rf"{_B64}{{16,}}={{0,2}}",
        word_start=False,
        anchor="d",
        source="kubeconfig client-key-data",
    ),
    _keyword(
        "nuget-password",
        "ClearTextPassword",
        r"\\{0,3}\"[ \t]+value=\\{0,3}\"",
        r"[^\"\\]+",
        anchor=9,
        validator=_literal,
        source="gitleaks nuget-config-password",
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
    "psk",  # a Wi-Fi network's pre-shared key (wpa_supplicant's ``psk="…"``, ``WIFI_PSK``)
    "_pw",  # ``admin_pw``, ``DB_PW``
)
TOKEN_KEYS = (
    "token", "api_key", "apikey", "api-key", "access_key", "accesskey", "access-key",
    "secret_key", "secretkey", "private_key", "privatekey", "private-key", "account_key",
    "accountkey", "auth", "authorization", "key_base", "signing_key", "encryption_key",
    "master_key", "client_key", "sharedaccesskey",
)  # fmt: skip
# what may stand between a key and its operator: quotes, escaped once or twice
# (JSON inside JSON), the end of a subscript (``os.environ['DB_PASSWORD'] = …``)
CLOSERS = (
    "", '"', "'", " ", '" ', "' ", '\\"', "\\'", '\\\\\\"', "`", "  ", "] ", '\\" ',
    "'] ", '"] ', "']", '"]',
)  # fmt: skip
# flags whose value is a password though their name does not say so: Java's keytool, OpenSSL's
# ``-passin``/``-passout``/``-pass`` (``pass:VALUE``; ``env:``, ``file:``, ``fd:`` name no secret)
PASSWORD_FLAGS = (
    "storepass",
    "keypass",
    "srcstorepass",
    "deststorepass",
    "srckeypass",
    "destkeypass",
    "passin",
    "passout",
    "pass",
    "pw",  # PuTTY's ``plink -pw VALUE``, ``pscp -pw VALUE``
)
# flags with one dash whose value is a secret: those, Go's tools' (HashiCorp's vault, consul and
# nomad, InfluxDB's influx: ``vault login -token=VALUE``, ``influx -password VALUE``), macOS's
# ``hdiutil -passphrase VALUE``, PowerShell's ``Invoke-Sqlcmd -Password VALUE`` and x11vnc's
# ``-passwd VALUE``, Windows' ``dsmod user … -pwd VALUE``
SINGLE_DASH_FLAGS = (
    "token",
    "password",
    "passphrase",
    "Password",
    "passwd",
    "pwd",
    *PASSWORD_FLAGS,
)
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
    "passphrase",  # ``gpg --passphrase VALUE``
    "secret-access-key",  # ``--aws-secret-access-key VALUE``
    "requirepass",  # Redis's ``redis-server --requirepass VALUE``
    "masterauth",
    "user",  # ``curl --user USER:PASSWORD``
    *PASSWORD_FLAGS,
)


KEY_TAILS = tuple(sorted(set(STRONG_KEYS + TOKEN_KEYS)))


def _named(tails: Iterable[str]) -> str:
    """A whole name that ends with one of ``tails`` (any case)."""
    return rf"[A-Za-z0-9_.-]*(?i:{'|'.join(map(re.escape, tails))})"


def _password(value: str) -> bool:
    """A value written out, as a password-named key's must be (``PASSWORD = "hunter2"``)."""
    return _literal(value) and is_assigned_secret("password", value, True, "", False)


def _token_shaped(value: str) -> bool:
    """A value written out that looks like a token, as a token-named key's must."""
    return _literal(value) and is_assigned_secret("token", value, True, "", False)


def _secret_named(name: str, valid: Callable[[str], bool], defined: str = "") -> tuple[Rule, ...]:
    """Where a key named ``name`` (a pattern) is given a value ``valid`` accepts, written in
    other ways than ``name = value``; ``defined``: other names ``define`` gives a secret."""
    return (
        _keyword(  # a typed declaration: ``SECRET_KEY: str = "…"``, ``const token: string = "…"``;
            # R's assignment: ``api_key <- "…"``
            "assigned-secret",
            (
                *(
                    f": {kind}{operator}"
                    for kind in ("str", "string", "String", "SecretStr", "&str", "&'static str")
                    for operator in (" =", "=")
                ),
                "<-",
            ),
            r"[ \t]*\\{0,3}[\"'`]",
            r"[^\"'`\\\r\n]{1,256}",
            after=r"\\{0,3}[\"'`]",
            anchor="=-",
            word_start=False,
            before=rf"(?<![A-Za-z0-9_.-]){name}[ \t]*",
            validator=valid,
            source="typed declarations (Python, TypeScript, Kotlin, Swift, Rust), R's assignment",
        ),
        _keyword(  # PHP's ``define('DB_PASSWORD', '…')``, ``os.environ.setdefault("API_KEY", "…")``
            "assigned-secret",
            (
                *("define(", "setdefault(", "setProperty(", ".setenv(", ".putenv("),
                *("::SetEnvironmentVariable(", ".SetEnvironmentVariable("),  # PowerShell, .NET
            ),
            rf"[ \t]*\\{{0,3}}[\"'](?:{name}{defined})\\{{0,3}}[\"'][ \t]*,[ \t]*\\{{0,3}}[\"']",
            r"[^\"'\\\r\n]{1,256}",
            after=r"\\{0,3}[\"']",
            anchor="dP.:",  # where other rules stop already
            word_start=False,  # ``monkeypatch.setenv(``
            validator=valid,
            source="PHP's define, Python's setdefault, setenv and putenv, Java's setProperty, "
            ".NET's SetEnvironmentVariable",
        ),
        _keyword(  # .NET's appSettings: ``<add key="Smtp.Password" value="…" />``
            "assigned-secret",
            '" value="',
            "",
            r'[^"\\\r\n]{1,256}',
            after='"',
            anchor="=",
            word_start=False,
            before=rf'<add[ \t]+key="{name}',
            validator=valid,
            source=".NET's appSettings",
        ),
        _keyword(  # a name and value pair: Kubernetes' ``- name: DB_PASSWORD`` then ``value: …``,
            # ECS's ``{"name": "DB_PASSWORD", "value": "…"}``, phpunit's ``<env name="…" value="…"/>``
            "assigned-secret",
            ("value:", 'value":', "value':", 'value\\":', "value="),
            r"[ \t]*" + _OPENING,
            r"[^\s\"'`\\<>,{}\[\]]{1,256}",
            after=_CLOSING,
            anchor=":=",
            word_start=False,
            before=rf"name{_OPENING}[ \t]*[:=][ \t]*{_OPENING}{name}{_OPENING}[ \t]*,?"
            rf"(?:[ \t]|\r?\n|\\{{1,3}}n)*{_OPENING}",
            validator=valid,
            source="name and value pairs (Kubernetes' env, ECS, phpunit)",
        ),
        _keyword(  # C's ``#define API_KEY "…"``
            "assigned-secret",
            "#define",
            rf"[ \t]+{name}[ \t]+\\{{0,3}}\"",
            r"[^\"\\\r\n]{1,256}",
            after=r"\\{0,3}\"",
            anchor="d",
            word_start=False,
            validator=valid,
            source="C's #define",
        ),
        _keyword(  # fish's ``set -gx OPENAI_API_KEY …``
            "assigned-secret",
            "set -",
            rf"[A-Za-z]*x[A-Za-z]*[ \t]+{name}[ \t]+" + _OPENING,
            _COMMAND_VALUE,
            after=_CLOSING,
            anchor="-",
            validator=valid,
            source="fish's set",
        ),
    )


RULES += (
    *_secret_named(_named(STRONG_KEYS), _password),  # ``DB_PASSWORD``, ``client_secret``
    # ``API_TOKEN``, ``secret_key``; WordPress's keys and salts (``AUTH_KEY``, ``NONCE_SALT``)
    *_secret_named(_named(TOKEN_KEYS), _token_shaped, defined="|[A-Z_]*_(?:KEY|SALT)"),
)


_CONTINUATION = r"(?:(?:\\+\r?\n|\\{2,}n)[ \t]*)?"  # a shell line continuation, raw or escaped
_VALUE = (
    r"(?:(?P<q>\\{0,3}[\"'`])(?P<qv>[^\s\"'`\\]{1,16384})"
    r"|(?P<uv>[^\s\"'`\\<>(){}\[\],;|]{1,16384}))"
)
ASSIGNMENT = (  # after the operator; the key before it: ``_key_guard``, then ``_key_before``
    rf"[=>]?[ \t]{{0,4}}{_CONTINUATION}"
    # a scheme before the value: ``Bearer``, Elastic's ``ApiKey``, Okta's ``SSWS``, Splunk's
    rf"(?:(?P<scheme>Basic|Bearer|bearer|BEARER|Token|token|Bot|ApiKey|SSWS|Splunk)[ \t]+)?"
    rf"{_VALUE}"
)
# a flag, after its first dash: the flag stands after a space or a quote, or first (looked at
# once the character after the dash is one a flag has)
_FLAG_LONG = (  # ``--password``, ``--admin-password``; with one dash ``SINGLE_DASH_FLAGS``
    rf"(?:-(?<![^\s\"']--)(?:[A-Za-z0-9]+-)*(?P<long>(?i:{'|'.join(re.escape(k) for k in FLAG_KEYS)}))"
    rf"|(?<![^\s\"']-)(?P<single>{'|'.join(SINGLE_DASH_FLAGS)}))"
    rf"(?:=|[ \t]+{_CONTINUATION})"
)
_FLAG_SHORT = r"(?P<short>[pwaukPUN])(?<![^\s\"']-.)(?P<gap>[ \t]+)?(?=[^\s-])"
FLAG_FORMS = (_FLAG_LONG + _VALUE, _FLAG_SHORT + _VALUE)
FLAG = rf"-(?:{_FLAG_LONG}|{_FLAG_SHORT}){_VALUE}"
_LDAP = r"\bldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop)\b"
# the commands a short flag gives a password to, by the flag (a space after it: the value
# follows a space, else it is joined to the flag)
SHORT_FLAGS = {
    # ``mysql -pPASSWORD``, ``7z a -pPASSWORD``, ``sshpass -p'PASSWORD'``
    "p": r"mysql|mariadb|\b7z[az]?\b|\b(?:un)?rar\b|\bsshpass\b|\bwinrs\b",  # ``winrs -p:VALUE``
    "p ": r"\bsshpass\b|\buser(?:add|mod)\b|\bnuget\b|\btwine\b|\bcqlsh\b|\brabbitmqadmin\b|\binflux\b|\bpsexec(?:64)?\b|\bmongo(?:sh|dump|restore|import|export)?\b|\brdesktop\b"  # docker login
    r"|\b(?:docker|podman|nerdctl|oc|cf|az(?:[ \t]+acr)?|helm[ \t]+registry)[ \t]+login\b",
    "w": _LDAP,
    "w ": _LDAP + r"|\bsecurity[ \t]+add-(?:generic|internet)-password\b",  # macOS's keychain
    "a ": r"\bredis-cli\b|(?:^|[\s;&|(])https?[ \t]",  # HTTPie's ``http -a USER:VALUE``
    "u ": r"\bcurl\b",  # ``curl -u USER:PASSWORD``
    # ``zip -P PASSWORD``, SQL Server's tools, ssh-keygen's passphrase (``-P`` old, ``-N`` new),
    # a server's management controller (``ipmitool -U USER -P PASSWORD``)
    "P ": r"\b(?:un)?zip\b|\b(?:sqlcmd|osql)\b|\bbcp\b|\bssh-keygen\b|\bipmitool\b|\bmosquitto_(?:pub|sub|rr)\b",
    "N ": r"\bssh-keygen\b",
    "k ": r"\bopenssl\b",  # ``openssl enc -k PASSWORD``
    "U ": r"\b(?:smbclient|rpcclient|smbget)\b",  # ``smbclient -U USER%PASSWORD``
}
# flags whose value is a user, then this character, then the password
USER_PASSWORD_FLAGS = {"u ": ":", "user": ":", "U ": "%"}
# how code names things: snake_case, camelCase, PascalCase, attribute paths, `self.x`, `@x`
_WORD = r"(?:[a-z_][a-z0-9_]*|[a-z]+(?:[A-Z][a-z0-9]+)+|(?:[A-Z][a-z0-9]+)+|[A-Z][A-Z0-9_]*)"
_IDENTIFIER = rf"[@:&*]?{_WORD}(?:(?:\.|::|->){_WORD})*[?!]?"
_SECRET_WORD = r"(?i)pass|pwd|secret|token|key|auth|cred"
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


# how much of a value tells whether it looks like a token: a value may run to 16,384 characters
# from each place a key stands (``token=token=…``), so a test of its whole length at each
# place would make such a text's time grow with its length squared
_HEAD = 256


def is_assigned_secret(key: str, value: str, quoted: bool, after: str, spaced: bool) -> bool:
    """A value given to a secret-named key: is it a secret, or a placeholder or code?"""
    if is_placeholder(value) or value.startswith("-----BEGIN"):
        return False
    low = key.lower()
    strong = any(low.endswith(k) for k in STRONG_KEYS) and not low.endswith(("_key", "token"))
    if not quoted:
        if after in "([.{" and after:  # a call, subscript or attribute: code
            return False
        if (
            compiled(_IDENTIFIER).fullmatch(value)
            and not _scrambled(value, strong)
            and (
                (spaced and not _written_out(value, strong))
                or "_" in value
                or "." in value
                or compiled(_SECRET_WORD).search(value)
                or (not strong and len(value) < 16)
            )
        ):
            return False  # code: a variable, a type, an attribute path (``KEY=value``: a value)
        if value.isdigit() and len(value) < 6:
            return False
    if strong:
        return len(value) >= 3
    head = value[:_HEAD]
    return len(value) >= 8 and (mixed(head) or entropy(head) >= 3.5)


def _key_shaped(value: str) -> bool:
    """A key's value, not a name or an id: a run of base64 characters, digits inside its words
    or as varied as random characters are (``createdAtTimestamp2024`` is not)."""
    if not compiled(_KEY_SHAPED).fullmatch(value) or compiled(_UUID).fullmatch(value):
        return False
    digits = compiled(r"\d").search(value) is not None
    return _scrambled(value, strong=False) or (digits and entropy(value) >= 4.0)


def _scrambled(value: str, strong: bool) -> bool:
    """Digits inside a word, as names seldom have them (``Hunter2Super``, ``Xk9vQ2mLp7``): once
    in a password's value, twice in a token's. A name puts digits at a word's end (``value2``,
    ``oauth2``) or once inside (``base64Encode`` as a token's value)."""
    inside = compiled(r"(?<=[A-Za-z])[0-9]+(?=[A-Za-z])").findall(value)
    return len(inside) >= (1 if strong else 2)


def _written_out(value: str, strong: bool) -> bool:
    """A secret written out after ``password = `` (an ini or credentials file) or ``api_key: ``
    (YAML, a header), not a variable: a password with digits in it (``hunter2hunter2``) or
    longer than names are; a token of 16 characters or more mixing digits and letters."""
    varied = mixed(value)
    if not strong:
        return varied and len(value) >= 16
    return varied or (value.islower() and len(value) >= 16)


# an AWS secret key right before its key id (the text searched ends at the id)
AWS_SECRET_BEFORE = rf"(?<![A-Za-z0-9+/=])(?![0-9a-f]{{40}})({_B64}{{40}}){_AWS_BETWEEN}$"
