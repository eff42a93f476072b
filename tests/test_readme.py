"""The README's examples run on a fresh clone: every block marked ``<!-- runnable -->`` is run
with bash in a folder holding a copy of ``examples/`` (once more for each alternative a
``# or --OPTIONS`` comment offers), and no example reaches outside the clone."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import need_binary

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MARK = "<!-- runnable -->"


def runnable_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, code) of each fenced block right after the runnable mark."""
    blocks = []
    for found in re.finditer(re.escape(MARK) + r"\n```(\w*)\n(.*?)\n```", text, re.S):
        line = text.count("\n", 0, found.start()) + 1
        blocks.append((line, found.group(2)))
    return blocks


def with_alternatives(blocks: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Each block, and a copy of it per ``# or --OPTIONS`` comment: the comment's options
    instead of the command's own (``purlin-resume save --from f  # or --role qa ...``)."""
    offered = r"^(\S+ \S+) .*?\s# or (--.*)$"
    out = []
    for line, code in blocks:
        out.append((line, code))
        for found in re.finditer(offered, code, re.M):
            other = code[: found.start()] + f"{found[1]} {found[2]}" + code[found.end() :]
            out.append((line + code.count("\n", 0, found.start()) + 1, other))
    return out


def test_blocks_are_found_and_nothing_points_outside_the_clone():
    text = README.read_text()
    assert len(runnable_blocks(text)) >= 4
    assert text.count(MARK) == len(runnable_blocks(text)), "every mark precedes a code block"
    assert "/".join(("..", "shared")) not in text


def test_an_offered_alternative_is_a_block_of_its_own():
    blocks = [(1, "cd demo\npurlin-resume save --from f.yaml   # or --role qa --next x\nls")]

    assert with_alternatives(blocks) == [
        *blocks,
        (3, "cd demo\npurlin-resume save --role qa --next x\nls"),
    ]


@pytest.mark.parametrize(("line", "code"), with_alternatives(runnable_blocks(README.read_text())))
def test_the_readme_block_runs(tmp_path, line, code):
    if "jq " in code:
        need_binary("jq", "apt-get install jq")
    work = tmp_path / "clone"
    shutil.copytree(ROOT / "examples", work / "examples")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("CLAUDE_CONFIG_DIR", None)

    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, f"README line {line}:\n{done.stderr[-2000:]}"
    assert "Traceback" not in done.stderr
