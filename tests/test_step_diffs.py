"""Each step's diff against the one before is its lesson, and it has a budget of changed lines.

The figures come from tools/step_diffs.py (`python tools/step_diffs.py` prints them); the
budgets are the contract's. A diff over its budget means a defence that belongs in a layer has
leaked into one step, or an earlier step's code was moved or reworded without need: fix that,
never the budget.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT

sys.path.insert(0, str(LAB_ROOT / "tools"))
from step_diffs import (  # noqa: E402
    BUDGETS,
    FIRST_STEP_LINES,
    MODULE_LINES,
    StepDiff,
    changed_lines,
    idea_steps,
    python_lines,
    step_diffs,
    step_folder,
)


@pytest.mark.parametrize("diff", step_diffs(), ids=lambda diff: diff.label)
def test_a_step_diff_keeps_to_its_budget(
    diff: StepDiff, capsys: pytest.CaptureFixture[str]
) -> None:
    with capsys.disabled():
        budget = diff.budget or "no"
        print(f"\n{diff.label}: {diff.changed} changed lines ({budget} budget)", end="")
    assert diff.within_budget, (
        f"{diff.label} changes {diff.changed} lines, over its budget {diff.budget}: "
        f"python tools/step_diffs.py names the files"
    )


def test_every_neighbouring_pair_of_idea_steps_has_a_budget() -> None:
    """From step 02 on (step 01 measures stores; it has no agent to diff against), up to the
    production step, whose diff is measured and shown instead."""
    steps = [folder.name[:6] for folder in sorted((LAB_ROOT / "labs").glob("step*_*"))][1:-1]
    assert set(zip(steps, steps[1:], strict=False)) == BUDGETS.keys()


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
        assert shown == diff.shown, (
            f"README shows {shown!r} for step {diff.newer.name[4:6]}; "
            f"it is {diff.shown}: python tools/step_diffs.py"
        )


def test_the_first_agent_step_is_short_enough_to_read_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = idea_steps()[0]
    total = sum(python_lines(first).values())
    with capsys.disabled():
        print(f"\n{first.name}: {total} lines of Python (at most {FIRST_STEP_LINES})", end="")
    assert total <= FIRST_STEP_LINES, f"{first.name} has {total} lines: python tools/step_diffs.py"


@pytest.mark.parametrize("step", idea_steps(), ids=lambda step: step.name)
def test_no_module_of_an_idea_step_is_over_its_size(
    step: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, longest = max(python_lines(step).items(), key=lambda item: item[1])
    with capsys.disabled():
        print(f"\n{step.name}: longest {name} {longest} lines (at most {MODULE_LINES})", end="")
    assert longest <= MODULE_LINES, f"{step.name}/{name} has {longest} lines"
