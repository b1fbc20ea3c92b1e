"""Two runs never write into one session at once: the second `--continue` is refused in one
line and writes nothing, and a dead holder never locks the session (the kernel lets go)."""

from __future__ import annotations

from pathlib import Path

from conftest import RunMain, Saved
from harness import in_use_line, read_until, running, type_lines


def test_a_second_continue_of_a_session_in_use_is_refused(
    saved: Saved, tmp_path: Path, run_main: RunMain
) -> None:
    before = saved.path.read_bytes()
    with running(tmp_path, "--continue") as holder:
        read_until(holder, b"you> ")  # resumed and locked
        second = run_main("what is 2+3\n", "--continue")
        shown = Path(".sessions") / saved.path.name
        assert (second.returncode, second.stderr, second.stdout) == (1, in_use_line(shown), b"")
        assert saved.path.read_bytes() == before  # it wrote nothing
        holder.kill()  # SIGKILL: no chance to let go of the lock; the kernel does it
        holder.communicate(timeout=10)
    third = run_main("what was the result\n", "--continue")
    assert third.returncode == 0 and third.stderr == b""
    assert b"96" in third.stdout


def test_a_new_session_is_locked_from_its_first_save(tmp_path: Path, run_main: RunMain) -> None:
    with running(tmp_path) as holder:
        type_lines(holder, "hello")
        read_until(holder, b"you> ", 2)  # the first turn is saved: the file exists, locked
        [path] = (tmp_path / ".sessions").glob("*.jsonl")
        before = path.read_bytes()
        second = run_main("hello\n", "--continue")
        assert (second.returncode, second.stderr) == (1, in_use_line(Path(".sessions", path.name)))
        assert path.read_bytes() == before
        _, err = holder.communicate(b"", timeout=30)  # end of input: it ends and lets go
        assert holder.returncode == 0, err
    assert run_main("hello\n", "--continue").returncode == 0


def test_ids_stay_unique_when_the_runs_take_turns(tmp_path: Path, run_main: RunMain) -> None:
    for text in ("hello", "what is 12*8", "what was the result"):
        assert run_main(f"{text}\n", "--continue").returncode == 0
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    ids = [line.split(b'"id":"')[1].split(b'"')[0] for line in path.read_bytes().splitlines()[1:]]
    assert len(ids) == len(set(ids)) == 2 + 4 + 2
