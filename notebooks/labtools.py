"""What every notebook needs from the lab, and nothing more.

The notebooks run with their own folder as the working directory (JupyterLab and nbval both
do this), so `import labtools` finds this file. Each notebook works with exactly one step:
step folders repeat module names (every step has a `session.py`), so two steps must never be
imported into one kernel.

Besides the step and scratch helpers, this holds the harness the notebooks drive `main.py`
with (a process to type into, a piped run, a seeded kill), so that a notebook opens on its
idea and not on plumbing. The harness imports nothing from a step: it runs `main.py` as its
own process, as a user would.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from entry_pictures import draw  # noqa: F401  (the picture of a step's entry graph)

LAB_ROOT = Path(__file__).resolve().parent.parent
SCRATCH = LAB_ROOT / "notebooks" / ".scratch"

_active_step: str | None = None


def use_step(name: str) -> Path:
    """Put one step folder first on the import path and return it.

    Refuses a second, different step in the same kernel: its modules would silently shadow
    (or be shadowed by) the first step's modules of the same name.
    """
    global _active_step
    step = LAB_ROOT / "labs" / name
    if not step.is_dir():
        raise FileNotFoundError(f"no step folder labs/{name}")
    if _active_step not in (None, name):
        raise RuntimeError(f"this kernel already uses {_active_step}; restart it to use {name}")
    _active_step = name
    if str(step) not in sys.path:
        sys.path.insert(0, str(step))
    return step


def scratch_dir(name: str) -> Path:
    """A fresh, empty folder for one experiment's files (git-ignored, emptied on every run).

    Notebooks print paths relative to it, so no machine-specific path reaches a checked output.
    """
    path = SCRATCH / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def check_exercise(exercise_id: str) -> bool:
    """Run one exercise's check in a fresh process and print its one-line verdict.

    A fresh process re-reads the file you edited, so there is no kernel to restart. It never
    raises: an unsolved exercise prints FAIL, which is what the notebook ships with.
    """
    result = subprocess.run(
        [sys.executable, "-m", "exercises", "check", exercise_id],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
    )
    print((result.stdout + result.stderr).strip())
    return result.returncode == 0


def hint_exercise(exercise_id: str) -> None:
    """Print the exercise's one short hint: the step between a FAIL and the solution.

    It points the way without giving the code, so try again after reading it.
    """
    result = subprocess.run(
        [sys.executable, "-m", "exercises", "hint", exercise_id],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
    )
    print((result.stdout + result.stderr).strip())


# ---------------------------------------------------------------------------------------------
# Running main.py as a user does. A step's notebook passes no `step`: the one use_step() chose.


def _step_folder(step: Path | None) -> Path:
    """The step folder to run: the one given, else the kernel's own step."""
    if step is not None:
        return step
    if _active_step is None:
        raise RuntimeError("call use_step() first: which step's main.py should run?")
    return LAB_ROOT / "labs" / _active_step


def _environment(delay: str | None) -> dict[str, str] | None:
    """The child's environment: the kernel's, with LAB_TOOL_DELAY set when `delay` is given."""
    return None if delay is None else {**os.environ, "LAB_TOOL_DELAY": delay}


SESSION_NAME = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")


def tidy(text: str) -> str:
    """`text` with each generated session name (a clock reading and a random suffix) shown as
    SESSION, so that a transcript reads the same on every run."""
    return SESSION_NAME.sub("SESSION", text)


