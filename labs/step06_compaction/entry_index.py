"""The entries of a session file by id: a line that is not one (entries.py says what is) is
counted, never silently dropped, and every id the file holds is known, so this is the one
place that hands out a new one."""

from __future__ import annotations

import re

from entries import Entry, NotAnEntry, entry_id, id_number, parse_entry


class EntryIndex(dict[str, Entry]):
    """Every usable entry of a session by id, in file order, and what could not be used."""

    def __init__(self) -> None:
        super().__init__()
        self.damaged = 0  # lines found unusable
        # Ids read from lines that turned out damaged. A torn last line may be another
        # program's entry it has not finished writing: its id is taken, usable here or not.
        self._damaged_ids: set[str] = set()
        self._next_number: int | None = None  # worked out when a new id is first asked for
        self.repeats = 0  # usable lines whose id a line indexed before them has

    def add_line(self, line: bytes) -> None:
        """Index one line of the file, in file order."""
        self._next_number = None  # a line read may hold a larger id
        try:
            entry = parse_entry(line)
        except NotAnEntry:
            self.damaged += 1
            if (found := _ID_AT_START.match(line)) is not None:  # its id is taken all the same
                self._damaged_ids.add(found.group(1).decode("utf-8", "surrogateescape"))
            return
        if entry["id"] in self:  # ids are unique: the first usable line wins
            self.damaged += 1
            self.repeats += 1  # (read from the end, "first" is the wrong one: session.py)
            return
        self[entry["id"]] = entry

    def new_id(self) -> str:
        """An id no line of the file has: one past the largest e<N> in it.

        Stop here: not the count of lines or entries plus one. Skipped lines, foreign kinds and
        other programs' lines make counts wrong, and a reader keeps the first of two lines with
        one id: an entry written under a repeated id is lost.
        """
        if self._next_number is None:
            self._next_number = 1 + max(map(id_number, [*self, *self._damaged_ids]), default=0)
        # An id too long to count (e and 19 digits) counts as 0, and may be the very next one.
        while (candidate := entry_id(self._next_number)) in self or candidate in self._damaged_ids:
            self._next_number += 1
        self._next_number += 1
        return candidate

    def last_usable(self) -> str | None:
        """The leaf of a file just read: its last usable entry, of any kind."""
        return next(reversed(self), None)


# The start of every line the lab writes: {"type":"…","id":"…". (An id with an escape or a
# quote in it does not match.) A damaged line's id can often still be read there.
_ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')
