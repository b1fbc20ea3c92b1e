"""Does the production step's session tree hold at scale?

    python tools/session_bench.py [--entries N] [--sqlite | --short [--every N] [--back N]] [--json]

(And what does --fsync cost? python tools/session_bench.py --fsync-cost [--appends N] [--dir DIR]
[--sqlite])

A tool of the lab's, not a part of the step: it measures it, with the step folder on its
path, and `make bench` runs it.

Generates a session of N entries (100,000 by default: about 120 MiB, with a branch every few
dozen entries), then measures, each in a fresh process so that peak memory is its own:

- resume: `Session.open` (read every line, validate, index by id, walk from the leaf, rebuild
  the conversation and the model), best of three;
- the floor: read every line and parse it with orjson, nothing else, best of three. No reader
  can resume faster than it parses, so resume / floor says what the tree costs on top;
- peak memory of each against the file's size (the resume's read once it is done, before the
  leaf moves), and what resume added to the memory the process already held (the interpreter
  and its imports, a fixed cost whose share shrinks as the file grows);
- moving the leaf (`append_branch`: constant time) and rebuilding the conversation from the
  new leaf (`build_context`: the length of the path) on the resumed session;
- then, with a compaction appended that keeps the last 1,000 entries of the path: the time
  to resume and the peak memory of step 05 (which reads it all), of the compaction step
  (which reads from the end) and of the production step.

With `--sqlite`, the same session in the production step's SQLite store too: converted from the
file as `main.py --convert` does (the header and every entry line, byte for byte), before the
leaf moves; the lines the file gains after it (the moves, the compaction and its turn) appended
to the database as they are, through the store's own `append`; then both read back and compared,
line for line. Measured the same way, each in a fresh process: its resume (time and peak memory),
its resume once compacted, and its size on disk (the database and its -wal).

With `--short`, a session of N short entries instead, and only its resume against the floor
(the same measures, in fresh processes): one-line messages, and every 1,000 entries (`--every`)
a move of the leaf 950 entries back (`--back`), as a user who tries a long stretch of the
conversation again does; never compacted. 1,050,000 of them (`make bench`) make a file of
about 140 MiB with a twentieth of them on the path. It asks whether a resume's memory follows
the conversation or the session: here a line's bytes are few and an entry's Python objects
many, so what a reader keeps of a line it has not used, and how fast it indexes one, decide.
With the ordinary case's moves (`--every 40 --back 15`) 62% of the entries are on the path,
656,265 messages, and the figures are the conversation's own: parsed, a short entry takes
about seven times its line (the messages alone, 2.8 times the file), and resuming it (read
again, parsed, checked, walked) about four times what the floor pays for a line.

Targets the lab sets itself (issue 39): resume at most the floor's time, peak memory at most 2x
the file, in both cases; with the compaction, the production step's resume at most a tenth of
step 05's, in at most 100 MiB; the SQLite store's compacted resume at most 0.02x the file's full
resume.
Timings vary from run to run and machine to machine; this prints figures, it asserts nothing.

`--fsync-cost` times N appends of a message (1.2 kB) to a new session in DIR (default: the
current folder, where `.sessions` would be: /tmp is often in memory, where fsync costs
nothing), without fsync and with it, and prints the time per append of each. With `--sqlite`,
the SQLite store's appends too, in the same folder (`fsync`: synchronous=FULL, else NORMAL):
target, at most 2x the file's at the same durability.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LAB_ROOT / "tools"))
from make_steps import STEPS  # noqa: E402

PRODUCTION = LAB_ROOT / "labs" / STEPS[-1].folder  # the last step: every defence, at scale
COMPARED = {  # the steps a compacted session is resumed by, each in a process of its own
    "step 05 (reads it all)": LAB_ROOT / "labs" / "step05_branching",
    "step 06 (from the end)": LAB_ROOT / "labs" / "step06_compaction",
    "production": PRODUCTION,
}
# The step it measures, from any directory: the production step, or the one a child is given.
STEP = Path(os.environ.get("LAB_BENCH_STEP") or PRODUCTION)
sys.path.insert(0, str(STEP))

import orjson  # noqa: E402

from entries import build_context  # noqa: E402
from messages import assistant_message, user_text  # noqa: E402
from session import Session, SessionError  # noqa: E402

TEXT = "All work and no play makes a session file grow. " * 24  # about 1.2 kB a message
BRANCH_EVERY = 40  # entries between two leaf moves
BRANCH_BACK = 15  # how far back each move goes


def generate(path: Path, entries: int) -> None:
    """A session written through the lab's own write path, branches and model switches in it."""
    session = Session.create(
        path.parent, session_id=path.stem, created_at="2026-01-01T00:00:00Z", cwd="/"
    )
    ids: list[str] = []
    for number in range(entries):
        if number and number % BRANCH_EVERY == 0:
            entry = session.append_branch(ids[-BRANCH_BACK])
        elif number % 500 == 250:
            entry = session.append_model_change("scripted-v2" if number % 1000 else "scripted-v1")
        elif number % 2 == 0:
            entry = session.append_message(user_text(f"{number} {TEXT}"))
        else:
            entry = session.append_message(assistant_message(f"{number} {TEXT}"))
        ids.append(entry["id"])


