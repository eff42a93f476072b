"""The pieces a restore is made of: role markers, the Critic report, the delivery plan, layers."""

from __future__ import annotations

import pytest

from purlin_resume.checkpoints import instructions, project_state, roles
from purlin_resume.core.project import Project


@pytest.mark.parametrize(
    ("prompt", "role"),
    [
        ("You are the Architect and process manager.", "architect"),
        ("...\nyou are the **Builder**. Your mandate...", "builder"),
        ("You are the QA agent.", "qa"),
        ("You are the Builder. Later: you are the QA.", None),  # ambiguous: ask instead
        ("You are a helpful assistant.", None),
        ("", None),
    ],
)
def test_role_markers_in_a_system_prompt(prompt, role):
    assert roles.detect_from_system_prompt(prompt) == role


def test_critic_items_come_from_the_roles_own_subsection():
    report = (
        "# Report\n### Builder\n- not this one: outside the action items\n"
        "## Action Items by Role\n\n### Architect\n- a1\n\n### Builder\n1. b1\n2. b2\n"
        "### QA\n- q1\n\n## Appendix\n### Builder\n- b-appendix\n"
    )
    assert project_state.critic_action_items(report, "builder") == ["b1", "b2"]
    assert project_state.critic_action_items(report, "qa") == ["q1"]
    assert project_state.critic_action_items("# nothing here\n", "qa") == []


def test_delivery_plan_phases():
    plan = project_state.delivery_plan(
        "## Phase 1 -- A [COMPLETE]\n- a.md\n## Phase 2 -- B\n- [x] b.md\n- c.md [HIGH]\n## Phase 3\n- d.md\n"
    )
    assert (plan.phase, plan.phases, plan.next_feature) == (2, 3, "c.md")
    assert plan.summary == "Phase 2 of 3 -- next: c.md"
    stated = project_state.delivery_plan("We are in Phase 2 of 5 now.")
    assert stated.summary == "Phase 2 of 5"
    assert project_state.delivery_plan("free text").summary == "present (no phase headings found)"


def test_features_by_state_prefers_the_status_json():
    status = (
        '{"features": [{"file": "a.md", "builder": "TODO"}, {"name": "b.md", "qa": "TESTING"}, 3]}'
    )
    assert project_state.features_by_state(status, "| c.md | TODO |") == {
        "TODO": ["a.md"],
        "TESTING": ["b.md"],
    }
    assert project_state.features_by_state("not json", "| c.md | TODO |") == {
        "TODO": ["c.md"],
        "TESTING": [],
    }


def test_unreadable_dependency_graph_is_reported_not_fatal(tmp_path):
    graph = tmp_path / "dependency_graph.json"
    graph.write_text("{broken")
    assert project_state.dependency_graph(graph).error.startswith("unreadable")
    graph.write_text('{"features": [1, 2, 3]}')
    assert project_state.dependency_graph(graph).features == 3
    assert project_state.dependency_graph(tmp_path / "absent.json") is None


def test_role_compact_is_a_digest_not_a_dump(tmp_path):
    layers = instructions.layers(Project(tmp_path), "builder")
    assert [layer.name for layer in layers] == [
        "instructions/HOW_WE_WORK_BASE.md",
        "instructions/BUILDER_BASE.md",
        ".purlin/HOW_WE_WORK_OVERRIDES.md",
        ".purlin/BUILDER_OVERRIDES.md",
    ]
    compact = instructions.role_compact("builder", layers)
    assert compact.chars < 0.6 * compact.source_chars
    assert any("failing tests" in rule for rule in compact.prohibitions)
    assert any("write tests" in rule for rule in compact.mandates)
    titles = [title for title, _ in compact.protocols]
    assert "Per-Feature Implementation Protocol" in titles


def test_a_long_instruction_file_is_condensed_hard(tmp_path):
    purlin = tmp_path / ".purlin"
    purlin.mkdir()
    rules = "\n".join(
        f"- You must follow rule number {n} carefully in every session." for n in range(200)
    )
    (purlin / "BUILDER_OVERRIDES.md").write_text(f"# Overrides\n\n## House Rules\n{rules}\n")
    compact = instructions.role_compact(
        "builder", instructions.layers(Project(tmp_path), "builder")
    )
    assert len(compact.mandates) == instructions.MAX_RULES
    assert compact.mandates[0] == "You must follow rule number 0 carefully in every session."
    assert compact.chars < 0.2 * compact.source_chars


def test_command_table_falls_back_to_the_whole_file_without_variants(tmp_path):
    refs = tmp_path / "instructions" / "references"
    refs.mkdir(parents=True)
    (refs / "qa_commands.md").write_text("/pl-verify  verify things\n")
    table = instructions.command_table(Project(tmp_path), "qa", "main", ("main",))
    assert table.text == "/pl-verify  verify things"
    assert table.source == refs / "qa_commands.md"
