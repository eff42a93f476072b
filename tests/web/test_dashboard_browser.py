"""The dashboard in a real headless browser (Debian's chromium driven by Playwright) against the
real ``purlin-resume dashboard`` process: revive from a card and from the detail view through a
private tmux server and the stand-in agent, live updates, charts drawn from the log.

Screenshots of each page go to the test's temp folder (and to ``$PURLIN_SCREENSHOT_DIR`` when
set). Without chromium the tests skip, naming what installs it, except in CI (``CI=true``), where
they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from purlin_resume.agents import registry
from purlin_resume.core.project import Project
from tests.agents_setup import agent_record, configure, prompts, write_registry
from tests.conftest import missing_binary
from tests.dashboard_setup import sample_log
from tests.gsd_files import entry, write_history
from tests.resurrection_data import session

CHROMIUM = Path(os.environ.get("PURLIN_CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ENDED = "2026-01-15T15:00:00Z"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        missing_binary(f"chromium ({CHROMIUM})", "apt-get install chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(20_000)
    yield opened
    context.close()


def shoot(page, tmp_path: Path, name: str) -> Path:
    target = tmp_path / "screenshots" / f"{name}.png"
    target.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(target), full_page=True)
    if os.environ.get("PURLIN_SCREENSHOT_DIR"):
        shutil.copy(target, Path(os.environ["PURLIN_SCREENSHOT_DIR"]) / target.name)
    assert target.stat().st_size > 5_000
    return target


@pytest.fixture
def claude(tmp_path):
    folder = tmp_path / "claude"
    (folder / "projects").mkdir(parents=True)
    return folder


@pytest.fixture
def dashboard(repo, claude):
    """``purlin-resume dashboard --port 0`` as a process; yields the URL it printed."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "purlin_resume",
            "dashboard",
            "--port",
            "0",
            "--project",
            str(repo),
            "--claude-dir",
            str(claude),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = None
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and url is None:
            line = process.stdout.readline()
            if not line:
                break
            if line.startswith("open http://127.0.0.1:"):
                url = line.split(" ", 1)[1].strip()
        assert url, (
            f"the dashboard printed no URL: {process.stderr.read() if process.poll() else ''}"
        )
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_revive_a_dead_agent_from_its_card(repo, tmux_server, tmp_path, dashboard, page):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    write_registry(
        repo,
        {
            "dead-1": agent_record(repo, role="builder", ended_at=ENDED),
            "live-1": agent_record(repo, pid=os.getpid(), started_at="2026-01-15T16:00:00Z"),
        },
    )

    page.goto(dashboard)
    assert "token=" not in page.url  # kept in a cookie, not in the address bar
    button = page.locator('button[data-revive="dead-1"]')
    assert button.is_visible()
    assert page.locator('button[data-revive="live-1"]').count() == 0
    assert page.locator('[data-activity="live-1"]').inner_text() != ""
    button.click()

    page.locator(".revive-status.busy", has_text="Reviving…").wait_for()
    page.locator(".revive-status.done", has_text="Revived as").wait_for()
    successor = next(
        a for a in registry.load(Project(repo)).values() if a.previous_agent_id == "dead-1"
    )
    card = page.locator(f'article.card[data-agent-id="{successor.session_id}"]').first
    card.wait_for()
    link = card.locator("p.predecessor a")
    assert link.inner_text() == "dead-1"
    assert link.get_attribute("href") == "agents/dead-1"
    assert card.get_attribute("data-state") == "alive"
    assert prompts(record, 2)[1].startswith("Revival: you succeed agent dead-1 (builder)")
    shoot(page, tmp_path, "agents")


def test_revive_from_the_detail_view(repo, tmux_server, tmp_path, claude, dashboard, page):
    record = tmp_path / "agent"
    configure(repo, tmux_server, record)
    sid = "5e55a1b2-0000-4000-8000-0000000000d2"
    session(claude, sid, str(repo), [("user", "Add the export button"), ("agent", "Added it.")])
    write_registry(repo, {sid: agent_record(repo, ended_at=ENDED)})

    page.goto(dashboard.replace("/agents?", f"/agents/{sid}?"))
    assert page.locator("#conversation h2", has_text="Add the export button").count() == 1
    page.locator(f'button[data-revive="{sid}"]').click()

    page.locator(".revive-status.busy", has_text="Reviving…").wait_for()
    successor = page.locator("#revived article.card")
    successor.wait_for()
    assert successor.locator("p.predecessor a").get_attribute("href") == f"agents/{sid}"
    new_id = successor.get_attribute("data-agent-id")
    assert registry.load(Project(repo))[new_id].previous_agent_id == sid
    assert prompts(record, 1)[0].startswith(f"Revival: you succeed agent {sid}")
    shoot(page, tmp_path, "agent-detail")

    successor.locator("h3 a").click()
    page.wait_for_url(f"**/agents/{new_id}")
    assert page.locator("#lineage a", has_text=sid[:8]).count() >= 1