class Program:
    """A step's `main.py` as a live process, typed into one line at a time, its transcript
    printed as a terminal shows it (warnings on stderr where they happen).

    `type` returns once the program prompts `you> ` again: by then it has answered and saved,
    so a notebook can look at the file *between* two lines.
    """

    def __init__(self, folder: Path, *args: str, step: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(_step_folder(step) / "main.py"), *args],
            cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        print(tidy(self._until_prompt()), end="")

    def type(self, line: str) -> None:
        """One line in; back when the program prompts again."""
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        print(tidy("you> " + self._until_prompt()), end="")

    def end(self) -> None:
        """End of input (Ctrl-D at a terminal): the program says what it saved, and exits."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        print(tidy("you> ^D" + self.process.stdout.read().decode()), end="")
        self.process.wait()

    def _until_prompt(self) -> str:
        assert self.process.stdout is not None
        out = b""
        while not out.endswith(b"you> "):
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:  # the program ended
                return out.decode()
            out += chunk
        return out.decode().removesuffix("you> ")


def run_program(
    folder: Path,
    lines: list[str],
    *args: str,
    step: Path | None = None,
    delay: str | None = None,
    echo: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """Run `main.py` to the end with `lines` piped in, stdout and stderr in one stream, in
    order (as a terminal shows them). `echo` prints that transcript, session names tidied.

    `delay` sets LAB_TOOL_DELAY (seconds each tool call sleeps first); `options` go to
    subprocess.run (a `preexec_fn` that sets a limit in the child, say).
    """
    done = subprocess.run(
        [sys.executable, str(_step_folder(step) / "main.py"), *args],
        cwd=folder, input="".join(line + "\n" for line in lines), text=True, timeout=60,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_environment(delay),
        **options,
    )
    if echo:
        print(tidy(done.stdout), end="")
    return done


def start_program(
    folder: Path, *args: str, step: Path | None = None, delay: str | None = None, **options: Any
) -> subprocess.Popen[bytes]:
    """Start `main.py` and leave it running, to be fed a line at a time, signalled or killed.
    Its stderr is a pipe of its own, so a notebook can read the last words of a stopped run."""
    return subprocess.Popen(
        [sys.executable, str(_step_folder(step) / "main.py"), *args],
        cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=_environment(delay), **options,
    )


def read_until(
    process: subprocess.Popen[bytes], marker: bytes, seen: bytes = b"", times: int = 1
) -> bytes:
    """Read a running program's output until `marker` has shown up `times` times in all.

    Gives up after 20 s, with what the program said on stderr: a notebook cell that waits
    for a prompt that never comes should fail, not hang.
    """
    assert process.stdout is not None and process.stderr is not None
    deadline = time.monotonic() + 20
    while seen.count(marker) < times:
        chunk = process.stdout.read1(4096)
        if not chunk or time.monotonic() > deadline:
            raise RuntimeError(f"no {marker!r}: {process.stderr.read1(4096)!r}")
        seen += chunk
    return seen


def the_session(folder: Path) -> Path:
    """The one session file under `folder/.sessions` (each experiment makes one)."""
    [path] = (folder / ".sessions").glob("*.jsonl")
    return path


def session_bytes(folder: Path) -> bytes:
    """The session file's bytes, or none before the first save has created it."""
    found = list((folder / ".sessions").glob("*.jsonl"))
    return the_session(folder).read_bytes() if found else b""


def whole(line: bytes) -> bool:
    """Is this line a whole JSON object (an entry a reader can use), not a fragment?"""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:  # not JSON, or not UTF-8: a torn or damaged line
        return False


# ---------------------------------------------------------------------------------------------
# The crash lab's random kill (notebook 06): tests/test_faults.py's kill, plus kills that land
# while the program starts up or resumes.

QUESTIONS = ["what is 12*8", "hello", "what is 2+3", "what was the result", "what is 7*6"]


@dataclass(frozen=True)
class Kill:
    """What one SIGKILL left: the turns that had finished before it, and the run's stderr."""

    finished: int  # turns whose next `you> ` prompt was shown: answered and saved
    errors: bytes  # what the run wrote to stderr (a traceback would show here)


def kill_at_random(folder: Path, rng: random.Random, step: Path | None = None) -> Kill:
    """Run main.py (with --continue once a session exists), answer 0 to 3 prompts, type one
    more question, wait up to 30 ms and SIGKILL it; a quarter of the time, kill it instead in
    its first half second, before anything is typed. The tool sleeps 5 ms, so some kills land
    inside a tool call. The schedule is seeded; where each kill lands is up to the machine."""
    resume = bool(session_bytes(folder))
    process = start_program(folder, *(["--continue"] if resume else []), step=step,
                            delay="0.005")
    assert process.stdin is not None
    if rng.random() < 0.25:  # a kill while it starts up or resumes: no question typed
        turns_wanted, pause = -1, rng.uniform(0, 0.5)
    else:
        turns_wanted, pause = rng.randint(0, 3), rng.uniform(0, 0.03)
    seen = b""
    try:
        for turn in range(turns_wanted + 1):
            seen = read_until(process, b"you> ", seen, times=turn + 1)  # this turn's prompt
            question = rng.choice(QUESTIONS) + "\n"  # the last one is in flight at the kill
            process.stdin.write(question.encode())
            process.stdin.flush()
        time.sleep(pause)
    finally:
        process.kill()  # SIGKILL: no handler, no finally, no flush in the child
        _, errors = process.communicate(timeout=20)
    return Kill(max(turns_wanted, 0), errors)


def fastest(action: Callable[[], object], times: int) -> float:
    """The shortest of `times` runs of `action`, in seconds: the run least disturbed by
    whatever else the machine was doing, so the closest to the cost of the action itself."""
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best
