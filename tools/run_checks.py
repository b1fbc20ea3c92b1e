"""What `make check` runs: every part of the lab's checks, one line of verdict each.

Each step's tests run in their own pytest process, because every step has modules of the same
names (`session.py`, `loop.py`...) that would shadow each other in one interpreter, and in a
copy of the step folder made alone in a temporary directory (tools/copy_out.py). A failing
part prints the end of its output under its verdict line; the last line counts the parts, and
any failure makes the exit status non-zero.

    python tools/run_checks.py            all parts, one more at a time than there are cores
    python tools/run_checks.py --jobs 1   one at a time (slower, quieter machine)
    python tools/run_checks.py notebooks  only the parts whose name contains "notebooks"
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import py_compile
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
# Each part's wall seconds in the last whole run: the order of the next (see `order`).
LAST_SECONDS = LAB_ROOT / ".venv" / "check-seconds.json"
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
TAIL_LINES = 40
# How many shares a suite runs in, side by side (see tools/copy_out.py --shard, and
# tests/conftest.py for the course-wide ones).
SHARES = {"step05": 2, "step06": 2, "step07": 4}
# Each share pays for its own pytest, collection and session fixtures (about 2 s of CPU for
# the course-wide tests, 2.3 s for a notebook run's nbval): started first, the course-wide
# and fault tests end in time in one process each, the notebooks in two.
COURSE_SHARES = 1
FAULT_SHARES = 1
NOTEBOOK_SHARES = 2


@dataclass(frozen=True)
class Part:
    name: str
    command: list[str]
    cwd: Path
    # About how many seconds it takes beside the others: the longest start first, so the
    # cores finish together (until a whole run has measured it: `order`). A guess from what
    # the part is made of, for a first run (CI's: a fresh clone has no .venv/).
    weight: int = 1
    # "I/N": the course-wide tests keep every N-th one from the I-th (tests/conftest.py).
    shard: str | None = None
    # Only in a throwaway copy may Python write the usual bytecode caches, which trust a
    # source file's modification time and size: a student's file checked twice in one second,
    # at one size, would be read from a stale cache. The lab's own folders get caches that
    # check the source's hash instead (compile_steps, below).
    writes_bytecode: bool = False


def parts() -> Iterator[Part]:
    yield Part("ruff", [sys.executable, "-m", "ruff", "check", "."], LAB_ROOT)
    yield Part("ruff format", [sys.executable, "-m", "ruff", "format", "--check", "."], LAB_ROOT)
    # Each step's suite runs once, in a copy of the folder made alone (tools/copy_out.py), so
    # passing proves the step copies out; the newest runs with only its own requirements.txt.
    steps = sorted((LAB_ROOT / "labs").glob("step[0-9][0-9]_*"))
    for step in steps:
        own = ["--own-venv"] if step == steps[-1] else []
        command = [sys.executable, "tools/copy_out.py", *own, str(step.relative_to(LAB_ROOT))]
        files = len(list(step.glob("tests/test_*.py")))
        # The bigger suites wait on the processes they start (kills, signals, endpoints)
        # far more than they compute: run in shares side by side, they finish sooner.
        count = SHARES.get(step.name[:6], 1)
        for index in range(1, count + 1):
            shard = [f"--shard={index}/{count}"] if count > 1 else []
            name = f"tests {step.name}" + (f" {index}/{count}" if count > 1 else "")
            # The production step's tests wait longest: on endpoints, kills and timeouts.
            weight = (3 if step == steps[-1] else 1) * 3 * files // (2 * count)
            sharded = [*command[:2], *shard, *command[2:]]
            yield Part(f"{name} (copied out)", sharded, LAB_ROOT, weight, writes_bytecode=True)
    for index in range(1, COURSE_SHARES + 1):
        yield Part(
            "tests course-wide" + (f" {index}/{COURSE_SHARES}" * (COURSE_SHARES > 1)),
            [*PYTEST, "tests", "--ignore=tests/test_faults.py"],
            LAB_ROOT,
            weight=100 // COURSE_SHARES,
            shard=f"{index}/{COURSE_SHARES}",
        )
    # Real kills, file size limits and two writers: processes that mostly wait.
    for index in range(1, FAULT_SHARES + 1):
        yield Part(
            "tests faults" + (f" {index}/{FAULT_SHARES}" * (FAULT_SHARES > 1)),
            [*PYTEST, "tests/test_faults.py"],
            LAB_ROOT,
            weight=30 // FAULT_SHARES,
            shard=f"{index}/{FAULT_SHARES}",
        )
    # One kernel runs one notebook's cells in order, a kernel for each notebook; the notebooks
    # run in shares side by side, several to a pytest process (importing nbval and nbformat
    # costs each process about 2.7 s of CPU).
    for share in notebook_shares(NOTEBOOK_SHARES):
        numbers = " ".join(notebook.stem[:2] for notebook in share)
        yield Part(
            f"notebooks {numbers} (nbval)",
            [
                *PYTEST,
                "-p",
                "nbval.plugin",
                "--nbval",
                "--nbval-current-env",
                "--nbval-sanitize-with",
                "notebooks/nbval-sanitize.cfg",
                *(str(notebook.relative_to(LAB_ROOT)) for notebook in share),
            ],
            LAB_ROOT,
            weight=int(1.5 * sum(map(notebook_seconds, share))),
        )
    yield Part("exercises", [sys.executable, "-m", "exercises", "verify"], LAB_ROOT, weight=90)


@cache
def notebook_seconds(notebook: Path) -> float:
    """How long its committed run took: from the first cell's start to the last cell's end,
    as the kernel recorded them in each cell's metadata (a notebook never run costs 10 s)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    times = [cell["metadata"].get("execution", {}) for cell in cells]
    began = [t["iopub.status.busy"] for t in times if "iopub.status.busy" in t]
    ended = [t["iopub.status.idle"] for t in times if "iopub.status.idle" in t]
    if not began or not ended:
        return 10.0
    return (datetime.fromisoformat(max(ended)) - datetime.fromisoformat(min(began))).total_seconds()


