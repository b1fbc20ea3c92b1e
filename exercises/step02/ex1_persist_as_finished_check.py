"""Check 02.1: each message reaches the file the moment it is finished, so a process killed in
the middle of a turn keeps every message finished before the kill.

The crash is real. A child process runs one turn ("what is 12*8") through the student's
persist_as_finished, with a tool that says "running" on standard output and then waits; the
moment the check reads that, it kills the child with SIGKILL. SIGKILL ends a process between
two instructions: no `finally:`, no exit handler, no flush of a buffer runs, exactly as in a
crash. (A Python exception raised in the turn would not do: a `finally:` that writes
everything it collected survives an exception, and would look right.) By then two messages
are finished: the user's, and the assistant's asking for the tool; the file must hold both.

Then, in this process: two whole turns leave the file holding exactly the list's messages,
once each, in order, and the count returned is right; and a model that fails mid-turn is not
swallowed (the caller must learn that the turn failed) while what was finished stays.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

import loop
from loop import run_turn
from messages import Message, user_text
from model import ModelEvent, ScriptedModel
from session import Session, SessionError, read_session
from tools import Tool, default_tools

STEP_DIR = Path(loop.__file__).resolve().parent
STARTUP_SECONDS = 10  # a fresh interpreter reaching the tool; well under 1 s on a quiet machine
RUNNING = b"<<the tool is running>>"

# The child: load the student's module, run one turn through it, stall inside the tool. It
# never ends on its own while the check waits: it blocks reading its standard input, which
# the check holds open until it has killed it. (Should the check itself die first, the pipe
# closes, the read returns and the child exits at once, writing nothing more.)
CHILD = """
import dataclasses, importlib.util, os, sys
target, step_dir, directory, running = sys.argv[1:5]
sys.path.insert(0, step_dir)
from loop import run_turn
from messages import user_text
from model import ScriptedModel
from session import Session
from tools import default_tools

spec = importlib.util.spec_from_file_location("ex1_persist_as_finished", target)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)

def stalled(arguments):
    sys.stdout.buffer.write(running.encode() + b"\\n")
    sys.stdout.buffer.flush()
    sys.stdin.buffer.read()  # the check kills us here
    os._exit(3)

tools = {name: dataclasses.replace(tool, run=stalled) for name, tool in default_tools().items()}
session = Session.create(directory, session_id="killed", created_at="2026-01-01T00:00:00Z",
                         cwd=directory)
module.persist_as_finished(run_turn(ScriptedModel(), tools, [], user_text("what is 12*8")),
                           session)
"""


class ModelDown(Exception):
    """The model's second call fails: a turn that fails halfway, inside this process."""


class FailsOnSecondCall(ScriptedModel):
    def __init__(self) -> None:
        self.calls = 0

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        self.calls += 1
        if self.calls == 2:
            raise ModelDown("the model went away mid-turn")
        yield from super().stream(messages, tools)


def new_session(directory: str, name: str) -> Session:
    return Session.create(
        Path(directory), session_id=name, created_at="2026-01-01T00:00:00Z", cwd=directory
    )


def stored(path: Path) -> list[Message] | None:
    """The messages in the file, or None when there is no file."""
    if not path.exists():
        return None
    return [entry["message"] for entry in read_session(path).entries]


def listed(messages: list[Message]) -> str:
    """The messages by role, e.g. '3 messages (user, assistant, toolResult)'."""
    if not messages:
        return "no message"
    plural = "s" * (len(messages) != 1)
    return f"{len(messages)} message{plural} ({', '.join(m['role'] for m in messages)})"


def the_file(messages: list[Message] | None) -> str:
    """What a file held, for a FAIL line: "was never created", "holds 1 message (user)"."""
    return "was never created" if messages is None else f"holds {listed(messages)}"


