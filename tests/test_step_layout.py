"""Each step folder holds what a reader is promised: a README, a demo and its output, tests, its
own requirements.txt, and (from step 02) main.py. See README.md, "Copying a step out"."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import STEPS, step_ids

REQUIRED = ["README.md", "demo.py", "expected-output.txt", "requirements.txt", "tests"]


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_step_has_what_the_contract_lists(step: Path) -> None:
    required = REQUIRED + ([] if step.name.startswith("step01") else ["main.py"])
    missing = [name for name in required if not (step / name).exists()]
    assert not missing, f"{step.name} lacks {missing}"
    assert list((step / "tests").glob("test_*.py")), f"{step.name}/tests has no test files"


@pytest.mark.parametrize("step", STEPS, ids=step_ids(STEPS))
def test_expected_output_is_not_empty(step: Path) -> None:
    assert (step / "expected-output.txt").read_text(encoding="utf-8").strip()
