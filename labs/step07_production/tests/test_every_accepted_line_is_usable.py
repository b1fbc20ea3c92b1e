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


def test_a_byte_order_mark_before_the_header_is_read(tmp_path: Path, run_main: RunMain) -> None:
    """Some editors write a UTF-8 byte-order mark first; the header behind it is still one."""
    path = write_session(tmp_path / ".sessions", HELLO)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    done = run_main("what is 2+3\n", "--continue")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert b"resumed: 1 message restored" in done.stdout


def test_a_session_path_too_long_for_the_system_is_refused_before_the_first_turn(
    tmp_path: Path, run_main: RunMain
) -> None:
    """Each name fits, the whole path does not: refused before the user types, not after."""
    deep = "/".join(["d" * 200] * 21)  # 21 names of 200 bytes: over PATH_MAX (4,096) in all
    done = run_main("what is 2+3\n", "--session-dir", deep)
    assert done.returncode == 1
    assert done.stderr.decode().endswith(": File name too long\n")
    assert b"you> " not in done.stdout  # refused before the user typed a line, not after
    assert not (tmp_path / ("d" * 200)).exists()  # and no folder was left behind
