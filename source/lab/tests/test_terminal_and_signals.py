# >>file 02
# >> 02 until prod
# """The terminal, through main.py as a real process: a standard input that cannot be read is one
# line that says what was saved, and Ctrl-C before main() has begun is no traceback."""
# << 02 until prod
# >> prod
"""The terminal and the stop signals, through main.py as a real process: a standard input that
cannot be read, or that is not blocking, and a stop signal ignored when the run started."""
# << prod

from __future__ import annotations

# >> prod
import io

# << prod
import os
import signal

# >> prod
import threading
import time

# << prod
from collections.abc import Callable
from pathlib import Path

# >> prod
import pytest

# << prod
from harness import read_until, run, running, stop_signals_at_default, user_texts

# >> prod
from harness import main_slowed, type_lines

from terminal import Terminal, read_line

# main.py with each save slowed down and announced on stderr, so a signal can land inside one.
SLOW_SAVE = main_slowed("commands.Chat.save_new", 0.5, "[saving]", on_stderr=True)
# << prod


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


# >> prod


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP], ids=["SIGINT", "SIGHUP"])
def test_a_stop_signal_ignored_at_start_stays_ignored(tmp_path: Path, signum: int) -> None:
    """`nohup main.py` and `main.py &` ask for SIGHUP and SIGINT to be ignored: the run goes on."""
    with running(tmp_path, in_child=ignoring(signum)) as process:
        type_lines(process, "hello")
        read_until(process, b"you> ", 2)  # the first turn is over
        process.send_signal(signum)
        time.sleep(0.3)
        assert process.poll() is None, "the run ended on a signal it was started ignoring"
        _, err = process.communicate(b"what is 12*8\n", timeout=60)
    assert process.returncode == 0 and err == b""
    assert user_texts(tmp_path / ".sessions") == ["hello", "what is 12*8"]


def test_a_stop_signal_ignored_at_start_stays_ignored_during_a_save(tmp_path: Path) -> None:
    """A save holds the stop signals back; it must not take over one that was ignored."""
    with running(tmp_path, command=SLOW_SAVE, in_child=ignoring(signal.SIGINT)) as process:
        type_lines(process, "hello")
        read_until(process, b"[saving]\n", stream=process.stderr)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(b"what is 12*8\n", timeout=60)
    assert process.returncode == 0, err
    assert [line for line in err.decode().splitlines() if line != "[saving]"] == []
    assert user_texts(tmp_path / ".sessions") == ["hello", "what is 12*8"]


def test_a_non_blocking_standard_input_is_waited_for_not_taken_as_its_end(
    tmp_path: Path,
) -> None:
    """A non-blocking pipe says "nothing yet" the way a closed one says "the end"."""
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)  # as a parent (a node or asyncio program) can leave it
    with running(tmp_path, stdin=read_end) as process:
        os.close(read_end)

        def type_slowly() -> None:
            for piece in (b"hel", b"lo\n", b"what is ", b"12*8\n"):
                time.sleep(0.3)
                os.write(write_end, piece)
            os.close(write_end)

        typist = threading.Thread(target=type_slowly)
        typist.start()
        out, err = process.communicate(timeout=60)
        typist.join()
    assert process.returncode == 0, err
    assert user_texts(tmp_path / ".sessions") == ["hello", "what is 12*8"]
    assert b"96" in out


class Trickle:
    """A non-blocking standard input that has 128 bytes ready at each read, as a slow pipe
    has; `fileno` is a pipe that is always readable, so no wait ever blocks."""

    def __init__(self, data: bytes, fd: int) -> None:
        self.data, self.at, self.fd = data, 0, fd

    def fileno(self) -> int:
        return self.fd

    def readline(self, limit: int) -> bytes:
        piece = self.data[self.at : self.at + min(128, limit)]
        self.at += len(piece)
        return piece


def test_a_long_line_read_in_small_pieces_costs_time_in_proportion_to_it() -> None:
    """A 4 MB line in 128-byte pieces, each added to the line so far, cost 6 seconds of CPU
    (8 s on the machine of the report; 0.4 s read blocking): quadratic. Joined once, 0.1 s."""
    from terminal import MAX_INPUT_BYTES, _next_raw_line

    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"!")
        os.set_blocking(read_end, False)
        line = b"x" * (4 * 1024 * 1024 - 1) + b"\n"
        started = time.process_time()
        assert _next_raw_line(Trickle(line, read_end), MAX_INPUT_BYTES + 1) == line  # type: ignore[arg-type]
        assert time.process_time() - started < 2
    finally:
        os.close(read_end)
        os.close(write_end)


# << prod


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


# >> 02 until prod
#
#
# def test_a_closed_standard_output_is_one_error_line(tmp_path: Path) -> None:
#     """main.py >&-: Python starts with no sys.stdout, and the first line printed was an
#     AttributeError traceback. (The production step treats it as a write that failed.)"""
#     done = run(tmp_path, b"hello\n", stdout=None, preexec_fn=lambda: os.close(1))
#     assert (done.returncode, done.stderr) == (1, b"error: standard output is closed\n")
#     assert not (tmp_path / ".sessions").exists()  # nothing was read, so nothing is lost
# << 02 until prod
# >> prod


def test_a_line_cut_short_is_ended_before_what_standard_error_says() -> None:
    """A reply that breaks off mid-stream leaves its line open; the `error:` line after it must
    start a line of its own. A line the user typed at a terminal was ended by its Enter."""
    screen = io.StringIO()
    terminal = Terminal(screen)
    terminal.write("assistant> Let me use")
    terminal.end_line()
    terminal.end_line()  # once: a line already ended gets no empty line
    assert screen.getvalue() == "assistant> Let me use\n"

    typed = io.BytesIO(b"hello\n")
    assert read_line(typed, terminal, echo=False) == "hello"  # as at a terminal: no echo
    terminal.end_line()
    assert screen.getvalue().endswith("you> ")  # the terminal's own echo ended that line


# << prod
