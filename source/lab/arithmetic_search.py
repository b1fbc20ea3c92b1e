# >>file prod
"""Where the arithmetic in a line is: the scripted model's search for it, in linear time.

The production step's own. The earlier steps' search (`_find_stretch` in their model.py) is
right on every line, but quadratic on some: a line is whatever was typed or pasted, and a long
run of "-" would hold the turn for seconds, minutes at 200 kB. This one finds the same stretch
(tests/test_model.py compares them on random lines) with one scan of each run.
"""

from __future__ import annotations

import re

# An arithmetic expression inside a sentence: digits, operators, parentheses, spaces.
# Stop here: without the lookbehind this pattern is quadratic. A search tries every start
# position, and from each one inside a run of 40,000 "-" the prefix [-+(]* scans to the end of
# the run before failing on \d: 40,000 scans of up to 40,000 characters, 16 seconds. The
# lookbehind lets a match start only where a run starts, so each run is scanned once.
# (Possessive *+ is not enough: it stops backtracking inside one try, not the next try.)
_EXPRESSION = re.compile(r"(?<![-+(])[-+(]*+\d[\d\s.+\-*/%()]*")
_OPERATOR = re.compile(r"\d\s*[-+*/%]")


def _find_stretch(text: str) -> re.Match[str] | None:
    """Where the first stretch of arithmetic with an operator in it is (spaces included).

    An operator match (a digit, spaces, a sign) is made only of characters a stretch is made
    of, so it lies inside one stretch, and the first match in the text lies inside the first
    stretch that has one. Searching for it first answers a line like "a1a1a1..." (a million
    stretches, no operator) with one scan in C instead of a million tries in Python.
    """
    operator = _OPERATOR.search(text)
    if operator is None:
        return None
    for match in _EXPRESSION.finditer(text):
        if match.end() > operator.start():
            return match
    return None  # not reached: the stretch around the operator is always found
