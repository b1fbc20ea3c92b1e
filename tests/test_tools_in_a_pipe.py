"""The lab's tools end quietly when what reads their output has gone (`make_steps.py --check |
head -0`, `step_diffs.py | head -1`): each ended in a BrokenPipeError traceback. Every tool
restores SIGPIPE's default as it starts; these are the ones that print something quickly
(a `--help` proves nothing: Python drops the error of its last flush silently)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import LAB_ROOT

QUICK = {
    "make_steps.py": ["--check"],
    "step_diffs.py": [],
    "crash_points.py": ["--json"],
}


@pytest.mark.parametrize("tool", sorted(QUICK))
def test_a_tool_whose_reader_has_gone_ends_without_a_traceback(tool: str) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before a byte is written
    try:
        done = subprocess.run(
            [sys.executable, str(LAB_ROOT / "tools" / tool), *QUICK[tool]],
            cwd=LAB_ROOT, stdout=write_end, stderr=subprocess.PIPE, timeout=60,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert done.stderr == b"", done.stderr.decode()
    assert done.returncode == -13  # ended by SIGPIPE, as `yes | head -1` ends `yes`


def test_every_tool_restores_sigpipe_as_it_starts() -> None:
    for tool in sorted((LAB_ROOT / "tools").glob("*.py")):
        text = tool.read_text(encoding="utf-8")
        if 'if __name__ == "__main__":' in text:
            assert "signal.signal(signal.SIGPIPE, signal.SIG_DFL)" in text, tool.name
