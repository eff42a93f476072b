"""`resurrect done` on an entry whose outcome was already recorded replaces it, and says so."""

from __future__ import annotations

import json

from tests.resurrection.test_resurrect_cli import _log, _ok


def test_a_replaced_outcome_is_named_on_one_line(cli, fixtures_copy, repo):
    claude = ("--claude-dir", str(fixtures_copy))
    made = _ok(cli("resurrect", "--session", "short", "--yes", "--json", *claude))
    rid = json.loads(made.stdout)["resurrection"]["resurrection_id"]
    done = _ok(cli("resurrect", "done", rid, "--outcome", "success", *claude))
    assert "note:" not in done.stderr  # the outcome it already had

    replaced = _ok(cli("resurrect", "done", rid, "--outcome", "failure", *claude))

    assert replaced.stderr.splitlines() == [f"note: {rid} was recorded as success; now failure"]
    assert replaced.stdout == f"{rid}: failure\n"
    assert [e["outcome"] for e in _log(fixtures_copy)] == ["failure"]
    again = _ok(cli("resurrect", "done", rid, "--outcome", "partial", "--json", *claude))
    assert json.loads(again.stdout)["outcome"] == "partial"
    assert again.stderr.splitlines() == [f"note: {rid} was recorded as failure; now partial"]
