"""What each step changes over the one before: the size of its lesson, and its noise.

Counted as `diff -rN` counts them, lines removed plus lines added (difflib pairs a few lines
differently from GNU diff, so the figures can differ from its by a few per cent), over the
`.py` files of two neighbouring step folders, leaving out `tests/` and `demo.py`. A layer
that is the same in both folders adds nothing, which is the point: what remains is the idea.

The figures describe a diff; they are no cap to squeeze under. What a diff must not hold is
noise: earlier code reflowed (the same words, broken into lines anew), which a reader has to
read twice to find that nothing changed. `reflowed` finds it; tests/test_step_diffs.py fails on
any it has not been told of.

    python tools/step_diffs.py                 the table, and every reflowed line
    python tools/step_diffs.py --write-readme  also set the README step table's last column
"""

from __future__ import annotations

import argparse
import difflib
import re
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LAB_ROOT / "tools"))
from make_steps import STEPS  # noqa: E402  (the steps, in teaching order)


@dataclass(frozen=True)
class StepDiff:
    older: Path
    newer: Path
    changed: int  # lines removed plus lines added
    reflowed: list[str]  # "file:line text" of each line that changed its breaks, not its words

    @property
    def label(self) -> str:
        return f"{self.older.name[4:6]} -> {self.newer.name[4:6]}"

    @property
    def shown(self) -> str:
        """As the README's step table shows it."""
        return f"{self.changed:,}"


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


def reflowed(old: list[str], new: list[str]) -> list[int]:
    """The lines of `new` (by index) that a line diff calls changed though every word in them
    is a word of a changed old line, in its old order, and whose line breaks moved: two old
    lines joined, or one broken in two. A line indented anew (a block wrapped in `with` or
    `try`) or with words dropped is not one."""
    lines = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changes = [op for op in lines.get_opcodes() if op[0] != "equal"]
    removed = {i for op in changes for i in range(op[1], op[2])}
    changed = [j for op in changes for j in range(op[3], op[4])]
    old_words = [(word, i) for i, line in enumerate(old) for word in line.split()]
    new_words = [(word, j) for j, line in enumerate(new) for word in line.split()]
    words = difflib.SequenceMatcher(
        None, [w for w, _ in old_words], [w for w, _ in new_words], autojunk=False
    )
    came_from = {}  # a new word's index -> the old line it stands in
    for a, b, size in words.get_matching_blocks():
        for k in range(size):
            came_from[b + k] = old_words[a + k][1]
    of_line: dict[int, list[int]] = {}
    for k, (_, j) in enumerate(new_words):
        of_line.setdefault(j, []).append(k)
    origins: dict[int, set[int]] = {}  # a changed new line -> the old lines its words are from
    for j in changed:
        ks = of_line.get(j, [])
        if len(ks) >= 2 and all(k in came_from for k in ks):  # no word of its own
            origins[j] = {came_from[k] for k in ks}
    fed: dict[int, int] = {}  # an old line -> how many of those new lines take its words
    for sources in origins.values():
        for i in sources:
            fed[i] = fed.get(i, 0) + 1
    found = []
    for j, sources in origins.items():
        if not sources <= removed:
            continue  # its words are those of a line the new step keeps: a line added
        # Joined (words of two old lines) or split (an old line's words in two new ones); one
        # old line made one new line is an edit (words dropped), or the line indented anew.
        if len(sources) > 1 or any(fed[i] > 1 for i in sources):
            found.append(j)
    return found


def reflowed_lines(older: Path, newer: Path) -> list[str]:
    before, after = code_files(older), code_files(newer)
    return [
        f"{name}:{j + 1} {after[name][j].strip()}"
        for name in sorted(before.keys() & after.keys())
        for j in reflowed(before[name], after[name])
    ]


def step_folder(prefix: str) -> Path:
    [folder] = (LAB_ROOT / "labs").glob(f"{prefix}_*")
    return folder


def step_diffs() -> list[StepDiff]:
    """Each step from 02 against the one before (step 01 measures stores: no agent to diff)."""
    folders = [LAB_ROOT / "labs" / step.folder for step in STEPS[1:]]
    return [
        StepDiff(a, b, changed_lines(a, b), reflowed_lines(a, b))
        for a, b in zip(folders, folders[1:], strict=False)
    ]


# The contract's size: no module of an idea step is longer than can be read in one sitting.
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


def write_readme(diffs: list[StepDiff], readme: Path = LAB_ROOT / "README.md") -> bool:
    """Set the last column of the README's step table to each diff's figure; True if changed."""
    text = readme.read_text(encoding="utf-8")
    new = text
    for diff in diffs:
        row = re.compile(rf"^(\| {int(diff.newer.name[4:6])} \|.*\| )[^|]*( \|)$", re.MULTILINE)
        new = row.sub(rf"\g<1>{diff.shown}\g<2>", new)  # a figure holds no backslash
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write-readme", action="store_true", help="update README's figures")
    args = parser.parse_args()
    diffs = step_diffs()
    if args.write_readme and write_readme(diffs):
        print("README.md: the step table's figures updated")
    for diff in diffs:
        print(f"{diff.label}: {diff.changed:5} changed lines, {len(diff.reflowed)} reflowed")
        for line in diff.reflowed:
            print(f"    reflowed {line[:90]}")
    first = idea_steps()[0]
    total = sum(python_lines(first).values())
    print(f"{first.name}: {total:,} lines of Python outside tests/")
    for step in idea_steps():
        name, longest = max(python_lines(step).items(), key=lambda item: item[1])
        print(f"{step.name}: longest module {name}, {longest} lines (at most {MODULE_LINES})")
    # One closing line, for `make check` to show beside its verdict.
    print(f"changed lines: {', '.join(f'{d.label} {d.shown}' for d in diffs)}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
