# >>file 02
"""main.py against hostile input and broken environments, each run as a real process.

The rules: no traceback, no hang, and no lost turn. A fault is one `error:` line (and exit
status 1) or one `warning:` line (and the run goes on); what was saved before it stays saved.
"""

from __future__ import annotations

# >> prod
import os

# << prod
import signal

# >> prod
import subprocess
import time

# << prod
from pathlib import Path

import pytest

from harness import read_until, run, run_in_shell, running, type_lines, user_texts

# >> 02 until prod
# from harness import main_with_slow_calc
# << 02 until prod
# >> prod
from harness import with_tool_delay

from session import Session

# << prod

# Facilities only Linux has: a test that needs one skips, saying which, where it is missing.
NEEDS_PROC = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads peak memory in /proc (Linux only)"
)
NEEDS_DEV_FULL = pytest.mark.skipif(
    not Path("/dev/full").exists(), reason="needs /dev/full, where every write fails (Linux only)"
)


def test_a_line_that_is_not_utf8_costs_that_line_alone(tmp_path: Path) -> None:
    done = run(tmp_path, b"hello\nwhat is 2*3\n\xff\xfe broken\nwhat is 3*4\n")
    assert done.returncode == 0
    assert done.stderr == b"warning: a line that is not UTF-8 text was skipped\n"
    assert user_texts(tmp_path / ".sessions") == ["hello", "what is 2*3", "what is 3*4"]


# >> prod


def test_a_line_over_the_input_limit_is_refused_and_the_next_one_runs(tmp_path: Path) -> None:
    done = run(tmp_path, b"x" * (5 * 1024 * 1024) + b"\nwhat is 2*3\n")
    assert done.returncode == 0
    assert done.stderr == b"warning: a line over 4,194,304 bytes was skipped\n"
    assert user_texts(tmp_path / ".sessions") == ["what is 2*3"]


@NEEDS_PROC
def test_endless_input_without_a_newline_runs_in_bounded_memory(tmp_path: Path) -> None:
    """`main.py < /dev/zero`: it reads on forever, as `cat` would, but never holds it all."""
    with (
        open("/dev/zero", "rb") as zeros,
        running(tmp_path, stdin=zeros, stdout=subprocess.DEVNULL, stderr=None) as process,
    ):
        time.sleep(1.5)  # long enough to read gigabytes
        status = Path(f"/proc/{process.pid}/status").read_text()
    peak_kib = int(
        next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]
    )
    assert peak_kib < 150 * 1024, f"peak memory {peak_kib} KiB"


# << prod


def test_a_run_that_saves_nothing_leaves_no_file(tmp_path: Path) -> None:
    for stdin in [b"", b"/exit\n", b"\n  \n/help\n/exit\n"]:
        done = run(tmp_path, stdin)
        assert done.returncode == 0 and done.stderr == b""
        assert done.stdout.decode().splitlines()[-1] == (
            "nothing to save: no session file was written"
        )
    assert not (tmp_path / ".sessions").exists()


def test_commands_are_never_messages(tmp_path: Path) -> None:
    done = run(tmp_path, b"/help\n/nonsense here\nhello\n/exit\nnever\n")
    assert done.returncode == 0 and done.stderr == b""
    out = done.stdout.decode()
    assert "  /help          list the commands" in out
    assert "  /exit          end the run (so does the end of input)" in out
    assert "unknown command /nonsense (/help lists the commands)" in out
    assert user_texts(tmp_path / ".sessions") == ["hello"]


@NEEDS_DEV_FULL
def test_standard_output_failing_from_the_start_is_one_error_line(tmp_path: Path) -> None:
    """/dev/full fails every write, as a full disk under a log file would."""
    with open("/dev/full", "w") as full:
        done = run(tmp_path, b"what is 12*8\n", stdout=full)
    assert done.returncode == 1
    assert done.stderr == b"error: cannot write to standard output: No space left on device\n"


# >> prod


def test_standard_output_closing_mid_turn_never_costs_the_turn(tmp_path: Path) -> None:
    """The reader of our output goes away while the tool runs: what the turn shows next
    cannot be printed, and the turn is saved all the same; then the run ends in one line."""
    with running(tmp_path, env=with_tool_delay(1)) as process:
        assert process.stdin is not None and process.stdout is not None
        type_lines(process, "what is 12*8", "hello")
        process.stdin.close()
        read_until(process, b"[tool call]")
        process.stdout.close()  # nobody reads the tool's result, the answer or [turn end]
        assert process.wait(timeout=30) == 1
        assert process.stderr is not None
        assert process.stderr.read() == b"error: cannot write to standard output: Broken pipe\n"
    assert user_texts(tmp_path / ".sessions") == ["what is 12*8"]
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    assert len(path.read_bytes().splitlines()) == 1 + 4  # the whole turn, not a part of it


# << prod


def test_ctrl_c_at_an_idle_prompt_says_what_is_saved(tmp_path: Path) -> None:
    with running(tmp_path) as process:
        type_lines(process, "hello")
        read_until(process, b"you> ", 2)  # the second prompt: the first turn is over and saved
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    [line] = err.decode().splitlines()
    assert line.startswith("warning: interrupted: 2 ") and "turn in progress" not in line
    assert user_texts(tmp_path / ".sessions") == ["hello"]


