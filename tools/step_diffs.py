"""How many lines of code each step changes over the one before: the size of its lesson; and
how big the first agent step and each idea step's modules are.

Counted as `diff -rN` counts them, lines removed plus lines added (difflib pairs a few lines
differently from GNU diff, so the figures can differ from its by a few per cent), over the
`.py` files of two neighbouring step folders, leaving out `tests/` and `demo.py`. A layer
that is the same in both folders adds nothing, which is the point: what remains is the idea.

    python tools/step_diffs.py      the table, against each diff's budget
"""

from __future__ import annotations

import difflib
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LAB_ROOT / "tools"))
from make_steps import STEPS  # noqa: E402  (the steps, in teaching order)

# The contract's budgets: changed lines between neighbouring steps, at most. The production
# step's diff (the last) has none: it is measured and shown, as what production costs.
BUDGETS = {
    ("step02", "step03"): 450,
    ("step03", "step04"): 150,
    ("step04", "step05"): 300,
    ("step05", "step06"): 300,
}


@dataclass(frozen=True)
class StepDiff:
    older: Path
    newer: Path
    changed: int  # lines removed plus lines added
    budget: int | None  # None: measured, not limited

    @property
    def label(self) -> str:
        return f"{self.older.name[4:6]} -> {self.newer.name[4:6]}"

    @property
    def within_budget(self) -> bool:
        return self.budget is None or self.changed <= self.budget

    @property
    def shown(self) -> str:
        """As the README's step table shows it: the figure, and its budget if it has one."""
        return f"{self.changed:,}" if self.budget is None else f"{self.changed} ({self.budget})"


def code_files(step: Path) -> dict[str, list[str]]:
    """The step's counted files by their path inside it, each as its lines."""
    return {
        str(path.relative_to(step)): path.read_text(encoding="utf-8").splitlines()
        for path in sorted(step.rglob("*.py"))
        if "tests" not in path.relative_to(step).parts
        and path.name != "demo.py"
        and "__pycache__" not in path.parts
    }


def changed_lines_by_file(older: Path, newer: Path) -> dict[str, int]:
    """Each counted file that differs, by name, with its changed lines; most changed first."""
    before, after = code_files(older), code_files(newer)
    counts = {}
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name, []), after.get(name, [])
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        changed = sum(
            (i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
        )
        if changed:
            counts[name] = changed
    return dict(sorted(counts.items(), key=lambda item: -item[1]))


def changed_lines(older: Path, newer: Path) -> int:
    return sum(changed_lines_by_file(older, newer).values())


def step_folder(prefix: str) -> Path:
    [folder] = (LAB_ROOT / "labs").glob(f"{prefix}_*")
    return folder


def step_diffs() -> list[StepDiff]:
    """Each step from 02 against the one before (step 01 measures stores: no agent to diff)."""
    folders = [LAB_ROOT / "labs" / step.folder for step in STEPS[1:]]
    return [
        StepDiff(a, b, changed_lines(a, b), BUDGETS.get((a.name[:6], b.name[:6])))
        for a, b in zip(folders, folders[1:], strict=False)
    ]


# The contract's sizes: step 02 is the first program a student reads whole, and no module of an
# idea step is longer than can be read in one sitting.
FIRST_STEP_LINES = 1500
MODULE_LINES = 300


def python_lines(step: Path) -> dict[str, int]:
    """Each .py file of a step outside tests/ (demo.py and main.py included), with its lines."""
    return {
        str(path.relative_to(step)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(step.rglob("*.py"))
        if "tests" not in path.relative_to(step).parts and "__pycache__" not in path.parts
    }


def idea_steps() -> list[Path]:
    """The steps from 02 up to, not including, the production step."""
    return [LAB_ROOT / "labs" / step.folder for step in STEPS[1:-1]]


def main() -> int:
    diffs = step_diffs()
    for diff in diffs:
        limit = "no budget" if diff.budget is None else f"budget {diff.budget}"
        verdict = "within budget" if diff.within_budget else "OVER budget"
        verdict = "measured" if diff.budget is None else verdict
        print(f"{diff.label}: {diff.changed:5} changed lines, {limit} ({verdict})")
    first = idea_steps()[0]
    total = sum(python_lines(first).values())
    print(f"{first.name}: {total:,} lines of Python outside tests/ (at most {FIRST_STEP_LINES:,})")
    for step in idea_steps():
        name, longest = max(python_lines(step).items(), key=lambda item: item[1])
        print(f"{step.name}: longest module {name}, {longest} lines (at most {MODULE_LINES})")
    # One closing line, for `make check` to show beside its verdict.
    print(f"changed lines (budget): {', '.join(f'{d.label} {d.shown}' for d in diffs)}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