SHORT_BRANCH_EVERY = 1_000  # the short case: entries between two leaf moves (--every)
SHORT_BRANCH_BACK = 950  # how far back each goes (--back): a twentieth of them on the path


def generate_short(
    path: Path, entries: int, every: int = SHORT_BRANCH_EVERY, back: int = SHORT_BRANCH_BACK
) -> None:
    """Short entries, written through the lab's own write path: one-line messages, and every
    `every` entries a move of the leaf `back` entries back."""
    session = Session.create(
        path.parent, session_id=path.stem, created_at="2026-01-01T00:00:00Z", cwd="/"
    )
    ids: list[str] = []
    for number in range(entries):
        if number and number % every == 0 and len(ids) >= back:
            entry = session.append_branch(ids[-back])
        elif number % 2 == 0:
            entry = session.append_message(user_text(f"{number} next?"))
        else:
            entry = session.append_message(assistant_message(f"{number} ok."))
        ids.append(entry["id"])


KEPT = 1_000  # entries of the path a compaction keeps
SUMMARY = "\n".join(f"- asked: {number} {TEXT}"[:80] for number in range(20))  # 20 lines of 80


def compact(path: Path) -> None:
    """Append a compaction that keeps the last KEPT entries of the path, and a turn after it."""
    session = Session.open(path).session
    walked, current = [], session.leaf_id
    while current is not None and len(walked) <= KEPT:
        walked.append(session.entries[current])
        current = walked[-1]["parentId"]
    kept = next(
        e for e in reversed(walked) if e["type"] == "message" and e["message"]["role"] == "user"
    )
    session.append_compaction(SUMMARY, kept["id"])
    session.append_message(user_text(f"after the compaction {TEXT}"))
    session.append_message(assistant_message(f"after the compaction {TEXT}"))


def production_store(name: str):  # a storage.Store, of the production step
    """The production step's store of that `--store` name: imported only where it is needed,
    since a child measuring an earlier step has no stores module."""
    from stores import STORES

    return STORES[name]


def fsync_cost(folder: Path, appends: int = 200, store: str = "jsonl") -> dict[str, float]:
    """Seconds per append (the median), without fsync and with it, each in a new session
    in `folder`, kept in `store`. The first append, which creates it, is left out of both."""
    figures: dict[str, float] = {"appends": appends}
    for name, fsync in [("plain", False), ("fsync", True)]:
        with tempfile.TemporaryDirectory(dir=folder) as scratch:
            session = Session.create(
                scratch,
                session_id=name,
                created_at="2026-01-01T00:00:00Z",
                cwd="/",
                fsync=fsync,
                store=production_store(store),
            )
            session.append_message(user_text("first"))
            times = []
            for number in range(appends):
                started = time.perf_counter()
                session.append_message(user_text(f"{number} {TEXT}"))
                times.append(time.perf_counter() - started)
        figures[f"{name}_seconds"] = statistics.median(times)
    figures["ratio"] = figures["fsync_seconds"] / figures["plain_seconds"]
    return figures


