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
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
from conftest import stop_signals_at_default

from session import read_session

STEP_DIR = Path(__file__).resolve().parent.parent
MAIN = [sys.executable, str(STEP_DIR / "main.py")]
HEADER = b'{"type":"header","version":1,"id":"x","createdAt":"t","cwd":"/"}\n'


def run(cwd: Path, stdin: bytes, *args: str, **options: object) -> subprocess.CompletedProcess:
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **options}
    return subprocess.run([*MAIN, *args], cwd=cwd, input=stdin, timeout=60, **streams)


def shell(cwd: Path, command: str, stdin: bytes) -> subprocess.CompletedProcess:
    line = command.format(main=shlex.join(MAIN))
    command_line = ["bash", "-c", line]
    return subprocess.run(command_line, cwd=cwd, input=stdin, capture_output=True, timeout=60)


def started(
    cwd: Path, *args: str, wrapper: str | None = None, file_size_limit: int | None = None
) -> subprocess.Popen:
    """main.py running, waiting at its first prompt. `wrapper`: Python run first, in the same
    process, to slow a step down so that a signal can land in the middle of it."""
    command = MAIN if wrapper is None else [sys.executable, "-c", wrapper, *MAIN[1:]]
    limit = None if file_size_limit is None else (file_size_limit,) * 2

    def apply_limit() -> None:
        stop_signals_at_default()
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, limit)

    process = subprocess.Popen(
        [*command, *args], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, preexec_fn=apply_limit,
    )  # fmt: skip
    watchdog = threading.Timer(60, process.kill)  # a hung run fails its test, never hangs it
    watchdog.daemon = True
    watchdog.start()
    return process


