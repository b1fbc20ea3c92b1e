"""Each step's diff against the one before is its lesson, and it has a budget of changed lines.

The figures come from tools/step_diffs.py (`python tools/step_diffs.py` prints them). The
budgets are the contract's. Until the layers have all moved out of the steps' diffs, a diff may
still be over its budget, but never over its ceiling: the figure it had when the last layer
landed. A change that makes a diff grow fails here; lower a ceiling when a diff shrinks. A
ceiling is raised only when code moves from a later step's diff to an earlier one's (the lock
arriving in step 03, say), or when a fix lands in a layer that a step brings in (a layer new in
step 03 counts whole in 02 -> 03), and the commit that raises it says which.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT

sys.path.insert(0, str(LAB_ROOT / "tools"))
from step_diffs import BUDGETS, StepDiff, changed_lines, step_diffs, step_folder  # noqa: E402

# Lowered as each layer lands, down to the budget (a diff within its budget has the budget as
# its ceiling). In all: 2,155 changed lines before the first layer, 1,515 with the harness,
# 1,525 once entry_index.py (new in step 03) kept the ids of lines too long to read, 1,527
# once step 05's own branch entry required its fromId, 1,258 once the bench left step 05,
# 1,261 once step 05's /branch knew a leaf that is a branch entry (typed twice, it moved twice),
# 1,262 once each writing command deferred its own write (from step 04) and main.py no command,
# 1,248 once entries.py took parse_json from the disk layer instead of writing it again.
CEILINGS = {"02 -> 03": 747, "03 -> 04": 150, "04 -> 05": 403}
TOTAL_CEILING = 1248


@pytest.mark.parametrize("diff", step_diffs(), ids=lambda diff: diff.label)
def test_a_step_diff_never_grows_past_its_ceiling(
    diff: StepDiff, capsys: pytest.CaptureFixture[str]
) -> None:
    with capsys.disabled():
        print(f"\n{diff.label}: {diff.changed} changed lines (budget {diff.budget})", end="")
    ceiling = CEILINGS[diff.label]
    assert ceiling >= diff.budget, "a ceiling under the budget: the budget is met, drop it"
    assert diff.changed <= ceiling, (
        f"{diff.label} changes {diff.changed} lines, more than its ceiling {ceiling} "
        f"(budget {diff.budget}): a layer that belongs in every step has leaked into one"
    )


def test_the_three_diffs_together_never_grow() -> None:
    total = sum(diff.changed for diff in step_diffs())
    assert total <= TOTAL_CEILING, f"the step diffs change {total} lines, over {TOTAL_CEILING}"


def test_every_budget_has_its_ceiling() -> None:
    labels = {f"{a[4:6]} -> {b[4:6]}" for a, b in BUDGETS}
    assert labels == CEILINGS.keys()


def test_the_count_sees_a_change_and_ignores_tests_and_the_demo(tmp_path: Path) -> None:
    older, newer = tmp_path / "step01_a", tmp_path / "step02_b"
    for folder in (older, newer):
        (folder / "tests").mkdir(parents=True)
        (folder / "same.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    (older / "changed.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (newer / "changed.py").write_text("x = 1\ny = 3\nz = 4\n", encoding="utf-8")
    (newer / "added.py").write_text("new = True\n", encoding="utf-8")
    (newer / "demo.py").write_text("print('not counted')\n", encoding="utf-8")
    (newer / "tests" / "test_x.py").write_text("def test(): pass\n", encoding="utf-8")
    assert changed_lines(older, newer) == 2 + 1 + 1  # y replaced (2), z added, added.py
    assert changed_lines(older, older) == 0


def test_the_step_folders_exist() -> None:
    assert step_folder("step02").name == "step02_cursor_persistence"


def test_the_readme_table_shows_each_diff_as_it_is() -> None:
    """The step table's last column is what a reader checks first: it must not go stale."""
    rows = {
        line.split("|")[1].strip(): line.rstrip(" |").rsplit("|", 1)[-1].strip()
        for line in (LAB_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().isdigit()
    }
    for diff in step_diffs():
        shown = rows[str(int(diff.newer.name[4:6]))]
        assert shown == f"{diff.changed} ({diff.budget})", (
            f"README shows {shown!r} for step {diff.newer.name[4:6]}; "
            f"it is {diff.changed} ({diff.budget}): python tools/step_diffs.py"
        )
