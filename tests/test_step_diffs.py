"""Each step's diff against the one before is its lesson: measured, shown, and kept free of noise.

The figures come from tools/step_diffs.py (`python tools/step_diffs.py` prints them). They
describe a diff and are no cap: a cap is met by squeezing code, which teaches the wrong thing.
What fails is noise a reader must see through: earlier code reflowed (the same words broken into
lines anew) in a step whose idea did not need it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT

sys.path.insert(0, str(LAB_ROOT / "tools"))
from step_diffs import (  # noqa: E402
    MODULE_LINES,
    StepDiff,
    changed_lines,
    idea_steps,
    python_lines,
    reflowed,
    step_diffs,
    step_folder,
)

# Reflows a diff holds on purpose (none today); a line here that is no longer reflowed fails
# too, so it is taken off.
KNOWN_REFLOWS: dict[str, list[str]] = {}


@pytest.mark.parametrize("diff", step_diffs(), ids=lambda diff: diff.label)
def test_a_step_diff_reflows_no_earlier_code(
    diff: StepDiff, capsys: pytest.CaptureFixture[str]
) -> None:
    with capsys.disabled():
        print(f"\n{diff.label}: {diff.changed} changed lines", end="")
    known = KNOWN_REFLOWS.get(diff.label, [])
    assert diff.reflowed == known, (
        f"{diff.label} reflows earlier code (the same words, new line breaks): undo it in the "
        f"source. python tools/step_diffs.py lists them; new here: "
        f"{[line for line in diff.reflowed if line not in known]}"
    )


def test_a_reflow_is_found_and_a_line_indented_anew_or_added_is_not() -> None:
    old = [
        '"""Save what is new: the cursor counts what the file holds',
        'already."""',
        "save(chat)",
        "return done",
    ]
    new = [
        '"""Save what is new: the cursor counts what the',
        'file holds already."""',
        "with deferred():",
        "    save(chat)",
        "return done",
        "return done",
    ]
    assert reflowed(old, new) == [0, 1]
    assert reflowed(old, old) == []


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
            f"it is {diff.shown}: python tools/step_diffs.py --write-readme"
        )


@pytest.mark.parametrize("step", idea_steps(), ids=lambda step: step.name)
def test_no_module_of_an_idea_step_is_over_its_size(
    step: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, longest = max(python_lines(step).items(), key=lambda item: item[1])
    with capsys.disabled():
        print(f"\n{step.name}: longest {name} {longest} lines (at most {MODULE_LINES})", end="")
    assert longest <= MODULE_LINES, f"{step.name}/{name} has {longest} lines"
