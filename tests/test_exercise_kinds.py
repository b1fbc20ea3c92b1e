"""What `make exercises` tells a student before they start: whether an exercise gives a shape to
fill in or asks for a design of their own, and roughly how long it takes. And the course's
promise about the open ones: every part has one, where the notebook asks for it, and it is
graded on behaviour, which a kept right solution of another design proves by passing."""

from __future__ import annotations

import json
import re

import pytest
from conftest import LAB_ROOT

from exercises.catalog import all_exercises

PARTS = {  # a part of the course, and the notebooks it is taught in
    "continue (02-03)": ["02_cursor_persistence", "03_continue"],
    "entries and branches (04-05)": ["04_model_change", "05_branching"],
    "compaction (06)": ["06_compaction"],
    "the crash lab (07)": ["07_crash_lab"],
    "why not a database (08)": ["08_why_not_a_database"],
}


def asked_in(notebook: str) -> set[str]:
    """The exercises a notebook asks for, by their headings (### 03.3 · A reader of your own)."""
    cells = json.loads((LAB_ROOT / "notebooks" / f"{notebook}.ipynb").read_text("utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return set(re.findall(r"^### (\d\d\.\d) ·", text, re.MULTILINE))


def test_every_exercise_says_its_kind_and_roughly_its_time() -> None:
    unsaid = [e.id for e in all_exercises() if e.kind not in ("fill-in", "open") or e.minutes < 5]
    assert not unsaid, f"starters without 'Fill-in/Open exercise, about N minutes.': {unsaid}"


@pytest.mark.parametrize("part", PARTS)
def test_every_part_asks_for_an_open_exercise_with_a_right_solution_of_another_design(
    part: str,
) -> None:
    asked = set().union(*(asked_in(notebook) for notebook in PARTS[part]))
    open_ones = [e for e in all_exercises() if e.id in asked and e.kind == "open"]
    assert open_ones, f"{part}: no open exercise among those its notebooks ask for ({asked})"
    assert all(e.right_solutions for e in open_ones), f"{part}: an open one with no kept design"
