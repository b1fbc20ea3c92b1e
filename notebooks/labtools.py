"""What every notebook needs from the lab, and nothing more.

The notebooks run with their own folder as the working directory (JupyterLab and nbval both
do this), so `import labtools` finds this file. Each notebook works with exactly one step:
step folders repeat module names (every step has a `session.py`), so two steps must never be
imported into one kernel.

Besides the step and scratch helpers, this holds what every notebook does the same way:
`show` prints a step's code, `run_program` runs its `main.py` (lines piped in, the transcript
printed as a terminal shows it), `start_program` leaves one running to be killed, and
`show_tree` draws a session's entries. None of it imports a step: `main.py` runs as its own
process, as a user would run it, and a picture takes the graph the step's own module built.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import re
import selectors
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import networkx as nx

from entry_pictures import draw, figure_size  # the picture of a step's entry graph

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
# A step's code, as it is in the step folder.


def show(thing: object) -> None:
    """Print a function's or class's source exactly as it is in the step folder, comments and
    all: what the notebook teaches is the step's own code, not a copy of it."""
    print(textwrap.dedent(inspect.getsource(thing)))  # type: ignore[arg-type]


def print_entries(entries: Iterable[dict[str, Any]], summarize: Callable[..., Any]) -> None:
    """A table of entries in file order: id, parent, kind and text (`summarize` is the step's
    own, from its entries.py, so each step shows its entries its own way)."""
    print(f"  {'id':<5}{'parent':<7}{'kind':<12}text")
    for entry in entries:
        summary = summarize(entry)
        print(f"  {entry['id']:<5}{entry['parentId'] or '-':<7}{summary.kind:<12}{summary.text}")


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


# main.py with calc slowed from outside: every calc sleeps first, so that a turn is still
# running when an experiment kills the program. It works on any step, and is the only way in
# step 02, which has no LAB_TOOL_DELAY (step 02's tests slow calc the same way).
_SLOW_CALC = """
import runpy, sys, time
from dataclasses import replace
main_py, seconds = sys.argv[1], float(sys.argv[2])
sys.argv = [main_py, *sys.argv[3:]]
sys.path.insert(0, main_py.rsplit("/", 1)[0])
import tools
def slowly(arguments):
    time.sleep(seconds)
    return tools.calc(arguments)
tools.default_tools = lambda: {"calc": replace(tools.CALC, run=slowly)}
runpy.run_path(main_py, run_name="__main__")
"""


def _command(step: Path | None, args: Sequence[str], slow_calc: float | None) -> list[str]:
    main_py = str(_step_folder(step) / "main.py")
    if slow_calc is None:
        return [sys.executable, main_py, *args]
    return [sys.executable, "-c", _SLOW_CALC, main_py, str(slow_calc), *args]


SESSION_NAME = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")


def tidy(text: str) -> str:
    """`text` with each generated session name (a clock reading and a random suffix) shown as
    SESSION, so that a transcript reads the same on every run."""
    return SESSION_NAME.sub("SESSION", text)


PROMPT = b"you> "


