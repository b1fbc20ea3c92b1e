"""Wrong: its own rules take any JSON object with a type and an id: a message with no message,
or a line whose parentId key a flipped byte misspelt, goes on to the walk and the model."""

from __future__ import annotations

import re

import orjson

from entries import Entry, NotAnEntry, entry_id, id_number

# Where the lab's writer puts an entry's id: {"type":"…","id":"…" starts every line it writes,
# so the id of a line torn or damaged after it can still be read there.
ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')

EXPECTED_FAIL = "a resume keeps what is intact, counts the rest; JSON that is not an entry"


class OwnIndex(dict[str, Entry]):
    """Every usable entry of a session by id, in file order, and what could not be used."""

    def __init__(self) -> None:
        super().__init__()
        self.damaged = 0  # lines found of no use
        self.refused_ids: set[str] = set()  # ids read from lines of no use: taken all the same

    def add_line(self, line: bytes) -> None:
        """Index one line of the file, in file order."""
        try:
            entry = orjson.loads(line)
            if not (isinstance(entry, dict) and isinstance(entry.get("id"), str)):
                raise NotAnEntry("no entry")
            if entry.get("type") in (None, "header"):
                raise NotAnEntry("no type")
        except (orjson.JSONDecodeError, NotAnEntry):
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
        taken = self.keys() | self.refused_ids
        # id_number reads only the lab's shape (e, then up to 18 digits, no leading zero):
        # any other id counts as 0, and 5,000 digits never reach int().
        number = 1 + max(map(id_number, taken), default=0)
        while entry_id(number) in taken:  # a foreign id may be the very next one
            number += 1
        return entry_id(number)
