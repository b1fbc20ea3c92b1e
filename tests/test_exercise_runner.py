"""The exercise runner is itself a check, so it must be able to fail: these tests build a tiny
lab with one exercise (a starter, a check, a hint, a solution, three kept wrong solutions)
and prove that `verify` accepts it as it is, and rejects each way it can go wrong: a check
that cannot fail, a wrong solution that passes or fails for another reason, a missing hint."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import LAB_ROOT

STARTER = '''"""Double a number."""
def double(n: int) -> int:
    raise NotImplementedError("TODO: return twice n")
'''
SOLVED = '''"""Double a number."""
def double(n: int) -> int:
    return 2 * n
'''
CHECK = """import helper

def check(module) -> str:
    got = module.double(21)
    assert got == helper.ANSWER, (f"double(21) gave {got!r}: return twice n", module.double)
    return "double(21) == 42"
"""
HINT = "Think of adding the number to itself.\n"
WRONG = {  # kept wrong solutions: (body of double, EXPECTED_FAIL)
    "plus_two": ("return n + 2", "double(21) gave 23"),
    "square": ("return n * n", "double(21) gave 441"),
    "as_text": ("return str(2 * n)", "double(21) gave '42'"),
}


def wrong_solution(body: str, expected: str | None, doc: str = "Wrong: a mistake.") -> str:
    """A kept wrong solution's file: a docstring, its EXPECTED_FAIL (if any), a `double`."""
    constant = "" if expected is None else f"EXPECTED_FAIL = {expected!r}\n"
    return f'"""{doc}"""\n{constant}def double(n: int) -> int:\n    {body}\n'


@pytest.fixture
def tiny_lab(tmp_path: Path) -> Path:
    shutil.copytree(LAB_ROOT / "exercises", tmp_path / "exercises", ignore=_only_the_runner)
    step = tmp_path / "labs" / "step09_tiny"
    step.mkdir(parents=True)
    (step / "helper.py").write_text("ANSWER = 42\n")  # checks import step modules by bare name
    (tmp_path / "exercises" / "step09").mkdir()
    (tmp_path / "exercises" / "step09" / "ex1_double.py").write_text(STARTER)
    (tmp_path / "exercises" / "step09" / "ex1_double_check.py").write_text(CHECK)
    (tmp_path / "exercises" / "step09" / "ex1_double.hint.md").write_text(HINT)
    (tmp_path / "solutions" / "step09").mkdir(parents=True)
    (tmp_path / "solutions" / "step09" / "ex1_double.py").write_text(SOLVED)
    kept = wrong_folder(tmp_path)
    kept.mkdir(parents=True)
    for name, (body, expected) in WRONG.items():
        (kept / f"{name}.py").write_text(wrong_solution(body, expected))
    return tmp_path


def _only_the_runner(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith("step") or n == "__pycache__"]


def wrong_folder(lab: Path) -> Path:
    return lab / "tests" / "wrong_solutions" / "step09" / "ex1_double"


def exercises(lab: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "exercises", *args], cwd=lab, capture_output=True, text=True
    )


