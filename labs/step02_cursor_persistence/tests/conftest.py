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
