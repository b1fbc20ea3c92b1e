# >>file prod
"""One deadline for a whole reply: how long it may take (LAB_REPLY_DEADLINE, read by
`reply_deadline`), and the clock that ends it however the endpoint spends the time (`Deadline`).

openai_model.py reads the variable when the model is made, and makes each request and reads
each chunk within the deadline (`Deadline.wait`). When it passes, the turn ends in one error
line and nothing of the reply is kept: a stalled endpoint never holds the program.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

from messages import shortened
from model import ModelError
from terminal_text import printable

# The time one reply may take in all, retries included (`Deadline`, below): long enough
# for a slow local model to write a long answer, short enough that a stalled one ends.
DEADLINE_VARIABLE = "LAB_REPLY_DEADLINE"
DEADLINE = 300.0
MAX_DEADLINE = 3600.0


def reply_deadline(model: str) -> float:
    """The seconds one reply may take: LAB_REPLY_DEADLINE if set, else DEADLINE."""
    raw = os.environ.get(DEADLINE_VARIABLE)
    if raw is None:
        return DEADLINE
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1
    if not 0 < seconds <= MAX_DEADLINE:  # NaN is neither
        shown_raw = printable(shortened(repr(raw), 40))
        raise ModelError(
            f"{model}: {DEADLINE_VARIABLE} must be a number of seconds, over 0 and at most "
            f"{MAX_DEADLINE:g}, not {shown_raw}"
        )
    return seconds


T = TypeVar("T")


class DeadlinePassed(BaseException):
    """The reply's deadline passed. A BaseException: the SDK retries after any Exception, and
    would take this one for a network fault and try again."""


class Deadline:
    """The time one reply may take, from the request to its last chunk, however it is spent:
    retries, a slow start, keep-alive comments, empty chunks.

    Stop here: a read timeout is no deadline. It starts again at every byte received, and a
    `: ping` every few seconds keeps a reply going for ever. An alarm signal is the one clock
    that interrupts a read that is blocked. It raises only while the stream is being read
    (`wait`): one that rings while a chunk is being shown is noted, and raised at the next
    read, so it never lands in the middle of the terminal's output.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.waiting = False
        self.passed = False
        self._previous: Any = None
        # Signals reach the main thread only: elsewhere, the time is checked at each read.
        self._alarm = threading.current_thread() is threading.main_thread()

    def __enter__(self) -> Deadline:
        if self._alarm:
            self._previous = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exited: object) -> None:
        if self._alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)

    def _ring(self, signum: int, frame: FrameType | None) -> None:
        self.passed = True
        if self.waiting:
            raise DeadlinePassed

    def wait(self, read: Callable[[], T]) -> T:
        """`read()`, given up with DeadlinePassed when the deadline passes."""
        self._check()
        self.waiting = True
        try:
            result = read()
        finally:  # not checked here: a Ctrl-C in flight must stay a Ctrl-C
            self.waiting = False
        self._check()
        return result

    def _check(self) -> None:
        if self.passed or time.monotonic() >= self.ends:
            self.passed = True
            raise DeadlinePassed
