"""session_bench.py's peak memory is the measuring process's own, not its parent's peak.

Linux carries `ru_maxrss` across exec: a child started by a parent that once held 200 MiB
reports 200 MiB before it has allocated a byte. The bench generates the file in the parent and
measures in a child, so that figure would be the parent's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"

PARENT = """
import subprocess, sys
held = bytearray(200 * 2**20)  # touched: resident, not just reserved
for i in range(0, len(held), 4096):
    held[i] = 1
child = "import session_bench; print(session_bench.peak_mib())"
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                     check=True).stdout.strip())
"""


def test_a_child_reports_its_own_peak_not_its_parents() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PARENT], cwd=TOOLS, capture_output=True, text=True, check=True
    )
    child_peak = float(done.stdout)
    assert 0 < child_peak < 150, child_peak  # an interpreter and the bench's imports: ~20 MiB
