"""Run one check against one file, in this (fresh) process, and hand back a one-line verdict.

    python run_one.py LABEL TARGET CHECK_FILE STEP_DIR VERDICT_FD
    python run_one.py --serve SOCKET_FD [MODULE ...]   fork such a process per check asked

Kept apart from the command line so that each check runs in a process of its own: the step
folder goes first on sys.path, and no module from an earlier check (or another step with the
same module names) can linger. It also means a check may change this process (put a spy on
os.fsync, stand in for the clock) without cleaning up after itself.

`--serve` is how `python -m exercises` starts them: one process per step folder imports what
its checks import (hypothesis, the harness: most of the cost of a fresh interpreter, and
`verify` runs about 200 checks) and then forks a child for each check, which is that fresh
process without the wait. It imports nothing of the step, so a check still loads the step's
modules, and its spies go in before the student's file, in the child.

The verdict goes to VERDICT_FD, a pipe only this file writes to. Whatever the student's code
prints goes to standard output, which the caller reads (a bounded amount) and otherwise
ignores: a `PASS` it prints, or an `os._exit(0)` before the check has judged, is no verdict.

The protocol a check module follows:

- `check(module) -> str` gets the loaded target and returns what it proved (the PASS line),
  or raises AssertionError("what is wrong"). It may blame a place in the target, so the FAIL
  line says where to look even when the student's code raised nothing: `raise
  AssertionError(message, blamed)` (or the same pair as the message of an `assert`), where
  `blamed` is a function or class of the target (its first line) or a line number in it.
- `before_load() -> None`, optional, runs before the target is loaded: a target that does
  `from os import fsync` binds whatever `os.fsync` is at that moment, so a spy must be in
  place first.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import socket
import sys
import traceback
from contextlib import suppress
from pathlib import Path
from types import ModuleType

LAB_ROOT = Path(__file__).resolve().parent.parent
MAX_LINE = 200  # characters of a FAIL line, as the student's starter would show it

PASSED = 0  # the check returned: the PASS line says what it proved
FAILED = 1  # the check's own verdict: an AssertionError, or the starter's NotImplementedError
ERRORED = 3  # an exception nobody expected (a bug in the target, or in the check itself)
KINDS = {PASSED: "pass", FAILED: "fail", ERRORED: "error"}


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def shown(path: Path) -> str:
    """The path as a student types it: relative to the lab's root when it is inside it.

    It never raises: a path that cannot be resolved (a loop of symbolic links, a name too
    long) is shown by its last part, and bytes that are no UTF-8 as escapes (`\\xff`), not
    as the surrogates Python decodes them to.
    """
    try:
        text = str(path.resolve().relative_to(LAB_ROOT))
    except (ValueError, OSError, RuntimeError):  # outside the lab; unresolvable (3.11: loop)
        text = path.name
    return os.fsencode(text).decode("utf-8", errors="backslashreplace")


def message_and_blame(error: AssertionError) -> tuple[str, object | None]:
    """Split `AssertionError(message, blamed)` (or `assert x, (message, blamed)`)."""
    args = error.args
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]  # the `assert condition, (message, blamed)` form
    if len(args) == 2 and isinstance(args[0], str):
        return args[0], args[1]
    return str(error), None


def where_in(path: Path, error: BaseException, blamed: object | None = None) -> str:
    """Where to look in the student's file: " (at exercises/stepNN/exK.py:LINE)", or "".

    First choice is the last line of that file the error (or what caused it) passed through;
    then the line the check blamed, or the first line of the function or class it blamed.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = [
            frame
            for frame in traceback.extract_tb(current.__traceback__)
            if Path(frame.filename) == path
        ]
        if frames:
            return f" (at {shown(path)}:{frames[-1].lineno})"
        current = current.__cause__ or current.__context__
    if isinstance(blamed, int) and not isinstance(blamed, bool):
        return f" (at {shown(path)}:{blamed})"
    if blamed is not None:
        import inspect  # only here: it costs more to import than most checks take to run

        try:
            source = inspect.getsourcefile(inspect.unwrap(blamed))  # type: ignore[arg-type]
            _, line = inspect.getsourcelines(blamed)  # type: ignore[arg-type]
        except (OSError, TypeError):
            return ""
        if source is not None and Path(source) == path:  # an inherited method is not theirs
            return f" (at {shown(path)}:{line})"
    return ""