def check(module: ModuleType) -> str:
    persist = module.persist_as_finished
    with tempfile.TemporaryDirectory() as directory:
        session = new_session(directory, "whole")
        messages: list[Message] = []
        model, tools = ScriptedModel(), default_tools()
        for text, added in [("what is 12*8", 4), ("hello", 2)]:
            before = len(messages)
            try:
                count = persist(run_turn(model, tools, messages, user_text(text)), session)
            except NotImplementedError:
                raise
            except Exception as error:
                raise AssertionError(
                    f"the turn {text!r} raised {type(error).__name__}: {error}. Write each "
                    "message with session.append_message(message)",
                    persist,
                ) from error
            assert len(messages) == before + added, (
                f"the turn {text!r} did not run to its end: consume all the events",
                persist,
            )
            got = stored(session.path)
            assert got == messages, (
                f"after the turn {text!r} the list holds {listed(messages)} but the session "
                f"file {the_file(got)}: append each MessageEnd's message once, and nothing else",
                persist,
            )
            assert count == added, (
                f"the turn {text!r} finished {added} messages, but persist_as_finished "
                f"returned {count!r}: count the messages you append",
                persist,
            )

        kept, seconds = killed_in_the_tool(module, Path(directory))
        expected = finished_before_the_tool()
        if kept != expected:
            raise AssertionError(
                f"killed with SIGKILL while its tool ran, a turn's session file {the_file(kept)}; "
                f"the {len(expected)} messages finished before the kill (the user's "
                "message, then the assistant's tool call) must be there: append each message "
                "the moment its MessageEnd arrives, before asking for the next event (a "
                "`finally:`, an end-of-turn write or a buffer never runs when a process is "
                "killed)",
                persist,
            )

        crashed = new_session(directory, "failed")
        events = run_turn(FailsOnSecondCall(), tools, [], user_text("what is 12*8"))
        try:
            persist(events, crashed)
        except ModelDown:
            pass
        else:
            raise AssertionError(
                "the model failed in the middle of a turn, but persist_as_finished returned "
                "as if the turn had ended: let the exception through, so the caller learns "
                "that the turn failed",
                persist,
            )
        got = stored(crashed.path)
        assert [m["role"] for m in got or []] == ["user", "assistant", "toolResult"], (
            f"when the model failed at its second call, the session file {the_file(got)}; the 3 "
            "messages finished before the failure (user, assistant, toolResult) must stay",
            persist,
        )
    return (
        "2 whole turns left the file holding the list's 6 messages once each, in order, and "
        "the counts returned were right; a child process killed with SIGKILL inside its tool "
        f"call ({seconds:.1f} s after it started) kept the 2 messages finished before the "
        "kill (the user's, the assistant's tool call); a model failing mid-turn was not "
        "swallowed, and its 3 finished messages stayed"
    )


def killed_in_the_tool(module: ModuleType, directory: Path) -> tuple[list[Message] | None, float]:
    """Run a turn through the student's function in a child, SIGKILL it inside the tool, and
    return what the file kept, and how long the child took to reach the tool."""
    target = str(Path(module.__file__).resolve())
    started = time.monotonic()
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: it can never fill and block
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, target, str(STEP_DIR), str(directory), RUNNING.decode()],
            cwd=directory,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        try:
            output = read_until(child, RUNNING, started + STARTUP_SECONDS)
            child.kill()  # SIGKILL: nothing in the child runs after this
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            for pipe in (child.stdin, child.stdout):
                if pipe is not None:
                    pipe.close()
        seconds = time.monotonic() - started
        if RUNNING not in output:
            errors.seek(0)
            last = errors.read().decode(errors="replace").strip().splitlines()
            if child.returncode == -signal.SIGKILL:  # still running when the time was up
                what = f"did not reach the tool call within {STARTUP_SECONDS} s"
            elif last:
                what = f"failed before the tool call: {last[-1]}"
            else:
                what = "ended without ever running the tool"
            raise AssertionError(
                f"a turn run through persist_as_finished in a child process {what}: "
                "persist_as_finished must run the turn by consuming all of its events",
                module.persist_as_finished,
            )
    try:
        return stored(directory / "killed.jsonl"), seconds
    except SessionError as error:
        raise AssertionError(
            f"after the kill the session file cannot be read ({error}): write through the "
            "session, one complete entry at a time",
            module.persist_as_finished,
        ) from None


def read_until(child: subprocess.Popen[bytes], marker: bytes, deadline: float) -> bytes:
    """What the child printed, up to `marker`, its end, or the deadline (never blocks longer)."""
    assert child.stdout is not None
    output = b""
    descriptor = child.stdout.fileno()
    while marker not in output:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        readable, _, _ = select.select([descriptor], [], [], left)
        if not readable:
            continue
        chunk = os.read(descriptor, 65536)
        if not chunk:
            break  # the child closed its output: it ended
        output += chunk
    return output


def finished_before_the_tool() -> list[Message]:
    """The messages of "what is 12*8" that are finished when its tool starts, as this step's
    loop makes them: the user's, and the assistant's asking for calc."""
    messages: list[Message] = []
    for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text("what is 12*8")):
        pass
    assert [m["role"] for m in messages[:2]] == ["user", "assistant"], "the step's loop changed"
    return messages[:2]
