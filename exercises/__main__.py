"""python -m exercises list | check ID [--solution] | verify

`check` is what a student runs (the notebooks call it too); `verify` is what `make check` runs:
every starter must fail its check and every solution must pass it, because a check that
cannot fail proves nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from exercises.catalog import LAB_ROOT, Exercise, all_exercises, find

CHECK_TIMEOUT_SECONDS = 120


def run_check(exercise: Exercise, target: Path) -> tuple[int, str]:
    label = f"{exercise.id} {exercise.title}"
    command = [
        sys.executable,
        str(Path(__file__).with_name("run_one.py")),
        label,
        str(target),
        str(exercise.check),
        str(exercise.step_dir),
    ]
    try:
        done = subprocess.run(
            command,
            cwd=exercise.step_dir,
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return (
            1,
            f"FAIL {label}: the check took over {CHECK_TIMEOUT_SECONDS} s (an endless loop?)",
        )
    lines = done.stdout.strip().splitlines()
    verdict = lines[-1] if lines else f"FAIL {label}: the check printed nothing"
    if done.returncode not in (0, 1):  # the interpreter itself died, e.g. a syntax error
        error_lines = done.stderr.strip().splitlines()
        verdict = f"FAIL {label}: {error_lines[-1] if error_lines else 'crashed'}"
    return done.returncode, verdict


def verify_one(exercise: Exercise) -> tuple[bool, str]:
    problems = []
    if "TODO" not in exercise.starter.read_text(encoding="utf-8"):
        problems.append("starter has no TODO")
    if not exercise.check.exists():
        problems.append(f"missing {exercise.check.name}")
    if not exercise.solution.exists():
        problems.append("missing solution")
    if problems:
        return False, f"FAIL {exercise.id} {exercise.title}: " + "; ".join(problems)
    starter_code, starter_verdict = run_check(exercise, exercise.starter)
    solution_code, solution_verdict = run_check(exercise, exercise.solution)
    if starter_code == 0:
        return (
            False,
            f"FAIL {exercise.id}: the unsolved starter passes its check, so the check cannot "
            f"fail (solved it yourself? `git checkout exercises/` restores the starters)",
        )
    if solution_code != 0:
        return False, f"FAIL {exercise.id}: the solution fails: {solution_verdict}"
    return True, f"ok   {exercise.id} {exercise.title}: starter fails, solution passes"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m exercises", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every exercise, with the file to edit")
    check = commands.add_parser("check", help="check your work on one exercise")
    check.add_argument("id", help='e.g. "01.2"')
    check.add_argument("--solution", action="store_true", help="check the shipped solution")
    commands.add_parser("verify", help="every starter fails and every solution passes")
    args = parser.parse_args(argv)

    if args.command == "list":
        for exercise in all_exercises():
            print(
                f"{exercise.id:6} {exercise.title:36} edit {exercise.starter.relative_to(LAB_ROOT)}"
            )
        return 0
    if args.command == "check":
        try:
            exercise = find(args.id)
        except LookupError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        code, verdict = run_check(
            exercise, exercise.solution if args.solution else exercise.starter
        )
        print(verdict)
        return code

    exercises = all_exercises()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(verify_one, exercises))
    for _, line in results:
        print(line)
    passed = sum(ok for ok, _ in results)
    print(f"exercises: {passed} passed, {len(results) - passed} failed")
    return 0 if exercises and passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