def print_fsync_cost(folder: Path, appends: int, as_json: bool, sqlite: bool = False) -> None:
    figures: dict = fsync_cost(folder, appends)
    if sqlite:  # the same appends, in the same folder, kept in the other store
        other = fsync_cost(folder, appends, "sqlite")
        figures["sqlite"] = {name: other[name] for name in ("plain_seconds", "fsync_seconds")}
        figures["sqlite"]["ratio"] = other["ratio"]
        for name in ("plain", "fsync"):
            figures["sqlite"][f"{name}_over_jsonl"] = (
                other[f"{name}_seconds"] / figures[f"{name}_seconds"]
            )
    if as_json:
        print(json.dumps(figures))
        return
    plain, synced = figures["plain_seconds"] * 1e3, figures["fsync_seconds"] * 1e3
    print(f"{appends} appends of a 1.2 kB message in {folder.resolve()} (median per append):")
    print(f"  without fsync: {plain:.3f} ms  (the kernel has the line: a crash loses nothing)")
    print(f"  with fsync:    {synced:.3f} ms  (the disk has it: so does a power loss)")
    print(f"  fsync makes an append {figures['ratio']:.0f}x slower here")
    if sqlite:
        other = figures["sqlite"]
        print("the SQLite store, the same appends in the same folder:")
        for name, what in [("plain", "synchronous=NORMAL"), ("fsync", "synchronous=FULL")]:
            seconds, over = other[f"{name}_seconds"] * 1e3, other[f"{name}_over_jsonl"]
            shown = f"{'without fsync:' if name == 'plain' else 'with fsync:':15}{seconds:.3f} ms"
            print(f"  {shown}  ({what}): {over:.2f}x the file's (target at most 2x)")


def peak_mib() -> float:
    """This process's peak resident memory, in MiB.

    Linux carries ru_maxrss across exec, so a child would report its parent's peak (here: the
    parent's, after generating the file). VmHWM belongs to the program now running.
    """
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:  # not Linux: ru_maxrss is the child's own there (bytes on macOS)
        scale = 2**20 if sys.platform == "darwin" else 2**10
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return int(kib) / 1024


def measure_floor(path: Path) -> dict[str, float]:
    """Read and parse every line, keep every value: the least any reader must do."""
    times = []
    for _ in range(3):
        gc.collect()
        gc.disable()  # the same favour the reader gets: parsed JSON holds no cycles
        started = time.perf_counter()
        with path.open("rb") as file:
            values = [orjson.loads(line) for line in file]
        times.append(time.perf_counter() - started)
        gc.enable()
        del values
    return {"seconds": min(times), "peak_mib": peak_mib()}


