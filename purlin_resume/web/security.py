"""Who may talk to the dashboard: a per-run token, the Host header, the Origin of changes.

- Every request but ``/static/`` needs the run's token: ``?token=`` in the URL printed at start
  (the page then keeps it in a cookie and drops it from the address bar), the cookie, or the
  ``X-Purlin-Token`` header. Browsers send a host's cookies to each of its ports, so the pages
  live under a random path of this run (``Guard.base``) and the cookie is bound to that path:
  a server on another port of the same host is never sent it, and it counts only under it.
- A state-changing request (anything but GET/HEAD) needs the token in the header (a cookie alone
  would let another site's form ride on it) and an ``Origin`` that is this dashboard's own.
- The ``Host`` header must name the bound address (or ``localhost`` for a loopback bind): a
  DNS-rebinding page reaches the port under its own name and is refused. A wildcard bind
  (``0.0.0.0``, ``::``) accepts an IP literal only, never a name.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

TOKEN_HEADER = "x-purlin-token"
SAFE_METHODS = frozenset({"GET", "HEAD"})
LOOPBACK_NAMES = ("localhost",)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    return host.strip("[]") in ("0.0.0.0", "::")


@dataclass
class Guard:
    """The checks of one dashboard run."""

    host: str
    port: int
    token: str = field(default_factory=new_token)
    base: str = field(default_factory=lambda: "/" + secrets.token_urlsafe(12))

    def host_allowed(self, header: str | None) -> bool:
        if not header:
            return False
        split = urlsplit(f"//{header}")
        try:
            name, port = (split.hostname or ""), split.port
        except ValueError:
            return False
        if port is not None and port != self.port:
            return False
        if port is None and self.port != 80:
            return False
        bound = self.host.strip("[]").lower()
        if is_wildcard(bound):
            return _is_ip(name)
        if name == bound:
            return True
        return is_loopback(bound) and (name in LOOPBACK_NAMES or is_loopback(name))

    def origin_allowed(self, origin: str | None, host_header: str | None) -> bool:
        """The request comes from a page of this dashboard (``http://`` + the Host it used)."""
        if not origin or not host_header:
            return False
        return origin == f"http://{host_header}"

    def token_matches(self, given: str | None) -> bool:
        if not given:
            return False
        return hmac.compare_digest(given.encode(), self.token.encode())

    def url(self, path: str = "/") -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        shown = "127.0.0.1" if is_wildcard(self.host) else host
        return f"http://{shown}:{self.port}{path}?token={self.token}"
