"""Copy one step folder alone into an empty directory and use it as a reader would.

A reader copies a step as the start of their own agent, so the copy must run with nothing
around it: `demo.py`, started from another directory, prints exactly its
`expected-output.txt`, and the step's own tests pass in the copy. This breaks silently the
moment a step reaches outside its folder (a shared helper, a path to ../, a file only the lab
has). `make check` runs each step's suite this way and only this way: the one run of a
step's tests is the one that proves the step copies out.

    python tools/copy_out.py labs/step03_continue            with this interpreter (.venv)
    python tools/copy_out.py --own-venv labs/step05_branching
    python3 tools/copy_out.py --venv-only labs/step05_branching   make that environment, no more
    python tools/copy_out.py --shard 2/3 labs/step07_production   a third of its test files

With --shard I/N the copy runs the I-th of N shares of the step's test files (the biggest
first, each to the lightest share so far), and shard 1 alone checks the demo: `make check`
runs the shares side by side, because the production step's suite spends most of its time
waiting on the processes it starts, not computing.

With --own-venv the copy runs in a virtual environment holding only the step's own
`requirements.txt` (made once under .venv/step-venvs/, named by a hash of that file and the
Python it was made with, and reused while neither changes): what a reader gets who installs
that file and nothing else. Exit status 0 only when the demo matched and pytest ran tests
and passed (its status 5, "no tests collected", is a failure here).
"""

from __future__ import annotations

import argparse
import difflib
import errno
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
STEP_VENVS = LAB_ROOT / ".venv" / "step-venvs"
# What running a step leaves in its folder, which a reader would not copy.
LEFTOVERS = shutil.ignore_patterns(
    "__pycache__", ".pytest_cache", ".hypothesis", ".sessions", "*.pyc"
)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def pinned(lines: list[str]) -> set[str]:
    """name==version lines, names normalised as pip compares them."""
    found = set()
    for line in lines:
        match = PIN.match(line.split("#", 1)[0].strip())
        if match:
            found.add(f"{re.sub(r'[-_.]+', '-', match[1]).lower()}=={match[2]}")
    return found


