"""Shared facts for the course-wide tests: where the lab is, and which steps and notebooks exist."""

from __future__ import annotations

from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
STEPS = sorted(p for p in (LAB_ROOT / "labs").glob("step[0-9][0-9]_*") if p.is_dir())
NOTEBOOKS = sorted((LAB_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def step_ids(steps: list[Path]) -> list[str]:
    return [step.name for step in steps]
