"""Running the dashboard: bind the socket, print the URL with the run's token, serve with uvicorn."""

from __future__ import annotations

import socket
from collections.abc import Callable

from purlin_resume.core.errors import PurlinError
from purlin_resume.web import security, views


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free one), or one line saying why not."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror as exc:
        raise PurlinError(
            f"--host {host}: not an address of this machine ({exc.strerror})"
        ) from None
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        raise PurlinError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port"
        ) from None
    listener.listen(128)
    return listener


def serve(
    scope: views.Scope,
    host: str,
    port: int,
    say: Callable[[str], None],
    open_browser: bool = False,
) -> None:
    import uvicorn

    from purlin_resume.web.app import create_app

    listener = bind(host, port)
    guard = security.Guard(host, listener.getsockname()[1])
    if not security.is_loopback(host):
        say(
            f"warning: the dashboard listens on {host}, reachable from other machines; "
            "anyone with the URL's token can read redacted conversations and revive agents"
        )
    url = guard.url("/agents")
    say(f"purlin-resume dashboard for {scope.project.root}")
    say(f"open {url}")
    say("(Ctrl-C stops it)")
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(
        create_app(scope, guard), log_level="warning", access_log=False, lifespan="off"
    )
    uvicorn.Server(config).run(sockets=[listener])
