"""The checkpoint's Markdown shape, and that parsing is the exact inverse of rendering."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from purlin_resume.checkpoints import format as cpf
from purlin_resume.checkpoints.format import Checkpoint
from purlin_resume.core.errors import UsageError

SEED_EXAMPLE = """# Session Checkpoint

**Role:** builder
**Timestamp:** 2026-02-28T15:30:00Z
**Branch:** main

## Current Work

**Feature:** features/cdd_status_monitor.md
**Step:** 3 -- Verify Locally (implementation committed, running tests)

### Done
- Read anchor nodes and prerequisites
- Implemented data layer with test harness
- Recorded [CLARIFICATION] for font-size in impl.md
- Committed implementation: abc1234

### Next
1. Run tests -- verify tests/cdd_status_monitor/tests.json shows PASS
2. Commit status tag: [Ready for Verification]
3. Run tools/cdd/status.sh to confirm TESTING transition
4. Move to next feature: cdd_spec_map.md

## Delivery Plan
Phase 2 of 3 -- IN_PROGRESS
Completed this phase: cdd_status_monitor.md
Remaining: cdd_spec_map.md, cdd_isolated_teams.md

## Work Queue
1. [HIGH] cdd_spec_map.md -- Phase 2
2. [NORMAL] cdd_isolated_teams.md -- Phase 2

## Uncommitted Changes
None

