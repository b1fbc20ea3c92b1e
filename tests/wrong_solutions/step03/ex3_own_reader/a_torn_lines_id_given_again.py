"""Wrong: only usable entries take an id: a torn last line, maybe another program's entry not
finished yet, has its id given to this run's next entry, and its finished line shadows ours."""

from __future__ import annotations

import re

from entries import Entry, NotAnEntry, entry_id, id_number, parse_entry

# Where the lab's writer puts an entry's id: {"type":"…","id":"…" starts every line it writes,
# so the id of a line torn or damaged after it can still be read there.
ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')

EXPECTED_FAIL = "a damaged line's id is never given again"


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
            self.damaged += 1  # of no use, and so of no account
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
        taken = self.keys() | self.refused_ids
        # id_number reads only the lab's shape (e, then up to 18 digits, no leading zero):
        # any other id counts as 0, and 5,000 digits never reach int().
        number = 1 + max(map(id_number, taken), default=0)
        while entry_id(number) in taken:  # a foreign id may be the very next one
            number += 1
        return entry_id(number)
