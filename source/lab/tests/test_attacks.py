# >>file prod
"""Faults found by attacking main.py as a hostile user would, each run as a real process.

Text from outside reaching the terminal unescaped, a closed or narrow standard stream, another
run's torn line (the session is locked, but the idea steps do not ask for the lock), a session
file replaced or cut short under the run, memory running out while reading, a signal in the
middle of a save (here the save of one message), a folder the first save could never write in.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import sys
import time
from pathlib import Path

import pytest
from harness import (
    MAIN,
    entries_in,
    file_size_limit,
    main_patched,
    main_slowed,
    read_until,
    run,
    run_in_shell,
    running,
    session_in,
    type_lines,
    user_line,
    wait_for_entries,
    with_tool_delay,
    write_session,
)

from session import read_session


def one_line(err: bytes, start: str) -> str:
    text = err.decode()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert text.startswith(start), text
    return text


# --- Text from outside: escaped on every line the program prints --------------------------


def test_ids_and_commands_from_outside_never_reach_the_terminal_raw(tmp_path: Path) -> None:
    """An id in a chain-break warning and a command name typed are quoted, not obeyed."""
    line = user_line("e\x1b[31mRED", "p\x1b]0;TITLE\x07", "hi")
    write_session(tmp_path / ".sessions", line, name="a.jsonl")
    done = run(tmp_path, b"/\x1b[2Jboom\n", "--continue")
    assert done.returncode == 0
    for stream in (done.stdout, done.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream
    assert "e\\x1b[31mRED hangs under p\\x1b]0;TITLE\\x07" in done.stderr.decode()
    assert "unknown command /\\x1b[2Jboom" in done.stdout.decode()


# --- Standard streams: closed, or unable to encode -----------------------------------------


def test_a_drawing_library_that_fails_to_load_costs_only_the_drawing(tmp_path: Path) -> None:
    """Under a memory limit (`ulimit -v`), importing networkx for /tree failed as OSError or
    SystemError, which no handler expected: a traceback. Here a stand-in networkx, found first
    on PYTHONPATH, fails to load as it did; the run goes on and saves what comes after."""
    shadow = tmp_path / "shadow" / "networkx"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise OSError(12, 'Cannot allocate memory')\n")
    environment = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    done = run(tmp_path, b"hello\n/tree\nwhat is 12*8\n", env=environment)
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    assert b"cannot draw the tree: networkx did not load (OSError(12, " in done.stdout
    assert b"12*8 = 96." in done.stdout
    assert len(entries_in(tmp_path / ".sessions")) == 6


def test_closed_standard_output_is_one_error_line(tmp_path: Path) -> None:
    done = run_in_shell(tmp_path, "exec {main} >&-", b"hello\n")
    assert done.returncode == 1
    one_line(done.stderr, "error: cannot write to standard output: it is closed")
    assert not (tmp_path / ".sessions").exists()  # nothing was read, so nothing is lost


def test_closed_standard_error_keeps_warnings_off_standard_output(tmp_path: Path) -> None:
    done = run_in_shell(tmp_path, "exec {main} 2>&-", b"\xff\nhello\n")
    assert done.returncode == 0
    assert b"warning" not in done.stdout and b"Traceback" not in done.stdout
    assert b"2 new messages saved" in done.stdout


def test_a_terminal_that_cannot_encode_the_text_gets_escapes(tmp_path: Path) -> None:
    """PYTHONIOENCODING=ascii (or a Latin-1 locale): a character it cannot show costs
    neither the turn nor a traceback."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = run(tmp_path, "h\u00e9llo \u2192\n".encode(), "--session-dir", "s\u00e9", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert b"you> h\\xe9llo \\u2192" in done.stdout
    assert b"2 new messages saved" in done.stdout


# --- The session file under the run's feet ------------------------------------------------


