"""The entries of a session file by id, each line parsed and checked the first time it is used.

session.py reads the file and hands its lines here; entries.py says what makes a line an entry
(`parse_entry`). This module decides when that check runs, and keeps ids unique: it knows every
id the file holds, so it is the one that hands out a new one.
"""

from __future__ import annotations

import operator
import re
from array import array
from collections.abc import Callable, Iterator, MutableMapping

from entries import (
    DAMAGED,
    MAX_ID_DIGITS,
    Entry,
    NotAnEntry,
    entry_id,
    id_number,
    parse_entry,
)
from entry_places import HELD, LinePlaces
from session_reader import Line, Placed, TooLong


class EntryIndex(MutableMapping[str, Entry]):
    """Every usable entry of a session by id, in file order, each parsed on first use.

    Resuming must not cost more than the conversation needs. Opening a file indexes each line
    by its id, read from the start of the line, where the lab's writer always puts it, without
    parsing the rest. A line is parsed and checked the first time something asks for its
    entry: the walk from the leaf asks for exactly the entries on the path; `/tree` and
    `read_session` ask for all of them. A line that then turns out damaged is dropped and
    counted, exactly as if the reader had met it at open. Lazy decoding, never lazy checking:
    nothing reaches the model unchecked.

    Nor may it hold more than the conversation needs. A line not used yet is kept as where it
    is (entry_places.py), if the store can give it back by that (`read_back`, a reading's
    `line_at`); only a store that cannot has its lines held here as bytes until used. Or a
    short read: the first HOLD_BYTES of lines are held as the reader gave them, so a resume
    from a compaction's kept part walks its path without reading a line twice.

    A damaged line costs only itself: when its id and parentId can still be read where the
    writer puts them, it stays in the tree as an entry of kind DAMAGED that holds nothing else,
    so the walk from the leaf goes through it instead of stopping there. It is counted as
    damaged all the same, never becomes the leaf, and gives way to a later usable line with
    its id (the first usable line with an id wins, as always).
    """

    def __init__(self, read_back: Callable[[int], bytes] | None = None) -> None:
        self._places = LinePlaces()  # every line indexed, in file order: its id, where it is
        self._held: dict[str, Entry | bytes] = {}  # entries parsed, and lines held as they are
        self._read_back = read_back  # a line again, by its place in the store
        self.damaged = 0  # lines found unusable so far
        # Ids read from lines that turned out damaged. A torn last line may be another
        # program's entry it has not finished writing: its id is taken, usable here or not.
        self._damaged_ids: set[str] = set()
        self._next_number: int | None = None  # worked out when a new id is first asked for
        self.repeated = False  # a usable line repeated an id an earlier line has
        self._held_bytes = 0  # of lines held that the store could have given back

    def add_lines(self, lines: list[Line]) -> None:
        """Index a batch of lines, in file order.

        The common case costs a few C calls for the whole batch, not a few Python ones per
        line: every line starts the writer's way, with an id e<N> larger than any before it.
        Anything else goes line by line through `add_line`. Either way the index comes out
        the same, wherever the batches begin and end (a property test checks it).
        """
        self._next_number = None  # a line read may hold a larger id
        placed = lines.at if isinstance(lines, Placed) and self._read_back is not None else None
        try:  # a line of another shape gives no match (None[1]), TooLong no string: TypeError
            digits = list(map(_SECOND, map(_NUMBERED_AT_START.match, lines)))  # type: ignore[arg-type]
        except TypeError:
            digits = None
        if lines and digits is not None:
            numbers = array("q", map(int, digits))
            if (
                placed is not None
                and (size := sum(map(len, lines))) <= HOLD_BYTES - self._held_bytes
            ):
                placed, self._held_bytes = None, self._held_bytes + size  # a short read
            if self._places.extend(numbers, [HELD] * len(lines) if placed is None else placed):
                if placed is None:  # held as they are: no store to read them again, or short
                    keys = (b"e" + b'"e'.join(digits)).decode("ascii").split('"')
                    self._held.update(zip(keys, lines, strict=True))
                return
        for line, where in zip(
            lines, [None] * len(lines) if placed is None else placed, strict=True
        ):
            self.add_line(line, where)

    def add_line(self, line: Line, where: int | None = None) -> None:
        """Index one line of the file (found at `where` in its store, if the store says)."""
        self._next_number = None
        if isinstance(line, TooLong):  # damaged, but an id at its start is taken all the same
            self.damaged += 1
            if found := _ID_AT_START.match(line.head):
                key = found.group(1).decode("utf-8", "surrogateescape")
                self._damaged_ids.add(key)
                if not self._has(key) and (stand_in := _stand_in(line.head)) is not None:
                    self._places.add(key, HELD)
                    self._held[key] = stand_in
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
        if self._has(key) and (found := self.get(key)) is not None:
            # Ids are unique: the first usable line with an id wins. A stand-in is no usable
            # line: it gives way to one, and the line takes its place (and the file position).
            parsed = _parsed(line) if type(value) is bytes else value
            if found["type"] != DAMAGED or parsed is None or parsed["id"] != key:
                self.damaged += 1
                self.repeated = True
                return
            self._remove(key)
        if type(value) is bytes and where is not None:  # kept as where it is, read when used
            self._places.add(key, where)
        else:
            self._places.add(key, HELD)
            self._held[key] = value

    def is_taken(self, key: str) -> bool:
        """Whether some line of the file has this id, usable, unchecked or damaged."""
        return self._has(key) or key in self._damaged_ids

    def new_id(self) -> str:
        """An id no line of the file has: one past the largest e<N> in it.

        Stop here: not the count of lines or entries plus one. Skipped lines, foreign kinds and
        other programs' lines make counts wrong, and a reader keeps the first of two lines with
        one id: an entry written under a repeated id is lost.
        """
        if self._next_number is None:  # once per file read, not at open: resuming need not wait
            damaged = max(map(id_number, self._damaged_ids), default=0)
            self._next_number = 1 + max(self._places.largest(), damaged)
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
        return not self.repeated and self._places.in_order()

    def last_usable(self) -> str | None:
        """The leaf of a file just read: its last usable entry, of any kind."""
        for line in self._places.lines(backwards=True):
            key = self._places.key(line)
            if (entry := self.get(key)) is not None and entry["type"] != DAMAGED:
                return key
        return None

    def get(self, key: str, default: Entry | None = None) -> Entry | None:  # type: ignore[override]
        """The entry, parsed and checked now if it was not yet; `default` if none is usable.

        Every other lookup goes through here; the walk from the leaf calls it once per entry
        on the path, so it does its work itself rather than call a helper."""
        value = self._held.get(key)
        if value is None:  # kept as where it is, if anywhere: read it again
            if self._read_back is None or (at := self._places.place_of(key)) is None:
                return default
            value = self._read_back(at)
        if type(value) is bytes:  # not parsed yet
            try:
                entry: Entry | None = parse_entry(value)
            except NotAnEntry:
                entry = None
            if entry is None or entry["id"] != key:  # damaged after all: count it
                self._damaged_ids.add(key)
                self.damaged += 1
                entry = _stand_in(value) if entry is None else None  # (two ids: trust neither)
                if entry is None or entry["id"] != key:
                    self._remove(key)
                    return default
            self._held[key] = value = entry  # parsed once; the line itself is let go
        return default if value is None else value  # type: ignore[return-value]

    def ids(self) -> list[str]:
        """Every id read from the file, usable, unchecked or damaged: a new id must be none of
        them. Damaged ones count because the damage may be a line still being written."""
        taken = [*map(self._places.key, self._places.lines())]
        return [*taken, *(key for key in self._damaged_ids if not self._has(key))]

    def _has(self, key: str) -> bool:
        """Whether a line in the index has this id, parsed or not."""
        return key in self._held or self._places.line_of(key) is not None

    def _remove(self, key: str) -> None:
        self._held.pop(key, None)
        if (line := self._places.line_of(key)) is not None:
            self._places.remove(line)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __getitem__(self, key: str) -> Entry:
        entry = self.get(key)
        if entry is None:
            raise KeyError(key)
        return entry

    def __setitem__(self, key: str, entry: Entry) -> None:
        if not self._has(key):
            self._places.add(key, HELD)
        self._held[key] = entry

    def __delitem__(self, key: str) -> None:
        if not self._has(key):
            raise KeyError(key)
        self._remove(key)

    def __iter__(self) -> Iterator[str]:
        keys = [*map(self._places.key, self._places.lines())]
        return (key for key in keys if key in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# The start of every line the lab writes: {"type":"…","id":"…". (An id with an escape or a
# quote in it does not match.) A damaged line's id can often still be read there.
_ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')
# ...the same, with an id as the lab writes it: e and a number id_number reads (entries.py).
_NUMBERED_AT_START = re.compile(
    rb'\{"type":"[^"\\]*","id":"e([1-9][0-9]{0,%d})"' % (MAX_ID_DIGITS - 1)
)
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
# Lines held as bytes though the store could give them back, at most (two of a reader's
# batches): a compaction's kept part, its branches with it, is usually shorter, and is then read
# once. Whatever the session's size, a resume holds at most this much more than places.
HOLD_BYTES = 8 * 1024 * 1024


def _parsed(line: bytes) -> Entry | None:
    try:
        return parse_entry(line)
    except NotAnEntry:
        return None
