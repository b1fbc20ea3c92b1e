"""Wrong: its own rules check an entry's frame and that a message has a role and a list of
content, not what each block holds: a block whose "text" key a flipped byte misspelt reaches
the renderer and the model, which raise."""

from __future__ import annotations

import re

import orjson

from entries import Entry, NotAnEntry, entry_id, id_number

# Where the lab's writer puts an entry's id: {"type":"…","id":"…" starts every line it writes,
# so the id of a line torn or damaged after it can still be read there.
ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')

EXPECTED_FAIL = "no damage raises"


def frame_of(line: bytes) -> Entry:
    """The entry on a line: its type, id and parentId checked, and a message's role."""
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise NotAnEntry("not JSON") from None
    if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
        raise NotAnEntry("no type")
    if entry["type"] == "header" or not isinstance(entry.get("id"), str):
        raise NotAnEntry("no id")
    if "parentId" not in entry or not isinstance(entry["parentId"], str | None):
        raise NotAnEntry("no parentId")
    if entry["type"] == "message":
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            raise NotAnEntry("no message")
        if message.get("role") not in ("user", "assistant", "toolResult"):
            raise NotAnEntry("no role")
    return entry


class OwnIndex(dict[str, Entry]):
    """Every usable entry of a session by id, in file order, and what could not be used."""

    def __init__(self) -> None:
        super().__init__()
        self.damaged = 0  # lines found of no use
        self.refused_ids: set[str] = set()  # ids read from lines of no use: taken all the same

    def add_line(self, line: bytes) -> None:
        """Index one line of the file, in file order."""
        try:
            entry = frame_of(line)
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
        taken = self.keys() | self.refused_ids
        # id_number reads only the lab's shape (e, then up to 18 digits, no leading zero):
        # any other id counts as 0, and 5,000 digits never reach int().
        number = 1 + max(map(id_number, taken), default=0)
        while entry_id(number) in taken:  # a foreign id may be the very next one
            number += 1
        return entry_id(number)
