"""Shared facts for the course-wide tests: where the lab is, and which steps and notebooks exist."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from preloaded_python import PreloadedPython

LAB_ROOT = Path(__file__).resolve().parent.parent
STEPS = sorted(p for p in (LAB_ROOT / "labs").glob("step[0-9][0-9]_*") if p.is_dir())
NOTEBOOKS = sorted((LAB_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """LAB_CHECK_SHARD=I/N (set by tools/run_checks.py): keep every N-th test from the I-th,
    so that N processes side by side run each test once. The tests here mostly wait on the
    processes they start; in shares they finish sooner on the same cores."""
    shard = os.environ.get("LAB_CHECK_SHARD")
    if not shard:
        return
    index, count = (int(n) for n in shard.split("/"))
    kept = [item for number, item in enumerate(items) if number % count == index - 1]
    left = [item for number, item in enumerate(items) if number % count != index - 1]
    config.hook.pytest_deselected(items=left)
    items[:] = kept


def step_ids(steps: list[Path]) -> list[str]:
    return [step.name for step in steps]


@pytest.fixture
def without_root_override() -> list[str]:
    """A command prefix that takes away root's power to write anywhere (none for other users).

    A test of an unwritable folder passes vacuously as root, which CI machines often are:
    setpriv drops the capabilities that override file permissions, for that one process.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv")
    dropped = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={dropped}", f"--inh-caps={dropped}"]


@pytest.fixture(scope="session")
def preloaded_python() -> Iterator[PreloadedPython]:
    """`python -c`, forked from an interpreter that has imported matplotlib already, for the
    drivers that draw (tests/preloaded_python.py)."""
    python = PreloadedPython()
    yield python
    python.close()
