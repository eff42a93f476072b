"""Fresh project state gathered on restore: the status command, the Critic report's action items,
the dependency graph, git, the delivery plan and the features waiting for each role."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from purlin_resume.checkpoints.roles import display_name
from purlin_resume.core import config, gitrepo
from purlin_resume.core.config import Settings
from purlin_resume.core.errors import PurlinError
from purlin_resume.core.project import Project

MAX_STATUS_OUTPUT = 4000
DELIVERY_PLAN = "delivery_plan.md"
DEPENDENCY_GRAPH = "dependency_graph.json"


@dataclass(frozen=True)
class StatusRun:
    """What happened to the status command: ran, failed, missing or timeout."""

    command: str
    outcome: str
    message: str
    output: str = ""


UNTRUSTED = (
    "Status command {command} not run: it is code from the repository and this project is not "
    "trusted yet; the user allows it by running 'purlin-resume trust' in the project, in their "
    "own terminal."
)


def run_status_command(project: Project, settings: Settings, allowed: bool = False) -> StatusRun:
    """Run the configured status command in the project (it regenerates the Critic report);
    only when ``allowed`` (the user trusted the project, see ``trust``), else say how."""
    command = settings.status_command.strip()
    if not command:
        return StatusRun(
            command,
            "missing",
            "No status command configured -- skipping Critic report regeneration.",
        )
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return StatusRun(command, "failed", f"Status command '{command}' cannot be parsed ({exc}).")
    local = project.root / argv[0]
    if local.is_file():
        argv[0] = str(local)
        if not local.stat().st_mode & 0o111:
            argv.insert(0, "sh")
    elif "/" in argv[0] or shutil.which(argv[0]) is None:
        return StatusRun(
            command,
            "missing",
            f"Status command {argv[0]} not found -- continuing without regenerating the Critic report.",
        )
    if not allowed:
        return StatusRun(command, "untrusted", UNTRUSTED.format(command=shlex.quote(command)))
    return _run_status(project, settings, command, argv)


def _run_status(project: Project, settings: Settings, command: str, argv: list[str]) -> StatusRun:
    """Run the status ``command`` (as ``argv``) in the project, within its timeout."""
    try:
        done = subprocess.run(
            argv,
            cwd=project.root,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=settings.status_timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return StatusRun(
            command,
            "timeout",
            f"Status command {command} timed out after {settings.status_timeout:g} s.",
        )
    except OSError as exc:
        return StatusRun(
            command, "failed", f"Status command {command} could not start ({exc.strerror})."
        )
    output = done.stdout[:MAX_STATUS_OUTPUT]
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return StatusRun(
            command,
            "failed",
            f"Status command {command} exited {done.returncode}{': ' + last if last else ''}.",
            output,
        )
    return StatusRun(command, "ran", f"Ran {command}: Critic report regenerated.", output)


_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)")


def critic_action_items(report: str, role: str) -> list[str]:
    """The items of the role's subsection under "Action Items by Role" (or of its own section)."""
    name = display_name(role).lower()
    lines = report.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if re.match(r"^#+\s*action items by role", line, re.I)),
        None,
    )
    scope = lines[start + 1 :] if start is not None else lines
    items: list[str] = []
    inside = False
    for line in scope:
        heading = re.match(r"^(#+)\s*(.*)$", line)
        if heading:
            if start is not None and len(heading.group(1)) <= 2:
                break  # the next top-level section ends "Action Items by Role"
            inside = re.sub(r"[^a-z ]", "", heading.group(2).lower()).strip() in (
                name,
                f"{name} agent",
                f"for {name}",
            )
            continue
        match = _ITEM.match(line) if inside else None
        if match:
            items.append(match.group(1))
    return items


_FEATURE_STATE = re.compile(r"((?:features/)?[\w.-]+\.md)\b.*?\b(TODO|TESTING)\b")


def features_by_state(status_output: str, report: str) -> dict[str, list[str]]:
    """Features in TODO and TESTING: from the status command's JSON, else from the Critic report."""
    found: dict[str, list[str]] = {"TODO": [], "TESTING": []}
    try:
        data: Any = json.loads(status_output)
    except (json.JSONDecodeError, TypeError):
        data = None
    features = data.get("features") if isinstance(data, dict) else None
    if isinstance(features, list):
        for feature in features:
            if not isinstance(feature, dict):
                continue
            name = feature.get("file") or feature.get("name") or feature.get("feature")
            states = {
                str(v).upper()
                for k, v in feature.items()
                if k in ("status", "state", "architect", "builder", "qa")
            }
            for state in found:
                if name and state in states:
                    found[state].append(str(name))
        return found
    for line in report.splitlines():
        match = _FEATURE_STATE.search(line)
        if match and match.group(1) not in found[match.group(2)]:
            found[match.group(2)].append(match.group(1))
    return found