def read_until(stream: object, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        chunk = stream.read1(4096)  # type: ignore[attr-defined]
        assert chunk, f"exited before {marker!r}: {seen[-300:]!r}"
        seen += chunk
    return seen


def only_session(folder: Path) -> Path:
    [path] = folder.glob("*.jsonl")
    return path


def entries_in(path: Path) -> list[dict]:
    """Every line after the header, each of which must be a whole entry."""
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"", "the file ends in a torn line"
    return [orjson.loads(line) for line in lines[1:-1]]


def one_line(err: bytes, start: str) -> str:
    text = err.decode()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert text.startswith(start), text
    return text


# --- Text from outside: escaped on every line the program prints --------------------------


def test_ids_and_commands_from_outside_never_reach_the_terminal_raw(tmp_path: Path) -> None:
    """An id in a chain-break warning and a command name typed are quoted, not obeyed."""
    folder = tmp_path / ".sessions"
    folder.mkdir()
    entry = {
        "type": "message",
        "id": "e\x1b[31mRED",
        "parentId": "p\x1b]0;TITLE\x07",
        "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    }
    (folder / "a.jsonl").write_bytes(HEADER + orjson.dumps(entry) + b"\n")
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
    assert len(entries_in(only_session(tmp_path / ".sessions"))) == 6


def test_closed_standard_output_is_one_error_line(tmp_path: Path) -> None:
    done = shell(tmp_path, "exec {main} >&-", b"hello\n")
    assert done.returncode == 1
    one_line(done.stderr, "error: cannot write to standard output: it is closed")
    assert not (tmp_path / ".sessions").exists()  # nothing was read, so nothing is lost


def test_closed_standard_error_keeps_warnings_off_standard_output(tmp_path: Path) -> None:
    done = shell(tmp_path, "exec {main} 2>&-", b"\xff\nhello\n")
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
    path = only_session(tmp_path / ".sessions")
    process = started(tmp_path, "--continue")
    read_until(process.stdout, b"you> ")
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
    path = only_session(tmp_path / ".sessions")
    process = started(tmp_path, "--continue")
    read_until(process.stdout, b"you> ")
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
    path = only_session(tmp_path / ".sessions")
    process = started(tmp_path, "--continue")
    read_until(process.stdout, b"you> ")
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
    folder.mkdir()
    path = folder / "big.jsonl"
    text = "a" * (30 * 1024 * 1024)
    entry = {"type": "message", "id": "e1", "parentId": None,
             "message": {"role": "user", "content": [{"type": "text", "text": text}]}}  # fmt: skip
    path.write_bytes(HEADER + orjson.dumps(entry) + b"\n")
    before = path.read_bytes()

    def small_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (200 * 1024 * 1024,) * 2)

    done = run(tmp_path, b"hello\n", "--continue", preexec_fn=small_memory)
    assert done.returncode == 1
    one_line(done.stderr, f"error: not enough memory to read {Path('.sessions') / 'big.jsonl'}")
    assert path.read_bytes() == before and [*folder.iterdir()] == [path]
    assert read_session(path).skipped == 0  # with memory enough, every line is good


# --- Signals --------------------------------------------------------------------------------

SLOW_SAVE = """
import runpy, sys, time
sys.argv = sys.argv[1:]
sys.path.insert(0, {step!r})
import session_file
write = session_file.SessionFile.append
def slowly(self, line):
    print("[saving]", file=sys.stderr, flush=True)
    time.sleep(0.3)
    write(self, line)
session_file.SessionFile.append = slowly
runpy.run_path(sys.argv[0], run_name="__main__")
"""


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
    process = started(tmp_path, wrapper=SLOW_SAVE.format(step=str(STEP_DIR)))
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(b"what is 12*8\n")
    process.stdin.flush()
    read_until(process.stderr, b"[saving]\n[saving]")  # the second: the tool call's
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == status
    path = only_session(tmp_path / ".sessions")
    [warning] = [line for line in err.decode().splitlines() if line not in ("", "[saving]")]
    assert warning == (
        f"warning: {word}: 2 new messages saved to {Path('.sessions') / path.name} "
        "(the active path now holds 2 messages); the tool call in progress was stopped "
        "(--continue answers it)"
    )
    user, call = entries_in(path)
    assert user["message"]["role"] == "user" and call["message"]["stopReason"] == "toolUse"


def test_ctrl_c_during_a_save_waits_for_it_then_abandons_the_turn(tmp_path: Path) -> None:
    """Ctrl-C in the save of the tool call: the save finishes (the call is whole in the
    file), then the turn is abandoned, its call answered as interrupted, and the run goes on."""
    process = started(tmp_path, wrapper=SLOW_SAVE.format(step=str(STEP_DIR)))
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(b"what is 12*8\n")
    process.stdin.flush()
    read_until(process.stderr, b"[saving]\n[saving]")  # the second: the tool call's
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(b"hello\n", timeout=60)
    assert process.returncode == 0
    [warning] = [line for line in err.decode().splitlines() if line not in ("", "[saving]")]
    assert warning.startswith("warning: interrupted: the turn was abandoned; the tool call")
    user, call, cancelled, hello, answer = entries_in(only_session(tmp_path / ".sessions"))
    assert call["message"]["stopReason"] == "toolUse"
    assert cancelled["message"]["isError"]
    assert "Ctrl-C" in cancelled["message"]["content"][0]["text"]
    assert hello["message"]["content"][0]["text"] == "hello"
    assert answer["message"]["role"] == "assistant"


def test_a_save_that_fails_while_a_signal_waits_reports_its_own_error(tmp_path: Path) -> None:
    """The signal held back during a save must not hide that the save failed: the last line
    is the save's own error (a full disk, here a file size limit), not "terminated: saved"."""
    wrapper = SLOW_SAVE.format(step=str(STEP_DIR))
    process = started(tmp_path, wrapper=wrapper, file_size_limit=40)  # not even the header
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write(b"what is 12*8\n")
    process.stdin.flush()
    read_until(process.stderr, b"[saving]")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    lines = [line for line in err.decode().splitlines() if line not in ("", "[saving]")]
    assert len(lines) == 1 and re.fullmatch(
        r"error: cannot write \.sessions/[^/]+\.jsonl: File too large", lines[0]
    ), lines
    assert list((tmp_path / ".sessions").glob("*.jsonl")) == []  # it held no line: removed


def test_sighup_during_a_tool_call_says_what_is_saved(tmp_path: Path) -> None:
    process = subprocess.Popen(
        MAIN, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env={**os.environ, "LAB_TOOL_DELAY": "30"},
        preexec_fn=stop_signals_at_default,
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(b"hello\nwhat is 12*8\n")
    process.stdin.flush()
    read_until(process.stdout, b"[tool call]")
    deadline = time.monotonic() + 10
    while len(entries_in(only_session(tmp_path / ".sessions"))) < 4:  # the call is saved
        assert time.monotonic() < deadline, "the tool call was not saved within 10 s"
        time.sleep(0.02)
    process.send_signal(signal.SIGHUP)
    _, err = process.communicate(timeout=10)  # the 30-second call is stopped, not awaited
    assert process.returncode == 129
    path = Path(".sessions") / only_session(tmp_path / ".sessions").name
    saved = f"4 new messages saved to {path} (the active path now holds 4 messages); "
    one_line(err, f"warning: hung up: {saved}")


SLOW_START = """
import runpy, sys, time
sys.argv = sys.argv[1:]
sys.path.insert(0, {step!r})
import session_file
read_lines = session_file.read_lines
def slowly(path):
    print("[reading]", flush=True)
    time.sleep(5)
    return read_lines(path)
session_file.read_lines = slowly
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_ctrl_c_while_starting_says_so_and_lets_go_of_the_lock(tmp_path: Path) -> None:
    assert run(tmp_path, b"hello\n").returncode == 0
    path = only_session(tmp_path / ".sessions")
    before = path.read_bytes()
    process = started(tmp_path, "--continue", wrapper=SLOW_START.format(step=str(STEP_DIR)))
    read_until(process.stdout, b"[reading]")  # locked, and reading
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
    done = subprocess.run(
        [*without_root_override, *MAIN, "--session-dir", "read-only"],
        cwd=tmp_path, input=b"what is 12*8\n", capture_output=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == b""
    one_line(done.stderr, "error: cannot create session file in read-only: Permission denied")


# A filesystem that cannot sync a folder (some network and shared folders say EINVAL).
FOLDER_FSYNC_FAILS = """
import errno, os, runpy, stat, sys
real_fsync = os.fsync
def fsync(fd):
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
    return real_fsync(fd)
os.fsync = fsync
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_fsync_on_a_filesystem_that_cannot_sync_a_folder_still_saves(tmp_path: Path) -> None:
    """Before: the first save wrote the line, then said `error: cannot write ...: Invalid
    argument` and ended the run: --fsync could never be used on such a filesystem."""
    process = started(tmp_path, "--fsync", wrapper=FOLDER_FSYNC_FAILS)
    out, err = process.communicate(b"hello\nwhat is 12*8\n", timeout=60)
    assert process.returncode == 0, err
    assert err == b""
    assert b"6 new messages saved to" in out
    assert [entry["id"] for entry in entries_in(only_session(tmp_path / ".sessions"))] == [
        "e1", "e2", "e3", "e4", "e5", "e6"
    ]  # fmt: skip


def test_damage_a_command_finds_off_the_path_is_named_once(tmp_path: Path) -> None:
    """Entries off the path are parsed when first used. Before, a damaged line found then by
    /branch or /tree was dropped without a word: `--continue` had counted only the path."""
    folder = tmp_path / ".sessions"
    folder.mkdir()
    text = b'"content":[{"type":"text","text":"hi"}]'
    (folder / "x.jsonl").write_bytes(
        HEADER
        + b'{"type":"message","id":"e1","parentId":null,"message":{"role":"user",%s}}\n' % text
        + b'{"type":"message","id":"e2","parentId":"e1","message":{"role":"user"}}\n'
        + b'{"type":"message","id":"e3","parentId":"e1","message":{"role":"user",%s}}\n' % text
    )
    done = run(tmp_path, b"/branch e2\n/tree\n/branch e1\n/tree\n", "--continue")
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        "warning: skipped 1 more damaged line in .sessions/x.jsonl"
    ]
    assert b"e2 is a damaged line: what it held is lost" in done.stdout


SLOW_TREE = """
import runpy, sys, time
sys.argv = sys.argv[1:]
sys.path.insert(0, {step!r})
import entry_graph
draw = entry_graph.network_text
def slowly(graph):
    print("[drawing]", flush=True)
    time.sleep(30)
    return draw(graph)
entry_graph.network_text = slowly
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_ctrl_c_during_a_command_that_writes_nothing_ends_it_at_once(tmp_path: Path) -> None:
    """Only a write waits for a stop signal. /tree writes nothing: Ctrl-C during a slow /tree
    (a big session) ends the run now, not when the tree is done (it used to wait it out)."""
    process = started(tmp_path, wrapper=SLOW_TREE.format(step=str(STEP_DIR)))
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"hello\n/tree\n")
    process.stdin.flush()
    read_until(process.stdout, b"[drawing]")
    signalled = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert time.monotonic() - signalled < 10, "the run waited for /tree to finish"
    assert process.returncode == 130
    assert err.decode().startswith("warning: interrupted: 2 new messages saved")
