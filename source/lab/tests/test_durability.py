# >>file prod
"""Durability against real faults, each one done to a real process: a SIGKILL in a long tool
call, the interrupted call answered on resume (and never run again), two runs on one session,
Ctrl-C and SIGTERM, a write cut short by a file size limit, and fsync.

Every process is started with a time bound and killed at the end of its test if still alive.
"""

from __future__ import annotations

import shutil
import signal
import sys
import time
from pathlib import Path

import orjson
import pytest
from conftest import Saved, call_message, result
from harness import (
    STEP_DIR,
    entries_in,
    file_size_limit,
    in_use_line,
    main_patched,
    new_chat,
    new_session,
    read_until,
    run,
    running,
    type_lines,
    wait_for_entries,
    with_tool_delay,
)

import turn
from commands import Chat
from interrupted_calls import INTERRUPTED, repair_interrupted_calls
from loop import MessageEnd, run_turn
from messages import tool_calls, user_text
from model import ScriptedModel
from session import Session, read_session
from tools import default_tools

SHOWN = Path(".sessions", "first.jsonl")  # the `saved` fixture's file, as main.py names it

# main.py with a calc that writes each expression it evaluates to calc-runs.txt: a real
# process whose tool runs can be counted from outside.
COUNTING = """
from dataclasses import replace
import tools
calc = tools.CALC
def counted(arguments):
    with open({log!r}, "a") as log:
        log.write(arguments["expression"] + "\\n")
    return calc.run(arguments)
tools.default_tools = lambda: {{"calc": replace(calc, run=counted)}}
"""


def counting_main(tmp_path: Path) -> list[str]:
    return main_patched(COUNTING.format(log=str(tmp_path / "calc-runs.txt")))


def calc_runs(tmp_path: Path) -> list[str]:
    log = tmp_path / "calc-runs.txt"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def roles(entries: list[dict]) -> list[str]:
    return [e["message"]["role"] for e in entries if e["type"] == "message"]


# --- 1. Each message is saved the moment it is finished ----------------------------------


def test_each_message_is_in_the_file_before_its_message_end_is_passed_on(tmp_path: Path) -> None:
    chat = new_chat(tmp_path, "s")
    events = run_turn(ScriptedModel(), default_tools(), chat.messages, user_text("what is 12*8"))
    in_file = []
    for event in turn.saving_each_message(events, chat):
        if isinstance(event, MessageEnd):
            in_file.append(len(entries_in(tmp_path)))
    assert in_file == [1, 2, 3, 4]  # the user's line, the call, the result, the answer
    assert chat.cursor == 4 and chat.written_this_run == 4


def test_a_sigkill_during_a_long_tool_call_keeps_the_question_and_the_call(
    tmp_path: Path,
) -> None:
    with running(tmp_path, env=with_tool_delay(30)) as process:
        type_lines(process, "what is 12*8")
        entries = wait_for_entries(tmp_path / ".sessions", 2)  # while the tool sleeps 30 s
        assert process.poll() is None  # the turn is not over, and it never will be
        process.kill()
        process.wait(timeout=10)
    assert entries_in(tmp_path / ".sessions") == entries
    user, call = (e["message"] for e in entries)
    assert user == user_text("what is 12*8")
    assert [c["arguments"] for c in tool_calls(call)] == [{"expression": "12*8"}]


# --- 2. An interrupted tool call is answered on resume, never run again -------------------


def test_repair_appends_one_error_result_per_unanswered_call(tmp_path: Path) -> None:
    session = new_session(tmp_path, "r")
    for message in [user_text("two sums"), call_message("a", "b"), result("a")]:
        session.append_message(message)
    before = session.path.read_bytes()
    resumed = Session.open(session.path)
    chat = Chat(resumed.session, [], cursor=0)
    chat.follow(resumed.context)
    assert repair_interrupted_calls(chat) == 1
    assert repair_interrupted_calls(chat) == 0  # answered now: nothing more to do
    after = session.path.read_bytes()
    assert after.startswith(before)  # appended, never rewritten
    [entry] = [orjson.loads(line) for line in after[len(before) :].splitlines()]
    assert (entry["id"], entry["parentId"]) == ("e4", "e3")
    assert entry["message"] == {
        "role": "toolResult",
        "toolCallId": "b",
        "toolName": "calc",
        "content": [{"type": "text", "text": INTERRUPTED}],
        "isError": True,
    }
    assert INTERRUPTED == (
        "interrupted: the program stopped before this tool call finished; it was not run again"
    )


