"""main.py as a user meets it: a real process, fed through a pipe."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
from harness import run


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
    assert lines[0] == f"session file: {Path('.sessions') / path.name}"
    assert "[tool result] calc -> 96" in lines
    assert lines[-1] == f"6 new messages saved to {Path('.sessions') / path.name} (6 in all)"
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
    last = done.stdout.splitlines()[-1]
    assert last == f"4 new messages saved to {Path('here') / path.name} (4 in all)"


def test_without_continue_every_run_starts_a_new_session(tmp_path: Path) -> None:
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
    assert "8 new messages saved" in done.stdout


def test_unusable_session_dir_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    done = run_main(tmp_path, "hello\n", "--session-dir", "blocker")
    assert done.returncode == 1
    assert done.stderr.startswith("error: cannot write blocker")  # at the first save
    assert done.stderr.endswith(": Not a directory\n")
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
