"""What every notebook needs from the lab, and nothing more.

The notebooks run with their own folder as the working directory (JupyterLab and nbval both
do this), so `import labtools` finds this file. Each notebook works with exactly one step:
step folders repeat module names (every step has a `session.py`), so two steps must never be
imported into one kernel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
SCRATCH = LAB_ROOT / "notebooks" / ".scratch"

_active_step: str | None = None


def use_step(name: str) -> Path:
    """Put one step folder first on the import path and return it.

    Refuses a second, different step in the same kernel: its modules would silently shadow
    (or be shadowed by) the first step's modules of the same name.
    """
    global _active_step
    step = LAB_ROOT / "labs" / name
    if not step.is_dir():
        raise FileNotFoundError(f"no step folder labs/{name}")
    if _active_step not in (None, name):
        raise RuntimeError(f"this kernel already uses {_active_step}; restart it to use {name}")
    _active_step = name
    if str(step) not in sys.path:
        sys.path.insert(0, str(step))
    return step


def scratch_dir(name: str) -> Path:
    """A fresh, empty folder for one experiment's files (git-ignored, emptied on every run).

    Notebooks print paths relative to it, so no machine-specific path reaches a checked output.
    """
    path = SCRATCH / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def check_exercise(exercise_id: str) -> bool:
    """Run one exercise's check in a fresh process and print its one-line verdict.

    A fresh process re-reads the file you edited, so there is no kernel to restart. It never
    raises: an unsolved exercise prints FAIL, which is what the notebook ships with.
    """
    result = subprocess.run(
        [sys.executable, "-m", "exercises", "check", exercise_id],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
    )
    print((result.stdout + result.stderr).strip())
    return result.returncode == 0


def hint_exercise(exercise_id: str) -> None:
    """Print the exercise's one short hint: the step between a FAIL and the solution.

    It points the way without giving the code, so try again after reading it.
    """
    result = subprocess.run(
        [sys.executable, "-m", "exercises", "hint", exercise_id],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
    )
    print((result.stdout + result.stderr).strip())
