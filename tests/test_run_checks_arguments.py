"""run_checks.py (what `make check` runs) refuses an argument it cannot use in one line,
before it runs anything: `--jobs 0` compiled the steps, then ended in a ValueError traceback
from ThreadPoolExecutor."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT


@pytest.mark.parametrize("jobs", ["0", "-1", "-40", "two", ""])
def test_a_number_of_jobs_below_one_is_one_error_line(jobs: str, tmp_path: Path) -> None:
    # A copy in a lab of its own, with an empty labs/: however it fails, it can compile and
    # start nothing of the real lab's (its parts are the whole of make check).
    (tmp_path / "tools").mkdir()
    (tmp_path / "labs").mkdir()
    shutil.copy(LAB_ROOT / "tools" / "run_checks.py", tmp_path / "tools")
    done = subprocess.run(
        [sys.executable, str(tmp_path / "tools" / "run_checks.py"), "--jobs", jobs, "nothing"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("run_checks.py: error: argument --jobs: "), done.stderr
    assert f"{jobs!r}" in last or "must be at least 1" in last
