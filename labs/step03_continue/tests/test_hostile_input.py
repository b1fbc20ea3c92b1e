"""main.py against hostile input and broken environments, each run as a real process.

The rules: no traceback, no hang, and no lost turn. A fault is one `error:` line (and exit
status 1) or one `warning:` line (and the run goes on); what was saved before it stays saved.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from harness import (
    main_with_slow_calc,
    read_until,
    run,
    run_in_shell,
    running,
    type_lines,
    user_texts,
)

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


def test_ctrl_c_during_a_turn_loses_that_turn_alone(tmp_path: Path) -> None:
    """A turn is saved when it ends: the one Ctrl-C cut is not in the file, every one before."""
    with running(tmp_path, command=main_with_slow_calc(5)) as process:
        type_lines(process, "hello", "what is 12*8")
        read_until(process, b"[tool call]")  # the tool is sleeping now
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err.decode().startswith("warning: interrupted: 2 ")
    assert user_texts(tmp_path / ".sessions") == ["hello"]


@pytest.mark.parametrize(
    ("shell", "message"),
    [
        ("exec {main} <&-", "error: standard input is closed"),
        ("mkdir gone && cd gone && rmdir ../gone && exec {main}", "error: the working directory"),
        ("mkdir $'caf\\xe9' && cd $'caf\\xe9' && exec {main}", "error: cannot write"),
    ],
    ids=["closed stdin", "deleted working directory", "working directory not UTF-8"],
)
def test_a_broken_environment_is_one_error_line(tmp_path: Path, shell: str, message: str) -> None:
    done = run_in_shell(tmp_path, shell, b"hello\n")
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 1, err
    assert err.startswith(message) and len(err.splitlines()) == 1, err


def test_a_session_folder_path_too_long_is_one_error_line(tmp_path: Path) -> None:
    done = run(tmp_path, b"hello\n", "--session-dir", "x" * 300)
    assert done.returncode == 1
    assert done.stderr.decode().startswith("error: cannot create session folder")
    assert len(done.stderr.splitlines()) == 1
