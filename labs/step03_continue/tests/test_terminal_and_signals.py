"""The terminal, through main.py as a real process: a standard input that cannot be read is one
line that says what was saved, and Ctrl-C before main() has begun is no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import orjson

STEP_DIR = Path(__file__).resolve().parent.parent
MAIN = [sys.executable, str(STEP_DIR / "main.py")]

# main.py with each save slowed down and announced on stderr, so a signal can land inside one.
SLOW_SAVE = """
import runpy, sys, time
sys.argv = sys.argv[1:]
sys.path.insert(0, {step!r})
import commands
save_new = commands.Chat.save_new
def slowly(self):
    print("[saving]", file=sys.stderr, flush=True)
    time.sleep(0.5)
    return save_new(self)
commands.Chat.save_new = slowly
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def user_lines(folder: Path) -> list[str]:
    """The user's lines in every session file of `folder`, in file order."""
    texts = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_bytes().splitlines()[1:]:
            entry = orjson.loads(line)
            message = entry.get("message", {})
            if message.get("role") == "user":
                texts.append(message["content"][0]["text"])
    return texts


def ignoring(signum: int) -> Callable[[], None]:
    """A preexec_fn: the child starts with `signum` ignored, the other two at their default."""

    def preexec() -> None:
        for other in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(other, signal.SIG_DFL)
        signal.signal(signum, signal.SIG_IGN)  # what nohup and a background job do

    return preexec


def watched(process: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
    """Killed after 60 seconds: a run that hangs fails its test instead of hanging it."""
    watchdog = threading.Timer(60, process.kill)
    watchdog.daemon = True
    watchdog.start()
    return process


def read_until(stream: object, marker: bytes, count: int = 1) -> bytes:
    seen = b""
    while seen.count(marker) < count:
        byte = stream.read(1)  # type: ignore[attr-defined]
        assert byte, f"the process ended before {marker!r}: {seen[-300:]!r}"
        seen += byte
    return seen


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
        done = subprocess.run(
            MAIN, cwd=tmp_path, input=b"", capture_output=True, env=environment,
            preexec_fn=preexec, timeout=60,
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (status, b"")
        assert not (tmp_path / ".sessions").exists()


def test_a_terminal_that_went_away_is_one_error_line(tmp_path: Path) -> None:
    """Reading a terminal whose other side has closed fails with EIO: one line, what was
    saved. (The run reads the pty's controller side, where that error is certain; on the
    other side a hangup can also read as a plain end of input.)"""
    controller, other_side = os.openpty()
    process = watched(
        subprocess.Popen(
            MAIN, cwd=tmp_path, stdin=controller, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    )
    os.close(controller)
    os.write(other_side, b"hello\n")
    assert process.stdout is not None
    read_until(process.stdout, b"you> ", 2)  # the first turn is over and saved
    os.close(other_side)  # the terminal goes away
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    [line] = err.decode().splitlines()
    assert line.startswith("error: cannot read standard input: Input/output error; ")
    assert "saved to" in line
    assert user_lines(tmp_path / ".sessions") == ["hello"]


def test_a_standard_input_not_open_for_reading_is_one_error_line(tmp_path: Path) -> None:
    with open(tmp_path / "write-only", "wb") as write_only:
        done = subprocess.run(MAIN, cwd=tmp_path, stdin=write_only, capture_output=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: cannot read standard input: Bad file descriptor; "
        "nothing to save: no session file was written\n"
    )
    assert not (tmp_path / ".sessions").exists()


def test_a_closed_standard_output_is_one_error_line(tmp_path: Path) -> None:
    """main.py >&-: Python starts with no sys.stdout, and the first line printed was an
    AttributeError traceback. (The production step treats it as a write that failed.)"""
    done = subprocess.run(
        MAIN, cwd=tmp_path, input=b"hello\n", stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1), timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, b"error: standard output is closed\n")
    assert not (tmp_path / ".sessions").exists()  # nothing was read, so nothing is lost
