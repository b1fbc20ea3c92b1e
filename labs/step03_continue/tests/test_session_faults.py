"""The session's own defence, in one process: a write cut short must never glue the next line
onto its fragment."""

from __future__ import annotations

import errno
import os

import orjson
import pytest
from conftest import Saved

import session_file as session_module
from messages import user_text
from session import Session, SessionError, read_session

# --- A write cut short -------------------------------------------------------------------


TORN = b'{"type":"message","id":"e7","parentId":"e6","message":{"role":"us'


@pytest.mark.parametrize(
    ("torn_before", "written", "skipped"),
    [(False, 0, 0), (False, 9, 1), (True, 0, 1), (True, 1, 1), (True, 9, 2)],
)
def test_a_write_cut_short_never_glues_the_next_line_onto_a_fragment(
    saved: Saved,
    monkeypatch: pytest.MonkeyPatch,
    torn_before: bool,
    written: int,
    skipped: int,
) -> None:
    """The disk fills after `written` bytes of a line (which begins with the \\n that ends a
    torn last line, when there is one). The next append must start exactly one fresh line:
    never glued onto a fragment, never leaving a blank line either."""
    path = saved.path
    if torn_before:
        path.write_bytes(path.read_bytes() + TORN)
    session = Session.open(path).session

    def disk_full(fd: int, data: bytes) -> None:
        os.write(fd, data[:written])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session_module, "_write_all", disk_full)
    with pytest.raises(SessionError, match="No space left on device"):
        session.append_message(user_text("lost"))
    monkeypatch.undo()
    session.append_message(user_text("kept"))
    lines = path.read_bytes().split(b"\n")
    assert orjson.loads(lines[-2])["message"] == user_text("kept") and lines[-1] == b""
    reading = read_session(path)
    assert reading.skipped == skipped
    assert len(Session.open(path).context.messages) == 7


def test_the_file_itself_decides_whether_the_next_line_needs_a_newline(
    saved: Saved, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a failed write left and what the file ends in at the next write can differ:
    another run (a program that takes no lock) may have ended the fragment, or torn a line of
    its own. The file decides, read at the moment of writing: never glued onto a fragment,
    and never a blank line either."""
    path = saved.path
    session = Session.open(path).session

    def disk_full(fd: int, data: bytes) -> None:
        os.write(fd, data[:9])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(session_module, "_write_all", disk_full)
    with pytest.raises(SessionError):
        session.append_message(user_text("lost"))
    monkeypatch.undo()
    assert not path.read_bytes().endswith(b"\n")  # the failed write left a fragment
    whole = b'{"type":"message","id":"e20","parentId":"e6","message":{"role":"user",'
    whole += b'"content":[{"type":"text","text":"other run"}]}}'
    with path.open("ab") as other_run:  # ends the fragment, then writes a whole line
        other_run.write(b"\n" + whole + b"\n")
    session.append_message(user_text("kept"))
    assert b"\n\n" not in path.read_bytes()  # no blank line
    assert read_session(path).skipped == 1  # the fragment alone

    with path.open("ab") as other_run:  # and now a fragment this session knows nothing of
        other_run.write(TORN)
    session.append_message(user_text("after"))
    lines = path.read_bytes().split(b"\n")
    assert lines[-3] == TORN and orjson.loads(lines[-2])["message"] == user_text("after")
    assert read_session(path).skipped == 2
