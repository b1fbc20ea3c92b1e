"""A reader copies one step folder alone and it must run: its demo and its own tests.

This is the promise the contract makes to readers; it breaks silently the moment a step
reaches outside its folder (a shared helper, a path to ../, a file only the repo has).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import STEPS, step_ids

LEFTOVERS = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".sessions", "*.pyc")


@pytest.fixture(params=STEPS, ids=step_ids(STEPS))
def copied_step(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path]:
    original: Path = request.param
    copy = tmp_path / "reader" / original.name
    shutil.copytree(original, copy, ignore=LEFTOVERS)
    return original, copy


def test_demo_prints_expected_output_from_any_directory(
    copied_step: tuple[Path, Path], tmp_path: Path
) -> None:
    original, copy = copied_step
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, str(copy / "demo.py")], cwd=elsewhere, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (original / "expected-output.txt").read_text(encoding="utf-8")


def test_own_tests_pass_in_the_copy(copied_step: tuple[Path, Path]) -> None:
    _, copy = copied_step
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
