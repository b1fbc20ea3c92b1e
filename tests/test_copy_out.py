"""A reader copies one step folder alone and it must run: its demo and its own tests.

`make check` proves it for every step with tools/copy_out.py: each step's suite runs once,
in a copy made alone in an empty directory, and the demo runs there from another directory,
byte for byte its expected-output.txt (the newest step with only its own requirements.txt
installed). Here, small made-up steps prove that the copy-out check can fail for each way a
step can break out of its folder, and passes a step that does not.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from conftest import LAB_ROOT

COPY_OUT = LAB_ROOT / "tools" / "copy_out.py"
DEMO = 'print("hello, reader")\n'
TEST = "def test_it():\n    assert 1 + 1 == 2\n"


def make_step(folder: Path, demo: str = DEMO, tests: dict[str, str] | None = None) -> Path:
    step = folder / "labs" / "step99_example"
    (step / "tests").mkdir(parents=True)
    (step / "demo.py").write_text(demo)
    (step / "expected-output.txt").write_text("hello, reader\n")
    for name, text in (tests if tests is not None else {"test_it.py": TEST}).items():
        (step / "tests" / name).write_text(text)
    return step


@cache
def copy_out_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("copy_out", COPY_OUT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_out(step: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(COPY_OUT), str(step)],
        cwd=step,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_step_that_stays_in_its_folder_passes(tmp_path: Path) -> None:
    done = copy_out(make_step(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 passed in ")
    assert "demo matches; in a copy made alone" in done.stdout


def test_leftovers_of_a_run_are_not_copied(tmp_path: Path) -> None:
    """A reader copies the code, not the sessions an earlier run left in the folder."""
    looking = "from pathlib import Path\n\ndef test_it():\n    " + (
        "assert not (Path(__file__).parents[1] / '.sessions').exists()\n"
    )
    step = make_step(tmp_path, tests={"test_it.py": looking})
    (step / ".sessions").mkdir()
    done = copy_out(step)
    assert done.returncode == 0, done.stdout + done.stderr


BROKEN_DEMOS = {
    "prints something else": 'print("hello, world")\n',
    "differs in one byte": 'print("hello, reader", end="\\r\\n")\n',
    "needs its own folder as cwd": "open('expected-output.txt')\nprint('hello, reader')\n",
    "fails after printing": "import sys\nprint('hello, reader')\nsys.exit(3)\n",
}


@pytest.mark.parametrize("why", BROKEN_DEMOS)
def test_a_demo_that_breaks_is_caught(tmp_path: Path, why: str) -> None:
    """The demo check alone, called in this process: the run below proves it is the one
    copy_out.py makes, and it fails the whole run."""
    step = make_step(tmp_path, demo=BROKEN_DEMOS[why])
    copy, elsewhere = tmp_path / "reader" / step.name, tmp_path / "elsewhere"
    shutil.copytree(step, copy)
    elsewhere.mkdir()
    assert not copy_out_module().check_demo(Path(sys.executable), step, copy, elsewhere), why


def test_a_broken_demo_fails_the_run_even_when_the_tests_pass(tmp_path: Path) -> None:
    done = copy_out(make_step(tmp_path, demo=BROKEN_DEMOS["prints something else"]))
    assert done.returncode == 1
    assert "FAIL demo.py of the copy" in done.stdout
    assert "+hello, world" in done.stdout  # the diff shows what it printed instead
    assert done.stdout.splitlines()[-1].startswith("1 passed in ")


def test_a_test_that_reaches_outside_the_folder_is_caught(tmp_path: Path) -> None:
    """It passes in place (the lab has the file next to the step), not in the copy."""
    reaching = "from pathlib import Path\n\ndef test_it():\n    " + (
        "assert (Path(__file__).parents[2] / 'shared.txt').exists()\n"
    )
    step = make_step(tmp_path, tests={"test_it.py": reaching})
    (step.parent / "shared.txt").write_text("only the lab has this")
    in_place = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=step, capture_output=True)
    assert in_place.returncode == 0
    done = copy_out(step)
    assert done.returncode == 1 and "1 failed" in done.stdout.splitlines()[-1]


NO_PROOF = {
    "no test files (pytest's exit status 5)": {},
    "every test skipped": {"test_it.py": "import pytest\n\n@pytest.mark.skip\n" + TEST},
}


@pytest.mark.parametrize("why", NO_PROOF)
def test_a_step_whose_tests_prove_nothing_fails(tmp_path: Path, why: str) -> None:
    done = copy_out(make_step(tmp_path, tests=NO_PROOF[why]))
    assert done.returncode == 1, why


STEPS_THERE = "(the steps there: step01_real, step02_real)"
NO_STEP = {  # the arguments after copy_out.py (in a lab with two steps): the one line they get
    "typo": (["labs/step99_typo"], f"labs/step99_typo is not a step folder: no such folder "
             f"{STEPS_THERE}"),
    "typo, --venv-only": (["--venv-only", "labs/step99_typo"], "no such folder"),
    "typo, --own-venv": (["--own-venv", "labs/step99_typo"], "no such folder"),
    "typo, a later shard": (["--shard", "2/3", "labs/step99_typo"], "no such folder"),
    "a file": (["labs/step01_real/demo.py"], "demo.py is not a step folder: a file"),
    "no requirements": (["--venv-only", "labs/step01_real"], "it has no requirements.txt"),
    "no expected output": (["labs/step02_real"], "it has no expected-output.txt"),
    "a loop": (["labs/step03_loop"], "step03_loop is not a step folder: Too many levels of"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(NO_STEP))
def test_a_folder_that_is_no_step_is_one_error_line(case: str, tmp_path: Path) -> None:
    """A mistyped step folder ended in a FileNotFoundError traceback, with --venv-only too
    (what `make step-venv` runs): from the copy, the install or the demo's expected output.
    It is one line now, naming the folder (and the steps there), and nothing is made."""
    arguments, said = NO_STEP[case]
    labs = make_step(tmp_path).parent  # labs/step99_example, with no requirements.txt
    (labs / "step99_example").rename(labs / "step01_real")
    (labs / "step02_real").mkdir()  # no expected-output.txt
    (labs / "step03_loop").symlink_to("step03_loop")
    done = subprocess.run(
        [sys.executable, str(COPY_OUT), *arguments],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (1, ""), done.stderr[-2000:]
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: {arguments[-1]} is not a step folder: "), line
    assert said in line
