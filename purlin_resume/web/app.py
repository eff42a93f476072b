"""The dashboard's routes: each page at ``/<page>`` and as JSON at ``/api/<page>``.

Expected failures answer with one line: an unknown id 404, a bad or ambiguous id or a bad filter
400, reviving an agent that is not dead 409 (the reason ``purlin-resume revive`` gives), a
successor that does not start 502, a corrupt state file, or one the user may not read, 500 for
the API call that needs it (a page shows it in the panel it breaks and the rest still works).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from purlin_resume.core import redact, store
from purlin_resume.core.errors import (
    Ambiguous,
    Conflict,
    NotFound,
    NotStarted,
    PurlinError,
    UsageError,
    system_refusal,
)
from purlin_resume.core.resources import data_dir
from purlin_resume.core.terminal_text import displayed
from purlin_resume.resurrection import log as resurrection_log
from purlin_resume.web import charts, views
from purlin_resume.web.security import SAFE_METHODS, TOKEN_HEADER, Guard

STATIC = Path(__file__).resolve().parent / "static"
PAGES = (
    ("agents", "Agents"),
    ("subagents", "Subagents"),
    ("resurrections", "Resurrections"),
    ("sessions", "Sessions"),
)
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Page(HTMLResponse):
    """An HTML answer. A lone surrogate (half a character: a transcript cut mid-emoji carries
    one) cannot be sent as UTF-8; it becomes U+FFFD, as in every output of the tool."""

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else store.encoded(content)


class Answer(JSONResponse):
    """A JSON answer, with lone surrogates as ``Page`` has them."""

    def render(self, content: Any) -> bytes:
        return store.encoded(
            json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        )


def status_of(exc: PurlinError) -> int:
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, (UsageError, Ambiguous)):
        return 400
    if isinstance(exc, Conflict):
        return 409
    if isinstance(exc, NotStarted):  # the agent the dashboard started did not come up
        return 502
    return 500


@lru_cache(maxsize=1)
def _templates():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates") / "web")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = to_html
    return env


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    # Raw HTML in a transcript is shown as text; links with javascript: and the like are dropped.
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def to_html(markdown: str) -> Markup:
    return Markup(_markdown().render(markdown))


class Dashboard:
    """One run: what it shows (``scope``) and who may see it (``guard``)."""

    def __init__(self, scope: views.Scope, guard: Guard):
        self.scope = scope
        self.guard = guard

    # -- responses ------------------------------------------------------------------------

    def page(self, request: Request, name: str, code: int = 200, **context: Any) -> Response:
        html = (
            _templates()
            .get_template(f"{name}.html.j2")
            .render(
                pages=PAGES,
                current=context.pop("current", name),
                token=self.guard.token,
                base=self.guard.base,
                project=redact.redact(str(self.scope.project.root)).text,
                **context,
            )
        )
        return Page(displayed(html), status_code=code)  # a transcript's escapes and controls gone

    def error(self, request: Request, exc: PurlinError) -> Response:
        message = redact.redact(exc.message).text
        status = status_of(exc)
        if request.url.path.startswith("/api/"):
            return Answer({"error": message}, status_code=status)
        return self.page(request, "error", status, message=message, status=status, current="")

    def guarded(self, handler):
        """``handler(request)`` with expected failures turned into their one-line answers."""

        def run(request: Request) -> Response:
            try:
                return handler(request)
            except PurlinError as exc:
                return self.error(request, exc)
            except OSError as exc:  # a file of another user, a full disk: said, as the CLI does
                return self.error(request, PurlinError(system_refusal(exc)))

        run.__name__ = handler.__name__
        return run

    # -- agents ---------------------------------------------------------------------------

    def _cards(self, request: Request) -> dict[str, Any]:
        everything = request.query_params.get("all") == "1"
        limit = None if everything else views.AGENTS_SHOWN
        return views.panel(lambda: views.agents(self.scope, limit))

    def agents_page(self, request: Request) -> Response:
        everything = request.query_params.get("all") == "1"
        return self.page(
            request,
            "agents",
            agents=self._cards(request),
            everything=everything,
            passed=views.passed_over(self.scope),
        )

    def agent_cards(self, request: Request) -> Response:
        html = _templates().get_template("cards.html.j2").render(agents=self._cards(request))
        return Page(html)

    def agents_api(self, request: Request) -> Response:
        root = views.clean(str(self.scope.project.root))
        passed = views.passed_over(self.scope)
        return Answer({"project": root, **views.agents(self.scope), "passed_over": passed})

    def agent_page(self, request: Request) -> Response:
        detail = views.agent_detail(self.scope, request.path_params["agent_id"])
        return self.page(request, "agent", current="agents", **detail)

    def agent_api(self, request: Request) -> Response:
        detail = views.agent_detail(self.scope, request.path_params["agent_id"])
        return Answer(detail)

    def activity_api(self, request: Request) -> Response:
        return Answer(views.activity(self.scope, request.path_params["agent_id"]))

    def revive_api(self, request: Request) -> Response:
        # A second click (another tab) finds the first one's successor registered and gets the
        # CLI's answer (409): revival.perform checks and registers under one lock.
        done = views.revive(self.scope, request.path_params["agent_id"])
        card = _templates().get_template("card.html.j2").render(agent=done["card"])
        return Answer({**done, "card_html": card}, status_code=201)

    # -- subagents, resurrections, sessions ---------------------------------------------------

    def subagents_page(self, request: Request) -> Response:
        history = views.panel(lambda: views.subagents(self.scope))
        return self.page(
            request, "subagents", history=history, passed=views.passed_over(self.scope)
        )

    def subagents_api(self, request: Request) -> Response:
        passed = views.passed_over(self.scope)
        return Answer({**views.subagents(self.scope), "passed_over": passed})

    def resurrections_page(self, request: Request) -> Response:
        chosen = views.ResurrectionFilter.of(request.query_params)
        found = views.panel(lambda: views.resurrections(self.scope, chosen))
        drawn = (
            charts.resurrection_charts(found["data"]["stats"], found["data"]["frequency"])
            if "data" in found
            else {}
        )
        return self.page(
            request,
            "resurrections",
            log=found,
            charts=drawn,
            filters=chosen,
            modes=views_modes(),
        )

    def resurrections_api(self, request: Request) -> Response:
        chosen = views.ResurrectionFilter.of(request.query_params)
        return Answer(views.resurrections(self.scope, chosen))

    def sessions_page(self, request: Request) -> Response:
        query = request.query_params.get("q", "")
        refused: dict[str, list[Path]] = {}
        if query.strip():
            found = views.panel(lambda: views.search(self.scope, query, refused))
            passed = views.passed_over(self.scope, refused)
            return self.page(
                request, "sessions", query=query, results=found, sessions=None, passed=passed
            )
        listed = views.panel(lambda: views.sessions(self.scope, refused))
        passed = views.passed_over(self.scope, refused)
        return self.page(
            request, "sessions", query="", results=None, sessions=listed, passed=passed
        )

    def sessions_api(self, request: Request) -> Response:
        query = request.query_params.get("q", "")
        refused: dict[str, list[Path]] = {}
        if query.strip():
            found = views.search(self.scope, query, refused)
            passed = views.passed_over(self.scope, refused)
            return Answer({"query": query, "results": found, "passed_over": passed})
        listed = views.sessions(self.scope, refused)
        return Answer({"sessions": listed, "passed_over": views.passed_over(self.scope, refused)})

    def transcript_page(self, request: Request) -> Response:
        shown = views.conversation(self.scope, request.path_params["identifier"])
        return self.page(request, "transcript", current="sessions", conversation=shown)

    def transcript_api(self, request: Request) -> Response:
        return Answer(views.conversation(self.scope, request.path_params["identifier"]))

    def home(self, request: Request) -> Response:
        return RedirectResponse(f"{self.guard.base}/agents", status_code=303)


def views_modes() -> dict[str, tuple[str, ...]]:
    return {"mode": resurrection_log.MODES, "outcome": resurrection_log.OUTCOMES}


class Gate(BaseHTTPMiddleware):
    """The checks of ``security``: Host, token, Origin; and the headers every answer carries."""

    def __init__(self, app, guard: Guard):
        super().__init__(app)
        self.guard = guard

    @property
    def cookie(self) -> str:
        return f"purlin_dashboard_{self.guard.port}"

    def _refuse(self, request: Request, status: int, message: str) -> Response:
        if request.scope["path"].startswith("/api/") or request.method not in SAFE_METHODS:
            answer: Response = Answer({"error": message}, status_code=status)
        else:
            answer = Page(
                f"<!doctype html><title>purlin-resume dashboard</title><p>{message}</p>",
                status_code=status,
            )
        answer.headers.update(HEADERS)
        return answer

    def _token_to_cookie(self, request: Request) -> Response:
        """A page opened with the right token in its URL: sent to the same URL without it,
        the token kept in a cookie of the dashboard's path."""
        guard = self.guard
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
        target = guard.base + request.scope["path"] + (f"?{urlencode(rest)}" if rest else "")
        answer = RedirectResponse(target, status_code=303)
        answer.set_cookie(
            self.cookie, guard.token, httponly=True, samesite="strict", path=guard.base + "/"
        )
        answer.headers.update(HEADERS)
        return answer

    async def dispatch(self, request: Request, call_next) -> Response:
        guard = self.guard
        host = request.headers.get("host")
        if not guard.host_allowed(host):
            return self._refuse(
                request, 403, "this Host is not the dashboard's address (DNS rebinding?)"
            )
        under_base = request.url.path.startswith(guard.base + "/")
        if under_base:  # the pages' own path: what follows it is the route
            request.scope["path"] = request.scope["path"][len(guard.base) :]
        if request.scope["path"].startswith("/static/"):
            return await call_next(request)
        in_url = request.query_params.get("token")
        header = request.headers.get(TOKEN_HEADER)
        if request.method in SAFE_METHODS:
            if (
                in_url is not None
                and guard.token_matches(in_url)
                and not (request.scope["path"].startswith("/api/"))
            ):
                return self._token_to_cookie(request)
            cookie = request.cookies.get(self.cookie) if under_base else None
            allowed = any(guard.token_matches(given) for given in (in_url, header, cookie))
        else:
            allowed = guard.token_matches(header)
            if allowed and not guard.origin_allowed(request.headers.get("origin"), host):
                return self._refuse(
                    request, 403, "this request's Origin is not the dashboard; nothing was done"
                )
        if not allowed:
            return self._refuse(
                request,
                401,
                "the dashboard token is missing or wrong: open the URL that "
                "'purlin-resume dashboard' printed (it carries ?token=...)",
            )
        answer = await call_next(request)
        answer.headers.update(HEADERS)
        return answer


def create_app(scope: views.Scope, guard: Guard) -> Starlette:
    board = Dashboard(scope, guard)
    g = board.guarded
    routes = [
        Route("/", board.home),
        Route("/agents", g(board.agents_page)),
        Route("/agents/cards", g(board.agent_cards)),
        Route("/agents/{agent_id}", g(board.agent_page)),
        Route("/subagents", g(board.subagents_page)),
        Route("/resurrections", g(board.resurrections_page)),
        Route("/sessions", g(board.sessions_page)),
        Route("/transcripts/{identifier}", g(board.transcript_page)),
        Route("/api/agents", g(board.agents_api)),
        Route("/api/agents/{agent_id}", g(board.agent_api)),
        Route("/api/agents/{agent_id}/activity", g(board.activity_api)),
        Route("/api/agents/{agent_id}/revive", g(board.revive_api), methods=["POST"]),
        Route("/api/subagents", g(board.subagents_api)),
        Route("/api/resurrections", g(board.resurrections_api)),
        Route("/api/sessions", g(board.sessions_api)),
        Route("/api/transcripts/{identifier}", g(board.transcript_api)),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(Gate, guard=guard)])