def test_a_fragment_another_run_left_is_never_glued_onto(tmp_path: Path) -> None:
    """Another run on the same session was killed mid-write after this one opened the file:
    this run's next entry must start on a line of its own, or it is lost."""
    assert run(tmp_path, b"what is 12*8\n").returncode == 0
    path = session_in(tmp_path / ".sessions")
    with running(tmp_path, "--continue") as process:
        read_until(process, b"you> ")
        with path.open("ab") as other_run:
            other_run.write(b'{"type":"message","id":"e9","par')
        _, err = process.communicate(b"what was the result\n", timeout=60)
    assert process.returncode == 0, err
    reading = read_session(path)
    assert reading.skipped == 1  # the fragment, alone on its line
    ids = [e["id"] for e in reading.entries]
    # The fragment's id counts as used (indexed before this run's next entry): e10, e11.
    assert ids == [f"e{n}" for n in (1, 2, 3, 4, 10, 11)]
    resumed = run(tmp_path, b"", "--continue")
    assert b"hangs under" not in resumed.stderr  # no chain break: nothing was lost


@pytest.mark.parametrize("replacement", ["fifo", "/dev/null", "new empty file"])
def test_a_session_file_replaced_during_the_run_is_refused(
    tmp_path: Path, replacement: str
) -> None:
    """Written to what the name now points at, the turn would hang (a FIFO) or vanish while
    the program says it is saved: one error line instead, at once."""
    assert run(tmp_path, b"hello\n").returncode == 0
    path = session_in(tmp_path / ".sessions")
    with running(tmp_path, "--continue") as process:
        read_until(process, b"you> ")
        path.rename(path.with_suffix(".old"))
        if replacement == "fifo":
            os.mkfifo(path)
        elif replacement == "/dev/null":
            path.symlink_to("/dev/null")
        else:
            path.touch()
        _, err = process.communicate(b"what is 12*8\n", timeout=30)
    assert process.returncode == 1
    one_line(err, f"error: session file {Path('.sessions') / path.name} was replaced")
    if replacement == "new empty file":
        assert path.read_bytes() == b""  # no headerless entries


def test_a_session_file_cut_short_during_the_run_is_refused(tmp_path: Path) -> None:
    """Cut back to its header, the file no longer holds the entries the next one hangs under."""
    assert run(tmp_path, b"hello\n").returncode == 0
    path = session_in(tmp_path / ".sessions")
    with running(tmp_path, "--continue") as process:
        read_until(process, b"you> ")
        os.truncate(path, len(path.read_bytes().split(b"\n")[0]) + 1)
        cut = path.read_bytes()
        _, err = process.communicate(b"what is 12*8\n", timeout=30)
    assert process.returncode == 1
    one_line(err, f"error: session file {Path('.sessions') / path.name} was cut short")
    assert path.read_bytes() == cut  # nothing written after the cut


# --- Memory ---------------------------------------------------------------------------------


@pytest.mark.skipif(
    sys.platform != "linux", reason="needs an address-space limit the kernel enforces (Linux)"
)
def test_running_out_of_memory_while_reading_is_an_error_not_damage(tmp_path: Path) -> None:
    """A good line that cannot be parsed for want of memory is not a damaged line: skipped,
    it would drop a message and hang new entries off the wrong leaf."""
    folder = tmp_path / ".sessions"
    path = write_session(folder, user_line("e1", None, "a" * (30 * 1024 * 1024)), name="big.jsonl")
    before = path.read_bytes()

    def small_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (200 * 1024 * 1024,) * 2)

    done = run(tmp_path, b"hello\n", "--continue", preexec_fn=small_memory)
    assert done.returncode == 1
    one_line(done.stderr, f"error: not enough memory to read {Path('.sessions') / 'big.jsonl'}")
    assert path.read_bytes() == before and [*folder.iterdir()] == [path]
    assert read_session(path).skipped == 0  # with memory enough, every line is good


# --- Signals --------------------------------------------------------------------------------

# main.py with each line's save slowed down and announced on stderr.
SLOW_SAVE = main_slowed("session_file.SessionFile.append", 0.3, "[saving]", on_stderr=True)


