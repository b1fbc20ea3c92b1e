"""Exercise 03.3: a reader of your own: which lines of a damaged file a resume can use.

Open exercise, about 45 minutes.

`Session.open` reads a session file line by line into an index, `EntryIndex` (entry_index.py):
which lines are entries it can use, which ids are taken, where the conversation ends, and the
id of the next entry the run writes. Everything a crash, an editor or another program can do
to a file meets this class first. Write `OwnIndex`, an index of your own design, to stand in
its place. Keep it in any form you like (the class below starts as a dict; any mapping will
do). The check copies the step, makes its entry_index.py hand out your class as EntryIndex,
runs step 03's own tests of damaged files and of ids there (main.py's runs among them), then
the course's fuzz of damaged sessions (a resume, a turn, the graph, on 100 files damaged at
random), and says which promise a failing test holds.

What session.py and main.py ask of it:

- `OwnIndex()`, then `add_line(line)` for each line after the header, in file order (bytes,
  without the `\n`); then `last_usable()`, the leaf of the file just read, and `damaged`, how
  many lines were of no use.
- It is a mapping of the usable entries by id, in file order (`index[id]`, `get`, `in`,
  `len`, iteration, `items`, `values`, `dict(index)`), and `index[id] = entry` adds an entry
  this run wrote.
- `new_id()` is the id of the next entry this run writes.

The promises it keeps:

- A line is usable if every part of the program after it can use it (the walk from the
  leaf, the model, the renderer, the graph): a JSON object with a `type` that is a string
  other than "header", an `id` that is a string, a `parentId` that is a string or null,
  and, for a message, a message a model could be given (each field its role and its
  content blocks need, of the right type: `entries.parse_entry` knows exactly which).
  Anything else (blank, torn, not UTF-8, garbage, a key lost to one flipped byte) is
  damage: counted, never raised.
- Ids are unique: of two usable lines with one id, the first wins and the second is damage.
- A kind this step does not know is kept: its parentId still links the tree, and it can be
  the leaf. The leaf of a file just read is its last usable line.
- A new id is `e` and the next number past the largest of the ids the file holds, so ids
  grow along the file; and no line holds it: not a usable entry, not an entry this run
  wrote, not a damaged line whose id can still be read (a torn last line may be another
  program's entry, not finished yet). An id is data: `e08` is not `e8`, and an id of 5,000
  digits is never a number to compute with.

Not the step's own: the check fails an `OwnIndex` that is `EntryIndex` or built on it, and
your file cannot import entry_index (it takes its place). `entries.py` is yours to use.
Check it with `python -m exercises check 03.3` or the notebook; stuck: `make hint ID=03.3`.
"""

from __future__ import annotations

import re

from entries import Entry, NotAnEntry, entry_id, id_number, parse_entry

# Where the lab's writer puts an entry's id: {"type":"…","id":"…" starts every line it writes,
# so the id of a line torn or damaged after it can still be read there.
ID_AT_START = re.compile(rb'\{"type":"[^"\\]*","id":"([^"\\]*)"')


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
        taken = self.keys() | self.refused_ids
        # id_number reads only the lab's shape (e, then up to 18 digits, no leading zero):
        # any other id counts as 0, and 5,000 digits never reach int().
        number = 1 + max(map(id_number, taken), default=0)
        while entry_id(number) in taken:  # a foreign id may be the very next one
            number += 1
        return entry_id(number)
