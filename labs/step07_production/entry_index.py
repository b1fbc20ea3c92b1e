"""The entries of a session file by id, each line parsed and checked the first time it is used.

session.py reads the file and hands its lines here; entries.py says what makes a line an entry
(`parse_entry`). This module decides when that check runs, and keeps ids unique: it knows every
id the file holds, so it is the one that hands out a new one.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator, MutableMapping

from entries import DAMAGED, Entry, NotAnEntry, entry_id, id_number, parse_entry
from session_file import Line, TooLong


class EntryIndex(MutableMapping[str, Entry]):
    """Every usable entry of a session by id, in file order, each parsed on first use.

    Resuming must not cost more than the conversation needs. Opening a file indexes each line
    by its id, read from the start of the line, where the lab's writer always puts it, without
    parsing the rest. A line is parsed and checked the first time something asks for its
    entry: the walk from the leaf asks for exactly the entries on the path; `/tree` and
    `read_session` ask for all of them. A line that then turns out damaged is dropped and
    counted, exactly as if the reader had met it at open. Lazy decoding, never lazy checking:
    nothing reaches the model unchecked.

    A damaged line costs only itself: when its id and parentId can still be read where the
    writer puts them, it stays in the tree as an entry of kind DAMAGED that holds nothing else,
    so the walk from the leaf goes through it instead of stopping there. It is counted as
    damaged all the same, never becomes the leaf, and gives way to a later usable line with
    its id (the first usable line with an id wins, as always).
    """

    def __init__(self) -> None:
        self._items: dict[str, Entry | bytes] = {}  # an entry, or its line not parsed yet
        self.damaged = 0  # lines found unusable so far
        # Ids read from lines that turned out damaged. A torn last line may be another
        # program's entry it has not finished writing: its id is taken, usable here or not.
        self._damaged_ids: set[str] = set()
        self._next_number: int | None = None  # worked out when a new id is first asked for
        self.repeated = False  # a usable line repeated an id an earlier line has

    def add_lines(self, lines: list[Line]) -> None:
        """Index a batch of lines, in file order.

        The common case costs a few C calls for the whole batch, not a few Python ones per
        line: every line starts the writer's way, every id is ASCII, none is indexed already.
        Anything else goes line by line through `add_line`. Either way the index comes out
        the same, wherever the batches begin and end (a property test checks it).
        """
        self._next_number = None  # a line read may hold a larger id
        try:  # a line of another shape gives no match (None[1]), TooLong no string: TypeError
            ids = b'"'.join(map(_SECOND, map(_ID_AT_START.match, lines)))  # type: ignore[arg-type]
        except TypeError:
            ids = None
        if lines and ids is not None and ids.isascii():
            batch = dict(zip(ids.decode("ascii").split('"'), lines, strict=True))  # no '"' in ids
            if len(batch) == len(lines) and self._items.keys().isdisjoint(batch):
                self._items.update(batch)
                return
        for line in lines:
            self.add_line(line)

    def add_line(self, line: Line) -> None:
        """Index one line of the file."""
        self._next_number = None
        if isinstance(line, TooLong):  # damaged, but an id at its start is taken all the same
            self.damaged += 1
            if found := _ID_AT_START.match(line.head):
                key = found.group(1).decode("utf-8", "surrogateescape")
                self._damaged_ids.add(key)
                if key not in self._items and (stand_in := _stand_in(line.head)) is not None:
                    self._items[key] = stand_in
            return
        match = _ID_AT_START.match(line)
        if match is None:  # not the writer's shape (or not an entry): parse it now
            entry = _parsed(line)
            if entry is None:
                self.damaged += 1
                return
            key, value = entry["id"], entry
        else:
            key, value = match.group(1).decode("utf-8", "surrogateescape"), line
        if key in self._items and (found := self.get(key)) is not None:
            # Ids are unique: the first usable line with an id wins. A stand-in is no usable
            # line: it gives way to one, and the line takes its place (and the file position).
            parsed = _parsed(value) if type(value) is bytes else value
            if found["type"] != DAMAGED or parsed is None or parsed["id"] != key:
                self.damaged += 1
                self.repeated = True
                return
            del self._items[key]
        self._items[key] = value

    def is_taken(self, key: str) -> bool:
        """Whether some line of the file has this id, usable, unchecked or damaged."""
        return key in self._items or key in self._damaged_ids

    def new_id(self) -> str:
        """An id no line of the file has: one past the largest e<N> in it.

        Stop here: not the count of lines or entries plus one. Skipped lines, foreign kinds and
        other programs' lines make counts wrong, and a reader keeps the first of two lines with
        one id: an entry written under a repeated id is lost.
        """
        if self._next_number is None:  # once per file read, not at open: resuming need not wait
            self._next_number = 1 + max(map(id_number, self.ids()), default=0)
        while self.is_taken(candidate := entry_id(self._next_number)):
            self._next_number += 1
        self._next_number += 1
        return candidate

    def in_order(self) -> bool:
        """Whether the lines read so far are as the lab writes them: no id repeated, and the ids
        e<N> growing along the file (each one past the largest before it).

        A resume that reads only the end of a file trusts that the lines it did not read hold
        none of the ids it read, and none larger. Lines out of order say the file was written
        otherwise (a copy appended, a backup glued on), and that trust is gone: it is read
        whole, and a compaction written to it certifies nothing (`Session.append_compaction`).
        """
        numbers = list(map(id_number, self._items))  # 0: an id of another shape
        return not self.repeated and all(numbers) and all(map(operator.lt, numbers, numbers[1:]))

    def last_usable(self) -> str | None:
        """The leaf of a file just read: its last usable entry, of any kind."""
        for key in reversed(list(self._items)):
            if (entry := self.get(key)) is not None and entry["type"] != DAMAGED:
                return key
        return None

    def get(self, key: str, default: Entry | None = None) -> Entry | None:  # type: ignore[override]
        """The entry, parsed and checked now if it was not yet; `default` if none is usable.

        Every other lookup goes through here; the walk from the leaf calls it once per entry
        on the path, so it does its work itself rather than call a helper."""
        value = self._items.get(key)
        if type(value) is bytes:  # not parsed yet
            entry = _parsed(value)
            if entry is None or entry["id"] != key:  # damaged after all: count it
                self._damaged_ids.add(key)
                self.damaged += 1
                entry = _stand_in(value) if entry is None else None  # (two ids: trust neither)
                if entry is None:
                    del self._items[key]
                    return default
            self._items[key] = value = entry  # parsed once; the line itself is let go
        return default if value is None else value  # type: ignore[return-value]

    def ids(self) -> list[str]:
        """Every id read from the file, usable, unchecked or damaged: a new id must be none of
        them. Damaged ones count because the damage may be a line still being written."""
        return [*self._items, *(key for key in self._damaged_ids if key not in self._items)]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __getitem__(self, key: str) -> Entry:
        entry = self.get(key)
        if entry is None:
            raise KeyError(key)
        return entry

    def __setitem__(self, key: str, entry: Entry) -> None:
        self._items[key] = entry

    def __delitem__(self, key: str) -> None:
        del self._items[key]

    def __iter__(self) -> Iterator[str]:
        return (key for key in list(self._items) if key in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# The start of every line the lab writes: {"type":"…","id":"…". (An id with an escape or a
# quote in it does not match.) A damaged line's id can often still be read there.
_ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')
# ...and the parentId the writer puts right after the id: what a damaged line's stand-in needs.
_ID_AND_PARENT = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")')


def _stand_in(line: bytes) -> Entry | None:
    """The entry a damaged line leaves in the tree, if its id and parentId can still be read."""
    found = _ID_AND_PARENT.match(line)
    if found is None:
        return None  # where the id or the parent is lost, the walk stops here, as it must
    key, parent = (None if part is None else part.decode("utf-8", "surrogateescape")
                   for part in found.groups())  # fmt: skip
    return {"type": DAMAGED, "id": key, "parentId": parent}


_SECOND = operator.itemgetter(1)  # a match's first group, taken in C


def _parsed(line: bytes) -> Entry | None:
    try:
        return parse_entry(line)
    except NotAnEntry:
        return None
