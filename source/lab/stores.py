# >>file prod
"""Which store a session is kept in, told by its name; and a session moved to the other store.

A run makes its new session in the store `--store` names (`STORES`). A session found in the
folder is read with the store its name's suffix says (`store_for`), whatever `--store` says:
`--continue` resumes a `.jsonl` file and a `.sqlite` database alike. `convert` copies a session
into the other store beside it: the same id, the other suffix, the header and every entry line
as they are (damaged ones too), so that it resumes to the same conversation.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from folder_checks import check_no_companions, companions, fsync_folder
from session_file import SessionFile
from session_format import SessionError, SessionInUse, UnusableSessionFile
from session_reader import TooLong
from sqlite_store import SqliteStore
from storage import Store, StoredLines

STORES: dict[str, Store] = {"jsonl": SessionFile, "sqlite": SqliteStore}  # --store's names


def store_for(path: Path) -> Store:
    """The store of the session at `path`, by its name's ending."""
    for store in STORES.values():
        if path.name.endswith(store.suffix):
            return store
    raise UnusableSessionFile(path, "not a session (its name ends in neither .jsonl nor .sqlite)")


@contextmanager
def stored_lines(path: Path) -> Iterator[StoredLines]:
    """The session at `path` read from its start, through its own store; never locked."""
    storage = store_for(path).existing(path)
    try:
        with storage.reading() as lines:
            yield lines
    finally:
        storage.close()


def convert(path: Path, *, fsync: bool = False) -> Path:
    """Copy the session at `path` into the other store, beside it, and return the new name.

    The source is locked while it is read (SessionInUse if a run is writing it). The copy is
    written under a name no `--continue` lists, then linked to its own name, which a session
    already there keeps (link never overwrites): a copy cut short is never resumed.
    """
    source = store_for(path)
    other = next(store for store in STORES.values() if store is not source)
    target = path.with_name(path.name.removesuffix(source.suffix) + other.suffix)
    if os.path.lexists(target):
        raise SessionError(f"will not overwrite {target}")
    partial = target.with_name(f"{target.name}.partial")
    try:
        reader = source.existing(path, lock=True)
    except SessionInUse:  # its own words name --continue, which is not what was asked
        raise SessionError(
            f"{path} is in use by another run; convert it once that run ends"
        ) from None
    try:
        _remove(partial)  # a conversion of this session cut short before: the lock is ours
        with reader.reading() as lines:
            writer = other.new(partial, lines.header, fsync=fsync)
            try:
                for batch in lines.batches:
                    for line in batch:
                        if isinstance(line, TooLong) or b"\n" in line:
                            raise SessionError(
                                f"cannot convert {path}: a line it cannot copy whole"
                            )
                        writer.append(line + b"\n")
            finally:
                writer.close()  # SQLite: its WAL is written into the database, and removed
        if not writer.exists:
            raise SessionError(f"nothing to convert: {path} holds no entry")
        check_no_companions(target)
        try:
            os.link(partial, target)
        except FileExistsError:
            raise SessionError(f"will not overwrite {target}") from None
        except OSError as error:
            raise SessionError(f"cannot write {target}: {error.strerror}") from None
        if fsync:
            fsync_folder(target.parent)
    finally:
        _remove(partial)
        reader.close()
    return target


def _remove(partial: Path) -> None:
    """A partial copy, and the files SQLite keeps beside it."""
    for made in (partial, *companions(partial)):
        with suppress(OSError):
            os.unlink(made)
