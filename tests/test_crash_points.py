"""Every byte at which a crash could cut a session file: the next runs lose nothing finished.

tools/crash_points.py cuts a session the production step wrote at each of its byte boundaries
and plays the next two runs on every prefix (the crash lab, notebook 07, plots it). Random kills
seldom land inside a write; this tries every place one could. The same cuts break a naive reader
and a naive writer, and a step whose writer no longer ends a torn fragment before its line,
which is what shows the enumeration can fail."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import LAB_ROOT, STEPS

TOOL = LAB_ROOT / "tools" / "crash_points.py"
PRODUCTION = STEPS[-1]


def enumerate_cuts(step: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(TOOL), "--json", "--step", str(step)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_no_crash_point_costs_a_finished_message_or_the_next_one() -> None:
    report = enumerate_cuts(PRODUCTION)
    totals = report["summary"]
    assert totals["cuts"] == report["bytes"] > 1000  # every boundary, of a real session
    assert (totals["raised"], totals["finished_lost"], totals["lost_after"]) == (0, 0, 0)
    header_cuts = [cut for cut in report["cuts"] if cut["refused"]]
    assert header_cuts and all(cut["finished"] == 0 for cut in header_cuts)
    assert max(cut["kept"] for cut in report["cuts"]) == 8  # all three turns, when nothing is cut
    # A naive reader raises at every cut inside a line; a naive writer glues onto it.
    assert totals["naive_raised"] > totals["cuts"] // 2
    assert totals["naive_lost_after"] > totals["cuts"] // 2


def test_a_writer_that_does_not_end_the_fragment_fails_the_enumeration(tmp_path: Path) -> None:
    broken = tmp_path / PRODUCTION.name
    shutil.copytree(PRODUCTION, broken, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    layer = broken / "session_file.py"
    text = layer.read_text(encoding="utf-8")
    ending = 'return b"\\n" + line'
    assert text.count(ending) == 1
    layer.write_text(text.replace(ending, "return line"), encoding="utf-8")
    totals = enumerate_cuts(broken)["summary"]
    assert totals["lost_after"] > totals["cuts"] // 2, totals
