# >>file 02
"""main.py as a user meets it: a real process, fed through a pipe."""

from __future__ import annotations

import subprocess

# >> 05
import sys

# << 05
from pathlib import Path

import orjson

# >> prod
import pytest

# << prod
from harness import run

# >> 05
from harness import STEP_DIR

# << 05


def run_main(cwd: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run(cwd, stdin, *args, text=True, encoding="utf-8")


def session_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.jsonl"))


def test_two_turns_through_a_pipe(tmp_path: Path) -> None:
    done = run_main(tmp_path, "hello\nwhat is 12*8\n/exit\nnever read\n")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    [path] = session_files(tmp_path / ".sessions")
    lines = done.stdout.splitlines()
    # >> 02 until 04
    # assert lines[0] == f"session file: {Path('.sessions') / path.name}"
    # << 02 until 04
    # >> 04
    assert lines[0] == f"session file: {Path('.sessions') / path.name} (model scripted-v1)"
    # << 04
    assert "[tool result] calc -> 96" in lines
    # >> 02 until 03
    # assert lines[-1] == f"6 messages saved to {Path('.sessions') / path.name}"
    # << 02 until 03
    # >> 03 until 05
    # assert lines[-1] == f"6 new messages saved to {Path('.sessions') / path.name} (6 in all)"
    # << 03 until 05
    # >> 05 until prod
    # assert (
    #     lines[-1]
    #     == f"6 new messages saved to {Path('.sessions') / path.name} (6 on the active path)"
    # )
    # << 05 until prod
    # >> prod
    assert lines[-1] == (
        f"6 new messages saved to {Path('.sessions') / path.name} "
        "(the active path now holds 6 messages)"
    )
    # << prod
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert records[0]["type"] == "header" and records[0]["cwd"] == str(tmp_path)
    assert [r["message"]["role"] for r in records[1:]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert "never read" not in path.read_text(encoding="utf-8")


def test_end_of_input_ends_the_run_and_saves(tmp_path: Path) -> None:
    done = run_main(tmp_path, "what is 2+3", "--session-dir", "here")
    assert done.returncode == 0, done.stderr
    [path] = session_files(tmp_path / "here")
    # >> 02 until 03
    # assert done.stdout.splitlines()[-1] == f"4 messages saved to {Path('here') / path.name}"
    # << 02 until 03
    # >> 03
    last = done.stdout.splitlines()[-1]
    # << 03
    # >> 03 until 05
    # assert last == f"4 new messages saved to {Path('here') / path.name} (4 in all)"
    # << 03 until 05
    # >> 05 until prod
    # assert last == f"4 new messages saved to {Path('here') / path.name} (4 on the active path)"
    # << 05 until prod
    # >> prod
    assert last == (
        f"4 new messages saved to {Path('here') / path.name} (the active path now holds 4 messages)"
    )
    # << prod


# >> 02 until 03
# def test_every_run_starts_a_new_session(tmp_path: Path) -> None:
# << 02 until 03
# >> 03
def test_without_continue_every_run_starts_a_new_session(tmp_path: Path) -> None:
    # << 03
    first = run_main(tmp_path, "hello\n")
    second = run_main(tmp_path, "what was the result\n")
    assert first.returncode == second.returncode == 0
    assert len(session_files(tmp_path / ".sessions")) == 2
    assert "no earlier result" in second.stdout  # a new session has no history to recall from


def test_bad_expression_is_answered_not_crashed(tmp_path: Path) -> None:
    done = run_main(tmp_path, "what is 9**9**9\nwhat is 1/0\n")
    assert done.returncode == 0, done.stderr
    assert "[tool error] calc -> result too large" in done.stdout
    assert "[tool error] calc -> division by zero" in done.stdout
    # >> 02 until 03
    # assert "8 messages saved" in done.stdout
    # << 02 until 03
    # >> 03
    assert "8 new messages saved" in done.stdout
    # << 03


def test_unusable_session_dir_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    done = run_main(tmp_path, "hello\n", "--session-dir", "blocker")
    assert done.returncode == 1
    # >> 02 until prod
    # assert done.stderr.startswith("error: cannot write blocker")  # at the first save
    # assert done.stderr.endswith(": Not a directory\n")
    # << 02 until prod
    # >> prod
    assert done.stderr.startswith("error: cannot create session folder blocker")  # before it
    # << prod
    assert len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_a_tab_parts_a_command_from_its_argument(tmp_path: Path) -> None:
    done = run_main(tmp_path, "/help\textra\n/exit\tnow\nhello\n")
    assert "list the commands" in done.stdout and "unknown command" not in done.stdout
    assert "nothing to save" in done.stdout  # /exit<TAB>now ended the run before "hello"


def test_unknown_option_is_one_error_line(tmp_path: Path) -> None:
    done = run_main(tmp_path, "", "--bogus")
    assert done.returncode == 1
    assert done.stderr.startswith("error: unrecognized arguments: --bogus")
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / ".sessions").exists()


# >> 05


def test_main_starts_without_networkx(tmp_path: Path) -> None:
    """networkx is most of a start's time, and only /tree draws with it: it is imported by
    /tree, the first time it runs."""
    script = (
        f"import sys; sys.path.insert(0, {str(STEP_DIR)!r}); import main; "
        "print('networkx' in sys.modules)"
    )
    started = run(tmp_path, None, command=[sys.executable, "-c", script], text=True)
    assert started.stdout == "False\n", started.stderr
    done = run_main(tmp_path, "hello\n/tree\n")
    assert done.returncode == 0 and "● e2 assistant" in done.stdout, done.stdout


# << 05
# >> prod


# main.py with os.fsync counted: how many times the disk was asked to keep what was written.
FSYNC_COUNTING_MAIN = """
import os, sys
sys.path.insert(0, {step!r})
real_fsync, calls = os.fsync, []
def counted(fd):
    calls.append(fd)
    return real_fsync(fd)
os.fsync = counted
import main
status = main.main()
print("fsync calls:", len(calls), file=sys.stderr)
sys.exit(status)
"""


@pytest.mark.parametrize("flag, waits", [((), False), (("--fsync",), True)])
def test_fsync_is_asked_for_only_with_the_flag(
    tmp_path: Path, flag: tuple[str, ...], waits: bool
) -> None:
    script = tmp_path / "counting_main.py"
    script.write_text(FSYNC_COUNTING_MAIN.format(step=str(STEP_DIR)), encoding="utf-8")
    done = run(tmp_path, "what is 12*8\n", *flag, command=[sys.executable, str(script)], text=True)
    assert done.returncode == 0, done.stderr
    calls = int(done.stderr.rsplit("fsync calls:", 1)[1])
    # with the flag: the file after each save, and its folder when the first save created it
    assert calls >= 2 if waits else calls == 0
    [saved] = session_files(tmp_path / ".sessions")
    assert len(saved.read_bytes().splitlines()) == 5  # the header and the turn's 4 messages


# << prod
