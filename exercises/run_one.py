"""Run one check against one file, in this (fresh) process, and print a one-line verdict.

Kept apart from the command line so that each check runs in its own interpreter: the step
folder goes first on sys.path, and no module from an earlier check (or another step with the
same module names) can linger.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def where_in(path: Path, error: BaseException) -> str:
    """The last line of the student's file the error passed through, if any: where to look."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    return f" (at {path.name}:{frames[-1].lineno})" if frames else ""


def run(label: str, target: Path, check_file: Path, step_dir: Path) -> int:
    sys.path.insert(0, str(step_dir))
    try:
        module = load(target, target.stem)
        message = load(check_file, target.stem + "_check").check(module)
    except NotImplementedError as error:
        print(f"FAIL {label}: not done yet: {error or 'the TODO is still there'}")
        return 1
    except AssertionError as error:
        print(f"FAIL {label}: {error}{where_in(target, error)}")
        return 1
    except Exception as error:  # a student's bug is a verdict, not a crash of the checker
        print(f"FAIL {label}: {type(error).__name__}: {error}{where_in(target, error)}")
        return 1
    print(f"PASS {label}: {message}")
    return 0


if __name__ == "__main__":
    label, target, check_file, step_dir = sys.argv[1:5]
    sys.exit(run(label, Path(target), Path(check_file), Path(step_dir)))
