"""A torn write, made on purpose: the last append stops halfway through its bytes.

The crash experiment finds torn writes by chance. This module makes one deterministically,
so a demo and a test can show exactly what each store's reader recovers from it.
"""

from __future__ import annotations

from pathlib import Path

from messages import Message
from stores import FILE_NAMES, create_store


def tear_last_append(
    kind: str, directory: Path, history: list[Message], keep: float = 0.5
) -> Path:
    """Store `history` for real, then leave the file as it would be had the process died
    after writing only the fraction `keep` of the last append's bytes. Returns the path.
    """
    path = Path(directory) / f"torn-{kind}-{FILE_NAMES[kind]}"
    store = create_store(kind, path, history[:-1])
    before = path.read_bytes()
    store.append(history[-1])
    store.close()
    after = path.read_bytes()

    if kind == "ledger":
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
