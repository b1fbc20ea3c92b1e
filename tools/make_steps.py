"""Build the step folders under labs/ from the one marked source under source/.

Every step is a snapshot of one program as it grows, so most of a step is the step before it.
Writing each snapshot by hand means making every fix four or five times; here each line of code
is written once, in source/, and says in which steps it is. The snapshots are cut from it, as
Crafting Interpreters cuts each chapter's code from one codebase. labs/ stays committed
(students browse it, readers copy it, notebooks import it), and nobody edits it by hand: a
course-wide test fails when it is not what the source makes, and names the file to edit.

    python tools/make_steps.py           write labs/ from source/ (`make steps`)
    python tools/make_steps.py --check   only say whether labs/ is what source/ makes

The source (source/README.md says it for the people who edit it):

- `source/lab/` is the production step, whole and runnable: `python source/lab/main.py` runs
  it, ruff lints and formats it, its tests run there. Each file starts with a file marker,
  `# >>file 02` (the file arrives in step 02 and stays). Inside, a block of lines says the same,
  and its closing marker names it:

      # >> 03                  the lines below arrive in step 03 (and stay)
      # << 03
      # >> 02 until prod       these are in step 02 and later, and go in the production step:
      # old_call()             so the source has them commented out, `# ` at the block's
      # << 02 until prod       indentation (a blank line is `#` alone)

  Blocks nest: a block inside another is in the steps both name (at least one). Marker lines
  are never written, and a line the production step does not have is written uncommented.
- `source/<step folder>/` holds files that belong to that step alone, whole: its README.md,
  its expected-output.txt, a demo that shares nothing. They are copied as they are.

Every step's Python is then sorted and formatted by ruff, as `make check` requires of it: the
blank lines ruff puts around a marker in the source are the source's, not the steps'.

Writing replaces only the files the source makes and removes only files it no longer makes,
so a step folder's caches (`.hypothesis/`, `__pycache__/`) survive a build.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
SOURCE = LAB_ROOT / "source"
SHARED = SOURCE / "lab"
LABS = LAB_ROOT / "labs"


@dataclass(frozen=True)
class Step:
    tag: str  # what a marker calls it
    folder: str  # its folder under labs/


# In teaching order. A marker names a step by its tag; a range runs up to, not including, the
# step after "until".
STEPS = (
    Step("01", "step01_snapshot_vs_ledger"),
    Step("02", "step02_cursor_persistence"),
    Step("03", "step03_continue"),
    Step("04", "step04_model_change"),
    Step("05", "step05_branching"),
    Step("06", "step06_compaction"),
    Step("prod", "step07_production"),
)
TAGS = {step.tag: index for index, step in enumerate(STEPS)}

# What running a step leaves in its folder: never the source's, never removed by a build.
LEFTOVERS = {"__pycache__", ".pytest_cache", ".hypothesis", ".sessions", ".ruff_cache"}
# Which files of source/lab/ carry markers, and how their comments start.
MARKED_SUFFIXES = {".py", ".txt"}
MARKED_NAMES = {".gitignore"}  # its comments start with "#" too
# source/lab/ is the production step's folder: these files, which are no program, are its own
# and are copied as they are (an earlier step's stand in its own folder).
PRODUCTION_ONLY = {"README.md", "expected-output.txt"}

_FILE_MARKER = re.compile(r"# >>file (?P<spec>.+?)\s*")
_OPEN = re.compile(r"\s*# >> (?P<spec>.+?)\s*")
_CLOSE = re.compile(r"\s*# <<(?: (?P<spec>.+?))?\s*")
_COMMENTED = re.compile(r"(?P<indent>\s*)#(?: (?P<rest>.*))?")
_SPEC = re.compile(r"(?P<first>\w+)(?: until (?P<gone>\w+))?")


class SourceError(Exception):
    """A marker the build cannot read; it names the file and the line."""


@dataclass(frozen=True)
class Span:
    """The steps a file or block is in: STEPS[first:gone]."""

    first: int
    gone: int

    def __and__(self, other: Span) -> Span:
        return Span(max(self.first, other.first), min(self.gone, other.gone))

    def __contains__(self, index: int) -> bool:
        return self.first <= index < self.gone

    @property
    def empty(self) -> bool:
        return self.first >= self.gone


def parse_span(spec: str, where: str) -> Span:
    match = _SPEC.fullmatch(spec)
    if match is None:
        raise SourceError(f"{where}: cannot read the steps {spec!r} (write 03, or 02 until 05)")
    unknown = [tag for tag in match.group("first", "gone") if tag and tag not in TAGS]
    if unknown:
        raise SourceError(f"{where}: no step {unknown[0]!r} (the steps: {', '.join(TAGS)})")
    first = TAGS[match["first"]]
    gone = TAGS[match["gone"]] if match["gone"] else len(STEPS)
    if gone <= first:
        raise SourceError(f"{where}: {spec!r} names no step ('until' must come later)")
    return Span(first, gone)


def cut(name: str, text: str) -> dict[int, str]:
    """The text of a marked file (`name` is for messages) in each step it is in, by index."""
    lines = text.splitlines(keepends=True)
    head = lines[0].rstrip("\n") if lines else ""
    marker = _FILE_MARKER.fullmatch(head)
    if marker is None:
        raise SourceError(f"{name}:1: a shared file starts with its steps: # >>file 02")
    newest = len(STEPS) - 1
    # Each open block: the steps it is in, its line, and the name its closing marker repeats.
    blocks = [(parse_span(marker["spec"], f"{name}:1"), 1, "")]
    out: dict[int, list[str]] = {index: [] for index in range(len(STEPS)) if index in blocks[0][0]}
    for number, line in enumerate(lines[1:], start=2):
        where = f"{name}:{number}"
        if "# >>file" in line:
            raise SourceError(f"{where}: a file marker belongs on the first line only")
        if opened := _OPEN.fullmatch(line.rstrip("\n")):
            inner = parse_span(opened["spec"], where) & blocks[-1][0]  # in both
            if inner.empty:
                raise SourceError(f"{where}: a block names no step its file or outer block is in")
            blocks.append((inner, number, opened["spec"]))
            continue
        if closed := _CLOSE.fullmatch(line.rstrip("\n")):
            shown = line.strip()
            if len(blocks) == 1:
                raise SourceError(f"{where}: '{shown}' closes no block")
            if closed["spec"] != blocks[-1][2]:
                raise SourceError(
                    f"{where}: '{shown}' closes the block of line {blocks[-1][1]}, "
                    f"'# >> {blocks[-1][2]}': a closing marker names the block it closes"
                )
            blocks.pop()
            continue
        if "# >>" in line or "# <<" in line:
            raise SourceError(f"{where}: a marker must be a line of its own: {line.strip()!r}")
        span = blocks[-1][0]
        if newest not in span:
            line = _uncommented(line, where)
        for index in range(span.first, span.gone):
            out[index].append(line)
    if len(blocks) > 1:
        raise SourceError(
            f"{name}:{blocks[-1][1]}: this block is never closed ('# << {blocks[-1][2]}')"
        )
    return {index: _spaced("".join(kept)) for index, kept in out.items()}


def _uncommented(line: str, where: str) -> str:
    """A line the production step does not have, as the earlier steps have it.

    In the source it is commented out where it stands: `# ` after its block's indentation
    (which the line keeps), or `#` alone for a blank line. The source then runs as the
    production program, and ruff reads the earlier steps' code as comments.
    """
    if match := _COMMENTED.fullmatch(line.rstrip("\n")):
        return match["indent"] + match["rest"] + "\n" if match["rest"] else "\n"
    raise SourceError(
        f"{where}: a line the production step does not have is commented out in the source "
        f"('# ' before it): {line.strip()!r}"
    )


def _spaced(text: str) -> str:
    """Where blocks around a step's lines were left out, the blank lines on either side of them
    can meet: at most two blank lines stand in a row, and none at the end of a file."""
    text = re.sub(r"\n{4,}", "\n\n\n", text)
    return text.rstrip("\n") + "\n" if text.strip() else text


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not LEFTOVERS.intersection(path.relative_to(folder).parts):
            yield path


def build(source: Path = SOURCE) -> dict[str, dict[str, bytes]]:
    """Every step folder's files (path inside the folder -> bytes), as the source makes them."""
    shared = source / SHARED.name
    steps: dict[str, dict[str, bytes]] = {step.folder: {} for step in STEPS}
    for path in _files(shared):
        relative = path.relative_to(shared).as_posix()
        name = f"source/{SHARED.name}/{relative}"
        if relative in PRODUCTION_ONLY:
            steps[STEPS[-1].folder][relative] = path.read_bytes()
            continue
        if path.suffix not in MARKED_SUFFIXES and path.name not in MARKED_NAMES:
            raise SourceError(
                f"{name}: only .py, .txt and .gitignore files are marked, and "
                f"{' and '.join(sorted(PRODUCTION_ONLY))} are the production step's; a file of "
                "an earlier step alone goes in source/<its folder>/"
            )
        for index, text in cut(name, path.read_text(encoding="utf-8")).items():
            steps[STEPS[index].folder][relative] = text.encode("utf-8")
    formatted(steps)
    for step in STEPS:
        for path in _files(source / step.folder):
            relative = path.relative_to(source / step.folder).as_posix()
            if relative in steps[step.folder]:
                raise SourceError(
                    f"source/{step.folder}/{relative}: source/{SHARED.name}/{relative} makes "
                    "this file too"
                )
            steps[step.folder][relative] = path.read_bytes()
    known = {step.folder for step in STEPS} | {SHARED.name}
    for folder in sorted(p.name for p in source.iterdir() if p.is_dir()):
        if folder not in known:
            raise SourceError(f"source/{folder}: no step has this folder")
    return steps