def rejected(lab: Path) -> str:
    """verify's output, after proving it failed."""
    done = exercises(lab, "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "exercises: 0 passed, 1 failed" in done.stdout
    return done.stdout


def test_sound_exercise_verifies(tiny_lab: Path) -> None:
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   09.1 double: starter fails, solution passes, 3 wrong solutions fail" in done.stdout
    assert "exercises: 1 passed, 0 failed" in done.stdout


def test_student_sees_fail_then_pass(tiny_lab: Path) -> None:
    before = exercises(tiny_lab, "check", "09.1")
    assert before.returncode == 1
    assert before.stdout.startswith("FAIL 09.1 double: not done yet: TODO: return twice n")
    (tiny_lab / "exercises" / "step09" / "ex1_double.py").write_text(SOLVED + "# TODO done\n")
    after = exercises(tiny_lab, "check", "09.1")
    assert after.returncode == 0, after.stdout
    assert after.stdout.startswith("PASS 09.1 double: double(21) == 42")


def test_a_fail_line_names_the_file_and_line(tiny_lab: Path) -> None:
    # A wrong value: the check blames the function, so the line is that of its `def`.
    done = exercises(tiny_lab, "check", "09.1", "--file", str(wrong_folder(tiny_lab) / "square.py"))
    assert done.stdout.strip() == (
        "FAIL 09.1 double: double(21) gave 441: return twice n "
        "(at tests/wrong_solutions/step09/ex1_double/square.py:3)"
    )
    # An exception in the student's code: the line it was raised on.
    (tiny_lab / "exercises" / "step09" / "ex1_double.py").write_text(
        '"""Double."""\ndef double(n: int) -> int:\n    x = 1\n    return n + None\n'
    )
    done = exercises(tiny_lab, "check", "09.1")
    assert done.returncode == 1
    assert done.stdout.startswith("FAIL 09.1 double: TypeError: ")
    assert done.stdout.strip().endswith("(at exercises/step09/ex1_double.py:4)")


def test_sys_exit_in_the_students_code_is_no_pass(tiny_lab: Path) -> None:
    (tiny_lab / "exercises" / "step09" / "ex1_double.py").write_text("import sys\nsys.exit(0)\n")
    done = exercises(tiny_lab, "check", "09.1")
    assert done.returncode == 1
    assert done.stdout.startswith("FAIL 09.1 double: SystemExit"), done.stdout


def test_before_load_runs_before_the_students_module(tiny_lab: Path) -> None:
    # A spy must be in place before `from helper import ...` binds the name.
    (tiny_lab / "exercises" / "step09" / "ex1_double_check.py").write_text(
        "import helper\n\ndef before_load() -> None:\n    helper.ANSWER = 'spied'\n\n"
        "def check(module) -> str:\n"
        "    assert module.SEEN == 'spied', f'module saw {module.SEEN!r}'\n"
        "    return 'the spy came first'\n"
    )
    (tiny_lab / "solutions" / "step09" / "ex1_double.py").write_text(
        "from helper import ANSWER\nSEEN = ANSWER\n"
    )
    done = exercises(tiny_lab, "check", "09.1", "--solution")
    assert done.stdout.startswith("PASS 09.1 double: the spy came first"), done.stdout


def test_a_check_that_cannot_fail_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "exercises" / "step09" / "ex1_double.py").write_text(SOLVED + "# TODO\n")
    assert "the unsolved starter passes its check" in rejected(tiny_lab)


def test_a_wrong_solution_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "solutions" / "step09" / "ex1_double.py").write_text(
        SOLVED.replace("2 * n", "n + 2")
    )
    assert "the solution fails: FAIL 09.1 double: double(21) gave 23" in rejected(tiny_lab)


def test_a_missing_solution_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "solutions" / "step09" / "ex1_double.py").unlink()
    assert "missing solution" in rejected(tiny_lab)


def test_a_kept_wrong_solution_that_passes_is_rejected(tiny_lab: Path) -> None:
    (wrong_folder(tiny_lab) / "square.py").write_text(
        wrong_solution("return n + n", "gave", doc="Wrong: adds instead of multiplying.")
    )
    output = rejected(tiny_lab)
    assert "the wrong solution tests/wrong_solutions/step09/ex1_double/square.py PASSES" in output
    assert "(Wrong: adds instead of multiplying.)" in output


def test_a_kept_wrong_solution_failing_for_another_reason_is_rejected(tiny_lab: Path) -> None:
    (wrong_folder(tiny_lab) / "plus_two.py").write_text(
        wrong_solution("return n + 2", "double(21) gave 24")
    )
    assert (
        "plus_two.py fails for another reason than 'double(21) gave 24': "
        "FAIL 09.1 double: double(21) gave 23"
    ) in rejected(tiny_lab)


def test_a_kept_wrong_solution_must_fail_by_a_verdict_not_a_crash(tiny_lab: Path) -> None:
    crash = wrong_folder(tiny_lab) / "crash.py"
    crash.write_text(wrong_solution("return n + None", "unsupported operand"))
    assert "crash.py makes the check crash instead of naming the mistake" in rejected(tiny_lab)
    # ...unless the crash is exactly what it was kept to show, and it says so.
    crash.write_text(wrong_solution("return n + None", "TypeError: unsupported operand"))
    assert exercises(tiny_lab, "verify").returncode == 0