def test_a_killed_tool_call_is_answered_on_resume_and_never_run_again(tmp_path: Path) -> None:
    folder = tmp_path / ".sessions"
    with running(tmp_path, command=counting_main(tmp_path), env=with_tool_delay(30)) as process:
        type_lines(process, "what is 12*8")
        wait_for_entries(folder, 2)
        process.kill()
        process.wait(timeout=10)
    [path] = folder.glob("*.jsonl")
    before = path.read_bytes()
    shown = Path(".sessions", path.name)

    resumed = run(
        tmp_path,
        b"what was the result\nwhat is 2+3\n",
        "--continue",
        command=counting_main(tmp_path),
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.decode().splitlines() == [
        f"warning: repaired 1 interrupted tool call in {shown} "
        "(an error result each; not run again)"
    ]
    out = resumed.stdout.decode()
    assert "(resumed: 2 messages restored, model scripted-v1)" in out
    assert "I have no earlier result in this conversation." in out  # an error is no result
    assert calc_runs(tmp_path) == ["2+3"]  # 12*8 never ran again; the counter itself works
    after = path.read_bytes()
    assert after.startswith(before)
    repair = orjson.loads(after[len(before) :].split(b"\n")[0])
    assert repair["parentId"] == "e2" and repair["message"]["isError"] is True
    assert repair["message"]["content"] == [{"type": "text", "text": INTERRUPTED}]

    again = run(tmp_path, b"", "--continue")  # answered once, and only once
    assert again.returncode == 0 and again.stderr == b""
    assert path.read_bytes() == after


# --- 3. Two runs on one session: the second is refused ------------------------------------


def test_a_second_run_cannot_continue_a_session_in_use(saved: Saved, tmp_path: Path) -> None:
    before = saved.path.read_bytes()
    with running(tmp_path, "--continue") as holder:
        read_until(holder, b"you> ")  # resumed, locked, waiting for a line
        second = run(tmp_path, b"what is 2+3\n", "--continue")
        assert (second.returncode, second.stderr, second.stdout) == (1, in_use_line(SHOWN), b"")
        assert saved.path.read_bytes() == before  # it wrote nothing
        holder.kill()  # a stale lock after SIGKILL: the kernel drops it with the process
        holder.wait(timeout=10)
    third = run(tmp_path, b"what was the result\n", "--continue")
    assert third.returncode == 0 and third.stderr == b""
    assert b"The last result was 96 (12*8)." in third.stdout


def test_a_new_session_is_locked_from_its_first_save(tmp_path: Path) -> None:
    with running(tmp_path) as holder:
        type_lines(holder, "hello")
        read_until(holder, b"you> ", 2)  # the first turn is saved: the file exists now
        [path] = (tmp_path / ".sessions").glob("*.jsonl")
        before = path.read_bytes()
        second = run(tmp_path, b"hello\n", "--continue")
        assert second.returncode == 1
        assert second.stderr == in_use_line(Path(".sessions", path.name))
        assert path.read_bytes() == before
        assert holder.stdin is not None
        holder.stdin.close()  # end of input: the holder ends normally, and lets go
        assert holder.wait(timeout=10) == 0
    assert run(tmp_path, b"hello\n", "--continue").returncode == 0


# --- 4. Ctrl-C and SIGTERM -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("signum", "status", "word"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")],
    ids=["sigterm", "sighup"],
)
def test_a_signal_at_the_prompt_ends_the_run_in_one_line(
    tmp_path: Path, signum: int, status: int, word: str
) -> None:
    with running(tmp_path) as process:
        type_lines(process, "hello")
        read_until(process, b"you> ", 2)
        process.send_signal(signum)
        _, err = process.communicate(timeout=10)
    assert process.returncode == status
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    assert err.decode() == (
        f"warning: {word}: 2 new messages saved to {Path('.sessions', path.name)} "
        "(the active path now holds 2 messages)\n"
    )