## Notes
Font-size decision needs Architect ack -- recorded as [CLARIFICATION] but may escalate.
"""


def test_the_specification_example_parses_into_its_fields():
    cp = cpf.parse(SEED_EXAMPLE)
    assert cp.role == "builder"
    assert cp.timestamp == "2026-02-28T15:30:00Z"
    assert cp.branch == "main"
    assert cp.feature == "features/cdd_status_monitor.md"
    assert cp.step == "3 -- Verify Locally (implementation committed, running tests)"
    assert cp.step_number == 3
    assert cp.done[2] == "Recorded [CLARIFICATION] for font-size in impl.md"
    assert len(cp.next) == 4
    assert cp.next[1] == "Commit status tag: [Ready for Verification]"
    assert cp.delivery_plan.splitlines()[0] == "Phase 2 of 3 -- IN_PROGRESS"
    assert cp.work_queue == (
        "[HIGH] cdd_spec_map.md -- Phase 2",
        "[NORMAL] cdd_isolated_teams.md -- Phase 2",
    )
    assert cp.uncommitted == ()
    assert cp.notes.startswith("Font-size decision")


def test_rendering_the_specification_example_keeps_its_shape():
    rendered = cpf.render(cpf.parse(SEED_EXAMPLE))
    # Every line of the specification's example is in the rendering, in the same order; the
    # rendering adds only the fields the example leaves out (In Progress, Pending Decisions).
    lines = iter(rendered.splitlines())
    for expected in SEED_EXAMPLE.splitlines():
        assert any(line == expected for line in lines), f"missing or out of order: {expected!r}"
    assert "**In Progress:** " in rendered
    assert "## Pending Decisions\nNone" in rendered


def test_hand_written_variants_are_read():
    text = (
        "# Session Checkpoint\n**Role:** QA\n**Timestamp:** t\n**Branch:** b\n\n## Current Work\n"
        "**Current Feature:** f.md\n**Scenario Progress:** 5 of 8 scenarios completed\n"
        "**Current Scenario:** Six\n### Done\n* one\n* two\n  wrapped\n### Next\n1) go\n"
        "## Something Unknown\n**Feature:** not this one\n## Discoveries\n- [BUG] crash\n"
    )
    cp = cpf.parse(text)
    assert (cp.role, cp.feature, cp.scenario_progress) == (
        "qa",
        "f.md",
        "5 of 8 scenarios completed",
    )
    assert cp.done == ("one", "two wrapped")
    assert cp.next == ("go",)
    assert cp.discoveries == ("[BUG] crash",)


@pytest.mark.parametrize("text", ["", "just prose", "**Role:** manager\n", "\x00\x01binary"])
def test_text_that_is_not_a_checkpoint_is_refused(text):
    with pytest.raises(UsageError, match="not a checkpoint"):
        cpf.parse(text)


def test_every_missing_required_field_is_named_at_once():
    with pytest.raises(UsageError) as caught:
        cpf.from_fields("builder", {"done": ["x"]}, timestamp="t", branch="b", uncommitted=[])
    message = caught.value.message
    for name in ("in_progress", "step", "next"):
        assert name in message


def test_a_field_of_another_role_is_refused():
    with pytest.raises(UsageError, match="scenario_progress"):
        cpf.from_fields(
            "builder",
            {"in_progress": "x", "next": ["y"], "step": 1, "scenario_progress": "1 of 2"},
            timestamp="t",
            branch="b",
            uncommitted=[],
        )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (0, "0 -- Preflight"),
        ("2", "2 -- Implement/Document"),
        ("3 -- Verify Locally (tests running)", "3 -- Verify Locally (tests running)"),
    ],
)
def test_protocol_step_names(given, expected):
    assert cpf.protocol_step(given) == expected


@pytest.mark.parametrize("bad", ["5", "-1", "verify", ""])
def test_protocol_step_outside_0_to_4_is_refused(bad):
    with pytest.raises(UsageError, match="0-4"):
        cpf.protocol_step(bad)


# ---------------------------------------------------------------------------------------------
# Round trip, with text chosen to break Markdown

HOSTILE = [
    "## Notes",
    "# Session Checkpoint",
    "### Next",
    "**Role:** qa",
    "**Feature:** x",
    "- item",
    "1. first",
    "\\# escaped",
    "\\\\## twice",
    "None",
    "none",
    "```",
    "---",
    "> quote",
    "  indented",
    "line\nbreak",
    "crlf\r\nline",
    "cr\ronly",
    "tab\there",
    "trailing   ",
    "\n\nblank edges\n\n",
    "[HIGH] x -- y",
    "* star",
    "# ",
    "#",
    "**",
    "\u2028sep",
    "\x85nel",
    "\x0cfeed",
    "",
]
text = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
    st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=4).map("\n".join),
)
items = st.lists(text, max_size=4)


@st.composite
def checkpoints(draw):
    role = draw(st.sampled_from(["architect", "builder", "qa"]))
    values = {
        "role": role,
        "timestamp": "2026-02-28T15:30:00Z",
        "branch": draw(st.sampled_from(["main", "feature/x", "isolated/qa-1"])),
        "session": draw(st.one_of(st.none(), st.sampled_from(["s1", "abc-123"]))),
        "feature": draw(text),
        "in_progress": draw(text),
        "done": tuple(draw(items)),
        "next": tuple(draw(items)),
        "uncommitted": tuple(draw(items)),
        "notes": draw(text),
    }
    if role == "builder":
        values |= {
            "step": draw(text),
            "delivery_plan": draw(text),
            "work_queue": tuple(draw(items)),
            "pending_decisions": tuple(draw(items)),
        }
    elif role == "qa":
        values |= {
            "scenario_progress": draw(text),
            "current_scenario": draw(text),
            "discoveries": tuple(draw(items)),
            "verification_queue": draw(text),
        }
    else:
        values |= {"spec_reviews": tuple(draw(items)), "discovery_processing": draw(text)}
    return Checkpoint(**values)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(checkpoints())
def test_parse_is_the_inverse_of_render(cp):
    rendered = cpf.render(cp)
    parsed = cpf.parse(rendered)
    assert parsed == cp.normalized()
    assert cpf.render(parsed) == rendered, "save -> parse -> save is stable"


@settings(max_examples=200, deadline=None)
@given(checkpoints())
def test_normalising_twice_changes_nothing(cp):
    assert cp.normalized().normalized() == cp.normalized()
