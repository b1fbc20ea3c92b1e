"""Whether a session file's lines are as the lab writes them, told from their first bytes alone:
what a resume that parsed only the end of the file must know of the rest."""

from __future__ import annotations

import operator
import re
from pathlib import Path


def ids_in_order(path: Path) -> bool:
    """Whether every line that may be an entry begins as the writer begins it, with an id e<N>
    larger than the one before: as the lab writes them. A resume that parsed only the end of
    the file gives what a whole read gives only then.

    Stop here: a backup glued onto its own session (cat old >> new) ends in a copy of an old
    compaction and what it keeps, and the walk from the leaf is whole in the copy. Nothing in
    the lines read says so; only the ids before them do. They are searched for, not parsed:
    a few C calls a block, where a whole read parses each line as JSON.
    """
    last, pending = 0, b"\n"  # the largest id so far; the \n and the line a block ended in
    try:
        with path.open("rb") as file:
            file.readline()  # the header
            while block := file.read(_BLOCK):
                data = pending + block
                end = data.rfind(b"\n")  # the lines before it are whole in this block
                numbers = [last, *map(int, _WRITERS.findall(data, 0, end))]
                lines = len(numbers) - 1
                if lines != data.count(b"\n", 0, end) and lines != len(_JSON.findall(data, 0, end)):
                    return False  # a line of another shape that may be an entry: parse them all
                if not all(map(operator.lt, numbers, numbers[1:])):
                    return False
                last, pending = numbers[-1], data[end:][:_HEAD_BYTES]  # a long line: its start
    except OSError:
        return False  # a whole read will say what is wrong
    return True


# A line's start as the writer writes it (the group: its id's number), and any start that
# JSON could begin with. A line with neither (garbage, a blank line) is no entry at all.
_WRITERS = re.compile(rb'\n\{"type":"[a-z_]*","id":"e([1-9][0-9]{0,17})"')
_JSON = re.compile(rb"\n[{ \t\r]")
_HEAD_BYTES = 4096  # of a line longer than a block: where the writer puts the id
_BLOCK = 1 << 20  # bytes searched at a time