@pytest.mark.parametrize(
    ("signum", "status", "word"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGHUP, 129, "hung up")],
    ids=["SIGTERM", "SIGHUP"],
)
def test_a_signal_during_a_save_waits_for_that_save(
    tmp_path: Path, signum: int, status: int, word: str
) -> None:
    """Each message is saved on its own; a signal that lands in the save of the tool call
    waits for it, so the call is whole in the file, and the last line says exactly that."""
    with running(tmp_path, command=SLOW_SAVE) as process:
        type_lines(process, "what is 12*8")
        read_until(process, b"[saving]\n[saving]", stream=process.stderr)  # the tool call's
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    assert process.returncode == status
    path = session_in(tmp_path / ".sessions")
    [warning] = [line for line in err.decode().splitlines() if line not in ("", "[saving]")]
    assert warning == (
        f"warning: {word}: 2 new messages saved to {Path('.sessions') / path.name} "
        "(the active path now holds 2 messages); the tool call in progress was stopped "
        "(--continue answers it)"
    )
    user, call = entries_in(tmp_path / ".sessions")
    assert user["message"]["role"] == "user" and call["message"]["stopReason"] == "toolUse"


def test_ctrl_c_during_a_save_waits_for_it_then_abandons_the_turn(tmp_path: Path) -> None:
    """Ctrl-C in the save of the tool call: the save finishes (the call is whole in the
    file), then the turn is abandoned, its call answered as interrupted, and the run goes on."""
    with running(tmp_path, command=SLOW_SAVE) as process:
        type_lines(process, "what is 12*8")
        read_until(process, b"[saving]\n[saving]", stream=process.stderr)  # the tool call's
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(b"hello\n", timeout=60)
    assert process.returncode == 0
    [warning] = [line for line in err.decode().splitlines() if line not in ("", "[saving]")]
    assert warning.startswith("warning: interrupted: the turn was abandoned; the tool call")
    user, call, cancelled, hello, answer = entries_in(tmp_path / ".sessions")
    assert call["message"]["stopReason"] == "toolUse"
    assert cancelled["message"]["isError"]
    assert "Ctrl-C" in cancelled["message"]["content"][0]["text"]
    assert hello["message"]["content"][0]["text"] == "hello"
    assert answer["message"]["role"] == "assistant"


def test_a_save_that_fails_while_a_signal_waits_reports_its_own_error(tmp_path: Path) -> None:
    """The signal held back during a save must not hide that the save failed: the last line
    is the save's own error (a full disk, here a file size limit), not "terminated: saved"."""
    limit = file_size_limit(40)  # not even the header
    with running(tmp_path, command=SLOW_SAVE, in_child=limit) as process:
        type_lines(process, "what is 12*8")
        read_until(process, b"[saving]", stream=process.stderr)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    lines = [line for line in err.decode().splitlines() if line not in ("", "[saving]")]
    assert len(lines) == 1 and re.fullmatch(
        r"error: cannot write \.sessions/[^/]+\.jsonl: File too large", lines[0]
    ), lines
    assert list((tmp_path / ".sessions").glob("*.jsonl")) == []  # it held no line: removed


def test_sighup_during_a_tool_call_says_what_is_saved(tmp_path: Path) -> None:
    with running(tmp_path, env=with_tool_delay(30)) as process:
        type_lines(process, "hello", "what is 12*8")
        read_until(process, b"[tool call]")
        wait_for_entries(tmp_path / ".sessions", 4)  # the call is saved
        process.send_signal(signal.SIGHUP)
        _, err = process.communicate(timeout=10)  # the 30-second call is stopped, not awaited
    assert process.returncode == 129
    path = Path(".sessions") / session_in(tmp_path / ".sessions").name
    saved = f"4 new messages saved to {path} (the active path now holds 4 messages); "
    one_line(err, f"warning: hung up: {saved}")


SLOW_START = main_slowed("session_file.read_lines", 5, "[reading]")


