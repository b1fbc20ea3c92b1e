"""The course as a student meets it: short enough to finish, and a picture of the session in every
notebook. Run with -s to see each notebook's figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
MAX_WORDS = 18_000  # of prose, in all: a student asked for a third less than the 26,700 it was
MAX_CELLS = 70  # in one notebook


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def prose_words(path: Path) -> int:
    markdown = ("".join(cell["source"]) for cell in cells(path) if cell["cell_type"] == "markdown")
    return sum(len(re.findall(r"\w+", text)) for text in markdown)


def test_the_prose_of_the_course_is_short_enough() -> None:
    words = {path.name: prose_words(path) for path in NOTEBOOKS}
    for name, count in words.items():
        print(f"{name:<34} {count:>6,} words {len(cells(NOTEBOOKS[0].parent / name)):>4} cells")
    print(f"{'in all':<34} {sum(words.values()):>6,} words (at most {MAX_WORDS:,})")
    assert sum(words.values()) <= MAX_WORDS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_no_notebook_is_too_long(path: Path) -> None:
    assert len(cells(path)) <= MAX_CELLS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_notebook_draws_an_entry_tree(path: Path) -> None:
    """A cell that calls show_tree (networkx, entry_pictures.draw), and its committed picture."""
    drawn = [
        cell
        for cell in cells(path)
        if cell["cell_type"] == "code" and "show_tree(" in "".join(cell["source"])
        and any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
    ]  # fmt: skip
    assert drawn, f"{path.name} draws no entry tree with show_tree"
