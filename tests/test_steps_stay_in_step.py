"""No step imports another: each imports only the standard library, the lab's pinned packages,
and its own modules. A step that borrowed from its neighbour would pass here and break the
moment a reader copied it out."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT, STEPS, step_ids

PINNED = {"orjson", "networkx", "matplotlib", "pytest", "numpy", "hypothesis", "openai"}


def own_modules(step: Path) -> set[str]:
    names = {p.stem for p in step.glob("*.py")}
    names |= {p.stem for p in step.glob("tests/*.py")}  # the tests' own helpers (fake_endpoint)
    names |= {p.parent.name for p in step.glob("*/__init__.py")}
    return names | {"tests", "conftest"}


def imported_roots(source: Path) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_imports_stay_inside_the_step(step: Path) -> None:
    allowed = set(sys.stdlib_module_names) | PINNED | own_modules(step)
    strangers = {
        f"{source.relative_to(step)}: {root}"
        for source in step.rglob("*.py")
        for root in imported_roots(source) - allowed
    }
    assert not strangers, f"imports from outside {step.name}: {sorted(strangers)}"


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_no_path_reaches_another_step(step: Path) -> None:
    others = [other.name for other in STEPS if other != step] + ["labs/", "notebooks/"]
    hits = [
        f"{source.relative_to(step)} mentions {name}"
        for source in step.rglob("*.py")
        for name in others
        if name in source.read_text(encoding="utf-8")
    ]
    assert not hits, hits


def test_there_is_a_step_to_check() -> None:
    assert STEPS, f"no step folders under {LAB_ROOT / 'labs'}"
