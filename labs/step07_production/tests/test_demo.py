"""The demo prints exactly expected-output.txt, from any working directory."""

from __future__ import annotations

import sys
from pathlib import Path

from harness import STEP_DIR, run


def test_demo_output_is_stable(tmp_path: Path) -> None:
    done = run(tmp_path, None, command=[sys.executable, str(STEP_DIR / "demo.py")])
    assert done.returncode == 0, done.stderr
    assert done.stdout == (STEP_DIR / "expected-output.txt").read_bytes()
    assert list(tmp_path.iterdir()) == []  # it wrote only into its own temporary folder
