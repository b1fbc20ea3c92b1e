"""No notebook leaves more than a quarter of its code-cell outputs uncompared.

nbval re-runs every notebook and compares each code cell's output with the stored one, except
in cells marked `# NBVAL_IGNORE_OUTPUT` (timings, random crashes) or `# NBVAL_SKIP`, and except
for pictures (nbval never compares `image/png`, and the "<Figure size ...>" text beside one
says nothing). A notebook whose outputs are mostly uncompared can change its conclusions
without `make check` noticing. So each uncompared measurement is followed by a compared cell
that prints its conclusion ("ledger cheaper than snapshot at every size: True"), and this test
keeps the uncompared share at or under a quarter of the cells that show an output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import NOTEBOOKS

MAX_UNCOMPARED_SHARE = 0.25
UNCOMPARED_MARKERS = ("# NBVAL_IGNORE_OUTPUT", "# NBVAL_SKIP")

Cell = dict[str, Any]


def is_uncompared(cell: Cell) -> bool:
    """True when nbval compares nothing worth reading in this code cell's output."""
    source = "".join(cell["source"]).lstrip()
    if source.startswith(UNCOMPARED_MARKERS):
        return True
    pictures_only = all(
        any(kind.startswith("image/") for kind in output.get("data", {}))
        for output in cell["outputs"]
    )
    return pictures_only


def cells_with_output(notebook: Path) -> list[Cell]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [cell for cell in cells if cell["cell_type"] == "code" and cell.get("outputs")]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_at_most_a_quarter_of_the_outputs_go_uncompared(notebook: Path) -> None:
    cells = cells_with_output(notebook)
    uncompared = [
        "".join(cell["source"]).strip().splitlines()[-1][:60]
        for cell in cells
        if is_uncompared(cell)
    ]
    assert len(uncompared) <= MAX_UNCOMPARED_SHARE * len(cells), (
        f"{len(uncompared)} of {len(cells)} outputs are not compared by nbval (more than a "
        f"quarter); give a measurement a compared cell that prints its conclusion. "
        f"Uncompared cells end with: {uncompared}"
    )


def code_cell(source: str, *outputs: dict[str, Any]) -> Cell:
    return {"cell_type": "code", "source": [source], "outputs": list(outputs)}


TEXT = {"output_type": "stream", "name": "stdout", "text": ["ledger cheaper: True\n"]}
PICTURE = {
    "output_type": "display_data",
    "data": {"image/png": "iVBORw0...", "text/plain": ["<Figure size 640x480>"]},
}


def test_the_rule_tells_compared_from_uncompared_cells() -> None:
    assert not is_uncompared(code_cell("print(conclusion)", TEXT))
    assert not is_uncompared(code_cell("show(graph)\nprint(text)", PICTURE, TEXT))
    assert is_uncompared(code_cell("# NBVAL_IGNORE_OUTPUT\nprint(timings)", TEXT))
    assert is_uncompared(code_cell("  # NBVAL_SKIP\nrun()", TEXT))
    assert is_uncompared(code_cell("plt.show()", PICTURE))
