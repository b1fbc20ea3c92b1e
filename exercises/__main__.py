"""python -m exercises list | files ID | check ID [--solution | --file PATH] | hint ID | verify

`check` is what a student runs (the notebooks call it too), `hint` is the step between a FAIL
and the solution, `files` lists everything an exercise is made of (starter, check, hint,
solution, kept wrong and right solutions), and `verify [-v]` is what `make check` runs. A
check that cannot fail proves nothing, so verify is the lab's mutation test of its own
checks: every starter must fail, every solution (and every kept right variant) must pass,
and every kept wrong solution must fail for the reason it was written to show, not pass and
not crash.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from errno import ELOOP, ENOENT, ENOTDIR
from pathlib import Path
from typing import IO

from exercises.catalog import (
    LAB_ROOT,
    Exercise,
    all_exercises,
    find,
    read_hint,
    read_wrong_solution,
    stray_kept_folders,
)
from exercises.run_one import MAX_LINE, shown

CHECK_TIMEOUT_SECONDS = 120
EXIT_KINDS = {0: "pass", 1: "fail", 3: "error"}  # run_one's PASSED, FAILED, ERRORED
EXIT_CODES = {kind: code for code, kind in EXIT_KINDS.items()}
MIN_WRONG_SOLUTIONS = 3  # fewer, and nobody has tried hard to fool the check
MAX_HINT_CHARACTERS = 600  # a hint points the way; a longer text starts to be the solution

# Exercises not yet held to the three-wrong-solutions-and-a-hint rule (verify still runs their
# starter, solution and whatever wrong solutions they have). It is empty: every exercise meets
# the rule, and a new exercise is done only when it does. Never add an id to it. (`{*()}` is
# the empty set; tests/test_exercise_runner.py puts an id in it to prove the set can only
# shrink.)
PENDING = {*()}

RUN_ONE = Path(__file__).with_name("run_one.py")
MAX_SHOWN = 100  # characters of a path named in an error line: its end, where it differs
OUTPUT_KEPT = 8192  # bytes of a check's own output kept: the end of a traceback, not a flood
RUNNING: set[ForkedCheck] = set()  # checks under way, to stop on Ctrl-C
LAUNCHERS: set[Launcher] = set()


@dataclass(frozen=True)
class Verdict:
    """One check's outcome: its one line, and what kind of line it is.

    "fail" is the check's own verdict (it caught something); "error" is an exception nobody
    expected; "crash" is a check process that died, hung or gave no verdict.
    """

    kind: str  # "pass" | "fail" | "error" | "crash"
    line: str


def run_check(exercise: Exercise, target: Path, launcher: Launcher) -> Verdict:
    """Run the check in a process of its own (forked by `launcher`). Its verdict comes
    through a pipe that only run_one.py writes to; what the student's code prints is read, a
    bounded amount kept (the last lines say why a process died), and never taken for a
    verdict."""
    label = f"{exercise.id} {exercise.title}"
    read_verdict, write_verdict = os.pipe()
    read_output, write_output = os.pipe()
    arguments = [label, str(target), str(exercise.check), str(exercise.step_dir)]
    try:
        child = launcher.start(arguments, write_output, write_verdict)
    finally:
        os.close(write_verdict)
        os.close(write_output)
    with os.fdopen(read_verdict, "rb") as verdict_pipe, os.fdopen(read_output, "rb") as out:
        output = Drain(out, OUTPUT_KEPT)
        answer = Drain(verdict_pipe, OUTPUT_KEPT)
        try:
            child.wait(timeout=CHECK_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return Verdict(
                "crash",
                f"FAIL {label}: the check took over {CHECK_TIMEOUT_SECONDS} s (an endless loop?)",
            )
        finally:
            child.stop()
        said = answer.text().strip()
    kind, _, line = said.partition(" ")
    if kind in EXIT_KINDS.values() and child.returncode == EXIT_CODES[kind]:
        return Verdict(kind, line)
    # The interpreter itself died (a segfault, os._exit, a kill) before the check judged:
    # whatever it printed and whatever its exit status, that is no pass.
    if child.returncode is None:
        reason = "the process that started it died"
    elif child.returncode < 0:
        reason = f"it was killed by {signal.Signals(-child.returncode).name}"
    else:
        last = [line for line in output.text().splitlines() if line.strip()]
        reason = last[-1].strip() if last else f"no verdict (exit status {child.returncode})"
    return Verdict("crash", f"FAIL {label}: the check crashed: {reason}"[:300])


class Launcher:
    """`run_one.py --serve`, started once for a step folder: it forks each check from an
    interpreter that has already imported what checks import. Without it each of verify's
    200 checks paid for a new interpreter and hypothesis first, most of verify's time."""

    def __init__(self, step_dir: Path, checks: list[Path]) -> None:
        self._channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        preload = imported_from_outside(step_dir, checks)
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, str(RUN_ONE), "--serve", str(theirs.fileno()), *preload],
                cwd=step_dir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # a Ctrl-C at the terminal is for this process to act on
            )
        self._lock = threading.Lock()  # one check at a time: the server waits for each
        self._gone = False
        LAUNCHERS.add(self)

    def start(self, arguments: list[str], output: int, verdict: int) -> ForkedCheck:
        self._lock.acquire()
        try:
            socket.send_fds(self._channel, [json.dumps(arguments).encode()], [output, verdict])
            pid = self.receive("pid")
        except OSError:
            self._gone, pid = True, None  # a check may kill its parent: a crash verdict
        except BaseException:
            self._lock.release()
            raise
        return ForkedCheck(self, None if pid is None else int(pid))

    def release(self) -> None:
        """The check started last has ended: the next may start."""
        self._lock.release()

    def gone(self) -> bool:
        """Whether the server has died: its socket said so, or it was reaped."""
        return self._gone or self._process.poll() is not None

    def receive(self, what: str, timeout: float | None = None) -> str | None:
        """The server's next word about `what`; None when it has gone."""
        try:
            self._channel.settimeout(timeout)  # an OSError too once the channel is closed
            said = self._channel.recv(256).decode()
        except TimeoutError:
            raise subprocess.TimeoutExpired("check", timeout or 0) from None
        except OSError:
            said = ""
        kind, _, value = said.partition(" ")
        if kind != what:
            self._gone = True
            return None
        return value

    def close(self) -> None:
        self._channel.close()  # the server reads the end, and exits
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()
        LAUNCHERS.discard(self)