@pytest.mark.parametrize(
    ("signum", "status", "word"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")],
    ids=["sigterm", "sighup"],
)
def test_a_signal_during_a_tool_call_stops_the_call_not_the_history(
    tmp_path: Path, signum: int, status: int, word: str
) -> None:
    with running(tmp_path, command=counting_main(tmp_path), env=with_tool_delay(30)) as process:
        type_lines(process, "what is 12*8")
        wait_for_entries(tmp_path / ".sessions", 2)  # the call is saved; the tool sleeps 30 s
        started = time.monotonic()
        process.send_signal(signum)
        _, err = process.communicate(timeout=10)
        assert time.monotonic() - started < 5  # the 30-second call was stopped, not awaited
    assert process.returncode == status
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    shown = Path(".sessions", path.name)
    assert err.decode() == (
        f"warning: {word}: 2 new messages saved to {shown} (the active path now holds 2 messages); "
        "the tool call in progress was stopped (--continue answers it)\n"
    )
    assert roles(entries_in(tmp_path / ".sessions")) == ["user", "assistant"]
    assert calc_runs(tmp_path) == []

    resumed = run(tmp_path, b"", "--continue", command=counting_main(tmp_path))
    assert resumed.returncode == 0
    assert resumed.stderr.decode().startswith("warning: repaired 1 interrupted tool call in ")
    assert roles(entries_in(tmp_path / ".sessions")) == ["user", "assistant", "toolResult"]
    assert calc_runs(tmp_path) == []


def test_ctrl_c_during_a_tool_call_abandons_the_turn_and_the_run_goes_on(tmp_path: Path) -> None:
    """Ctrl-C in a turn ends the turn, not the run: the call is stopped (never run, never
    run again), answered as interrupted in the file, and the next line is a turn of its own."""
    from interrupted_calls import CANCELLED

    with running(tmp_path, command=counting_main(tmp_path), env=with_tool_delay(30)) as process:
        type_lines(process, "what is 12*8")
        wait_for_entries(tmp_path / ".sessions", 2)  # the call is saved; the tool sleeps 30 s
        started = time.monotonic()
        process.send_signal(signal.SIGINT)
        read_until(process, b"you> ", 2)  # the prompt is back
        assert time.monotonic() - started < 5  # the 30-second call was stopped, not awaited
        assert process.poll() is None, "Ctrl-C in a turn ended the run"
        _, err = process.communicate(b"what was the result\n", timeout=30)
    assert process.returncode == 0
    assert err.decode() == (
        "warning: interrupted: the turn was abandoned; the tool call in progress was answered "
        "as interrupted (Ctrl-C at the prompt ends the run)\n"
    )
    entries = entries_in(tmp_path / ".sessions")
    user, call, cancelled, asked, answer = [entry["message"] for entry in entries]
    assert (user["role"], call["role"]) == ("user", "assistant")
    assert cancelled["toolCallId"] == tool_calls(call)[0]["id"] and cancelled["isError"]
    assert cancelled["content"][0]["text"] == CANCELLED
    assert (asked["role"], answer["role"]) == ("user", "assistant")
    assert "no earlier result" in answer["content"][0]["text"]  # the cut call gave none
    assert calc_runs(tmp_path) == []


def test_ctrl_c_at_the_prompt_after_an_abandoned_turn_ends_the_run(tmp_path: Path) -> None:
    """The first Ctrl-C gives the prompt back; one at the prompt ends the run, as always."""
    with running(tmp_path, env=with_tool_delay(30)) as process:
        type_lines(process, "what is 12*8")
        wait_for_entries(tmp_path / ".sessions", 2)
        process.send_signal(signal.SIGINT)
        read_until(process, b"you> ", 2)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=10)
    assert process.returncode == 130
    [path] = (tmp_path / ".sessions").glob("*.jsonl")
    assert err.decode().splitlines()[-1] == (
        f"warning: interrupted: 3 new messages saved to {Path('.sessions', path.name)} "
        "(the active path now holds 3 messages)"
    )


