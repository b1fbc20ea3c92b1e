# >>file prod
"""The storage seam: all a session asks of the place its entries are kept.

session.py knows entries, the tree they form and the leaf; a store knows bytes. Everything a
Session does to its storage goes through the two protocols below, so a store of another kind
(SQLite, a database server, memory) plugs in by implementing them: `Session.create(...,
store=MyStore)`, `Session.open(..., store=MyStore)`. The JSONL file, `session_file.SessionFile`,
is the first implementation, and the only module that touches its bytes.

What an implementation promises, whatever it keeps its bytes in (the tests in tests/ hold the
JSONL store to each of them; a store of your own should pass the same):

1. An entry is one line of JSON (`append` is given it, ending in `\\n`) and is kept as given:
   read back, the same bytes. Appended entries are never changed or removed, and reading never
   writes.
2. `new` creates nothing: the first `append` does, header first, so a run that saves nothing
   leaves nothing. A new session is private to its owner, whatever the umask.
3. An append is whole or absent after a crash at any moment (a kill, a full disk, a power loss
   with `fsync`): never half an entry glued to the next. What failed raises SessionError, and
   what was appended before it stays.
4. `reading()` gives the header and every entry line, in the order appended, a batch at a
   time, in bounded memory; a damaged line is given as it is (or as TooLong), never dropped
   silently, so that the reader can count it. `reading(resume=True)` may give only the lines
   from the newest compaction's first kept entry on (`whole` False): the session reads the rest
   itself if its walk from the leaf needs more.
5. One writer: with `lock`, a second `existing(..., lock=True)` of the same session raises
   SessionInUse until `close` (or the process's end, however it ends).
6. `lines_added()` gives the lines another writer appended since this one last read or wrote,
   so that a new entry never takes an id the store already holds.
7. A file or database that cannot be a session raises UnusableSessionFile, naming it and why.
8. `position()` says where the next entry will begin in the session's bytes as a JSONL file
   would hold them (header, then each entry, each ending in `\n`), or None. A compaction
   records it (`at`); `reading(resume=True)` skips what comes before a compaction only if the
   compaction is at the place it records, so a copy glued on later is no resume point. None
   is always safe: such a store's resume reads what it must without it.
9. Optional, for memory in proportion to the conversation rather than the session: the
   batches `reading()` gives say where each line is (`session_reader.Placed`: a number a line,
   a byte of the file, a row), and the reading gives a line back by it (`line_at`, ReadsBack),
   the same bytes, also once the reading is over. A session then keeps 8 bytes for each line it
   has not used instead of the line. A store without them works the same, holding the lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol, runtime_checkable

from session_format import SessionHeader
from session_reader import Line


class StoredLines(Protocol):
    """A session being read: its header, then its entry lines, a batch at a time."""

    @property
    def header(self) -> SessionHeader: ...

    @property
    def batches(self) -> Iterator[list[Line]]: ...

    @property
    def whole(self) -> bool:
        """True if the lines start at the first entry; False if only the part a resume needs."""
        ...


@runtime_checkable
class ReadsBack(Protocol):
    """A reading that gives a line again by where its batch said the line begins (9)."""

    def line_at(self, position: int) -> bytes: ...


def read_back(lines: StoredLines) -> Callable[[int], bytes] | None:
    """How to read a line of this reading again later, if its store can (9)."""
    return lines.line_at if isinstance(lines, ReadsBack) else None


class SessionStorage(Protocol):
    """Where one session's entries are kept, as a Session sees it."""

    @property
    def path(self) -> Path: ...

    @property
    def exists(self) -> bool:
        """False until the first append creates the session."""
        ...

    @property
    def locked(self) -> bool: ...

    def reading(self, *, resume: bool = False) -> AbstractContextManager[StoredLines]: ...

    def lines_added(self) -> Iterator[list[Line]]: ...

    def append(self, line: bytes) -> None: ...

    def position(self) -> int | None:
        """The byte the next entry will begin at in the session as a JSONL file, or None."""
        ...

    def close(self) -> None:
        """Let go of the lock, if held."""
        ...


class Store(Protocol):
    """A kind of storage: how a session of that kind is made and opened."""

    suffix: str  # the name's ending in the sessions folder: ".jsonl"

    def new(
        self, path: Path, header: SessionHeader, *, lock: bool = False, fsync: bool = False
    ) -> SessionStorage: ...

    def existing(
        self, path: Path, *, lock: bool = False, fsync: bool = False
    ) -> SessionStorage: ...