def imported_from_outside(step_dir: Path, checks: list[Path]) -> list[str]:
    """The modules these checks import as they load, but none of the step folder's: a
    step module imported early would bind `os.fsync` before a check's spy is in place."""
    names: set[str] = {"inspect"}  # run_one.where_in's, for a FAIL line that blames a function
    for check in checks:
        with suppress(OSError, SyntaxError, ValueError):
            for node in ast.parse(check.read_bytes()).body:
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    # `from hypothesis import strategies` imports a module; a name that is
                    # no module is passed over by the server.
                    names.add(node.module)
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
    step_modules = {path.stem for path in step_dir.glob("*.py")}
    step_modules |= {path.parent.name for path in step_dir.glob("*/__init__.py")}
    return sorted(name for name in names if name.split(".")[0] not in step_modules)


class ForkedCheck:
    """One check under way: its pid (its process group's too), and how it ended."""

    def __init__(self, launcher: Launcher, pid: int | None) -> None:
        self._launcher, self.pid = launcher, pid
        self.returncode: int | None = None  # None: it never started, or its server died
        self._ended = pid is None
        if self._ended:
            launcher.release()
        RUNNING.add(self)

    def wait(self, timeout: float | None = None) -> None:
        if not self._ended:
            status = self._launcher.receive("status", timeout)
            self.returncode = None if status is None else int(status)
            self._ended = True
            self._launcher.release()

    def stop(self) -> None:
        """End the check's process group (a check may have children of its own), and wait."""
        if self.pid is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        try:
            self.wait(timeout=5)
        except subprocess.TimeoutExpired:  # its server gives no word (a check sent it SIGSTOP)
            self._launcher.close()
            self.wait()
        RUNNING.discard(self)


class Drain:
    """Reads a pipe to its end in a thread of its own, keeping only its last `kept` bytes: a
    check whose code prints forever fills no memory, and never blocks on a full pipe."""

    def __init__(self, pipe: IO[bytes], kept: int) -> None:
        self._pipe, self._kept, self._tail = pipe, kept, b""
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while chunk := self._pipe.read1(65536):  # type: ignore[attr-defined]
            self._tail = (self._tail + chunk)[-self._kept :]

    def text(self) -> str:
        """What was kept, as text: any bytes at all, undecodable ones shown escaped."""
        self._thread.join(timeout=5)
        return self._tail.decode("utf-8", errors="backslashreplace")


