"""Exercise 07.3: a store of your own.

Open exercise, about 60 minutes.

storage.py is the seam between a Session and the place its entries are kept: the JSONL file
(session_file.SessionFile) and a SQLite database (sqlite_store.SqliteStore) stand behind it,
and so can a store you write. Write `OwnStore`, a class with `suffix`, `new` and `existing`
(storage.Store) whose objects are a SessionStorage: `path`, `exists`, `locked`, `reading`,
`lines_added`, `append`, `position` (given) and `close`. Keep its bytes in any form you like
(SQLite, a file of your own format); the check runs the production step's conformance suite
against it, and kills a process appending through it. It holds your store to these promises:

- An entry is kept as given: `append` is handed a line of JSON ending in `\\n`, and a read
  gives the same bytes back, in the order appended, after the header as it was created.
- Nothing is created before the first append: a run that saves nothing leaves nothing.
- A new session is private whatever the umask (022 in the check): the file mode 0600, its
  folder 0700, and every companion file the store makes beside it too (a SQLite -wal, -shm).
- One writer: with `lock`, a second `existing(..., lock=True)` raises SessionInUse until
  `close`, or the holder's end. The lock must survive this process closing ANY other
  descriptor of the file (a plain open(), another sqlite3 connection).
- The state a resume needs (where the newest compaction's kept part starts, if you keep it)
  changes in the same transaction as the entry: a kill between the two must never leave one
  without the other. An append killed at any moment is whole or absent.
- Ids never restart after a resume: `reading(resume=True)` gives at least every line from the
  newest compaction's first kept entry on (`whole` False), or all of them (`whole` True).
- A resume gives what a whole read gives, even when a copy of old lines was appended (a
  backup glued on, ending in a copy of a compaction).
- `lines_added()` gives the lines another writer appended since this one last read or wrote.
- A file that is no session raises UnusableSessionFile (its reason starting "not a
  session"), and is never written.

Check it with `python -m exercises check 07.3`.
"""

from __future__ import annotations

import os  # noqa: F401  (you may need it)
import sqlite3  # noqa: F401
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

from session_format import SessionError, SessionHeader, UnusableSessionFile  # noqa: F401
from session_reader import Line
from storage import StoredLines


class OwnStore:
    """One session's storage, made by `new` or `existing`."""

    suffix = ".own"  # the ending of its names in the sessions folder

    @classmethod
    def new(
        cls, path: Path, header: SessionHeader, *, lock: bool = False, fsync: bool = False
    ) -> OwnStore:
        # TODO: a session to create at its first append (with the lock, if asked, from then).
        raise NotImplementedError("OwnStore.new is not written yet")

    @classmethod
    def existing(cls, path: Path, *, lock: bool = False, fsync: bool = False) -> OwnStore:
        raise NotImplementedError("OwnStore.existing is not written yet")

    @property
    def path(self) -> Path:
        raise NotImplementedError("OwnStore.path is not written yet")

    @property
    def exists(self) -> bool:
        raise NotImplementedError("OwnStore.exists is not written yet")

    @property
    def locked(self) -> bool:
        raise NotImplementedError("OwnStore.locked is not written yet")

    def reading(self, *, resume: bool = False) -> AbstractContextManager[StoredLines]:
        raise NotImplementedError("OwnStore.reading is not written yet")

    def lines_added(self) -> Iterator[list[Line]]:
        raise NotImplementedError("OwnStore.lines_added is not written yet")

    def append(self, line: bytes) -> None:
        raise NotImplementedError("OwnStore.append is not written yet")

    def position(self) -> int | None:
        return None  # storage.py, promise 8: None is always safe; a place you can check is faster

    def close(self) -> None:
        raise NotImplementedError("OwnStore.close is not written yet")
