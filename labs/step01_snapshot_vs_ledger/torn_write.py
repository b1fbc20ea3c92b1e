"""A torn write, made on purpose: the last append stops partway through its bytes.

A SIGKILL rarely tears a small ledger line: the kill would have to land inside one short
write. So this module tears lines on purpose, two ways:

- `tear_last_append` cuts the last append's bytes by hand, the same way every run, so a
  demo and a test can show exactly what each store's reader recovers;
- `tear_with_size_limit` lets a real writer process run into a file size limit
  (RLIMIT_FSIZE): the kernel itself cuts the write that crosses it, as a full disk would.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from crash_experiment import WRITER, CrashOutcome, inspect_file
from messages import Message
from stores import FILE_NAMES, LEDGER_KINDS, create_store


def tear_last_append(kind: str, directory: Path, history: list[Message], keep: float = 0.5) -> Path:
    """Store `history` for real, then leave the file as it would be had the process died
    after writing only the fraction `keep` of the last append's bytes. Returns the path.
    """
    path = Path(directory) / f"torn-{kind}-{FILE_NAMES[kind]}"
    store = create_store(kind, path, history[:-1])
    before = path.read_bytes()
    store.append(history[-1])
    store.close()
    after = path.read_bytes()

    if kind in LEDGER_KINDS:
        # An append only adds bytes at the end; the old bytes are untouched.
        assert after.startswith(before)
        new_line = after[len(before) :]
        path.write_bytes(before + new_line[: int(len(new_line) * keep)])
    elif kind == "snapshot":
        # open("wb") emptied the file before the write began: only part of the new copy is there.
        path.write_bytes(after[: int(len(after) * keep)])
    elif kind == "atomic":
        # The partial copy is the temporary file; the real name still means the old bytes.
        path.with_name(path.name + ".tmp").write_bytes(after[: int(len(after) * keep)])
        path.write_bytes(before)
    else:
        raise ValueError(f"unknown store kind {kind!r}")
    return path


@dataclass(frozen=True)
class SizeLimitOutcome:
    """What a writer stopped by a file size limit left behind, and what it said."""

    outcome: CrashOutcome  # the file as the store's reader finds it
    error: str  # the writer's one-line report of the append that failed


def tear_with_size_limit(
    kind: str, directory: Path, max_file_bytes: int, prefill: int = 0
) -> SizeLimitOutcome:
    """Run a real writer that may not grow any file past `max_file_bytes`, until it fails.

    The kernel cuts the write that crosses the limit short (it writes what fits) and refuses
    the next one. The session header records a fixed directory, so the file has the same
    bytes, and the cut lands at the same byte, on every machine.
    """
    path = Path(directory) / f"limit-{kind}-{FILE_NAMES[kind]}"
    done = subprocess.run(
        [
            sys.executable,
            str(WRITER),
            kind,
            str(path),
            "--prefill",
            str(prefill),
            "--max-file-bytes",
            str(max_file_bytes),
            "--cwd",
            "/home/student/lab",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stdout.split()
    if done.returncode != 1 or not lines or lines[0] != "ready":
        raise RuntimeError(f"the writer did not stop at the limit: {done.stderr.strip()!r}")
    acknowledged = int(lines[-1])  # "ready N" then one count per acknowledged append
    return SizeLimitOutcome(inspect_file(kind, path, acknowledged), done.stderr.strip())