@dataclass(frozen=True)
class DeliveryPlan:
    text: str
    phase: int | None = None
    phases: int | None = None
    next_feature: str | None = None

    @property
    def summary(self) -> str:
        if self.phase is None:
            return "present (no phase headings found)"
        where = f"Phase {self.phase} of {self.phases}" if self.phases else f"Phase {self.phase}"
        return where + (f" -- next: {self.next_feature}" if self.next_feature else "")


_PHASE = re.compile(r"^#+\s*Phase\s+(\d+)\b(.*)$", re.I)
_PHASE_OF = re.compile(r"\bPhase\s+(\d+)\s+of\s+(\d+)\b", re.I)
_DONE_MARK = re.compile(r"\[(x|complete|done)\]|\bCOMPLETE\b|✓|✅", re.I)


def delivery_plan(text: str) -> DeliveryPlan:
    """The current phase (first not COMPLETE), the number of phases and the next feature."""
    phases: list[tuple[int, bool, list[str]]] = []
    for line in text.splitlines():
        heading = _PHASE.match(line)
        if heading:
            phases.append((int(heading.group(1)), bool(_DONE_MARK.search(heading.group(2))), []))
        elif phases and (item := _ITEM.match(line)):
            phases[-1][2].append(item.group(1))
    current = next((p for p in phases if not p[1]), None)
    if current:
        pending = next((i for i in current[2] if not _DONE_MARK.search(i)), None)
        feature = re.sub(r"\s*\[[^\]]*\]\s*", " ", pending).strip() if pending else None
        return DeliveryPlan(text, current[0], len(phases), feature)
    stated = _PHASE_OF.search(text)
    if stated:
        return DeliveryPlan(text, int(stated.group(1)), int(stated.group(2)))
    return DeliveryPlan(text)


@dataclass(frozen=True)
class GraphSummary:
    path: Path
    features: int | None
    error: str | None = None


def dependency_graph(path: Path) -> GraphSummary | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return GraphSummary(path, None, f"unreadable ({exc.__class__.__name__})")
    nodes = data.get("features", data.get("nodes")) if isinstance(data, dict) else data
    return GraphSummary(path, len(nodes) if isinstance(nodes, (list, dict)) else None)


@dataclass
class ProjectState:
    role: str
    branch: str
    status: StatusRun
    config_source: Path | None
    role_settings: dict[str, Any]
    critic_report: Path | None
    critic_refused: str | None  # why the report was not read (it leads outside the project)
    action_items: list[str]
    graph: GraphSummary | None
    git_status: list[str]
    recent_commits: list[str]
    plan: DeliveryPlan | None
    todo_features: list[str] = field(default_factory=list)
    testing_features: list[str] = field(default_factory=list)


def gather(
    project: Project, settings: Settings, role: str, run_status: bool = False
) -> ProjectState:
    """Step 5 of a restore: everything the agent needs to know about the project right now.
    The status command runs only when ``run_status`` (the project is trusted)."""
    status = run_status_command(project, settings, run_status)
    report, report_path, refused = "", None, None
    try:  # a committed setting or link leading outside the project: the briefing goes on
        report_path = config.project_path(project, settings, "critic_report")
    except PurlinError as exc:
        refused = exc.message
    if report_path is not None and report_path.is_file():
        report = report_path.read_text(encoding="utf-8", errors="replace")
    plan_path = project.cache_dir / DELIVERY_PLAN
    plan = (
        delivery_plan(plan_path.read_text(encoding="utf-8", errors="replace"))
        if plan_path.is_file()
        else None
    )
    states = features_by_state(status.output, report)
    return ProjectState(
        role=role,
        branch=gitrepo.branch(project.root),
        status=status,
        config_source=settings.source,
        role_settings=settings.role_settings(role),
        critic_report=report_path if report else None,
        critic_refused=refused,
        action_items=critic_action_items(report, role) if report else [],
        graph=dependency_graph(project.cache_dir / DEPENDENCY_GRAPH),
        git_status=gitrepo.status_lines(project.root),
        recent_commits=gitrepo.recent_commits(project.root, 10),
        plan=plan if role in ("builder", "qa") else None,
        todo_features=states["TODO"] if role in ("builder", "architect") else [],
        testing_features=states["TESTING"] if role in ("qa", "architect") else [],
    )
