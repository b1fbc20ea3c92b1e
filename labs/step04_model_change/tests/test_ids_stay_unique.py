"""Ids stay unique in every case: an id read from a line that is not usable is never given to
a new entry (the line may be one another program has not finished, or one too long to read).
Each file below once made a resumed run write a second line with an id already in the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import RunMain
from harness import answer_line, user_line, write_session

LIMIT = 32 * 1024 * 1024  # the longest line a reader accepts (session_file.MAX_ENTRY_BYTES)

START = [user_line("e1", None, "hello"), answer_line("e2", "e1", "Hi.")]
CASES = {
    "a line too long to read": [*START, user_line("e3", "e2", "x" * (LIMIT + 10))],
    "a torn line too long to read": [*START, user_line("e3", "e2", "x" * (LIMIT + 10))[:-6]],
    "a damaged line with an id too large to count": [
        *START,
        user_line("e999999999999999999", "e2", "big"),
        b'{"type":"message","id":"e1000000000000000000","parentId":"e2","message":"broken"}\n',
    ],
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_resumed_run_never_reuses_an_id_in_the_file(
    tmp_path: Path, run_main: RunMain, case: str
) -> None:
    path = write_session(tmp_path / ".sessions", *CASES[case])
    before = path.read_bytes()
    done = run_main("hello again\n", "--continue")
    assert done.returncode == 0, done.stderr
    after = path.read_bytes()
    assert after.startswith(before)
    ids = [line[line.index(b'"id":"') + 6 :].split(b'"')[0] for line in after.split(b"\n")[1:]
           if line.startswith(b'{"type"')]  # fmt: skip
    assert len(ids) == len(set(ids)), ids