def test_a_kept_wrong_solution_must_say_what_its_fail_says(tiny_lab: Path) -> None:
    (wrong_folder(tiny_lab) / "square.py").write_text(wrong_solution("return n * n", None))
    assert "square.py has no EXPECTED_FAIL" in rejected(tiny_lab)


def test_fewer_than_three_wrong_solutions_are_rejected(tiny_lab: Path) -> None:
    (wrong_folder(tiny_lab) / "square.py").unlink()
    output = rejected(tiny_lab)
    assert "2 kept wrong solutions, at least 3 needed in tests/wrong_solutions/step09/" in output


def test_a_kept_right_solution_that_fails_is_rejected(tiny_lab: Path) -> None:
    right = tiny_lab / "tests" / "right_solutions" / "step09" / "ex1_double"
    right.mkdir(parents=True)
    (right / "shift.py").write_text('"""Right: a shift."""\ndef double(n):\n    return n << 2\n')
    assert "the right solution tests/right_solutions/step09/ex1_double/shift.py fails" in (
        rejected(tiny_lab)
    )


def test_a_missing_hint_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "exercises" / "step09" / "ex1_double.hint.md").unlink()
    assert "no hint: write exercises/step09/ex1_double.hint.md" in rejected(tiny_lab)


def test_a_hint_that_quotes_the_solution_is_rejected(tiny_lab: Path) -> None:
    (tiny_lab / "solutions" / "step09" / "ex1_double.py").write_text(
        SOLVED.replace("2 * n", "int.__mul__(n, 2)  # the long way round")
    )
    (tiny_lab / "exercises" / "step09" / "ex1_double.hint.md").write_text(
        "Write `return int.__mul__(n, 2)`.\n"
    )
    assert "the hint quotes the solution's code" in rejected(tiny_lab)


def test_a_pending_exercise_waits_for_its_hint_but_not_forever(tiny_lab: Path) -> None:
    runner = tiny_lab / "exercises" / "__main__.py"
    source = runner.read_text()
    assert "\nPENDING = {" in source
    runner.write_text(source.replace("\nPENDING = {", '\nPENDING = {"09.1", '))
    (tiny_lab / "exercises" / "step09" / "ex1_double.hint.md").unlink()
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 0, done.stdout
    assert "(PENDING: 3 of 3 wrong solutions, no hint)" in done.stdout
    # Once it has everything, the allow-list must lose it: the list can only shrink.
    (tiny_lab / "exercises" / "step09" / "ex1_double.hint.md").write_text(HINT)
    assert "remove it from PENDING" in rejected(tiny_lab)


def test_kept_solutions_of_no_exercise_are_rejected(tiny_lab: Path) -> None:
    stray = tiny_lab / "tests" / "wrong_solutions" / "step09" / "ex2_renamed"
    stray.mkdir()
    done = exercises(tiny_lab, "verify")
    assert done.returncode == 1
    assert "tests/wrong_solutions/step09/ex2_renamed/: kept solutions of no exercise" in (
        done.stdout
    )


def test_hint_prints_the_hint(tiny_lab: Path) -> None:
    done = exercises(tiny_lab, "hint", "09.1")
    assert done.returncode == 0
    assert done.stdout == "HINT 09.1 double:\nThink of adding the number to itself.\n"
    (tiny_lab / "exercises" / "step09" / "ex1_double.hint.md").unlink()
    done = exercises(tiny_lab, "hint", "09.1")
    assert done.returncode == 1
    assert done.stderr.strip() == "error: no hint for 09.1 yet"


def test_unknown_id_is_one_line_error(tiny_lab: Path) -> None:
    for command in ("check", "hint"):
        done = exercises(tiny_lab, command, "09.7")
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == ["error: no exercise '09.7' (known: 09.1)"]


