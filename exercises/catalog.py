"""Where exercises live, found from file names alone (exercises are data, not registrations).

    exercises/step01/ex2_torn_reader.py          the starter a student edits
    exercises/step01/ex2_torn_reader_check.py    check(module) -> str, AssertionError on failure
    exercises/step01/ex2_torn_reader.hint.md     one short hint: the way, not the code
    solutions/step01/ex2_torn_reader.py          the same file, solved
    tests/wrong_solutions/step01/ex2_torn_reader/*.py   plausible mistakes: each must FAIL,
                                                 with the text its EXPECTED_FAIL names
    tests/right_solutions/step01/ex2_torn_reader/*.py   other correct ways: each must PASS

The exercise's id is "01.2": step number, then exercise number.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
WRONG_SOLUTIONS = LAB_ROOT / "tests" / "wrong_solutions"
RIGHT_SOLUTIONS = LAB_ROOT / "tests" / "right_solutions"
_STARTER = re.compile(r"ex(\d+)_(\w+)\.py")
_KIND = re.compile(r"^(Fill-in|Open) exercise, about (\d+) minutes\.$", re.MULTILINE)


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    starter: Path
    check: Path
    solution: Path
    step_dir: Path
    hint: Path
    wrong_solutions: tuple[Path, ...]  # kept mistakes that the check must catch
    right_solutions: tuple[Path, ...]  # other correct variants that the check must accept
    kind: str  # "fill-in": a shape given, its body to write; "open": a design of your own
    minutes: int  # roughly, for a student who has read the notebook (0: not said)


@dataclass(frozen=True)
class KeptWrongSolution:
    """A plausible mistake kept as test material: what is wrong, and what its FAIL must say."""

    path: Path
    what_is_wrong: str  # the first line of its docstring
    expected_fail: str  # a piece of text its FAIL line must contain


def all_exercises() -> list[Exercise]:
    found = []
    for step_folder in sorted((LAB_ROOT / "exercises").glob("step[0-9][0-9]")):
        step_number = step_folder.name.removeprefix("step")
        step_dirs = sorted((LAB_ROOT / "labs").glob(f"step{step_number}_*"))
        for starter in sorted(step_folder.glob("ex*.py")):
            match = _STARTER.fullmatch(starter.name)
            if not match or starter.stem.endswith("_check"):
                continue
            number, slug = match.groups()
            kept = Path(step_folder.name) / starter.stem
            said = _KIND.search(ast.get_docstring(parsed(starter)) or "")
            found.append(
                Exercise(
                    id=f"{step_number}.{int(number)}",
                    title=slug.replace("_", " "),
                    starter=starter,
                    check=starter.with_name(f"{starter.stem}_check.py"),
                    solution=LAB_ROOT / "solutions" / step_folder.name / starter.name,
                    step_dir=step_dirs[0] if step_dirs else LAB_ROOT,
                    hint=starter.with_name(f"{starter.stem}.hint.md"),
                    wrong_solutions=tuple(sorted((WRONG_SOLUTIONS / kept).glob("*.py"))),
                    right_solutions=tuple(sorted((RIGHT_SOLUTIONS / kept).glob("*.py"))),
                    kind=said[1].lower() if said else "?",
                    minutes=int(said[2]) if said else 0,
                )
            )
    return found


def find(exercise_id: str) -> Exercise:
    for exercise in all_exercises():
        if exercise.id == exercise_id:
            return exercise
    known = ", ".join(e.id for e in all_exercises()) or "none"
    raise LookupError(f"no exercise {exercise_id!r} (known: {known})")


def read_hint(exercise: Exercise) -> str:
    """The hint's text ('' when there is none yet)."""
    return exercise.hint.read_text(encoding="utf-8").strip() if exercise.hint.exists() else ""


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def read_wrong_solution(path: Path) -> KeptWrongSolution:
    """Its docstring and EXPECTED_FAIL, read without running it (it is the student's code).

    Raises ValueError naming what is missing: a kept mistake that does not say what is wrong,
    or what its FAIL must say, proves nothing when it fails.
    """
    tree = parsed(path)
    docstring = (ast.get_docstring(tree) or "").strip()
    expected = None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["EXPECTED_FAIL"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            expected = node.value.value
    if not docstring:
        raise ValueError("has no docstring saying what is wrong")
    if not expected:
        raise ValueError('has no EXPECTED_FAIL = "text its FAIL line must contain"')
    return KeptWrongSolution(path, docstring.splitlines()[0], expected)


def stray_kept_folders() -> list[Path]:
    """Folders of kept solutions that belong to no exercise (left behind by a rename)."""
    known = {Path(e.starter.parent.name) / e.starter.stem for e in all_exercises()}
    return [
        folder
        for root in (WRONG_SOLUTIONS, RIGHT_SOLUTIONS)
        for folder in sorted(root.glob("step[0-9][0-9]/*"))
        if folder.is_dir()
        and folder.name != "__pycache__"
        and folder.relative_to(root) not in known
    ]
