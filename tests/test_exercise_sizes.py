"""The checks are held to a size: at most twice the lines of the solutions they check, each
one, and all of them with the harness they share (4,875 lines of checks had once grown
for 1,026 of solutions, and still let mistakes through). A check that grows past that is
testing one example after another instead of comparing with the solution. The figures are
printed (pytest -s) against the target, and in the failure."""

from __future__ import annotations

from conftest import LAB_ROOT

from exercises.catalog import all_exercises

FACTOR = 2  # check lines per solution line, at most


def lines(path: object) -> int:
    return len(LAB_ROOT.joinpath(str(path)).read_text(encoding="utf-8").splitlines())


def test_checks_are_at_most_twice_their_solutions() -> None:
    rows, over = [], []
    for exercise in all_exercises():
        check, solution = lines(exercise.check), lines(exercise.solution)
        rows.append(f"{exercise.id}  check {check:4}  solution {solution:4}  "
                    f"target {FACTOR * solution:4}")  # fmt: skip
        if check > FACTOR * solution:
            over.append(rows[-1])
    checks = sum(lines(e.check) for e in all_exercises())
    solutions = sum(lines(e.solution) for e in all_exercises())
    harness = lines(LAB_ROOT / "exercises" / "harness.py")
    rows.append(f"all   checks {checks} + harness {harness} = {checks + harness}, "
                f"solutions {solutions}, target {FACTOR * solutions}")  # fmt: skip
    print("\n".join(rows))
    assert not over, "checks over twice their solution:\n" + "\n".join(over)
    assert checks + harness <= FACTOR * solutions, "\n".join(rows)


def test_no_starter_copies_the_steps_dispatcher() -> None:
    """A copy drifts: four starters split a command on one space where the program splits on
    any whitespace, so `/label<TAB>x` was unknown in the exercise and worked in the program.
    An exercise's commands go into the step's own table instead."""
    copies = [e.id for e in all_exercises() if "def run_command" in e.starter.read_text()]
    assert not copies, f"these starters copy the step's run_command: {copies}"
