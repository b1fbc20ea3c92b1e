"""Put the step folder first on sys.path, so tests import its modules by bare name."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

STEP_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(STEP_DIR))


def stop_signals_at_default() -> None:
    """preexec_fn of a child a test sends a stop signal to. Ignored dispositions are inherited
    through exec: under `make check &` or `nohup` the child would start with SIGINT or SIGHUP
    ignored, and (rightly) keep running. At a terminal each starts at its default."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


# main.py with calc slowed down: a turn still running when a test stops it. (From step 03 the
# program has LAB_TOOL_DELAY for this; step 02 is slowed from outside.)
SLOW_CALC = """
import runpy, sys, time
from dataclasses import replace
sys.argv = sys.argv[1:]
sys.path.insert(0, {step!r})
import tools
def slowly(arguments):
    time.sleep({seconds})
    return tools.calc(arguments)
tools.default_tools = lambda: {{"calc": replace(tools.CALC, run=slowly)}}
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def main_with_slow_calc(seconds: float) -> list[str]:
    """The command line of main.py whose every calc sleeps `seconds` first."""
    script = SLOW_CALC.format(step=str(STEP_DIR), seconds=seconds)
    return [sys.executable, "-c", script, str(STEP_DIR / "main.py")]