# >> 02 until prod
# def test_ctrl_c_during_a_turn_loses_that_turn_alone(tmp_path: Path) -> None:
#     """A turn is saved when it ends: the one Ctrl-C cut is not in the file, every one before."""
#     with running(tmp_path, command=main_with_slow_calc(5)) as process:
# << 02 until prod
# >> prod
def test_ctrl_c_during_a_turn_keeps_what_the_turn_finished(tmp_path: Path) -> None:
    """Each message is saved as it ends: the user's line is in the file before the model
    answers. (tests/test_durability.py interrupts the tool call itself.)"""
    with running(tmp_path, env=with_tool_delay(5)) as process:
        # << prod
        type_lines(process, "hello", "what is 12*8")
        # >> 02 until prod
        # read_until(process, b"[tool call]")  # the tool is sleeping now
        # << 02 until prod
        # >> prod
        read_until(process, b"[tool call]")  # the tool is about to sleep, or sleeping
        # << prod
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    # >> 02 until prod
    # assert process.returncode == 130
    # assert err.decode().startswith("warning: interrupted: 2 ")
    # assert user_texts(tmp_path / ".sessions") == ["hello"]
    # << 02 until prod
    # >> prod
    assert process.returncode == 0  # the turn was abandoned; the end of input ended the run
    [line] = err.decode().splitlines()
    assert line.startswith("warning: interrupted: the turn was abandoned"), line
    assert user_texts(tmp_path / ".sessions") == ["hello", "what is 12*8"]
    # << prod


@pytest.mark.parametrize(
    ("shell", "message"),
    [
        ("exec {main} <&-", "error: standard input is closed"),
        ("mkdir gone && cd gone && rmdir ../gone && exec {main}", "error: the working directory"),
        # >> 02 until prod
        # ("mkdir $'caf\\xe9' && cd $'caf\\xe9' && exec {main}", "error: cannot write"),
        # << 02 until prod
        # >> prod
        ("mkdir $'caf\\xe9' && cd $'caf\\xe9' && exec {main}", "error: the working directory's"),
        # << prod
    ],
    ids=["closed stdin", "deleted working directory", "working directory not UTF-8"],
)
def test_a_broken_environment_is_one_error_line(tmp_path: Path, shell: str, message: str) -> None:
    done = run_in_shell(tmp_path, shell, b"hello\n")
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 1, err
    assert err.startswith(message) and len(err.splitlines()) == 1, err


# >> prod


def test_control_characters_in_a_path_are_shown_escaped(tmp_path: Path) -> None:
    done = run(tmp_path, b"hello\n", "--session-dir", "evil\x1b[31m\rerror: fake")
    assert done.returncode == 0
    assert b"\x1b" not in done.stdout and b"\r" not in done.stdout
    assert "evil\\x1b[31m\\rerror: fake" in done.stdout.decode()


# << prod


def test_a_session_folder_path_too_long_is_one_error_line(tmp_path: Path) -> None:
    done = run(tmp_path, b"hello\n", "--session-dir", "x" * 300)
    assert done.returncode == 1
    assert done.stderr.decode().startswith("error: cannot create session folder")
    assert len(done.stderr.splitlines()) == 1


# >> prod


@NEEDS_PROC
def test_a_huge_run_of_nul_bytes_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    """A crash on some filesystems leaves a file's tail as zeros: here 512 MB of them, sparse,
    with no newline. It costs that one line, never the memory to hold it."""
    session_dir = tmp_path / ".sessions"
    done = run(tmp_path, b"what is 12*8\n")
    assert done.returncode == 0
    [path] = session_dir.glob("*.jsonl")
    with path.open("ab") as file:
        file.truncate(path.stat().st_size + 512 * 1024**2)
    with running(tmp_path, "--continue") as process:
        type_lines(process, "what was the result")
        seen = read_until(process, b"you> ", 2)  # resumed, answered, saved, waiting for more
        status = Path(f"/proc/{process.pid}/status").read_text()
        out, err = process.communicate(b"", timeout=60)
    assert process.returncode == 0, err
    peak_kib = int(
        next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]
    )
    assert peak_kib < 150 * 1024, f"peak memory {peak_kib} KiB"
    assert err.decode().startswith("warning: skipped 1 damaged line in ")
    assert "The last result was 96 (12*8)." in seen.decode()
    resumed = Session.open(path)
    assert resumed.skipped == 1 and len(resumed.context.messages) == 6


def test_a_fifo_named_like_a_session_never_blocks_continue(tmp_path: Path) -> None:
    assert run(tmp_path, b"hello\n").returncode == 0
    os.mkfifo(tmp_path / ".sessions" / "zzz-newest.jsonl")
    done = run(tmp_path, b"what was the result\n", "--continue")
    assert done.returncode == 0
    assert done.stderr.decode() == (
        "warning: .sessions/zzz-newest.jsonl: not a session (not a regular file); passed over\n"
    )


def test_an_empty_session_folder_name_is_one_error_line(tmp_path: Path) -> None:
    """`--session-dir ''` (an unset variable in a script) used to write into the current folder."""
    done = run(tmp_path, b"hello\n", "--session-dir", "")
    assert done.returncode == 1
    assert done.stderr == (
        b"error: argument --session-dir: an empty name is not a folder (see --help)\n"
    )
    assert list(tmp_path.iterdir()) == []


# << prod
