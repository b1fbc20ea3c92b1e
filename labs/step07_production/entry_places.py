"""Where each line of a session is, in a few bytes a line: what an EntryIndex keeps of a line
it has not needed yet, instead of the line.

A resume needs the path from the leaf parsed, and of every other line only two facts: its id
(taken, whatever the line holds) and where to read it again. Kept as bytes under their ids in
a dict, a million short lines took twice the file before one was parsed. The lab writes ids
e1, e2, ... one past the largest, so they are numbers, growing along the file: two arrays of
8-byte integers hold them, sorted as they come, and an id is found again by subtraction (e1,
e2, e3 with none missing) or by bisection. An index whose ids stop growing (another program's
id, a line written again) finds its numbers through a dict from then on: slower and larger,
and as right.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from entries import entry_id, id_number

HELD = -1  # the line is held in memory instead: parsed, or as bytes no store can give back
GONE = -2  # the line is out of the index: found damaged, or removed


class LinePlaces:
    """Every line an index holds, in file order (its number here): its id, and where it is."""

    def __init__(self) -> None:
        self.numbers = array("q")  # each line's id e<N> as N; 0 for an id of another shape
        self.where = array("q")  # each line's place in its store (a batch's `at`), HELD or GONE
        self.gone = 0  # how many lines are GONE
        self._odd: dict[int, str] = {}  # a line's id that is no e<N>
        self._odd_line: dict[str, int] = {}  # and back
        self._by_number: dict[int, int] | None = None  # N -> its line, once the ids stop growing

    def extend(self, numbers: array[int], where: Sequence[int]) -> bool:
        """Add lines with ids e<N> at these places, if each N is larger than every one before
        it: the common case, in a few C calls. False (nothing added) otherwise."""
        growing = self._by_number is None and (not self.numbers or numbers[0] > self.numbers[-1])
        if not growing or not all(map(operator.lt, numbers, numbers[1:])):
            return False
        self.numbers.extend(numbers)
        self.where.extend(where)
        return True

    def add(self, key: str, where: int) -> None:
        """Add one line after the others, with an id no line in the index has."""
        line, number = len(self.numbers), id_number(key)
        if self._by_number is None and (
            not number or (self.numbers and number <= self.numbers[-1])
        ):
            self._by_number = {n: at for at, n in enumerate(self.numbers) if self.where[at] != GONE}
        self.numbers.append(number)
        self.where.append(where)
        if not number:
            self._odd[line], self._odd_line[key] = key, line
        elif self._by_number is not None:
            self._by_number[number] = line

    def line_of(self, key: str) -> int | None:
        """The line in the index with this id, if any."""
        number = id_number(key)
        if not number:
            return self._odd_line.get(key)
        if self._by_number is not None:
            return self._by_number.get(number)
        numbers = self.numbers
        line = number - numbers[0] if numbers else -1  # e1, e2, e3...: the number says where
        if not 0 <= line < len(numbers) or numbers[line] != number:
            line = bisect_left(numbers, number)
            if line == len(numbers) or numbers[line] != number:
                return None
        return None if self.where[line] == GONE else line

    def place_of(self, key: str) -> int | None:
        """Where the line with this id is in its store, if it is in the index and not HELD."""
        line = self.line_of(key)
        return None if line is None or (at := self.where[line]) < 0 else at

    def key(self, line: int) -> str:
        return entry_id(number) if (number := self.numbers[line]) else self._odd[line]

    def remove(self, line: int) -> None:
        self.where[line] = GONE
        self.gone += 1
        if not (number := self.numbers[line]):
            del self._odd_line[self._odd.pop(line)]
        elif self._by_number is not None:
            del self._by_number[number]

    def lines(self, *, backwards: bool = False) -> Iterator[int]:
        """The lines in the index, in file order (or from the last one)."""
        everyone = range(len(self.where))
        where = self.where
        return (
            line for line in (reversed(everyone) if backwards else everyone) if where[line] != GONE
        )

    def largest(self) -> int:
        """The largest N of an id e<N> in the index; 0 if there is none."""
        if self._by_number is None:  # all grown so far: the last line has the largest
            return next((self.numbers[line] for line in self.lines(backwards=True)), 0)
        return max(
            (n for n, at in zip(self.numbers, self.where, strict=True) if at != GONE), default=0
        )

    def in_order(self) -> bool:
        """Whether every id is an e<N>, each N larger than the one before it."""
        if self._by_number is None:  # all of them have grown so far: yes
            return True
        numbers = [n for n, at in zip(self.numbers, self.where, strict=True) if at != GONE]
        return all(numbers) and all(map(operator.lt, numbers, numbers[1:]))