def fitted(prefix: str, text: str, where: str, check_file: Path) -> str:
    """`prefix + text + where`, the text cut so that the line fits MAX_LINE characters as
    the starter would show it (a kept solution's longer path does not cut it shorter)."""
    starter = check_file.with_name(check_file.name.removesuffix("_check.py") + ".py")
    budget = MAX_LINE - len(prefix) - (len(f" (at {shown(starter)}:000)") if where else 0)
    text = " ".join(text.split())  # one line, whatever the exception said
    return prefix + (text if len(text) <= budget else text[: budget - 1] + "…") + where


def verdict(label: str, target: Path, check_file: Path, step_dir: Path) -> tuple[int, str]:
    """Run the check; the kind of verdict (PASSED, FAILED, ERRORED) and its one line."""
    sys.path.insert(0, str(step_dir))
    sys.path.append(str(LAB_ROOT))  # `from exercises.harness import ...` in a check
    try:
        checker = load(check_file, check_file.stem)
        before_load = getattr(checker, "before_load", None)
        if before_load is not None:
            before_load()
        # Loaded under the starter's name whatever the file is called (a kept wrong solution
        # named `messages.py` must not replace the step's own `messages` module).
        module = load(target, check_file.stem.removesuffix("_check"))
        message = checker.check(module)
    except NotImplementedError as error:
        text = f"not done yet: {error or 'the TODO is still there'}"
        return FAILED, fitted(f"FAIL {label}: ", text, "", check_file)
    except AssertionError as error:
        text, blamed = message_and_blame(error)
        return FAILED, f"FAIL {label}: {text}{where_in(target, error, blamed)}"
    except SystemExit as error:  # sys.exit() in the target must not end the check as a pass
        return ERRORED, f"FAIL {label}: SystemExit: the code called sys.exit({error.code!r})"
    except Exception as error:  # a student's bug is a verdict, not a crash of the checker
        text = f"{type(error).__name__}: {error}"
        return ERRORED, fitted(f"FAIL {label}: ", text, where_in(target, error), check_file)
    return PASSED, f"PASS {label}: {message}"


def main(argv: list[str]) -> int:
    label, target, check_file, step_dir, verdict_fd = argv
    # Kept away from the descriptors the student's code might write to or close: stdout is
    # theirs, the verdict is the check's.
    channel = os.fdopen(os.dup(int(verdict_fd)), "w", encoding="utf-8", errors="backslashreplace")
    os.close(int(verdict_fd))
    kind, line = verdict(label, Path(target).resolve(), Path(check_file), Path(step_dir))
    # Whatever a message held (an ESC from the student's exception, a name from a file), the
    # line is shown to a terminal: a character it would obey is shown as its escape instead.
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)
    channel.write(f"{KINDS[kind]} {line}\n")
    channel.close()
    return kind


def serve(channel: socket.socket, preload: list[str]) -> int | None:
    """Fork a check for each request on `channel` (its arguments, and the descriptors of its
    output and its verdict), tell its pid, wait for it, tell how it ended; None when the
    asker has gone. In the child it returns main's exit status instead, so the child ends as
    any interpreter does (atexit handlers, flushed streams).

    `preload` is what the step's checks import, loaded once, none of it from the step folder:
    a check imports those too as it loads, before its spies and the student's file. One that
    is missing is for the check that imports it to say, in its own FAIL line."""
    for name in preload:
        with suppress(ImportError):
            importlib.import_module(name)
    # Only a check's own code can send this process a SIGINT (it is in a session of its own,
    # away from the terminal's Ctrl-C): it is no reason to die in a traceback on the terminal.
    interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)

    while True:
        try:
            request, descriptors, _, _ = socket.recv_fds(channel, 65536, 2)
        except ConnectionError:
            return None
        if not request:
            return None
        output, verdict_fd = descriptors
        arguments = json.loads(request)
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGINT, interrupt)  # as a fresh interpreter has it
            channel.close()
            os.setsid()  # its own group: stopped whole, and no Ctrl-C from the terminal
            os.dup2(output, 1)
            os.dup2(output, 2)
            os.close(output)
            random.seed()  # as a fresh interpreter would, not the server's state
            sys.argv = [__file__, *arguments]
            return main([*arguments, str(verdict_fd)])
        os.close(output)
        os.close(verdict_fd)
        try:
            channel.send(f"pid {pid}".encode())
        except ConnectionError:
            os.waitpid(pid, 0)
            return None
        _, status = os.waitpid(pid, 0)
        try:  # the asker may have gone while the check ran (a SIGKILL): no traceback then
            channel.send(f"status {os.waitstatus_to_exitcode(status)}".encode())
        except ConnectionError:
            return None


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        sys.path.append(str(LAB_ROOT))
        sys.exit(serve(socket.socket(fileno=int(sys.argv[2])), sys.argv[3:]) or 0)
    sys.exit(main(sys.argv[1:]))
