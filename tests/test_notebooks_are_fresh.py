"""The notebooks are committed as one fresh in-order run (`make notebooks`): execution counts
1..N with no gaps, every code cell run, no error output. A notebook edited by hand, or run out
of order, shows outputs no student could reproduce, and nbval would compare against them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import NOTEBOOKS, STEPS


def code_cells(notebook: Path) -> list[dict]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [cell for cell in cells if cell["cell_type"] == "code"]


# A cell tagged so is never run by `make notebooks` (nbclient's skip-execution) nor by nbval:
# a hint, whose answer a student should see only by asking for it, or a cell a student runs
# with values of their own (one random crash, whose committed output would mean nothing).
UNRUN = {"skip-execution", "nbval-skip"}


def unrun(cell: dict) -> bool:
    return set(cell["metadata"].get("tags", [])) >= UNRUN


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_execution_counts_run_one_to_n(notebook: Path) -> None:
    counts = [cell["execution_count"] for cell in code_cells(notebook) if not unrun(cell)]
    assert counts == list(range(1, len(counts) + 1)), counts


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_no_hint_is_shown_before_a_student_asks_for_it(notebook: Path) -> None:
    """A hint's output committed under its cell is read before anything is tried."""
    for cell in code_cells(notebook):
        if "hint_exercise(" in "".join(cell["source"]):
            assert unrun(cell), "".join(cell["source"])[:60]
        if unrun(cell):
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_no_cell_stored_an_error(notebook: Path) -> None:
    errors = [
        "".join(cell["source"])[:60]
        for cell in code_cells(notebook)
        for output in cell.get("outputs", [])
        if output["output_type"] == "error"
    ]
    assert not errors, errors


# A step's notebook carries its number (the crash lab, 07, is the production step's); a
# notebook after it (08_why_not_a_database, 09_appendix: the production step's code) has no step
# of its own, and the exercises it holds are step 07's (08 ends with 07.3, 09 holds 07.1).
STEP_NOTEBOOKS = [n for n in NOTEBOOKS if any(s.name[4:6] == n.name[:2] for s in STEPS)]


@pytest.mark.parametrize("notebook", STEP_NOTEBOOKS, ids=[n.name for n in STEP_NOTEBOOKS])
def test_ends_with_exercises_a_student_can_check(notebook: Path) -> None:
    sources = ["".join(cell["source"]) for cell in code_cells(notebook)]
    step_number = notebook.name[:2]
    assert any(f'check_exercise("{step_number}.' in source for source in sources)


def test_every_step_has_its_notebook() -> None:
    notebook_numbers = {n.name[:2] for n in NOTEBOOKS}
    missing = [s.name for s in STEPS if s.name[4:6] not in notebook_numbers]
    assert not missing, f"steps without a notebook: {missing}"
