"""The exercise runner is itself a check, so it must be able to fail: these tests build a tiny
lab with one exercise and prove that `verify` accepts a sound exercise and rejects a check that
cannot fail, a missing solution, and a wrong solution."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT

STARTER = '''"""Double a number."""
def double(n: int) -> int:
    raise NotImplementedError("TODO: return twice n")
'''
SOLVED = '''"""Double a number."""
def double(n: int) -> int:
    return 2 * n
'''
CHECK = """import helper

def check(module) -> str:
    assert module.double(21) == helper.ANSWER, f"double(21) gave {module.double(21)}"
    return "double(21) == 42"
"""


@pytest.fixture
def tiny_lab(tmp_path: Path) -> Path:
    shutil.copytree(LAB_ROOT / "exercises", tmp_path / "exercises", ignore=_only_the_runner)
    step = tmp_path / "labs" / "step09_tiny"
    step.mkdir(parents=True)
    (step / "helper.py").write_text("ANSWER = 42\n")  # checks import step modules by bare name
    (tmp_path / "exercises" / "step09").mkdir()
    (tmp_path / "exercises" / "step09" / "ex1_double.py").write_text(STARTER)
    (tmp_path / "exercises" / "step09" / "ex1_double_check.py").write_text(CHECK)
    (tmp_path / "solutions" / "step09").mkdir(parents=True)
    (tmp_path / "solutions" / "step09" / "ex1_double.py").write_text(SOLVED)
    return tmp_path


def _only_the_runner(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith("step") or n == "__pycache__"]


def exercises(lab: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exercises", *args], cwd=lab, capture_output=True, text=True
    )


def test_sound_exercise_verifies(tiny_lab: Path) -> None:
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "exercises: 1 passed, 0 failed" in done.stdout


def test_student_sees_fail_then_pass(tiny_lab: Path) -> None:
    before = exercises(tiny_lab, "check", "09.1")
    assert before.returncode == 1
    assert before.stdout.startswith("FAIL 09.1 double: not done yet: TODO: return twice n")
    (tiny_lab / "exercises" / "step09" / "ex1_double.py").write_text(SOLVED + "# TODO done\n")
    after = exercises(tiny_lab, "check", "09.1")
    assert after.returncode == 0, after.stdout
    assert after.stdout.startswith("PASS 09.1 double: double(21) == 42")


def test_a_check_that_cannot_fail_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "exercises" / "step09" / "ex1_double.py").write_text(SOLVED + "# TODO\n")
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 1
    assert "the unsolved starter passes its check" in done.stdout


def test_a_wrong_solution_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "solutions" / "step09" / "ex1_double.py").write_text(
        SOLVED.replace("2 * n", "n + 2")
    )
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 1
    assert "the solution fails: FAIL 09.1 double: double(21) gave 23" in done.stdout


def test_a_missing_solution_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "solutions" / "step09" / "ex1_double.py").unlink()
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 1
    assert "missing solution" in done.stdout


def test_unknown_id_is_one_line_error(tiny_lab: Path) -> None:
    done = exercises(tiny_lab, "check", "09.7")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: no exercise '09.7' (known: 09.1)"]
