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

from entries import Entry


class OwnIndex(dict[str, Entry]):
    """Every usable entry of a session by id, in file order, and what could not be used."""

    def __init__(self) -> None:
        super().__init__()
        self.damaged = 0  # lines found of no use
        # TODO: whatever else your index keeps.
        raise NotImplementedError("OwnIndex is not written yet")

    def add_line(self, line: bytes) -> None:
        """Index one line of the file, in file order."""
        raise NotImplementedError("OwnIndex.add_line is not written yet")

    def last_usable(self) -> str | None:
        """The leaf of a file just read."""
        raise NotImplementedError("OwnIndex.last_usable is not written yet")

    def new_id(self) -> str:
        """An id no line of the file holds, for the next entry this run writes."""
        raise NotImplementedError("OwnIndex.new_id is not written yet")
