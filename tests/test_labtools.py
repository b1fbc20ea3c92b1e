"""The notebooks' helpers (notebooks/labtools.py) where a cell could hang: a notebook that
waits for a prompt that never comes must fail within its deadline, not hang the kernel."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from types import ModuleType

import pytest
from conftest import LAB_ROOT

BOUND = 10  # seconds: far past the deadlines below, far short of the child's own end


@pytest.fixture
def labtools(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(LAB_ROOT / "notebooks"))  # as a notebook's kernel has it
    import labtools

    return labtools


@pytest.fixture
def silent() -> Iterator[subprocess.Popen[bytes]]:
    """A program alive and silent, as main.py waiting at its prompt for input that never
    comes. It is killed after BOUND seconds: a read that waited for it fails the test then,
    not a minute later."""
    yield from _started("import time; time.sleep(60)")


@pytest.fixture
def stdout_closed() -> Iterator[subprocess.Popen[bytes]]:
    """A program that closed its stdout but lives on, silent, with its stderr open: the error
    path must not wait for that stderr to say something or end."""
    yield from _started("import os, time; os.close(1); time.sleep(60)")


def _started(code: str) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    watchdog = threading.Timer(BOUND, process.kill)
    watchdog.start()
    try:
        yield process
    finally:
        watchdog.cancel()
        process.kill()
        process.communicate(timeout=20)


def test_read_until_gives_up_at_its_deadline_on_a_silent_program(
    labtools: ModuleType, silent: subprocess.Popen[bytes]
) -> None:
    """read_until blocked in stdout.read1() while the program lived: its 20-second deadline
    was only looked at after a read returned, so a silent program hung the cell for ever."""
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"no b'you> ' after 0\.5 s: b''"):
        labtools.read_until(silent, b"you> ", timeout=0.5)
    assert time.monotonic() - started < BOUND / 2


def test_read_until_reports_stderr_without_waiting_for_it_to_end(
    labtools: ModuleType, stdout_closed: subprocess.Popen[bytes]
) -> None:
    """Its error path read stderr with read1(), which waits while the program keeps stderr
    open: a program that closed stdout and lived on hung the cell, whatever the deadline."""
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"no b'you> ': b''"):
        labtools.read_until(stdout_closed, b"you> ")
    assert time.monotonic() - started < BOUND / 2


def test_read_until_reads_what_a_program_says_and_what_it_said_on_stderr(
    labtools: ModuleType,
) -> None:
    """The deadline takes nothing away: output in pieces is gathered, and a program that
    ends without the marker is reported with its last words on stderr."""
    said = "import sys, time\nfor part in ('you> ', 'hello ', 'you> '):\n"
    said += "    sys.stdout.write(part); sys.stdout.flush(); time.sleep(0.1)\n"
    said += "sys.stderr.write('error: no model')"
    done = subprocess.Popen(
        [sys.executable, "-c", said], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert labtools.read_until(done, b"you> ", times=2) == b"you> hello you> "
        with pytest.raises(RuntimeError, match=r"no b'bye': b'error: no model'"):
            labtools.read_until(done, b"bye")
    finally:
        done.kill()
        done.communicate(timeout=20)
