"""What the tests share, each written once: main.py run as a real process, and the session
files a test makes or reads back.

A process a test keeps running is started by `running`, which stands for everything a test
must not forget: the child's stop signals at their default (a background job or `nohup`
starts a test run with SIGINT and SIGHUP ignored, and the child would inherit that and rightly
keep running); a watchdog that kills it after a minute, so a hung run fails its test instead
of hanging it; and, when the test ends however it ends, the kill and the wait that reap it.
`read_until` waits for what it prints, and never past its deadline.
"""

from __future__ import annotations

import os
import resource
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

import orjson

from commands import Chat
from session import Session

STEP_DIR = Path(__file__).resolve().parent.parent
MAIN = [sys.executable, str(STEP_DIR / "main.py")]
CREATED_AT = "2026-01-01T00:00:00Z"  # when every session a test makes was made
WATCHDOG_SECONDS = 60  # the longest any process a test starts may live

# --- main.py as a process ------------------------------------------------------------------


def stop_signals_at_default() -> None:
    """Run in a child before it starts: SIGINT, SIGTERM and SIGHUP at their default, as at a
    terminal. Ignored dispositions are inherited through exec: under `make check &` or `nohup`
    the child would start with SIGINT or SIGHUP ignored, and (rightly) keep running."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def main_patched(patch: str) -> list[str]:
    """The command line of main.py with `patch` run first, in the same process (the step
    folder on sys.path, sys.argv as main.py's own): to slow a step down so that a signal can
    land in the middle of it, or to count what it does."""
    script = "\n".join([
        "import runpy, sys",
        "sys.argv = sys.argv[1:]",
        f"sys.path.insert(0, {str(STEP_DIR)!r})",
        patch,
        'runpy.run_path(sys.argv[0], run_name="__main__")',
    ])  # fmt: skip
    return [sys.executable, "-c", script, str(STEP_DIR / "main.py")]


def file_size_limit(size: int) -> Callable[[], None]:
    """For `in_child` (or preexec_fn): no file the child writes may grow past `size` bytes, a
    write that would fails as on a full disk. (Python ignores SIGXFSZ.)"""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def main_slowed(target: str, seconds: float, say: str, *, on_stderr: bool = False) -> list[str]:
    """The command line of main.py with `target` (`module.function`, `module.Class.method`)
    slowed down: each call prints `say` (on standard error if `on_stderr`), sleeps `seconds`,
    then runs. A test reads `say`, and its signal lands in the middle of that call."""
    module, *inner, name = target.split(".")
    stream = "stderr" if on_stderr else "stdout"
    return main_patched(f"""
import functools, importlib, time
owner = functools.reduce(getattr, {inner!r}, importlib.import_module({module!r}))
real = getattr(owner, {name!r})
def slowly(*args, **kwargs):
    print({say!r}, file=sys.{stream}, flush=True)
    time.sleep({seconds})
    return real(*args, **kwargs)
setattr(owner, {name!r}, slowly)
""")


def with_tool_delay(seconds: float) -> dict[str, str]:
    """This process's environment, with main.py's every tool call sleeping `seconds` first: a
    turn still running when a test stops or kills it."""
    return {**os.environ, "LAB_TOOL_DELAY": str(seconds)}


def run(
    cwd: Path, typed: bytes | str | None, *args: str, command: list[str] = MAIN, **options: Any
) -> subprocess.CompletedProcess:
    """main.py ARGS (or `command` ARGS) in `cwd`, run to its end with `typed` as its standard
    input: both outputs captured unless `options` say otherwise (they are subprocess.run's),
    and a minute at the most."""
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "timeout": 60, **options}
    return subprocess.run([*command, *args], cwd=cwd, input=typed, **options)


def run_in_shell(cwd: Path, line: str, typed: bytes) -> subprocess.CompletedProcess[bytes]:
    """A bash command line, `{main}` in it standing for main.py, run to its end in `cwd`: for
    what only a shell arranges (a closed stream, a folder deleted under the run)."""
    command = line.format(main=shlex.join(MAIN))
    return run(cwd, typed, command=["bash", "-c", command])


@contextmanager
def running(
    cwd: Path,
    *args: str,
    command: list[str] = MAIN,
    env: dict[str, str] | None = None,
    stdin: int | IO[Any] | None = subprocess.PIPE,
    stdout: int | IO[Any] | None = subprocess.PIPE,
    stderr: int | IO[Any] | None = subprocess.PIPE,
    in_child: Callable[[], None] | None = None,
    own_group: bool = False,
) -> Iterator[subprocess.Popen[bytes]]:
    """main.py ARGS (or `command` ARGS) in `cwd`, live: to type into, read from and signal.

    It starts with its stop signals at their default, then runs `in_child` if given (a limit,
    a signal to ignore). It is killed after WATCHDOG_SECONDS whatever happens, and when the
    test ends, if it still runs; then reaped, its pipes closed. `own_group`: in a process group
    of its own, the whole group killed at the end (for a child that forks helpers)."""

    def prepare() -> None:
        stop_signals_at_default()
        if in_child is not None:
            in_child()

    def kill() -> None:
        if own_group:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        elif process.poll() is None:
            process.kill()

    process = subprocess.Popen(
        [*command, *args], cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr,
        preexec_fn=prepare, start_new_session=own_group,
    )  # fmt: skip
    watchdog = threading.Timer(WATCHDOG_SECONDS, kill)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield process
    finally:
        watchdog.cancel()
        kill()
        process.wait(timeout=10)
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with suppress(OSError):
                    stream.close()


def type_lines(process: subprocess.Popen[bytes], *lines: str) -> None:
    """Each line typed into the process, Enter after each."""
    assert process.stdin is not None
    process.stdin.write("".join(f"{line}\n" for line in lines).encode())
    process.stdin.flush()


def read_until(
    process: subprocess.Popen[bytes],
    marker: bytes,
    count: int = 1,
    *,
    stream: IO[bytes] | None = None,
    timeout: float = 30,
) -> bytes:
    """What the process printed (on standard output, or on `stream`) up to the `count`-th
    `marker`. The test fails if the process ends first, or if `timeout` seconds pass: each
    wait is a select on the pipe for what is left of the deadline, and each read takes only
    what is there, so a silent process (waiting at its prompt) cannot hold it past it."""
    pipe = process.stdout if stream is None else stream
    assert pipe is not None
    deadline = time.monotonic() + timeout
    seen = b""
    while seen.count(marker) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} within {timeout} s: {seen[-300:]!r}"
        ready, _, _ = select.select([pipe], [], [], left)
        if ready:
            chunk = os.read(pipe.fileno(), 65536)  # what is there; never waits for more
            assert chunk, f"the process ended before {marker!r}: {seen[-300:]!r}"
            seen += chunk
    return seen


# --- Session files -------------------------------------------------------------------------


def new_session(folder: Path, session_id: str = "t", cwd: str = "/", **options: bool) -> Session:
    """A new session `folder/<session_id>.jsonl`, made at CREATED_AT (written by its first
    entry); `options` as Session.create takes them."""
    return Session.create(folder, session_id=session_id, created_at=CREATED_AT, cwd=cwd, **options)


def new_chat(folder: Path, session_id: str = "t") -> Chat:
    """A run's chat on a new session, nothing said yet."""
    return Chat(new_session(folder, session_id), [], cursor=0)


def user_texts(folder: Path) -> list[str]:
    """The user's lines saved in the one session file of `folder`, in file order."""
    [path] = folder.glob("*.jsonl")
    texts = []
    for line in path.read_bytes().splitlines()[1:]:
        message = orjson.loads(line).get("message", {})
        if message.get("role") == "user":
            texts.append(message["content"][0]["text"])
    return texts


def header_line(session_id: str = "x") -> bytes:
    """The first line of a session file made by hand, as Session.create writes it."""
    header = {"type": "header", "version": 1, "id": session_id, "createdAt": CREATED_AT,
              "cwd": "/"}  # fmt: skip
    return orjson.dumps(header) + b"\n"


def message_line(entry_id: str, parent: str | None, message: dict[str, Any]) -> bytes:
    """One message entry, a whole line."""
    entry = {"type": "message", "id": entry_id, "parentId": parent, "message": message}
    return orjson.dumps(entry) + b"\n"


def user_line(entry_id: str, parent: str | None, text: str) -> bytes:
    return message_line(
        entry_id, parent, {"role": "user", "content": [{"type": "text", "text": text}]}
    )


def answer_line(entry_id: str, parent: str, text: str, *calls: dict[str, Any]) -> bytes:
    """The model's reply: its text, and the tool calls it asks for (then it waits for them)."""
    message = {"role": "assistant", "content": [{"type": "text", "text": text}, *calls],
               "stopReason": "toolUse" if calls else "stop"}  # fmt: skip
    return message_line(entry_id, parent, message)


def write_session(folder: Path, *lines: bytes, name: str = "s.jsonl") -> Path:
    """A session file made by hand in `folder`: a header, then `lines` as they are."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(header_line() + b"".join(lines))
    return path


def in_use_line(shown: Path) -> bytes:
    """What a second run says when the session it would continue is in use by another."""
    return (
        f"error: {shown} is in use by another run; run without --continue to start a new session\n"
    ).encode()


def session_in(folder: Path) -> Path:
    """The one session file in `folder`."""
    [path] = folder.glob("*.jsonl")
    return path


def entries_in(folder: Path) -> list[dict[str, Any]]:
    """Every entry of the one session file in `folder`: each line after the header, parsed,
    and each of them whole (the file may not end in a torn line)."""
    lines = session_in(folder).read_bytes().split(b"\n")
    assert lines[-1] == b"", "the file ends in a torn line"
    return [orjson.loads(line) for line in lines[1:-1]]


def wait_for_entries(folder: Path, count: int, seconds: float = 10) -> list[dict[str, Any]]:
    """The entries of the one session file in `folder` once a running process has saved at
    least `count` of them (a line it is still writing is not one yet); the test fails if it
    has not within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        found = list(folder.glob("*.jsonl"))  # none before the first save
        assert len(found) <= 1, found
        whole = found[0].read_bytes().split(b"\n")[1:-1] if found else []
        if len(whole) >= count:
            return [orjson.loads(line) for line in whole]
        assert time.monotonic() < deadline, f"{len(whole)} entries after {seconds} s"
        time.sleep(0.02)