def test_a_file_to_check_that_is_no_file_is_one_error_line(tiny_lab: Path) -> None:
    """A FIFO named with --file blocked the check until its 120-second timeout."""
    import os

    fifo = tiny_lab / "answer.py"
    os.mkfifo(fifo)
    for target in (fifo, tiny_lab / "missing.py", tiny_lab):
        done = subprocess.run(
            [sys.executable, "-m", "exercises", "check", "09.1", "--file", str(target)],
            cwd=tiny_lab, capture_output=True, text=True, timeout=20,
        )  # fmt: skip
        assert done.returncode == 2, done.stdout + done.stderr
        shown = target.name if target != tiny_lab else "."  # as the student typed it, from the lab
        assert done.stderr == f"error: {shown} is not a file to check\n"


LOOP = "Too many levels of symbolic links"
LONG_NAME, LONG_PATH = "x" * 300 + ".py", "d/" * 3000 + "a.py"  # over NAME_MAX, over PATH_MAX
NO_FILE = {  # what --file names: the one error line it must get
    "loop.py": f"loop.py is not a file to check ({LOOP})",
    "ping.py": f"ping.py is not a file to check ({LOOP})",
    "loop.py/answer.py": f"answer.py is not a file to check ({LOOP})",
    LONG_NAME: f"…{LONG_NAME[-99:]} is not a file to check (File name too long)",
    LONG_PATH: f"…{LONG_PATH[-99:]} is not a file to check (File name too long)",
    "caf\udce9.py": "caf\\xe9.py is not a file to check",  # b"caf\xe9.py", no UTF-8
    "secret.py": "secret.py cannot be read (Permission denied)",
}


@pytest.mark.parametrize("name", list(NO_FILE), ids=lambda name: name[:20])
def test_every_path_that_is_no_readable_file_is_one_error_line(
    tiny_lab: Path, without_root_override: list[str], name: str
) -> None:
    """--file with a loop of symbolic links ended in a RuntimeError traceback (Python 3.11's
    Path.resolve), a name or a path too long in an OSError one, and a file that cannot be
    read was blamed on the student as a FAIL. Each is one `error:` line now, like a missing
    file, with the reason; a name that is no UTF-8 is shown with its bytes escaped, and a
    name of thousands of characters by its last hundred."""
    import os

    (tiny_lab / "loop.py").symlink_to("loop.py")
    (tiny_lab / "ping.py").symlink_to("pong.py")
    (tiny_lab / "pong.py").symlink_to("ping.py")
    unreadable = tiny_lab / "secret.py"
    unreadable.write_text(SOLVED)
    unreadable.chmod(0)
    done = subprocess.run(
        [*without_root_override, sys.executable, "-m", "exercises", "check", "09.1",
         "--file", os.fsencode(tiny_lab / name)],
        cwd=tiny_lab, capture_output=True, timeout=20,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, b""), done.stderr[-300:]
    assert done.stderr.decode() == f"error: {NO_FILE[name]}\n"


def test_a_name_that_is_no_utf8_is_shown_with_its_bytes_escaped(tiny_lab: Path) -> None:
    """The FAIL line's `(at FILE:LINE)` showed such a name with a surrogate (`\\udce9`), the
    way Python decodes the byte, where the student's terminal shows the byte."""
    import os

    (tiny_lab / os.fsdecode(b"caf\xe9.py")).write_text("raise ValueError('nope')\n")
    done = subprocess.run(
        [sys.executable, "-m", "exercises", "check", "09.1", "--file",
         os.fsencode(tiny_lab) + b"/caf\xe9.py"],
        cwd=tiny_lab, capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, ""), done.stderr
    assert done.stdout == "FAIL 09.1 double: ValueError: nope (at caf\\xe9.py:1)\n"


