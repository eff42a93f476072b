"""Secrets longer than a keyword value used to be matched up to, and text shortened for one line
(titles, tool summaries, headings, index one-liners): never cut inside a secret, so what is
shown, redacted, holds no piece of one."""

from __future__ import annotations

import random
import string

import pytest

from purlin_resume.core import redact

RNG = random.Random(37)
ALNUM = string.ascii_letters + string.digits


def _chars(n: int, alphabet: str = ALNUM) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


LONG = [
    ('{{"access_token": "{}"}}', 400),
    ('refresh_token="{}"', 300),
    ('"client_secret": "{}"', 257),
    ('"SessionToken": "{}"', 617),
    ("ACCESS_TOKEN={}", 500),
    ("Authorization: Bearer {}", 600),
]


@pytest.mark.parametrize(("shape", "length"), LONG)
def test_a_long_value_is_redacted_whole(shape, length):
    secret = _chars(length)
    done = redact.redact(shape.format(secret)).text
    assert secret[:16] not in done
    assert secret[-16:] not in done


def test_a_long_bearer_jwt_is_redacted_whole():
    jwt = f"eyJ{_chars(30)}.eyJ{_chars(400)}.{_chars(43)}"
    done = redact.redact(f"curl -H 'Authorization: Bearer {jwt}'").text
    assert jwt[-40:] not in done
    assert jwt[:40] not in done


@pytest.mark.parametrize("limit", [20, 40, 64, 80, 100, 120])
def test_one_line_never_cuts_a_secret_in_two(limit):
    key = "\n".join(_chars(64, ALNUM + "+/") for _ in range(4))
    private = f"-----BEGIN RSA PRIVATE KEY-----\n{key}\n-----END RSA PRIVATE KEY-----"
    big = "\n".join(_chars(64, ALNUM + "+/") for _ in range(130))  # 8 KB: past what others reach
    big_private = f"-----BEGIN RSA PRIVATE KEY-----\n{big}\n-----END RSA PRIVATE KEY-----"
    jwt = f"eyJ{_chars(30)}.eyJ{_chars(3000)}.{_chars(43)}"
    sendgrid = f"SG.{_chars(22)}.{_chars(43)}"
    webhook = f"https://discord.com/api/webhooks/{_chars(18, string.digits)}/{_chars(68)}"
    for secret, text in (
        (key.split("\n")[0], f"Write key.pem: {private}"),
        (big.split("\n")[0], f"Write key.pem: {big_private}"),
        (jwt[:40], f"token {jwt}"),
        (sendgrid[3:25], f"export SENDGRID={sendgrid} for mail"),
        (webhook.rsplit("/", 1)[1][:20], f"post to {webhook}"),
    ):
        line = redact.one_line(text, limit)
        assert len(line) <= limit
        assert "\n" not in line
        assert secret[:12] not in redact.redact(line).text
        assert "[REDACTED:" not in line or line.count("[") == line.count("]")


def test_one_line_shows_no_secret_whose_other_mention_is_cut_off():
    password = "Pw4" + _chars(13)
    text = f"typed {password} at the prompt; it was set with export DB_PASSWORD={password}"
    line = redact.one_line(text, 40)
    assert password not in redact.redact(line).text
    assert line.startswith("typed")
