"""Check 03.3: step 03's own tests of damaged files and of ids (test_damaged_files,
test_every_accepted_line_is_usable, test_ids_stay_unique), run by pytest in a copy of the
step whose entry_index.py hands out the student's OwnIndex, so that main.py's runs use it
too; then the course's fuzz of damaged sessions (the driver of
tests/test_damaged_sessions_fuzz.py: 100 files damaged at random, each resumed, answered and
drawn) on that copy. A failing test is said as the promise it holds, at the student's line."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from exercises import harness as h

STEP = h.LAB_ROOT / "labs" / "step03_continue"
FUZZ = h.LAB_ROOT / "tests" / "test_damaged_sessions_fuzz.py"
TESTS = ["tests/test_damaged_files.py", "tests/test_every_accepted_line_is_usable.py",
         "tests/test_ids_stay_unique.py"]  # fmt: skip
HEADER_ONLY = "not cannot_be_a_session and not passes_over_it"  # read before any index is made
PROMISES = [  # (a piece of a test's name, the promise it holds, the method blamed)
    ("restores_what_is_intact", "a resume keeps what is intact, counts the rest", "add_line"),
    ("at_most_one_warning", "--continue meets damage with one warning at most", ""),
    ("never_glued_onto", "a damaged line's id is never given again", "new_id"),
    ("without_its_newline", "a whole line is usable without its \\n", "add_line"),
    ("unknown_kind", "an unknown kind stays in the tree, and can be the leaf", "last_usable"),
    ("past_every_id", "a new id is past every id in the file", "new_id"),
    ("any_shape", "an id is data, not a number", "new_id"),
    ("path_from_the_leaf", "the leaf is the file's last usable line", "last_usable"),
    ("costs_the_line", "a line the index takes is usable everywhere", "add_line"),
    ("never_reuses_an_id", "a resumed run never reuses an id of the file", "new_id"),
]
FUZZED = "no damage raises: a resume, a turn, the graph"
MINE = "ex3_own_reader.py"  # the student's file, under this name in the copy


def check(module: ModuleType) -> str:
    from entry_index import EntryIndex

    if issubclass(module.OwnIndex, EntryIndex):
        h.fail("an index of your own", "OwnIndex", "it is the step's EntryIndex", module.OwnIndex)
    module.OwnIndex()  # the starter's "not written yet", before a minute of tests
    with tempfile.TemporaryDirectory() as folder:
        step = copied(Path(folder), Path(module.__file__ or "").resolve())
        passed = suite(step, module)
        seeds = fuzzed(step, Path(folder), module)
    return (
        f"in the step's place, OwnIndex passed step 03's {passed} tests of damaged files and "
        f"ids, main.py's runs among them; the fuzz's {seeds} damaged sessions raised nothing"
    )


def copied(folder: Path, mine: Path) -> Path:
    """The step, copied into folder/lab/labs (the fuzz finds the notebooks' pictures beside
    it), its entry_index.py handing out OwnIndex as the step's EntryIndex."""
    step = folder / "lab" / "labs" / STEP.name
    shutil.copytree(STEP, step, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (folder / "lab" / "notebooks").symlink_to(h.LAB_ROOT / "notebooks")
    (step / MINE).symlink_to(mine)
    (step / "entry_index.py").write_text(f"from {Path(MINE).stem} import OwnIndex as EntryIndex\n")
    return step


def suite(step: Path, module: ModuleType) -> int:
    """The step's tests, stopped at the first failure, which is said as its promise."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-rf", "--tb=short", "-p",
               "no:cacheprovider", "-k", HEADER_ONLY, *TESTS]  # fmt: skip
    # pytest fits its summary to the terminal's width: a fixed one, so the FAIL line is the
    # same in a wide terminal, a narrow one and CI.
    environment = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run(command, cwd=step, capture_output=True, text=True, timeout=100,
                          env=environment)  # fmt: skip
    if done.returncode == 0:
        return int(re.findall(r"(\d+) passed", done.stdout)[-1])
    found = re.search(r"^FAILED \S+::(test_\w+)(?:\[(.*?)\](?= - |$))?", done.stdout, re.M)
    errors = [line[2:].strip() for line in done.stdout.splitlines() if line.startswith("E ")]
    said = (errors or ["it failed"])[0].removeprefix("AssertionError: ")
    if found is None:  # no test ran: the copy could not even be imported
        h.fail("the step runs with OwnIndex", "importing it", h.cut(said, 60), module.OwnIndex)
    name, damage = found.groups()
    promise, method = next(((p, m) for key, p, m in PROMISES if key in name), (name, ""))
    case = damage or name.removeprefix("test_").replace("_", " ")
    h.fail(promise, h.cut(case, 40), h.cut(said, 50), where(done.stdout, module, method))
    return 0


def fuzzed(step: Path, folder: Path, module: ModuleType) -> int:
    """The course's fuzz: its session (step 05's main.py, two branches), its damage, its
    driver, with the copy as the step that reads."""
    tree = ast.parse(FUZZ.read_text(encoding="utf-8"))
    names = ("SEEDS", "TALK", "DAMAGE", "DRIVER")
    kept = [
        n for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) in names
    ]
    found: dict[str, object] = {}
    exec(compile(ast.Module(kept, []), str(FUZZ), "exec"), found)  # noqa: S102 (the lab's own)
    (talk := folder / "talk").mkdir()
    main = h.LAB_ROOT / "labs" / "step05_branching" / "main.py"
    subprocess.run([sys.executable, str(main)], cwd=talk, input=found["TALK"], check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    [session] = (talk / ".sessions").glob("*.jsonl")
    command = [
        sys.executable,
        "-c",
        str(found["DRIVER"]),
        str(step),
        str(session),
        str(found["SEEDS"]),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=100)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        h.fail(FUZZED, "the fuzz's driver", h.cut(last, 60), where(done.stderr, module, "add_line"))
    report = json.loads(done.stdout.strip().splitlines()[-1])
    if report["failed"]:
        seed, _, problem = report["problems"][0].partition(":")
        last = problem.strip().splitlines()[-1]
        h.fail(FUZZED, f"{seed} of the fuzz", h.cut(last, 60), where(problem, module, "add_line"))
    return int(found["SEEDS"])  # type: ignore[call-overload]


def where(output: str, module: ModuleType, method: str) -> object:
    """The last line of the student's file a traceback in `output` passed through, else the
    method the promise blames."""
    lines = re.findall(rf'{re.escape(MINE)}(?::|", line )(\d+)', output)
    return int(lines[-1]) if lines else getattr(module.OwnIndex, method, module.OwnIndex)