def test_make_hands_the_id_over_as_one_word() -> None:
    """`make exercise ID=...` goes through a shell: the ID must arrive as one argument, so an
    ID holding a `;` is an unknown exercise, never a second command."""
    done = subprocess.run(
        ["make", "-n", "-C", str(LAB_ROOT), "exercise", "hint", "ID=01.1; touch pwned 'x'"],
        capture_output=True, text=True, timeout=20,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    commands = [line for line in done.stdout.splitlines() if "-m exercises" in line]
    quoted = "'01.1; touch pwned '\\''x'\\'''"
    assert commands and all(line.endswith(quoted) for line in commands), commands


def starter_that(lab: Path, code: str) -> None:
    """Put `code` at the top of the starter: it runs when the check loads the student's file."""
    (lab / "exercises" / "step09" / "ex1_double.py").write_text(code + "\n" + STARTER)


def test_any_bytes_the_students_code_prints_are_no_crash(tiny_lab: Path) -> None:
    starter_that(tiny_lab, "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\n')\n"
                 "sys.stderr.buffer.write(b'\\x80 not UTF-8\\n')")  # fmt: skip
    done = exercises(tiny_lab, "check", "09.1")
    assert done.returncode == 1, done.stderr
    assert done.stdout == "FAIL 09.1 double: not done yet: TODO: return twice n\n"
    assert done.stderr == ""


def test_a_verdict_line_holds_no_character_a_terminal_obeys(tiny_lab: Path) -> None:
    """An exception's words are the student's (or a file's): an ESC in them reaches the
    verdict line escaped, never clearing the student's screen (a CR is a space there)."""
    starter = tiny_lab / "exercises" / "step09" / "ex1_double.py"
    starter.write_text(SOLVED.replace("return 2 * n", "raise ValueError('\\x1b[2J\\r!')"))
    done = exercises(tiny_lab, "check", "09.1")
    assert done.returncode == 1, done.stderr
    assert "ValueError: \\x1b[2J !" in done.stdout, done.stdout
    assert "\x1b" not in done.stdout


def test_output_is_bounded_however_much_is_printed(tiny_lab: Path) -> None:
    """A check's output was held whole in memory: a print in an endless loop grew until the
    timeout. 300 MB printed now costs the runner no more than a few MB."""
    import os

    starter_that(tiny_lab, "import sys\nfor _ in range(300):\n"
                 "    sys.stdout.buffer.write(b'x' * 1_000_000)")  # fmt: skip
    with (tiny_lab / "out.txt").open("w+") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "exercises", "check", "09.1"], cwd=tiny_lab, stdout=out
        )
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        assert out.read() == "FAIL 09.1 double: not done yet: TODO: return twice n\n"
    assert os.waitstatus_to_exitcode(status) == 1
    assert usage.ru_maxrss < 150_000, f"the runner grew to {usage.ru_maxrss} KiB"


def test_a_pass_printed_by_the_students_code_is_no_verdict(tiny_lab: Path) -> None:
    starter_that(tiny_lab, "import os\nprint('PASS 09.1 double: double(21) == 42', flush=True)\n"
                 "os._exit(0)")  # fmt: skip
    done = exercises(tiny_lab, "check", "09.1")
    assert done.returncode == 1
    assert done.stdout.startswith("FAIL 09.1 double: the check crashed: "), done.stdout
    assert len(done.stdout.splitlines()) == 1


def test_a_check_that_kills_the_process_that_forked_it_costs_only_its_own_verdict(
    tiny_lab: Path,
) -> None:
    """Checks are forked by a server per step folder (run_one.py --serve). A student's code
    that kills its parent kills that server: its own verdict is a crash, and the checks after
    it run in a new server, not against a dead one."""
    starter_that(tiny_lab, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)")
    right = tiny_lab / "tests" / "right_solutions" / "step09" / "ex1_double"
    right.mkdir(parents=True)
    for name in ("twice", "added", "shifted"):  # more checks than workers: each runs several
        body = {"twice": "n * 2", "added": "n + n", "shifted": "n << 1"}[name]
        (right / f"{name}.py").write_text(f"def double(n: int) -> int:\n    return {body}\n")
    done = exercises(tiny_lab, "verify", "-v")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL 09.1 double: the check crashed: the process that started it died" in done.stdout
    assert done.stdout.count("PASS 09.1 double") == 4, done.stdout
    alone = exercises(tiny_lab, "check", "09.1")
    assert alone.returncode == 1, alone.stderr
    assert alone.stdout == "FAIL 09.1 double: the check crashed: the process that started it died\n"