def test_ctrl_c_while_starting_says_so_and_lets_go_of_the_lock(tmp_path: Path) -> None:
    assert run(tmp_path, b"hello\n").returncode == 0
    path = session_in(tmp_path / ".sessions")
    before = path.read_bytes()
    with running(tmp_path, "--continue", command=SLOW_START) as process:
        read_until(process, b"[reading]")  # locked, and reading
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err == b"warning: interrupted while opening the session\n"
    assert path.read_bytes() == before
    again = run(tmp_path, b"", "--continue")
    assert again.returncode == 0 and again.stderr == b""


# --- A folder the first save could not write in: refused before the first turn -------------


def test_a_session_folder_under_a_file_is_refused_before_the_first_turn(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    done = run(tmp_path, b"what is 12*8\n", "--session-dir", "blocker/sessions")
    assert done.returncode == 1
    assert done.stdout == b""  # refused before the first prompt: no line typed is lost
    one_line(done.stderr, "error: cannot create session folder blocker/sessions: Not a directory")


def test_a_folder_this_process_may_not_write_in_is_refused_before_the_first_turn(
    tmp_path: Path, without_root_override: list[str]
) -> None:
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    done = run(tmp_path, b"what is 12*8\n", "--session-dir", "read-only",
               command=[*without_root_override, *MAIN])  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == b""
    one_line(done.stderr, "error: cannot create session file in read-only: Permission denied")


# A filesystem that cannot sync a folder (some network and shared folders say EINVAL).
FOLDER_FSYNC_FAILS = main_patched("""
import errno, os, stat
real_fsync = os.fsync
def fsync(fd):
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
    return real_fsync(fd)
os.fsync = fsync
""")


def test_fsync_on_a_filesystem_that_cannot_sync_a_folder_still_saves(tmp_path: Path) -> None:
    """Before: the first save wrote the line, then said `error: cannot write ...: Invalid
    argument` and ended the run: --fsync could never be used on such a filesystem."""
    with running(tmp_path, "--fsync", command=FOLDER_FSYNC_FAILS) as process:
        out, err = process.communicate(b"hello\nwhat is 12*8\n", timeout=60)
    assert process.returncode == 0, err
    assert err == b""
    assert b"6 new messages saved to" in out
    assert [entry["id"] for entry in entries_in(tmp_path / ".sessions")] == [
        "e1", "e2", "e3", "e4", "e5", "e6"
    ]  # fmt: skip


def test_damage_a_command_finds_off_the_path_is_named_once(tmp_path: Path) -> None:
    """Entries off the path are parsed when first used. Before, a damaged line found then by
    /branch or /tree was dropped without a word: `--continue` had counted only the path."""
    write_session(
        tmp_path / ".sessions",
        user_line("e1", None, "hi"),
        b'{"type":"message","id":"e2","parentId":"e1","message":{"role":"user"}}\n',
        user_line("e3", "e1", "hi"),
        name="x.jsonl",
    )
    done = run(tmp_path, b"/branch e2\n/tree\n/branch e1\n/tree\n", "--continue")
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        "warning: skipped 1 more damaged line in .sessions/x.jsonl"
    ]
    assert b"e2 is a damaged line: what it held is lost" in done.stdout


SLOW_TREE = main_slowed("entry_graph.network_text", 30, "[drawing]")


def test_ctrl_c_during_a_command_that_writes_nothing_ends_it_at_once(tmp_path: Path) -> None:
    """Only a write waits for a stop signal. /tree writes nothing: Ctrl-C during a slow /tree
    (a big session) ends the run now, not when the tree is done (it used to wait it out)."""
    with running(tmp_path, command=SLOW_TREE) as process:
        type_lines(process, "hello", "/tree")
        read_until(process, b"[drawing]")
        signalled = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert time.monotonic() - signalled < 10, "the run waited for /tree to finish"
    assert process.returncode == 130
    assert err.decode().startswith("warning: interrupted: 2 new messages saved")