def test_a_failed_revival_shows_one_line_and_the_button_again(
    repo, tmux_server, tmp_path, dashboard, page
):
    configure(repo, tmux_server, tmp_path / "agent", agent_command="false", agent_session_flag="")
    write_registry(repo, {"dead-1": agent_record(repo, ended_at=ENDED)})

    page.goto(dashboard)
    page.locator('button[data-revive="dead-1"]').click()

    failed = page.locator(".revive-status.error")
    failed.wait_for()
    assert "the successor's command exited in tmux pane" in failed.inner_text()
    assert page.locator('button[data-revive="dead-1"]').is_enabled()
    # the list redraws itself (a new agent arrived): the error stays on its card
    path = repo / ".purlin" / "agents.json"
    data = json.loads(path.read_text())
    data["agents"]["arrived"] = agent_record(repo, pid=os.getpid(), started_at="2026-02-01T00:00Z")
    path.write_text(json.dumps(data))
    page.locator('article.card[data-agent-id="arrived"]').wait_for(timeout=15_000)
    kept = page.locator('article.card[data-agent-id="dead-1"] .revive-status.error')
    assert "the successor's command exited in tmux pane" in kept.inner_text()


def test_the_agent_list_updates_by_itself(repo, tmp_path, dashboard, page):
    path = write_registry(repo, {"first": agent_record(repo, ended_at=ENDED)})

    page.goto(dashboard)
    assert page.locator("article.card").count() == 1
    data = json.loads(path.read_text())
    data["agents"]["arrived"] = agent_record(repo, pid=os.getpid(), started_at="2026-02-01T00:00Z")
    path.write_text(json.dumps(data))

    page.locator('article.card[data-agent-id="arrived"]').wait_for(timeout=15_000)
    assert page.locator("article.card").count() == 2


def test_resurrection_charts_render_with_data(repo, claude, tmp_path, dashboard, page):
    sample_log(claude)

    page.goto(dashboard.replace("/agents?", "/resurrections?"))

    charts = page.locator("svg.chart")
    assert charts.count() == 7
    frequency = page.locator('svg[data-chart="frequency"] rect.bar.total[data-value]')
    assert frequency.count() == 3
    heights = [float(frequency.nth(i).get_attribute("height")) for i in range(3)]
    assert heights[0] > heights[1] > 0  # two on the first day, one on each other
    box = page.locator('svg[data-chart="top-agents"] rect.bar').first.bounding_box()
    assert box is not None  # drawn, not just markup
    assert box["width"] > 20
    assert box["height"] > 5
    assert "0 resurrection" not in page.locator("main").inner_text()
    shoot(page, tmp_path, "resurrections")

    page.select_option("select[name=outcome]", "failure")
    page.click("form.filters button")
    page.wait_for_url("**/resurrections?*outcome=failure*")
    assert page.locator("table.log tbody tr").count() == 1


def test_subagents_and_sessions_pages(repo, claude, tmp_path, dashboard, page):
    write_history(
        repo,
        [
            entry("agent-a1", "interrupted", parallel_group="grp-1"),
            entry("agent-a2", "completed", parallel_group="grp-1"),
        ],
    )
    sid = "5e55a1b2-0000-4000-8000-0000000000f3"
    session(claude, sid, str(repo), [("user", "Profile the tmux injection"), ("agent", "Done.")])

    page.goto(dashboard.replace("/agents?", "/subagents?"))
    assert page.locator("code.command").inner_text() == "/gsd:resume-task agent-a1"
    shoot(page, tmp_path, "subagents")

    page.click('nav a[href="sessions"]')
    page.fill("input[name=q]", "tmux injection")
    page.click("form.filters button")
    result = page.locator("ol.results a").first
    assert result.get_attribute("href") == f"transcripts/{sid}"
    shoot(page, tmp_path, "sessions")
    result.click()
    page.locator("#conversation h2", has_text="Profile the tmux injection").wait_for()