def test_ctrl_c_during_a_check_is_one_line_and_stops_the_check(tiny_lab: Path) -> None:
    import os
    import signal
    import time

    pid_file = tiny_lab / "check.pid"
    starter_that(tiny_lab, f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))"
                 "\ntime.sleep(60)")  # fmt: skip
    # A background job (make check &) starts with SIGINT ignored, and a child inherits that:
    # the runner gets the signal at its default, as a terminal's Ctrl-C finds it.
    child = subprocess.Popen(
        [sys.executable, "-m", "exercises", "check", "09.1"],
        cwd=tiny_lab, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)  # as Ctrl-C does, to the runner alone
    out, err = child.communicate(timeout=20)
    assert (child.returncode, out, err) == (130, "", "interrupted: no verdict\n")
    check_pid = int(pid_file.read_text())
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):  # the check went with it, not 60 s later
        os.kill(check_pid, 0)


def test_a_closed_pipe_is_one_line(tiny_lab: Path) -> None:
    """`python -m exercises hint 05.2 | head` ended in a traceback when head had gone."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before a byte is written
    done = subprocess.run(
        [sys.executable, "-m", "exercises", "hint", "09.1"],
        cwd=tiny_lab, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=20,
    )  # fmt: skip
    os.close(write_end)
    assert (done.returncode, done.stderr) == (1, "error: the output was closed before the end\n")


def test_a_closed_standard_output_is_one_line(tiny_lab: Path) -> None:
    """`python -m exercises check 09.1 >&-` ended in an AttributeError traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "exercises", "check", "09.1"],
        cwd=tiny_lab, stdout=None, stderr=subprocess.PIPE, text=True, timeout=20,
        preexec_fn=lambda: __import__("os").close(1),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "error: standard output is closed\n")


@pytest.mark.parametrize("target", ["exercise", "hint"])
def test_make_expands_nothing_in_the_id(target: str) -> None:
    """`make exercise ID='01.1$(shell touch F)'` ran the command when make expanded ID: first
    in the recipe (now `$(value ID)`), then when make exported ID, a variable given on the
    command line, to the recipe's environment (`make -n` runs no recipe, so it never saw
    that). A real run of each target that takes an ID must touch nothing."""
    import os
    import tempfile

    # Not the make this test may run under (make check): its flags are not for this make.
    environment = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS",
                   "MAKELEVEL", "MAKEOVERRIDES")}  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        touched = Path(folder) / "F"
        injected = f"01.1$(shell touch {touched})"
        shown = subprocess.run(
            ["make", "-n", "-C", str(LAB_ROOT), target, f"ID={injected}"],
            capture_output=True, text=True, timeout=20, env=environment,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        commands = [line for line in shown.stdout.splitlines() if "-m exercises" in line]
        assert commands and commands[-1].endswith(f"'{injected}'"), commands
        # The real run, with this interpreter, and the lab's install taken as done.
        done = subprocess.run(
            ["make", "--no-print-directory", "-C", str(LAB_ROOT), "-o",
             ".venv/.installed-requirements", f"PY={sys.executable}", target,
             f"ID={injected}"],
            capture_output=True, text=True, timeout=60, env=environment,
        )  # fmt: skip
        assert not touched.exists(), f"make {target} ran the $(shell ...) in ID"
        assert f"error: no exercise '{injected}' (known: " in done.stderr, done.stderr


def test_files_lists_every_file_of_an_exercise(tiny_lab: Path) -> None:
    kept = "tests/wrong_solutions/step09/ex1_double"
    done = exercises(tiny_lab, "files", "09.1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "starter    exercises/step09/ex1_double.py",
        "check      exercises/step09/ex1_double_check.py",
        "hint       exercises/step09/ex1_double.hint.md",
        "solution   solutions/step09/ex1_double.py",
        *(f"wrong      {kept}/{name}.py" for name in sorted(WRONG)),
    ]


def test_a_fail_line_longer_than_200_characters_is_rejected(tiny_lab: Path) -> None:
    """A FAIL line is the rule, the input and the first difference: one terminal line,
    measured as the starter shows it (a kept solution's longer path is not counted)."""
    check = tiny_lab / "exercises" / "step09" / "ex1_double_check.py"
    check.write_text(CHECK.replace("return twice n", "return twice n" + ", twice n" * 14))
    output = rejected(tiny_lab)
    assert "/ex1_double/plus_two.py has 216 characters, at most 200: say the rule" in output


def test_a_runner_killed_during_a_check_leaves_no_traceback(tiny_lab: Path) -> None:
    """The server that forked the check outlives a SIGKILLed runner until the check ends; its
    'status' then went to nobody, and it printed a ChildProcessError traceback on the
    runner's standard error (the terminal) after the runner had gone."""
    import os
    import signal
    import time

    pid_file = tiny_lab / "check.pid"
    starter_that(tiny_lab, f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))"
                 "\ntime.sleep(1)")  # fmt: skip
    child = subprocess.Popen(
        [sys.executable, "-m", "exercises", "check", "09.1"],
        cwd=tiny_lab, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    out, err = child.communicate(timeout=20)  # standard error ends when the server has gone
    assert child.returncode == -signal.SIGKILL
    assert (out, err) == ("", "")
    with pytest.raises(ProcessLookupError):  # the check ended on its own, as it always did
        os.kill(int(pid_file.read_text()), 0)


def test_a_ctrl_c_the_students_code_sends_its_parent_is_no_traceback(tiny_lab: Path) -> None:
    """The parent of a check is its server: a SIGINT sent to it (os.getppid()) ended that
    server in a KeyboardInterrupt traceback on the student's terminal. The server ignores
    it now, and the check itself still has SIGINT as a fresh interpreter has it."""
    import signal

    starter_that(tiny_lab, "import os, signal, time\nos.kill(os.getppid(), signal.SIGINT)\n"
                 "time.sleep(0.5)\nif signal.getsignal(signal.SIGINT) is not "
                 "signal.default_int_handler:\n    raise RuntimeError('not fresh')")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "exercises", "check", "09.1"],
        cwd=tiny_lab, capture_output=True, text=True, timeout=20,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as at a terminal
    )  # fmt: skip
    assert (done.stdout, done.stderr) == (
        "FAIL 09.1 double: not done yet: TODO: return twice n\n",
        "",
    )