def own_venv(step: Path) -> Path:
    """The Python of a virtual environment holding only `step/requirements.txt`."""
    requirements = step / "requirements.txt"
    key = hashlib.sha256(
        requirements.read_bytes() + sys.version.encode() + sys.base_prefix.encode()
    ).hexdigest()[:16]
    home = STEP_VENVS / f"{step.name}-{key}"
    python = home / "bin" / "python"
    done = home / "installed-requirements.txt"
    if done.exists():
        return python
    for stale in STEP_VENVS.glob(f"{step.name}-*"):  # made from an older requirements.txt
        shutil.rmtree(stale, ignore_errors=True)
    print(f"installing {requirements.relative_to(LAB_ROOT)} alone into {home} (once)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "--quiet", "-r", str(requirements)], check=True)
    # Everything installed must be pinned there: a dependency the file forgot would have
    # come in at whatever version the index has today.
    frozen = subprocess.run([*pip, "freeze"], capture_output=True, text=True, check=True)
    unpinned = pinned(frozen.stdout.splitlines()) - pinned(requirements.read_text().splitlines())
    if unpinned:
        shutil.rmtree(home)
        sys.exit(f"{requirements} does not pin what installing it brought in: {sorted(unpinned)}")
    shutil.copyfile(requirements, done)
    return python


def check_demo(python: Path, original: Path, copy: Path, elsewhere: Path) -> bool:
    done = subprocess.run([str(python), str(copy / "demo.py")], cwd=elsewhere, capture_output=True)
    expected = (original / "expected-output.txt").read_bytes()
    if done.returncode == 0 and done.stdout == expected:
        return True
    print(f"FAIL demo.py of the copy, run from another directory (exit {done.returncode}):")
    diff = difflib.unified_diff(
        expected.decode(errors="replace").splitlines(),
        done.stdout.decode(errors="replace").splitlines(),
        "expected-output.txt",
        "demo.py's output",
        lineterm="",
    )
    print("\n".join(list(diff)[:40]))
    print(done.stderr.decode(errors="replace")[-2000:])
    return False


def cost(test_file: Path) -> int:
    """About how long a test file runs, from what never changes between runs: its size, three
    times over where it talks to the fake endpoint (each of those tests starts a Python that
    imports the SDK, the slowest start a test makes)."""
    size = test_file.stat().st_size
    return 3 * size if b"endpoint" in test_file.read_bytes() else size


def shard_files(tests: Path, shard: str | None) -> list[str]:
    """The test files of share I of N (`shard` "I/N"), or none (no shard: pytest finds every
    file). The costliest file goes first, each to the share that costs least so far, so each
    share is the same files on every run."""
    if shard is None:
        return []
    index, count = (int(n) for n in shard.split("/"))
    files = sorted(tests.glob("test_*.py"), key=lambda f: (-cost(f), f.name))
    shares: list[list[Path]] = [[] for _ in range(count)]
    for file in files:
        min(shares, key=lambda share: sum(cost(f) for f in share)).append(file)
    return [str(f.relative_to(tests.parent)) for f in sorted(shares[index - 1])]


class NoStepFolder(Exception):
    """The folder named is not one this tool can copy: the one line says which, and why."""


def step_folder(given: Path, needs: list[str]) -> Path:
    """`given`, resolved, once it is a folder holding the files this run reads (`needs`). A
    mistyped step (`make step-venv` with a folder renamed, a typo at the command line) ended
    in a FileNotFoundError traceback from the copy or the install; it is one line now, with
    the steps that are there."""
    name = os.fsencode(given).decode("utf-8", errors="backslashreplace")  # as it was typed
    try:
        folder = given.resolve()
        is_folder = folder.is_dir()
        lacking = [need for need in needs if not (folder / need).is_file()]
    except RuntimeError:  # Python 3.11's resolve() on a loop of symbolic links
        loop = os.strerror(errno.ELOOP)
        raise NoStepFolder(f"{name} is not a step folder: {loop}") from None
    except OSError as error:  # a name too long, a folder it may not look in
        raise NoStepFolder(f"{name} is not a step folder: {error.strerror or error}") from None
    if not is_folder:
        try:
            steps = sorted(p.name for p in folder.parent.glob("step[0-9][0-9]_*") if p.is_dir())
        except OSError:
            steps = []
        there = f" (the steps there: {', '.join(steps)})" if steps else ""
        what = "a file" if folder.exists() else "no such folder"
        raise NoStepFolder(f"{name} is not a step folder: {what}{there}")
    if lacking:
        raise NoStepFolder(f"{name} is not a step folder: it has no {' and no '.join(lacking)}")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", type=Path, help="a step folder, e.g. labs/step03_continue")
    parser.add_argument(
        "--own-venv", action="store_true", help="run with only the step's requirements.txt"
    )
    parser.add_argument(
        "--venv-only", action="store_true", help="only make (or find) that environment"
    )
    parser.add_argument("--shard", help="I/N: run the I-th of N shares of the test files")
    args = parser.parse_args()
    if args.shard and not (
        re.fullmatch(r"[1-9][0-9]*/[1-9][0-9]*", args.shard)
        and int(args.shard.split("/")[0]) <= int(args.shard.split("/")[1])
    ):
        parser.error("--shard takes I/N, two whole numbers, 1 <= I <= N")
    first = args.shard is None or args.shard.startswith("1/")
    needs = ["requirements.txt"] if args.venv_only or args.own_venv else []
    needs += ["expected-output.txt"] if first and not args.venv_only else []
    try:
        original = step_folder(args.step, needs)
    except NoStepFolder as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.venv_only:  # `make check` runs this beside the lab's own install
        own_venv(original)
        return 0
    environment = dict(os.environ)
    python = Path(sys.executable)
    if args.own_venv:
        python = own_venv(original)
        # A reader's pytest loads the plugins their environment has (here: hypothesis's).
        environment.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)

    with tempfile.TemporaryDirectory(prefix="lab-copy-out-") as folder:
        copy = Path(folder) / "reader" / original.name
        shutil.copytree(original, copy, ignore=LEFTOVERS)
        elsewhere = Path(folder) / "elsewhere"
        elsewhere.mkdir()
        demo_ok = check_demo(python, original, copy, elsewhere) if first else True
        files = shard_files(copy / "tests", args.shard)
        if args.shard and not files:  # no arguments at all would mean every test file
            print(f"FAIL shard {args.shard} of {original.name} holds no test file")
            return 1
        tests = subprocess.run(
            [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
            cwd=copy,
            env=environment,
            capture_output=True,
            text=True,
        )
    output = (tests.stdout + tests.stderr).rstrip()
    lines = [line.strip("= ") for line in output.splitlines() if line.strip()]
    verdict = lines[-1] if lines else "pytest printed nothing"
    tests_ok = tests.returncode == 0 and " passed" in verdict
    if not tests_ok:
        print(output[-6000:])
        if tests.returncode == 5:
            print("FAIL pytest collected no tests in the copy")
    where = "its own requirements.txt only" if args.own_venv else "the lab's environment"
    demo = ("demo matches" if demo_ok else "DEMO DIFFERS") if first else "demo in shard 1"
    print(f"{verdict}; {demo}; in a copy made alone ({where})")
    return 0 if demo_ok and tests_ok else 1


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
