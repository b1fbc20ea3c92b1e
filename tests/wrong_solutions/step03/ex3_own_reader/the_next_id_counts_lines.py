"""Wrong: the next id counts the lines read and the entries written: a blank or garbage line
makes a gap, and (the worse case) a line of another program's that is no entry yet takes none."""

from __future__ import annotations

import re

from entries import Entry, NotAnEntry, entry_id, parse_entry

# Where the lab's writer puts an entry's id: {"type":"…","id":"…" starts every line it writes,
# so the id of a line torn or damaged after it can still be read there.
ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')

EXPECTED_FAIL = "a new id is past every id in the file"


class OwnIndex(dict[str, Entry]):
    """Every usable entry of a session by id, in file order, and what could not be used."""

    def __init__(self) -> None:
        super().__init__()
        self.damaged = 0  # lines found of no use
        self.refused_ids: set[str] = set()  # ids read from lines of no use: taken all the same

    def add_line(self, line: bytes) -> None:
        """Index one line of the file, in file order."""
        try:
            entry = parse_entry(line)  # the one definition of what a line must hold
        except NotAnEntry:
            self.damaged += 1
            if (found := ID_AT_START.match(line)) is not None:
                self.refused_ids.add(found.group(1).decode("utf-8", "surrogateescape"))
            return
        if entry["id"] in self:  # the first usable line with an id wins; the rest is damage
            self.damaged += 1
            return
        self[entry["id"]] = entry

    def last_usable(self) -> str | None:
        """The leaf of a file just read."""
        return next(reversed(self), None)  # a dict keeps file order: the last key is the leaf

    def new_id(self) -> str:
        """An id no line of the file holds, for the next entry this run writes."""
        return entry_id(len(self) + self.damaged + 1)  # every line read, every entry written