def run_program(
    folder: Path,
    lines: list[str],
    *args: str,
    step: Path | None = None,
    delay: str | None = None,
    slow_calc: float | None = None,
    echo: bool = False,
    between: Callable[[str], object] | None = None,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """Run `main.py` in `folder` to the end with `lines` piped in, as a user would type them,
    stdout and stderr in one stream, in order (as a terminal shows them). `echo` prints that
    transcript, session names tidied.

    `between(line)` is called after each line, once the program prompts `you> ` again: by
    then it has answered and saved, so a notebook can look at the file between two lines (the
    transcript is then printed as it comes). `delay` sets LAB_TOOL_DELAY (step 03 on),
    `slow_calc` slows calc from outside (any step); `options` go to subprocess (a
    `preexec_fn` that sets a limit in the child, say).
    """
    command = _command(step, args, slow_calc)
    if between is not None:
        return _line_by_line(command, folder, lines, between, _environment(delay), **options)
    done = subprocess.run(
        command,
        cwd=folder, input="".join(line + "\n" for line in lines), text=True, timeout=60,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_environment(delay),
        **options,
    )  # fmt: skip
    if echo:
        print(tidy(done.stdout), end="")
    return done


def _line_by_line(
    command: list[str],
    folder: Path,
    lines: list[str],
    between: Callable[[str], object],
    env: dict[str, str] | None,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """run_program, one line at a time: type a line, wait for the prompt, call `between`."""
    process = subprocess.Popen(
        command, cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, env=env, **options,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    try:
        said, prompted = _until_prompt(process)
        transcript = said
        print(tidy(said.decode()), end="")
        for line in lines:
            if not prompted:  # the program has ended (an /exit, an error): nothing reads on
                break
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
            said, prompted = _until_prompt(process)
            transcript += PROMPT + said  # the program echoes what a pipe "typed"
            print(tidy((PROMPT + said).decode()), end="")
            between(line)
        if prompted:
            process.stdin.close()  # the end of input, as Ctrl-D at a terminal
            said, _ = _until_prompt(process)
            transcript += PROMPT + said
            print(tidy((PROMPT + said).decode()), end="")
        process.wait(timeout=60)
    finally:
        process.kill()
        process.stdout.close()
    return subprocess.CompletedProcess(command, process.returncode, transcript.decode(), None)


def _until_prompt(process: subprocess.Popen[bytes], seconds: float = 60) -> tuple[bytes, bool]:
    """What the program writes until it prompts again (the prompt left off), and whether it
    did prompt (False: it ended). Gives up after `seconds`: a cell should fail, not hang."""
    assert process.stdout is not None
    out = b""
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as waiting:
        waiting.register(process.stdout, selectors.EVENT_READ)
        while not out.endswith(PROMPT):
            if not waiting.select(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"no prompt after {seconds} s; the program said {out!r}")
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:  # the program ended
                return out, False
            out += chunk
    return out.removesuffix(PROMPT), True


def start_program(
    folder: Path,
    *args: str,
    step: Path | None = None,
    delay: str | None = None,
    slow_calc: float | None = None,
    **options: Any,
) -> subprocess.Popen[bytes]:
    """Start `main.py` and leave it running, to be fed a line at a time, signalled or killed.
    Its stderr is a pipe of its own, so a notebook can read the last words of a stopped run."""
    return subprocess.Popen(
        _command(step, args, slow_calc),
        cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=_environment(delay), **options,
    )  # fmt: skip


def read_until(
    process: subprocess.Popen[bytes],
    marker: bytes,
    seen: bytes = b"",
    times: int = 1,
    timeout: float = 20,
) -> bytes:
    """Read a running program's output until `marker` has shown up `times` times in all.

    Gives up after `timeout` seconds, with what the program has said on stderr so far: a
    notebook cell that waits for a prompt that never comes should fail, not hang. The
    deadline holds while the program is alive and silent (waiting at its prompt): each read
    waits only as long as is left, and stderr is read without waiting at all.
    """
    assert process.stdout is not None and process.stderr is not None
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as waiting:
        waiting.register(process.stdout, selectors.EVENT_READ)
        while seen.count(marker) < times:
            if not waiting.select(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(
                    f"no {marker!r} after {timeout} s: {_said_so_far(process.stderr)!r}"
                )
            chunk = os.read(process.stdout.fileno(), 4096)  # what is there: it never waits
            if not chunk:  # the program closed its output (it ended)
                raise RuntimeError(f"no {marker!r}: {_said_so_far(process.stderr)!r}")
            seen += chunk
    return seen


def _said_so_far(stream: IO[bytes]) -> bytes:
    """What the pipe holds right now (up to 4 KiB), without waiting for more: a program that
    is alive keeps its stderr open, and a blocking read would wait for it to end."""
    with selectors.DefaultSelector() as waiting:
        waiting.register(stream, selectors.EVENT_READ)
        if not waiting.select(0):
            return b""
    return os.read(stream.fileno(), 4096)


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
# The crash lab's random kill (notebook 07): tests/test_faults.py's kill, plus kills that land
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
    process = start_program(folder, *(["--continue"] if resume else []), step=step, delay="0.005")
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


# ---------------------------------------------------------------------------------------------
# The picture of a session's entries (entry_pictures.py draws it).


def show_tree(graph: nx.DiGraph, title: str = "", restored: Collection[str] = ()) -> None:
    """Draw the entry graph a step's entry_graph.py built, in a figure its size needs, and
    show it: one call where a notebook wants a picture (`draw` takes an axes of your own)."""
    import matplotlib.pyplot as plt  # here: only a notebook that draws pays for matplotlib

    figure, ax = plt.subplots(figsize=figure_size(graph))
    draw(graph, ax, restored=restored)
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    with plt.rc_context({"savefig.pad_inches": 0.25}):  # a margin beyond the legend's text
        plt.show()
    plt.close(figure)


def show_moments(moments: list[tuple[str, list[str], list[str], int]], colours: dict[str, str],
                 title: str = "") -> None:  # fmt: skip
    """Notebook 02's picture of one turn: for each moment (label, the roles in memory, the
    roles in the file, the cursor), the list in memory (left stack, [0], [1], ...) beside the
    file's entries (right stack, e1, e2, ...), coloured by role, the cursor a black line."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    figure, ax = plt.subplots(figsize=(11, 3.8))
    height = max(len(memory) for _, memory, _, _ in moments)
    for column, (label, in_memory, in_file, cursor) in enumerate(moments):
        x = 3 * column
        for offset, roles, name, first in ((0, in_memory, "[{}]", 0), (1.1, in_file, "e{}", 1)):
            for index, role in enumerate(roles):
                ax.add_patch(Rectangle((x + offset, index), 1, 0.92, color=colours[role]))
                ax.text(x + offset + 0.5, index + 0.46, name.format(index + first),
                        ha="center", va="center", fontsize=7)  # fmt: skip
        ax.plot([x - 0.2, x + 2.3], [cursor - 0.04] * 2, color="#111111", lw=2.5)
        ax.text(x + 0.5, -0.3, "memory", ha="center", va="top", fontsize=7)
        ax.text(x + 1.6, -0.3, "file", ha="center", va="top", fontsize=7)
        ax.text(x + 1.05, -0.9, label, ha="center", va="top", fontsize=8)
    ax.plot([], [], color="#111111", lw=2.5, label="cursor")
    for role, colour in colours.items():
        ax.add_patch(Rectangle((0, 0), 0, 0, color=colour, label=role))
    ax.set_xlim(-0.5, 3 * len(moments) - 0.5)
    ax.set_ylim(-2.0, height + 1.2)
    ax.set_yticks(range(height + 1))
    ax.spines["left"].set_bounds(0, height)
    ax.set_ylabel("messages")
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.legend(loc="upper left", ncols=4, fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    figure.tight_layout()
    plt.show()
    plt.close(figure)


def signals_at_default() -> None:
    """preexec_fn of a child a notebook interrupts: a run started under `nohup` or as a
    background job inherits SIGINT ignored, and would (rightly) keep running."""
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
