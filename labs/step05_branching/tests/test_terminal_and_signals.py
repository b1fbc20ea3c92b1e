"""The terminal, through main.py as a real process: a standard input that cannot be read is one
line that says what was saved, and Ctrl-C before main() has begun is no traceback."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

from harness import read_until, run, running, stop_signals_at_default, user_texts


def ignoring(signum: int) -> Callable[[], None]:
    """For a child: `signum` ignored (what nohup and a background job do), the other two stop
    signals at their default."""

    def in_child() -> None:
        stop_signals_at_default()
        signal.signal(signum, signal.SIG_IGN)

    return in_child


def test_ctrl_c_while_main_py_imports_its_modules_ends_the_run_quietly(tmp_path: Path) -> None:
    """Ctrl-C in a run's first tenth of a second, while main.py's imports run and before
    main() has said what it does: KeyboardInterrupt came out of an import, as a traceback.
    Here it arrives exactly there, sent by a stand-in for `secrets` that PYTHONPATH finds
    first; a run that ignores SIGINT must not end on it."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "secrets.py").write_text(
        "import os, signal, sys\n"
        "os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, in the middle of main.py's imports\n"
        "sys.path.remove(os.path.dirname(os.path.abspath(__file__)))\n"
        "del sys.modules['secrets']\n"
        "import secrets  # the real one, for a run that goes on\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(shadow)}
    for preexec, status in [(ignoring(signal.SIGTERM), 130), (ignoring(signal.SIGINT), 0)]:
        done = run(tmp_path, b"", env=environment, preexec_fn=preexec)
        assert (done.returncode, done.stderr) == (status, b"")
        assert not (tmp_path / ".sessions").exists()


def test_a_terminal_that_went_away_is_one_error_line(tmp_path: Path) -> None:
    """Reading a terminal whose other side has closed fails with EIO: one line, what was
    saved. (The run reads the pty's controller side, where that error is certain; on the
    other side a hangup can also read as a plain end of input.)"""
    controller, other_side = os.openpty()
    with running(tmp_path, stdin=controller) as process:
        os.close(controller)
        os.write(other_side, b"hello\n")
        read_until(process, b"you> ", 2)  # the first turn is over and saved
        os.close(other_side)  # the terminal goes away
        _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    [line] = err.decode().splitlines()
    assert line.startswith("error: cannot read standard input: Input/output error; ")
    assert "saved to" in line
    assert user_texts(tmp_path / ".sessions") == ["hello"]


def test_a_standard_input_not_open_for_reading_is_one_error_line(tmp_path: Path) -> None:
    with open(tmp_path / "write-only", "wb") as write_only:
        done = run(tmp_path, None, stdin=write_only)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: cannot read standard input: Bad file descriptor; "
        "nothing to save: no session file was written\n"
    )
    assert not (tmp_path / ".sessions").exists()


def test_a_closed_standard_output_is_one_error_line(tmp_path: Path) -> None:
    """main.py >&-: Python starts with no sys.stdout, and the first line printed was an
    AttributeError traceback. (The production step treats it as a write that failed.)"""
    done = run(tmp_path, b"hello\n", stdout=None, preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (1, b"error: standard output is closed\n")
    assert not (tmp_path / ".sessions").exists()  # nothing was read, so nothing is lost