def stop_all() -> None:
    """Ctrl-C: the checks under way end with this process, not at their timeout."""
    for check in list(RUNNING):
        if check.pid is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(check.pid, signal.SIGKILL)
    for launcher in list(LAUNCHERS):
        launcher.close()


@dataclass(frozen=True)
class Run:
    """One file verify hands to an exercise's check, and what it must get."""

    exercise: Exercise
    target: Path
    role: str  # "starter" | "solution" | "right" | "wrong"
    what_is_wrong: str = ""
    expected_fail: str = ""


def judge(run: Run, verdict: Verdict) -> str | None:
    """What is wrong with this outcome, or None when it is what the run must get."""
    name = shown(run.target)
    if run.role == "starter":
        if verdict.kind == "pass":
            return (
                "the unsolved starter passes its check, so the check cannot fail (solved it "
                "yourself? `git checkout exercises/` restores the starters)"
            )
        return too_long(run, verdict)
    if run.role in ("solution", "right"):
        if verdict.kind == "pass":
            return None
        what = "the solution" if run.role == "solution" else f"the right solution {name}"
        return f"{what} fails: {verdict.line}"
    # A kept wrong solution: it must fail, by the check's own verdict, with the expected text.
    if verdict.kind == "pass":
        return (
            f"the wrong solution {name} PASSES its check, so the check cannot tell "
            f"({run.what_is_wrong}): {verdict.line}"
        )
    if verdict.kind == "crash" or (
        verdict.kind == "error" and f"{error_type(verdict.line)}:" not in run.expected_fail
    ):
        return (
            f"the wrong solution {name} makes the check crash instead of naming the "
            f"mistake: {verdict.line}"
        )
    if run.expected_fail not in verdict.line:
        return (
            f"the wrong solution {name} fails for another reason than "
            f"{run.expected_fail!r}: {verdict.line}"
        )
    return too_long(run, verdict)


def too_long(run: Run, verdict: Verdict) -> str | None:
    """A FAIL line longer than a student's terminal line, measured as the starter shows it
    (a kept solution's longer path does not count against the check)."""
    line = verdict.line.replace(shown(run.target), shown(run.exercise.starter))
    if len(line) <= MAX_LINE:
        return None
    return (
        f"the FAIL line for {shown(run.target)} has {len(line)} characters, at most "
        f"{MAX_LINE}: say the rule, the input and the first difference, nothing more: {line}"
    )


def error_type(line: str) -> str:
    """'TypeError' from 'FAIL 01.1 durable ledger: TypeError: ...'."""
    return line.split(": ", 2)[1] if line.count(": ") >= 2 else ""


def plan(exercise: Exercise) -> tuple[list[str], list[Run]]:
    """The problems visible without running anything, and the checks to run."""
    problems = []
    if "TODO" not in exercise.starter.read_text(encoding="utf-8"):
        problems.append("starter has no TODO")
    if not exercise.check.exists():
        problems.append(f"missing {exercise.check.name}")
    if not exercise.solution.exists():
        problems.append("missing solution")
    if problems:
        return problems, []

    runs = [
        Run(exercise, exercise.starter, "starter"),
        Run(exercise, exercise.solution, "solution"),
    ]
    runs += [Run(exercise, path, "right") for path in exercise.right_solutions]
    for path in exercise.wrong_solutions:
        try:
            kept = read_wrong_solution(path)
        except (ValueError, SyntaxError) as error:
            problems.append(f"the wrong solution {shown(path)} {error}")
            continue
        runs.append(Run(exercise, path, "wrong", kept.what_is_wrong, kept.expected_fail))

    hint = read_hint(exercise)
    complete = bool(hint) and len(exercise.wrong_solutions) >= MIN_WRONG_SOLUTIONS
    if exercise.id in PENDING:
        if complete:
            problems.append(
                f"has its hint and {len(exercise.wrong_solutions)} wrong solutions now: "
                "remove it from PENDING in exercises/__main__.py"
            )
        return problems, runs
    if not hint:
        problems.append(
            f"no hint: write {shown(exercise.hint)} (a few sentences that point the way "
            "without giving the code)"
        )
    elif len(hint) > MAX_HINT_CHARACTERS:
        problems.append(f"the hint has {len(hint)} characters: keep it under {MAX_HINT_CHARACTERS}")
    else:
        quoted = [line for line in solution_only_code(exercise) if line in hint]
        if quoted:
            problems.append(f"the hint quotes the solution's code ({quoted[0]!r}): point the way")
    if len(exercise.wrong_solutions) < MIN_WRONG_SOLUTIONS:
        folder = exercise.wrong_solutions[0].parent if exercise.wrong_solutions else None
        problems.append(
            f"{len(exercise.wrong_solutions)} kept wrong solutions, at least "
            f"{MIN_WRONG_SOLUTIONS} needed in "
            f"{shown(folder) if folder else 'tests/wrong_solutions/' + kept_folder(exercise)}/"
        )
    return problems, runs


