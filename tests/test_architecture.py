"""The package's shape: every module in a wing, imports pointing down only (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "purlin_resume"

# Lowest first. A wing may import wings of a lower rank only; wings of the same rank stay apart.
RANK = {
    "core": 0,
    "claude": 1,
    "agentcli": 1.5,  # what the readers of the other agent CLIs share
    "codex": 1.7,
    "gemini": 1.7,
    "opencode": 1.7,
    "crosscli": 1.9,  # every CLI's sessions at once
    "checkpoints": 2,
    "agents": 3,
    "history": 4,
    "resurrection": 4,
    "integration": 5,
}
SHELLS = {"cli", "web", "mcp", "team"}
TOP_LEVEL = {"__init__.py", "__main__.py"}


def imported_parts(path: Path) -> set[str]:
    """The first name under ``purlin_resume`` of every import in ``path`` (lazy ones too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] == "purlin_resume":
                names.update(parts[1:2] or [alias.name for alias in node.names])
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            raise AssertionError(f"{path}: relative import; write purlin_resume.<wing>.<module>")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "purlin_resume" and len(parts) > 1:
                    names.add(parts[1])
    names.discard("__version__")
    return names


def wing_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0]


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_only_the_package_files_stay_at_the_top_level():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in TOP_LEVEL)
    assert loose == []
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(RANK) | SHELLS


def test_no_wing_imports_a_shell_or_a_wing_beside_or_above_it():
    wrong = []
    for path in modules():
        if path.parent == PACKAGE:
            continue
        wing = wing_of(path)
        if wing in SHELLS:
            continue
        for other in imported_parts(path) - {wing}:
            if other in SHELLS:
                wrong.append(f"{path.relative_to(ROOT)} imports the shell {other}")
            elif other not in RANK:
                wrong.append(f"{path.relative_to(ROOT)} imports {other}, which is in no wing")
            elif RANK[other] >= RANK[wing]:
                wrong.append(f"{path.relative_to(ROOT)} ({wing}) imports {other}")
    assert wrong == []


def test_the_check_sees_lazy_imports_and_both_import_forms(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import purlin_resume.agents.registry\n"
        "from purlin_resume import core\n"
        "from purlin_resume.history import agent_history\n"
        "def later():\n"
        "    from purlin_resume.web import app\n"
        "    from purlin_resume import __version__\n"
    )
    assert imported_parts(sample) == {"agents", "core", "history", "web"}


def test_the_package_and_console_script_start_from_a_shell():
    assert imported_parts(PACKAGE / "__main__.py") == {"cli"}
    assert imported_parts(PACKAGE / "__init__.py") == set()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'purlin-resume = "purlin_resume.cli.entry:main"' in pyproject


def test_every_wing_says_what_it_holds():
    for wing in [*RANK, *SHELLS]:
        init = PACKAGE / wing / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc, wing
        assert len(doc) > 20, wing


def module_imports(path: Path) -> set[str]:
    """The ``purlin_resume`` modules ``path`` imports (lazy ones too), by dotted name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("purlin_resume")
        ):
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("purlin_resume."))
    return names


def test_no_import_circle():
    known = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
        for path in modules()
    }
    graph = {name: (module_imports(path) & set(known)) - {name} for name, path in known.items()}
    graph = {name: {dep for dep in deps if dep.count(".") > 1} for name, deps in graph.items()}
    circles = []
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            circles.append(trail[trail.index(name) :] + [name])
            return
        if name in done:
            return
        for dep in sorted(graph.get(name, ())):
            visit(dep, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert circles == []
