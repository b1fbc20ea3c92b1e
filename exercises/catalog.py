"""Where exercises live, found from file names alone (exercises are data, not registrations).

    exercises/step01/ex2_torn_reader.py         the starter a student edits
    exercises/step01/ex2_torn_reader_check.py   check(module) -> str, AssertionError on failure
    solutions/step01/ex2_torn_reader.py         the same file, solved

The exercise's id is "01.2": step number, then exercise number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
_STARTER = re.compile(r"ex(\d+)_(\w+)\.py")


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    starter: Path
    check: Path
    solution: Path
    step_dir: Path


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
            found.append(
                Exercise(
                    id=f"{step_number}.{int(number)}",
                    title=slug.replace("_", " "),
                    starter=starter,
                    check=starter.with_name(f"{starter.stem}_check.py"),
                    solution=LAB_ROOT / "solutions" / step_folder.name / starter.name,
                    step_dir=step_dirs[0] if step_dirs else LAB_ROOT,
                )
            )
    return found


def find(exercise_id: str) -> Exercise:
    for exercise in all_exercises():
        if exercise.id == exercise_id:
            return exercise
    known = ", ".join(e.id for e in all_exercises()) or "none"
    raise LookupError(f"no exercise {exercise_id!r} (known: {known})")