def kept_folder(exercise: Exercise) -> str:
    return f"{exercise.starter.parent.name}/{exercise.starter.stem}"


def solution_only_code(exercise: Exercise) -> list[str]:
    """The solution's lines of code (20 characters or more) that the starter does not have."""
    starter = {line.strip() for line in exercise.starter.read_text(encoding="utf-8").splitlines()}
    lines = []
    for line in exercise.solution.read_text(encoding="utf-8").splitlines():
        code = line.split("  #")[0].strip()
        if len(code) >= 20 and line.strip() not in starter:
            lines.append(code)
    return lines


def verify(verbose: bool, only: list[str]) -> int:
    exercises = [e for e in all_exercises() if not only or e.id in only]
    plans = {exercise.id: plan(exercise) for exercise in exercises}
    runs = [run for _, exercise_runs in plans.values() for run in exercise_runs]
    # All checks of all exercises share two workers (each check is a process of its own),
    # each worker with a launcher of its own for each step folder.
    pool = ThreadPoolExecutor(max_workers=2)
    mine = threading.local()

    def checked(run: Run) -> Verdict:
        launchers = mine.__dict__.setdefault("launchers", {})
        step = run.exercise.step_dir
        if step not in launchers or launchers[step].gone():
            checks = [e.check for e in exercises if e.step_dir == step]
            launchers[step] = Launcher(step, checks)
        return run_check(run.exercise, run.target, launchers[step])

    try:
        verdicts = list(pool.map(checked, runs))
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all()  # the checks under way end with this process, not 120 s later
        raise
    pool.shutdown()
    for launcher in list(LAUNCHERS):
        launcher.close()
    outcomes = list(zip(runs, verdicts, strict=True))

    passed = 0
    for exercise in exercises:
        problems, exercise_runs = plans[exercise.id]
        mine = [(run, verdict) for run, verdict in outcomes if run.exercise is exercise]
        problems = problems + [p for run, verdict in mine if (p := judge(run, verdict))]
        if problems:
            print(f"FAIL {exercise.id} {exercise.title}:")
            for problem in problems:
                print(f"       - {problem}")
        else:
            passed += 1
            print(f"ok   {exercise.id} {exercise.title}: {summary(exercise, exercise_runs)}")
        if verbose:
            for run, verdict in mine:
                print(f"       {run.role:8} {shown(run.target)}\n         {verdict.line}")
    strays = stray_kept_folders()
    for folder in strays:
        print(f"FAIL {shown(folder)}/: kept solutions of no exercise (renamed? move them along)")
    print(f"exercises: {passed} passed, {len(exercises) - passed} failed")
    return 0 if exercises and passed == len(exercises) and not strays else 1