def formatted(steps: dict[str, dict[str, bytes]]) -> None:
    """Sort the imports and format the Python of every step cut from source/lab/, in place.

    Ruff wants a blank line between an import and a comment line after it, and before a comment
    that follows an indented body; in the source those comments are markers, and once a step
    drops them the blank lines are ruff's to settle again. The lab's own ruff settings, each
    step folder a root of its own modules (as in ruff.toml).
    """
    with tempfile.TemporaryDirectory(prefix="make-steps-") as temporary:
        root = Path(temporary)
        for folder, files in steps.items():
            for relative, data in files.items():
                if relative.endswith(".py"):
                    (root / folder / relative).parent.mkdir(parents=True, exist_ok=True)
                    (root / folder / relative).write_bytes(data)
        roots = json.dumps([str(root / folder) for folder in steps])
        settings = ["--config", str(LAB_ROOT / "ruff.toml"), "--config", f"src = {roots}"]
        for command in (["check", "--select", "I", "--fix", "--exit-zero"], ["format"]):
            _ruff([*command, "--quiet", "--no-cache", *settings, str(root)])
        for folder, files in steps.items():
            for relative in files:
                if relative.endswith(".py"):
                    files[relative] = (root / folder / relative).read_bytes()


def _ruff(arguments: list[str]) -> None:
    try:
        done = subprocess.run([sys.executable, "-m", "ruff", *arguments], capture_output=True)
    except OSError as error:
        raise SourceError(f"cannot run ruff: {error}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
        raise SourceError(
            f"ruff {arguments[0]} failed on a cut step ({sys.executable} -m ruff): "
            + (said[-1] if said else f"exit status {done.returncode}")
        )


def source_of(folder: str, relative: str) -> str:
    """Which file of the source makes labs/<folder>/<relative>."""
    own = SOURCE / folder / relative
    return str((own if own.exists() else SHARED / relative).relative_to(LAB_ROOT))


def differences(built: dict[str, dict[str, bytes]], labs: Path = LABS) -> list[str]:
    """How `labs` differs from what the source makes, one line each, naming what to edit."""
    found = []
    for folder, files in built.items():
        on_disk = {p.relative_to(labs / folder).as_posix(): p for p in _files(labs / folder)}
        for relative, data in sorted(files.items()):
            target = f"labs/{folder}/{relative}"
            if relative not in on_disk:
                found.append(f"{target} is missing (made by {source_of(folder, relative)})")
            elif on_disk[relative].read_bytes() != data:
                found.append(
                    f"{target} is not what {source_of(folder, relative)} makes: edit the "
                    "source, not labs/, then run `make steps`"
                )
        for relative in sorted(on_disk.keys() - files.keys()):
            found.append(f"labs/{folder}/{relative} is made by no file of source/")
    known = set(built)
    for stale in sorted(p.name for p in labs.glob("step[0-9][0-9]_*") if p.name not in known):
        found.append(f"labs/{stale} is no step of the source")
    return found


def write(built: dict[str, dict[str, bytes]], labs: Path = LABS) -> list[str]:
    """Make `labs` what the source makes, touching only what differs; the paths changed."""
    changed = []
    for folder, files in built.items():
        root = labs / folder
        for relative, data in files.items():
            target = root / relative
            if not target.is_file() or target.read_bytes() != data:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                changed.append(f"labs/{folder}/{relative}")
        for path in list(_files(root)) if root.exists() else []:
            if path.relative_to(root).as_posix() not in files:
                path.unlink()
                changed.append(f"labs/{folder}/{path.relative_to(root).as_posix()} (removed)")
        for folder_left in sorted(root.rglob("*"), reverse=True) if root.exists() else []:
            kept = LEFTOVERS.intersection(folder_left.relative_to(root).parts)
            if folder_left.is_dir() and not kept and not any(folder_left.iterdir()):
                folder_left.rmdir()  # emptied by the removals above
    for stale in sorted(p for p in labs.glob("step[0-9][0-9]_*") if p.name not in built):
        shutil.rmtree(stale)
        changed.append(f"labs/{stale.name} (removed: no step of the source)")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; change nothing")
    args = parser.parse_args()
    try:
        built = build()
    except SourceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.check:
        found = differences(built)
        for line in found:
            print(line)
        print("labs/ is what source/ makes" if not found else f"{len(found)} differences")
        return 1 if found else 0
    changed = write(built)
    for line in changed:
        print(f"wrote {line}")
    print(f"labs/: {len(changed)} files changed" if changed else "labs/ was up to date")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    sys.exit(main())
