"""The demo prints exactly expected-output.txt, from any working directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

STEP_DIR = Path(__file__).resolve().parent.parent


def test_demo_output_is_stable(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(STEP_DIR / "demo.py")], cwd=tmp_path, capture_output=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (STEP_DIR / "expected-output.txt").read_bytes()
    assert list(tmp_path.iterdir()) == []  # it wrote only into its own temporary folder