def summary(exercise: Exercise, runs: list[Run]) -> str:
    wrong = sum(run.role == "wrong" for run in runs)
    right = sum(run.role == "right" for run in runs)
    text = "starter fails, solution passes"
    if right:
        text += f", {right} right variant{'s' * (right != 1)} pass{'es' * (right == 1)}"
    if exercise.id in PENDING:
        hint = "a hint" if read_hint(exercise) else "no hint"
        return text + f" (PENDING: {wrong} of {MIN_WRONG_SOLUTIONS} wrong solutions, {hint})"
    return text + f", {wrong} wrong solutions fail as expected, hint"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m exercises", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="every exercise, with the file to edit")
    files = commands.add_parser("files", help="every file of one exercise, by role")
    files.add_argument("id", help='e.g. "01.2"')
    check = commands.add_parser("check", help="check your work on one exercise")
    check.add_argument("id", help='e.g. "01.2"')
    target = check.add_mutually_exclusive_group()
    target.add_argument("--solution", action="store_true", help="check the shipped solution")
    target.add_argument("--file", type=Path, help="check this file instead of the starter")
    hint = commands.add_parser("hint", help="one short hint for one exercise")
    hint.add_argument("id", help='e.g. "01.2"')
    verify_command = commands.add_parser(
        "verify", help="starters fail, solutions pass, kept wrong solutions fail as expected"
    )
    verify_command.add_argument(
        "-v", "--verbose", action="store_true", help="print every check's verdict line"
    )
    verify_command.add_argument("ids", nargs="*", help="only these exercises (all by default)")
    args = parser.parse_args(argv)

    if args.command == "list":
        print("fill-in: a given shape to complete; open: a design of your own, graded by a suite")
        for exercise in all_exercises():
            print(
                f"{exercise.id:6} {exercise.title:22} {exercise.kind:8} ~{exercise.minutes:>2} min"
                f"  edit {exercise.starter.relative_to(LAB_ROOT)}"
            )
        return 0
    if args.command == "verify":
        return verify(args.verbose, args.ids)
    try:
        exercise = find(args.id)
    except LookupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "files":
        for role, path in files_of(exercise):
            print(f"{role:10} {shown(path)}")
        return 0
    if args.command == "hint":
        text = read_hint(exercise)
        if not text:
            print(f"error: no hint for {exercise.id} yet", file=sys.stderr)
            return 1
        print(f"HINT {exercise.id} {exercise.title}:\n{text}")
        return 0
    if args.solution:
        path = exercise.solution
    elif args.file:
        try:
            path = file_to_check(args.file)
        except NoFileToCheck as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    else:
        path = exercise.starter
    launcher = Launcher(exercise.step_dir, [exercise.check])
    try:
        verdict = run_check(exercise, path, launcher)
    finally:
        launcher.close()
    print(verdict.line)
    return 0 if verdict.kind == "pass" else 1


class NoFileToCheck(Exception):
    """--file names something the check cannot read: the one line says what and why."""


def file_to_check(given: Path) -> Path:
    """The regular file `given` names, resolved, once it has been opened for reading: a
    FIFO would block the check until its timeout (120 s), and a file that cannot be read
    would be blamed on the student's code as a FAIL. Every way a path can be wrong (missing,
    a folder, a loop of symbolic links, a name too long, no permission) is one line, and a
    name of thousands of characters is shown by its end."""
    name = shown(given)
    name = name if len(name) <= MAX_SHOWN else "…" + name[-(MAX_SHOWN - 1) :]
    try:
        path = given.resolve()
        is_file = stat.S_ISREG(path.stat().st_mode)
    except RuntimeError:  # Python 3.11's resolve() on a loop of symbolic links
        loop = os.strerror(ELOOP)
        raise NoFileToCheck(f"{name} is not a file to check ({loop})") from None
    except OSError as error:
        why = "" if error.errno in (ENOENT, ENOTDIR) else f" ({error.strerror or error})"
        raise NoFileToCheck(f"{name} is not a file to check{why}") from None
    if not is_file:
        raise NoFileToCheck(f"{name} is not a file to check")
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise NoFileToCheck(f"{name} cannot be read ({error.strerror or error})") from None
    return path


def files_of(exercise: Exercise) -> list[tuple[str, Path]]:
    """The exercise's files, each with its role: what `files ID` prints."""
    found = [
        ("starter", exercise.starter),
        ("check", exercise.check),
        ("hint", exercise.hint),
        ("solution", exercise.solution),
    ]
    found += [("wrong", path) for path in exercise.wrong_solutions]
    return found + [("right", path) for path in exercise.right_solutions]


def entry(argv: list[str]) -> int:
    """main, with the two ways a run ends early each said in one line: Ctrl-C (the checks
    under way are stopped), and a reader that closed the pipe (`... | head`)."""
    if sys.stdout is None:  # started with it closed (`>&-`): a verdict would go nowhere
        print("error: standard output is closed", file=sys.stderr)
        return 1
    try:
        status = main(argv)
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        stop_all()
        print("interrupted: no verdict", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # What is left for standard output goes nowhere, not to a traceback at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("error: the output was closed before the end", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(entry(sys.argv[1:]))
