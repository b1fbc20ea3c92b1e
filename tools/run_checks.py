"""What `make check` runs: every part of the lab's checks, one line of verdict each.

Each step's tests run in their own pytest process, because every step has modules of the same
names (`session.py`, `loop.py`...) that would shadow each other in one interpreter. A failing
part prints the end of its output under its verdict line; the last line counts the parts, and
any failure makes the exit status non-zero.

    python tools/run_checks.py            all parts, two at a time
    python tools/run_checks.py --jobs 1   one at a time (slower, quieter machine)
    python tools/run_checks.py notebooks  only the parts whose name contains "notebooks"
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
TAIL_LINES = 40


@dataclass(frozen=True)
class Part:
    name: str
    command: list[str]
    cwd: Path
    heavy: bool = False  # started first, so that two cores finish together


def parts() -> Iterator[Part]:
    yield Part("ruff", [sys.executable, "-m", "ruff", "check", "."], LAB_ROOT)
    for step in sorted((LAB_ROOT / "labs").glob("step[0-9][0-9]_*")):
        yield Part(f"tests {step.name}", PYTEST, step)
    yield Part(
        "tests course-wide",
        [*PYTEST, "tests", "--ignore=tests/test_faults.py"],
        LAB_ROOT,
        heavy=True,
    )
    # Real kills, file size limits and two writers: a minute of processes, run beside the rest.
    yield Part("tests faults", [*PYTEST, "tests/test_faults.py"], LAB_ROOT, heavy=True)
    yield Part(
        "notebooks (nbval)",
        [
            *PYTEST,
            "-p",
            "nbval.plugin",
            "--nbval",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            "notebooks/nbval-sanitize.cfg",
            *sorted(str(p.relative_to(LAB_ROOT)) for p in LAB_ROOT.glob("notebooks/*.ipynb")),
        ],
        LAB_ROOT,
        heavy=True,
    )
    yield Part("exercises", [sys.executable, "-m", "exercises", "verify"], LAB_ROOT)


def run(part: Part) -> tuple[Part, int, str, float]:
    started = time.perf_counter()
    # Plugins are loaded only where asked for (-p): importing nbval costs seconds, and every
    # step's test run (and every copy-out run below them) would otherwise pay for it.
    environment = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    done = subprocess.run(
        part.command, cwd=part.cwd, capture_output=True, text=True, env=environment
    )
    return part, done.returncode, done.stdout + done.stderr, time.perf_counter() - started


def summary(output: str) -> str:
    """The runner's own closing line (pytest's "12 passed in 1.2s"), to show beside the verdict."""
    lines = [line.strip("= ") for line in output.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("only", nargs="*", help="run only parts whose name contains one of these")
    args = parser.parse_args()
    selected = [p for p in parts() if not args.only or any(o in p.name for o in args.only)]

    failed = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        heavy_first = sorted(selected, key=lambda p: not p.heavy)
        started = {part.name: pool.submit(run, part) for part in heavy_first}
        for part, code, output, seconds in (started[p.name].result() for p in selected):
            # pytest's exit status 5 means it collected no tests: for a check, that is a failure.
            ok = code == 0
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {part.name:40} {seconds:5.1f} s  {summary(output)}")
            if not ok:
                for line in output.strip().splitlines()[-TAIL_LINES:]:
                    print(f"     | {line}")
            sys.stdout.flush()
    print(f"check: {len(selected) - failed} passed, {failed} failed")
    return 1 if failed or not selected else 0


if __name__ == "__main__":
    sys.exit(main())
