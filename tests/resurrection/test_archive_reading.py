"""A bookmark's archive is read only when its session's transcript is gone: while the
transcript is there, a resurrection by bookmark unpacks nothing into the cache."""

from __future__ import annotations

from pathlib import Path

from purlin_resume.core import cache_home
from tests.resurrection.test_resurrect_cli import _log, _ok

SESSION = "fe5e1c67-53e7-4862-81ae-d0e013e3270b"


def test_a_live_transcript_is_read_and_the_archive_left_packed(cli, fixtures_copy, repo):
    claude = ("--claude-dir", str(fixtures_copy))
    _ok(cli("bookmark", "add", "todo", "--session", SESSION, *claude))

    _ok(cli("resurrect", "todo", "--yes", *claude))

    assert not (Path(cache_home.folder()) / "archive").exists()
    assert _log(fixtures_copy)[0]["resurrected_from_session_id"] == SESSION
