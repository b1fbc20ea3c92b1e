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


def test_parts_start_longest_first_by_the_last_runs_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last whole run's wall seconds order the next; a part it did not time goes by its
    weight, and a file that makes no sense is as good as none."""
    monkeypatch.syspath_prepend(str(LAB_ROOT / "tools"))
    import run_checks

    monkeypatch.setattr(run_checks, "LAST_SECONDS", tmp_path / "check-seconds.json")
    parts = [run_checks.Part(name, [], tmp_path, weight) for name, weight in
             [("a", 50), ("b", 10), ("c", 30)]]  # fmt: skip
    names = lambda: [part.name for part in run_checks.order(parts)]  # noqa: E731
    assert names() == ["a", "c", "b"]
    run_checks.remember({"b": 80.0, "a": 20.0})
    assert names() == ["b", "c", "a"]
    run_checks.remember({"c": 10.0})  # the others keep their last time
    assert names() == ["b", "a", "c"]
    run_checks.LAST_SECONDS.write_text("[1, 2")
    assert names() == ["a", "c", "b"]
