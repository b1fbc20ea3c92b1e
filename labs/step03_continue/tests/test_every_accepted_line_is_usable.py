"""A line the reader accepts is usable everywhere after it: the walk, the context, the graph.

Each file below holds one line whose key was damaged by a single flipped byte. The reader used
to accept such a line (a missing `parentId` read as null) and the walk then raised KeyError:
a traceback on every later `--continue` in the folder. One definition of each kind,
`entries.parse_entry`, now decides what a line must hold, and such a line is damage.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RunMain
from harness import user_line, write_session

HELLO = user_line("e1", None, "hello")
CASES = {
    "a message whose parentId key is misspelt": HELLO.replace(b"e1", b"e2").replace(
        b'"parentId":null', b'"par*ntId":"e1"'
    ),
    "an unknown kind with no parentId": b'{"type":"x_later_kind","id":"e2"}\n',
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_key_costs_the_line_not_the_run(
    tmp_path: Path, run_main: RunMain, case: str
) -> None:
    write_session(tmp_path / ".sessions", HELLO, CASES[case])
    for _ in range(2):  # and the next --continue, which reads the same file again
        done = run_main("what is 2+3\n", "--continue")
        assert b"Traceback" not in done.stderr, done.stderr.decode()[-600:]
        assert done.returncode == 0, done.stderr