def test_a_check_that_stops_the_process_that_forked_it_ends_at_its_timeout(
    tiny_lab: Path,
) -> None:
    """A SIGSTOP sent to the server (os.getppid()) left it unable to say how the check
    ended: the runner waited for that word past the check's timeout, for ever, and the
    stopped server lingered. The timeout holds now, and the server is ended with the check."""
    import os

    parent = tiny_lab / "server.pid"
    starter_that(tiny_lab, f"import os, signal\nopen({str(parent)!r}, 'w').write(str(os.getppid()))"
                 "\nos.kill(os.getppid(), signal.SIGSTOP)")  # fmt: skip
    run = "import sys, exercises.__main__ as m\nm.CHECK_TIMEOUT_SECONDS = 2\n"
    run += "sys.exit(m.entry(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", run, "check", "09.1"],
        cwd=tiny_lab, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == "FAIL 09.1 double: the check took over 2 s (an endless loop?)\n"
    with pytest.raises(ProcessLookupError):
        os.kill(int(parent.read_text()), 0)


def test_a_fail_line_does_not_depend_on_the_terminals_width() -> None:
    """Check 03.3 reads what pytest prints, and pytest fits its summary to COLUMNS: a wide
    terminal once made the same wrong solution's FAIL line 205 characters long."""
    wrong = "tests/wrong_solutions/step03/ex3_own_reader/the_last_line_of_an_id_wins.py"
    lines = set()
    for columns in ("80", "300"):
        done = subprocess.run(
            [sys.executable, "-m", "exercises", "check", "03.3", "--file", wrong],
            cwd=LAB_ROOT, capture_output=True, text=True, timeout=120,
            env={**os.environ, "COLUMNS": columns},
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        lines.add(done.stdout.splitlines()[-1])
    [line] = lines
    as_the_starter_shows_it = line.replace(wrong, "exercises/step03/ex3_own_reader.py")
    assert line.startswith("FAIL 03.3 own reader: a resume keeps what is intact")
    assert len(as_the_starter_shows_it) <= 200
