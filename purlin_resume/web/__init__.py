"""The dashboard: a local web app over the project's agents, subagents, resurrections and
sessions (``purlin-resume dashboard``). A shell like the CLI: routes parse the request, call the
domain modules, redact, and present; no logic of the product lives here.

Needs the ``web`` extra (Starlette, uvicorn); nothing else in the package imports it.
"""