def measure_resume(path: Path) -> dict[str, float]:
    before = peak_mib()  # the interpreter and its imports, before a byte of the session
    times = []
    for _ in range(3):
        gc.collect()
        started = time.perf_counter()
        resumed = Session.open(path)
        times.append(time.perf_counter() - started)
        messages, model = len(resumed.context.messages), resumed.context.model
        del resumed
    resumed = Session.open(path)
    peak = peak_mib()  # the resume's: what follows moves the leaf, and asks for every id
    session = resumed.session
    ids = session.entries.ids()
    targets = [key for key in ids[:: max(1, len(ids) // 50)] if key in session.entries][:50]
    move_seconds, rebuild_seconds = [], []
    for target in targets:  # each move: one appended line, then the path from the new leaf
        if target == session.leaf_id or target not in session.entries:
            continue
        started = time.perf_counter()
        session.append_branch(target)
        move_seconds.append(time.perf_counter() - started)
        started = time.perf_counter()
        build_context(session.entries, session.leaf_id)
        rebuild_seconds.append(time.perf_counter() - started)
    return {
        "seconds": min(times),
        "peak_mib": peak,
        "before_mib": before,
        "messages": messages,
        "model": model or "",
        "entries": len(ids),
        "move_seconds": min(move_seconds),
        "rebuild_seconds": max(rebuild_seconds),
    }


def open_session(path: Path):  # a Resumed, of this process's step
    """`Session.open` through the store the name says: a database only in the production step."""
    if path.suffix == ".sqlite":
        return Session.open(path, store=production_store("sqlite"))
    return Session.open(path)


def measure_open(path: Path) -> dict[str, float]:
    """`Session.open` of this process's step, best of three, and its peak memory."""
    times = []
    for _ in range(3):
        gc.collect()
        started = time.perf_counter()
        resumed = open_session(path)
        times.append(time.perf_counter() - started)
        messages = len(resumed.context.messages)
        del resumed
    return {"seconds": min(times), "peak_mib": peak_mib(), "messages": messages}


def size_on_disk_mib(path: Path) -> float:
    """The session's bytes on disk: a file, or a database and its -wal (if SQLite kept one)."""
    parts = [path, Path(f"{path}-wal")] if path.suffix == ".sqlite" else [path]
    return sum(part.stat().st_size for part in parts if part.exists()) / 2**20


def append_lines_since(jsonl: Path, offset: int, database: Path) -> None:
    """Append to the database the lines the file gained past `offset`, as they are, through
    the SQLite store's own append (one transaction each, as a run's)."""
    storage = production_store("sqlite").existing(database, lock=True)
    try:
        with jsonl.open("rb") as file:
            file.seek(offset)
            for line in file:
                storage.append(line)
    finally:
        storage.close()


def same_entries(jsonl: Path, database: Path) -> bool:
    """Whether the two sessions hold the same header and entry lines, byte for byte."""
    from stores import stored_lines

    with stored_lines(jsonl) as file, stored_lines(database) as rows:
        if file.header != rows.header:
            return False
        lines = (line for batch in file.batches for line in batch)
        kept = (line for batch in rows.batches for line in batch)
        return all(a == b for a, b in itertools.zip_longest(lines, kept))


def resume_figures(
    entries: int, size_mib: float, generated: float, floor: dict, resume: dict
) -> dict:
    """The resume's figures against the floor's and the file's size."""
    added = resume["peak_mib"] - resume["before_mib"]
    return {
        "entries": entries,
        "file_mib": size_mib,
        "generate_seconds": generated,
        "floor_seconds": floor["seconds"],
        "resume_seconds": resume["seconds"],
        "resume_over_floor": resume["seconds"] / floor["seconds"],
        "floor_peak_mib": floor["peak_mib"],
        "resume_peak_mib": resume["peak_mib"],
        "resume_peak_over_file": resume["peak_mib"] / size_mib,
        "resume_added_mib": added,
        "resume_added_over_file": added / size_mib,
        "messages_on_path": resume["messages"],
        "model_at_leaf": resume["model"],
        "move_leaf_seconds": resume["move_seconds"],
        "rebuild_longest_path_seconds": resume["rebuild_seconds"],
    }


def print_resume(figures: dict, what: str = "entries") -> None:
    entries, size_mib, generated = (
        figures["entries"],
        figures["file_mib"],
        figures["generate_seconds"],
    )
    print(f"session: {entries:,} {what}, {size_mib:.0f} MiB, generated in {generated:.1f} s")
    model = figures["model_at_leaf"] or "the default"
    print(f"  on the path from the leaf: {figures['messages_on_path']:,} messages, model {model}")
    print(f"{'':24}{'time':>10}{'peak memory':>14}")
    for name, key in [("floor (orjson each line)", "floor"), ("resume (Session.open)", "resume")]:
        print(f"{name:24}{figures[f'{key}_seconds']:>9.2f}s{figures[f'{key}_peak_mib']:>10.0f} MiB")
    ratio, memory = figures["resume_over_floor"], figures["resume_peak_over_file"]
    print(f"resume / floor: {ratio:.2f}x (target at most 1x)")
    print(f"resume peak memory / file size: {memory:.2f}x (target at most 2x)")
    added = figures["resume_added_over_file"]
    print(f"  of which the resume added: {added:.2f}x the file (the rest held before it began)")
    move = figures["move_leaf_seconds"] * 1e3
    rebuild = figures["rebuild_longest_path_seconds"] * 1e3
    print(f"moving the leaf (one appended line): {move:.2f} ms, whatever the session's size")
    print(f"rebuilding the conversation from a new leaf: at most {rebuild:.1f} ms (path length)")


def print_short(
    entries: int, size_mib: float, generated: float, floor: dict, resume: dict, as_json: bool
) -> None:
    figures = resume_figures(entries, size_mib, generated, floor, resume)
    if as_json:
        print(json.dumps(figures))
    else:
        print_resume(figures, "short entries")


class MeasureFailed(Exception):
    """A measuring child ended without its figures; the message is its last word."""


def in_fresh_process(what: str, path: Path, step: Path = PRODUCTION) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", what, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "LAB_BENCH_STEP": str(step)},
    )
    if done.returncode != 0:  # out of memory, say: its last line says why
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise MeasureFailed(f"measuring {what} failed: {last}")
    return json.loads(done.stdout)


# About 1.2 kB an entry: 2,000,000 entries make a 2.4 GB file, and resuming it takes about
# 5 GB of memory. A larger run is no benchmark; it is a machine running out of something.
MOST_ENTRIES = 2_000_000


def at_least(least: int, most: int | None = None) -> Callable[[str], int]:
    """An argument type: a whole number no smaller than `least` (nor larger than `most`):
    argparse says so in one line and exits, instead of a traceback from the bench halfway."""

    def whole_number(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if number < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {number}")
        if most is not None and number > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:,}, not {number:,}")
        return number

    return whole_number


def a_folder(text: str) -> Path:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text!r}")
    return Path(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # At least two leaf moves: the figures of a move need one to time.
    parser.add_argument(
        "--entries", type=at_least(2 * BRANCH_EVERY + 1, MOST_ENTRIES), default=100_000
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--sqlite", action="store_true", help="the same session (or appends) in SQLite too"
    )
    parser.add_argument(
        "--short", action="store_true", help="a session of short entries, resumed (not --sqlite)"
    )
    parser.add_argument(
        "--every", type=at_least(1), default=SHORT_BRANCH_EVERY, help="with --short: a move every"
    )
    parser.add_argument(
        "--back", type=at_least(1), default=SHORT_BRANCH_BACK, help="with --short: this far back"
    )
    parser.add_argument(
        "--fsync-cost", action="store_true", help="time an append without and with fsync"
    )
    parser.add_argument("--appends", type=at_least(1), default=200, help="with --fsync-cost")
    parser.add_argument("--dir", type=a_folder, default=Path("."), help="with --fsync-cost")
    parser.add_argument("--measure", nargs=2, metavar=("WHAT", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # the child: one measurement, printed as JSON
        what, file = args.measure
        measure = {"floor": measure_floor, "resume": measure_resume, "open": measure_open}[what]
        print(json.dumps(measure(Path(file))))
        return
    if args.fsync_cost:
        try:
            print_fsync_cost(args.dir, args.appends, args.json, args.sqlite)
        except (OSError, SessionError) as error:  # a folder this user may not write in
            parser.exit(1, f"{parser.prog}: error: cannot time appends in {args.dir}: {error}\n")
        return
    if args.short and args.sqlite:
        parser.error("--short measures the file's resume alone: leave out --sqlite")

    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bench.jsonl"
            started = time.perf_counter()
            if args.short:
                generate_short(path, args.entries, args.every, args.back)
            else:
                generate(path, args.entries)
            generated = time.perf_counter() - started
            size_mib = path.stat().st_size / 2**20
            if args.short:  # the resume alone
                floor = in_fresh_process("floor", path)
                resume = in_fresh_process("resume", path)
                print_short(args.entries, size_mib, generated, floor, resume, args.json)
                return
            if args.sqlite:  # the same entries, before the resume below moves the leaf
                from stores import convert

                started = time.perf_counter()
                database = convert(path)
                converted = time.perf_counter() - started
                converted_at = path.stat().st_size
                sqlite = {"file_mib": size_on_disk_mib(database), "convert_seconds": converted}
            floor = in_fresh_process("floor", path)
            if args.sqlite:
                sqlite["resume"] = in_fresh_process("open", database)
            resume = in_fresh_process("resume", path)
            compact(path)
            compacted = {
                name: in_fresh_process("open", path, step) for name, step in COMPARED.items()
            }
            if args.sqlite:  # the moves, the compaction and its turn, as the file has them
                append_lines_since(path, converted_at, database)
                if not same_entries(path, database):
                    raise MeasureFailed("the SQLite session does not hold the file's entries")
                sqlite["compacted_file_mib"] = size_on_disk_mib(database)
                sqlite["compacted"] = in_fresh_process("open", database)
    except (OSError, SessionError, MeasureFailed) as error:  # a full temporary folder, say
        shown = error.strerror if isinstance(error, OSError) and error.strerror else error
        where = f"the temporary folder, {tempfile.gettempdir()}"
        parser.exit(1, f"{parser.prog}: error: {shown} (writing in {where})\n")
    figures = {
        **resume_figures(args.entries, size_mib, generated, floor, resume),
        "compacted": compacted,  # the same session, compacted: each step's resume
        "compacted_over_step05": compacted["production"]["seconds"]
        / compacted["step 05 (reads it all)"]["seconds"],
        "compacted_step06_over_step05": compacted["step 06 (from the end)"]["seconds"]
        / compacted["step 05 (reads it all)"]["seconds"],
    }
    if args.sqlite:  # the same session in the SQLite store: its figures beside the file's
        sqlite["resume_over_floor"] = sqlite["resume"]["seconds"] / floor["seconds"]
        sqlite["resume_over_jsonl"] = sqlite["resume"]["seconds"] / resume["seconds"]
        sqlite["compacted_over_jsonl_resume"] = sqlite["compacted"]["seconds"] / resume["seconds"]
        figures["sqlite"] = sqlite
    if args.json:
        print(json.dumps(figures))
        return
    print_resume(figures)
    print(f"\nthe same session, compacted: the last compaction keeps the last {KEPT:,} entries")
    print(f"{'':24}{'time':>10}{'peak memory':>14}{'messages':>10}")
    for name, measured in compacted.items():
        row = f"{measured['seconds']:>9.3f}s{measured['peak_mib']:>10.0f} MiB"
        print(f"{name:24}{row}{measured['messages']:>10,}")
    for name in list(COMPARED)[1:]:
        ratio = compacted[name]["seconds"] / compacted["step 05 (reads it all)"]["seconds"]
        peak = compacted[name]["peak_mib"]
        # The targets are the production step's: step 06 parses what a resume needs but
        # searches every line's first bytes for ids out of order, so its time grows with the file.
        target = " (target at most 0.1x)" if name != list(COMPARED)[1] else ""
        print(f"{name}: {ratio:.3f}x step 05's time{target}, {peak:.0f} MiB peak")
    if args.sqlite:
        full, short = sqlite["resume"], sqlite["compacted"]
        print(
            f"\nthe same session in SQLite: {sqlite['file_mib']:.0f} MiB (database and -wal), "
            f"converted in {sqlite['convert_seconds']:.1f} s"
        )
        print(f"{'':24}{'time':>10}{'peak memory':>14}{'messages':>10}")
        row = f"{full['seconds']:>9.3f}s{full['peak_mib']:>10.0f} MiB{full['messages']:>10,}"
        print(f"{'resume':24}{row}")
        row = f"{short['seconds']:>9.3f}s{short['peak_mib']:>10.0f} MiB{short['messages']:>10,}"
        print(f"{'resume, compacted':24}{row}")
        print(
            f"resume / floor: {sqlite['resume_over_floor']:.2f}x, "
            f"/ the file's resume: {sqlite['resume_over_jsonl']:.2f}x"
        )
        print(
            f"compacted resume / the file's full resume: "
            f"{sqlite['compacted_over_jsonl_resume']:.4f}x (target at most 0.02x)"
        )


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head`: end quietly, as Unix tools do
    main()