def notebook_shares(count: int) -> list[list[Path]]:
    """The notebooks in `count` shares of about equal time: the longest first, each to the
    share with the least so far. Each share keeps the notebooks' own order."""
    shares: list[list[Path]] = [[] for _ in range(count)]
    notebooks = sorted(LAB_ROOT.glob("notebooks/*.ipynb"))
    for notebook in sorted(notebooks, key=notebook_seconds, reverse=True):
        min(shares, key=lambda share: sum(map(notebook_seconds, share))).append(notebook)
    return [sorted(share) for share in shares if share]


def run(part: Part) -> tuple[Part, int, str, float, float]:
    """Run one part; its exit status, output, and the wall and CPU seconds it took (the CPU
    time of the part and every process it waited for: on two cores, what the sum of all parts'
    CPU time is over two is as fast as `make check` can be)."""
    started = time.perf_counter()
    # Plugins are loaded only where asked for (-p): importing nbval costs seconds, and every
    # step's test run would otherwise pay for it.
    environment = {
        **os.environ,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        **({"LAB_CHECK_SHARD": part.shard} if part.shard else {}),
    }
    if part.writes_bytecode:
        # Set where the machine sets it for every process (some CI images do).
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
    process = subprocess.Popen(
        part.command,
        cwd=part.cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
    )
    with process.stdout:
        output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return part, process.returncode, output, time.perf_counter() - started, cpu


def compile_steps() -> None:
    """Write the step folders' bytecode once, as caches that check the source's hash.

    The hundreds of main.py runs, kernels and readers that import a step's modules from
    labs/ then read bytecode instead of compiling each module again (about 20 ms a run).
    Nothing else writes there (PYTHONDONTWRITEBYTECODE, above), and a hash cannot go stale:
    a module edited since is compiled afresh.
    """
    compileall.compile_dir(
        LAB_ROOT / "labs",
        quiet=2,
        force=True,
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )


def order(parts: list[Part]) -> list[Part]:
    """The parts, longest first: by the wall seconds each took in the last whole run, where
    there was one (a weight guesses from counts of files, and cannot tell that one share of
    the production step's tests waits three times as long as another), else by weight.

    Longest first, because the longest-waiting parts bound the run: started last, the
    course-wide tests once ran alone for the last 15 s, on cores left half idle."""
    seconds = last_seconds()

    def length(part: Part) -> float:
        known = seconds.get(part.name)
        return float(known) if isinstance(known, int | float) else float(part.weight)

    return sorted(parts, key=length, reverse=True)


def last_seconds() -> dict[str, object]:
    """What `remember` kept: nothing when there is no such file, or no sense in it."""
    try:
        seconds = json.loads(LAST_SECONDS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return seconds if isinstance(seconds, dict) else {}


def remember(seconds: dict[str, float]) -> None:
    """Keep the wall seconds of the parts that passed for the next run's order (one that
    failed may have stopped early: its last good time stays). In .venv/, the lab's own
    environment: never committed, made again with it. Written whole or not at all."""
    partial = LAST_SECONDS.with_name(f"{LAST_SECONDS.name}.{os.getpid()}")
    try:
        kept = {**last_seconds(), **seconds}
        partial.write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(partial, LAST_SECONDS)
    except OSError:  # no .venv (the tool run alone): the next run guesses the order again
        partial.unlink(missing_ok=True)


def summary(output: str) -> str:
    """The runner's own closing line (pytest's "12 passed in 1.2s"), to show beside the verdict."""
    lines = [line.strip("= ") for line in output.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def at_least_one(text: str) -> int:
    """An argument type: a whole number of 1 or more. argparse says what is wrong in one line
    and exits, before anything runs; --jobs 0 used to end in ThreadPoolExecutor's ValueError
    traceback, after the steps were compiled."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # Most parts spend most of their time waiting on a child (a sleep, a pipe, a kill): two
    # parts a core, and one more, keep every core busy.
    parser.add_argument("--jobs", type=at_least_one, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("only", nargs="*", help="run only parts whose name contains one of these")
    args = parser.parse_args()
    selected = [p for p in parts() if not args.only or any(o in p.name for o in args.only)]

    failed, began, total_cpu, took_seconds = 0, time.perf_counter(), 0.0, {}
    compile_steps()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        started = {part.name: pool.submit(run, part) for part in order(selected)}
        for part, code, output, seconds, cpu in (started[p.name].result() for p in selected):
            # pytest's exit status 5 means it collected no tests: for a check, that is a failure.
            ok = code == 0
            failed += not ok
            if ok:
                took_seconds[part.name] = round(seconds, 1)
            total_cpu += cpu
            verdict = "ok  " if ok else "FAIL"
            print(f"{verdict} {part.name:44} {seconds:5.1f} s {cpu:5.1f} s cpu  {summary(output)}")
            if not ok:
                for line in output.strip().splitlines()[-TAIL_LINES:]:
                    print(f"     | {line}")
            sys.stdout.flush()
    if not args.only:  # a part run alone, or a few, takes less than beside all the others
        remember(took_seconds)
    took = f"{time.perf_counter() - began:.0f} s, {total_cpu:.0f} s cpu"
    print(f"check: {len(selected) - failed} passed, {failed} failed ({took})")
    return 1 if failed or not selected else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