# --- 5. A write cut short ----------------------------------------------------------------


@pytest.mark.parametrize("cut", [0, 1, 2], ids=["in the question", "in the call", "in the result"])
def test_a_write_cut_by_a_file_size_limit(cut: int, saved: Saved, tmp_path: Path) -> None:
    """The file may grow no further than the middle of the `cut`-th line of a turn. That run
    ends in one error line; the next resumes every complete line, skips the fragment, starts
    a fresh line after it, and answers the call if the cut took its result."""
    path, question = saved.path, b"what is 2+3\n"
    before = path.read_bytes()
    rehearsal = tmp_path / "rehearsal"  # the same turn on a copy: where each line will end
    rehearsal.mkdir()
    shutil.copy(path, rehearsal)
    assert run(tmp_path, question, "--continue", "--session-dir", "rehearsal").returncode == 0
    lines = (rehearsal / path.name).read_bytes()[len(before) :].split(b"\n")[:-1]
    limit = len(before) + sum(len(line) + 1 for line in lines[:cut]) + len(lines[cut]) // 2

    failed = run(tmp_path, question, "--continue", preexec_fn=file_size_limit(limit))
    assert failed.returncode == 1
    assert failed.stderr == f"error: cannot write {SHOWN}: File too large\n".encode()
    torn = path.read_bytes()
    assert len(torn) == limit and torn.startswith(before) and not torn.endswith(b"\n")

    again = run(tmp_path, b"what was the result\n", "--continue")
    assert again.returncode == 0, again.stderr
    expected = [f"warning: skipped 1 damaged line in {SHOWN}"]
    if cut == 2:  # the call is in the file, its result was not
        expected.append(
            f"warning: repaired 1 interrupted tool call in {SHOWN} "
            "(an error result each; not run again)"
        )
    assert again.stderr.decode().splitlines() == expected
    assert b"The last result was 96 (12*8)." in again.stdout
    after = path.read_bytes()
    assert after.startswith(torn + b"\n")  # the fragment is a line of its own, never glued
    assert [orjson.loads(line) for line in after[len(torn) + 1 :].splitlines()]
    reading = read_session(path)
    assert reading.skipped == 1
    restored = 6 + cut + (cut == 2)  # every complete line, and the repair
    assert len(Session.open(path).context.messages) == restored + 2


# --- 6. fsync, off by default ------------------------------------------------------------


def test_main_with_fsync_runs_and_saves_as_without(tmp_path: Path) -> None:
    done = run(tmp_path, b"what is 12*8\n", "--fsync")
    assert done.returncode == 0 and done.stderr == b""
    assert roles(entries_in(tmp_path / ".sessions")) == [
        "user", "assistant", "toolResult", "assistant",
    ]  # fmt: skip


FORKS_AND_LEAVES_A_CHILD = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from session import Session
resumed = Session.open(sys.argv[2], lock=True)
if os.fork() == 0:  # a helper forked without exec, that outlives the run
    for stream in (1, 2):  # (not holding the test's pipes open)
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream)
    time.sleep(30)
    os._exit(0)
print("forked", flush=True)
"""


def test_a_child_forked_by_the_holder_does_not_keep_the_session_locked(
    saved: Saved, tmp_path: Path
) -> None:
    """An flock lasts while any copy of its descriptor is open. Before, a child forked without
    exec kept the session locked after the run that forked it had ended."""
    holder = [sys.executable, "-c", FORKS_AND_LEAVES_A_CHILD, str(STEP_DIR), str(saved.path)]
    # The child is in the holder's own process group: at the end, `running` ends it by that id.
    with running(tmp_path, command=holder, stdin=None, own_group=True) as process:
        out, err = process.communicate(timeout=60)  # the holder has ended; its child has not
        assert out == b"forked\n", err
        done = run(tmp_path, b"", "--continue")
        assert done.returncode == 0, done.stderr
        assert b"in use by another run" not in done.stderr
