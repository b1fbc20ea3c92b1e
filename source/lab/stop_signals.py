# >>file prod
"""Ctrl-C, SIGTERM and SIGHUP: how a run of the production step stops.

At a terminal each of the three ends the run in one line that says what was saved, with exit
status 128 + the signal's number (130, 143, 129). A save in progress finishes first. Ctrl-C
while a turn runs (a reply streams, a tool runs) ends that turn instead, as in any chat
program: the prompt comes back; a second Ctrl-C, or one at the prompt, ends the run.

Stop here: a stop signal that was *ignored* when the program started stays ignored, at every
moment. That is what `nohup` (SIGHUP) and a shell's background job (SIGINT) ask for, and a
handler installed over it would end a run its user meant to keep alive.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

# Read once, when the program starts: which of them its parent asked it to ignore.
IGNORED_AT_START = frozenset(s for s in STOP_SIGNALS if signal.getsignal(s) is signal.SIG_IGN)
HANDLED = tuple(s for s in STOP_SIGNALS if s not in IGNORED_AT_START)


class Stopped(BaseException):
    """A stop signal arrived. A BaseException, as KeyboardInterrupt is, so that the loop's
    `except Exception` around a tool cannot take it for the tool's own failure."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def status(self) -> int:
        """The exit status a shell expects of a run a signal ended."""
        return 128 + self.signum

    def line(self) -> str:
        """Which signal, in the words of the run's last line."""
        names = {signal.SIGINT: "interrupted", signal.SIGHUP: "hung up"}
        return names.get(self.signum, "terminated")


class TurnInterrupted(BaseException):
    """Ctrl-C while a turn runs: that turn is abandoned, the run goes on. A BaseException, as
    `Stopped` is, so that neither a tool's `except Exception` nor the SDK's can take it."""


def stop(signum: int, frame: object) -> NoReturn:
    """The handler of the stop signals. The first ends the run; later ones are ignored, so
    that a second Ctrl-C cannot cut the line that says what was saved."""
    ignore_stop_signals()
    raise Stopped(signum)


def stop_signals_end_the_run() -> None:
    """From now on each stop signal not ignored at start raises `Stopped`."""
    for signum in HANDLED:
        signal.signal(signum, stop)


def ignore_stop_signals() -> None:
    """The run is ending anyway: let it say how, in one line."""
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_IGN)


@contextmanager
def ctrl_c_abandons_the_turn() -> Iterator[None]:
    """While the block runs (a turn), the first Ctrl-C raises `TurnInterrupted`; from then on,
    Ctrl-C ends the run again, so a second one while the turn is being wound up ends it."""
    if signal.SIGINT not in HANDLED:  # ignored at start (a background job): it stays so
        yield
        return

    def abandon(signum: int, frame: object) -> NoReturn:
        signal.signal(signal.SIGINT, stop)
        raise TurnInterrupted

    previous = signal.signal(signal.SIGINT, abandon)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """A stop signal waits until the save is over, so a save is never cut halfway and the
    last line printed can say exactly what is in the file. Then it does what it would have
    done: end the run, or (Ctrl-C in a turn) end the turn."""
    arrived: list[int] = []

    def remember(signum: int, frame: object) -> None:
        arrived.append(signum)

    previous = {signum: signal.signal(signum, remember) for signum in HANDLED}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if arrived:  # only after a save that finished: a failed one reports its own error
        handler = previous[arrived[0]]  # stop, or a turn's abandon
        (handler if callable(handler) else stop)(arrived[0], None)
