# >>file 03
# >> 03 until prod
# """The session's own defence, in one process: a write cut short must never glue the next line
# onto its fragment."""
# << 03 until prod
# >> prod
"""The session's own defences, in one process: the lock on the file while a run writes, a
write cut short that must never glue the next line onto its fragment, and fsync. Real
processes meet the same faults in test_durability.py."""
# << prod

from __future__ import annotations

import errno
import os

# >> prod
import stat
from pathlib import Path

# << prod
import orjson
import pytest
from conftest import Saved

# >> prod
from harness import new_session

# << prod
import session_file as session_module
from messages import user_text

from session import Session, SessionError, read_session

# >> prod
from session import SessionInUse

# << prod


# >> prod
# --- One writer: the lock ----------------------------------------------------------------


def test_open_with_lock_holds_it_until_close(saved: Saved) -> None:
    first = Session.open(saved.path, lock=True).session
    assert first.locked
    with pytest.raises(SessionInUse, match="is in use by another run"):
        Session.open(saved.path, lock=True)
    assert len(Session.open(saved.path).context.messages) == 6  # reading needs no lock
    first.close()
    second = Session.open(saved.path, lock=True).session
    assert second.locked
    second.close()
    assert not second.locked


def test_create_with_lock_locks_the_file_when_it_is_created(tmp_path: Path) -> None:
    session = new_session(tmp_path, "n", lock=True)
    assert not session.locked  # no file yet, nothing to lock
    session.append_message(user_text("hello"))
    assert session.locked
    with pytest.raises(SessionInUse):
        Session.open(session.path, lock=True)
    session.close()


# << prod


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


# >> prod
# --- fsync, off by default ----------------------------------------------------------------


def test_fsync_syncs_every_append_and_the_folder_when_the_file_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []  # the inode of each file or folder synced
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    folder = tmp_path / "sessions"
    plain = new_session(folder, "p")
    plain.append_message(user_text("one"))
    plain.append_message(user_text("two"))
    assert synced == []  # off by default

    session = new_session(folder, "s", fsync=True)
    session.append_message(user_text("one"))
    session.append_message(user_text("two"))
    session.append_branch("e1")
    file, directory = session.path.stat().st_ino, folder.stat().st_ino
    assert synced == [file, directory, file, file]
    synced.clear()
    Session.open(session.path, fsync=True).session.append_message(user_text("three"))
    assert synced == [file]


@pytest.mark.parametrize("which", ["the file", "its folder"])
def test_a_sync_the_disk_refuses_says_the_line_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    """fsync failing (EIO: the disk reported an error) comes after the line is in the file.
    Before: `cannot write ...`, which a user reads as "the message is lost"; it is not, and
    the file a first save made is kept, not removed as unfinished."""
    real_fsync = os.fsync
    folder = tmp_path / "sessions"

    def failing(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode) == (which == "its folder"):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing)
    session = new_session(folder, "s", fsync=True)
    with pytest.raises(SessionError, match=r"cannot sync .*its last line is written"):
        session.append_message(user_text("one"))
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert Session.open(session.path).context.messages == [user_text("one")]


def test_a_line_being_written_when_this_run_opened_never_lends_its_id(saved: Saved) -> None:
    """Another program (a step 03 or 04 run: the lock keeps out only this step's) is midway
    through appending e7 when this run opens the file: the half line reads as damage and is
    skipped. It then finishes its line. Before: this run numbered its next entry e7 too, the
    next reader kept the first e7, and this run's message was lost from the conversation."""
    line = orjson.dumps({
        "type": "message", "id": "e7", "parentId": "e6",
        "message": user_text("written by another program"),
    }) + b"\n"  # fmt: skip
    with saved.path.open("ab") as other:
        other.write(line[:40])  # the other program's first write lands...
        other.flush()
        resumed = Session.open(saved.path)
        assert resumed.skipped == 1  # ...and is a torn line when this run reads the file
        other.write(line[40:])  # then its second write finishes the line
    ours = resumed.session.append_message(user_text("this run's question"))
    assert ours["id"] != "e7"
    again = Session.open(saved.path)
    assert again.context.messages[-1] == user_text("this run's question")
    assert again.context.messages[:-1] == saved.messages  # ours hangs under e6, not under theirs


# << prod
