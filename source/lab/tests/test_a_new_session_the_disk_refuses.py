# >>file prod
"""A new session the disk refuses: a failed first save leaves no file; a read-only disk says so.

The first save creates the file and writes the header with the first line in one write. When
that write fails, the file is empty or holds part of the header: no line at all. Left behind,
every later `--continue` names it "not a session", forever. The fix lives in session_file.py.
A file size limit (RLIMIT_FSIZE) is a real write failing in a real process, as ENOSPC would be
on a full disk.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from harness import file_size_limit, run


@pytest.mark.parametrize("limit", [0, 40], ids=["nothing written", "half a header"])
def test_a_failed_first_save_leaves_no_file_and_the_next_run_saves(
    tmp_path: Path, limit: int
) -> None:
    failed = run(tmp_path, b"hello\n", preexec_fn=file_size_limit(limit))
    assert failed.returncode == 1
    assert re.fullmatch(
        rb"error: cannot write \.sessions/[^/]+\.jsonl: File too large\n", failed.stderr
    ), failed.stderr
    assert list((tmp_path / ".sessions").glob("*.jsonl")) == []  # before the fix: a torn file

    again = run(tmp_path, b"hello\n")
    assert again.returncode == 0 and again.stderr == b"", again.stderr
    [saved] = (tmp_path / ".sessions").glob("*.jsonl")
    assert len(saved.read_bytes().splitlines()) == 3  # the header, hello and its answer


def test_a_read_only_disk_is_named_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """access() only answers "no" on a read-only mount, which read as "Permission denied": the
    user then looks for a permission to fix that is not the problem. (Mounting a read-only
    filesystem needs privileges a test does not have, so statvfs is what says it here.)"""
    import os

    from session_file import SessionError, SessionFile, new_header

    real = os.statvfs

    class ReadOnly:
        def __init__(self, path: object) -> None:
            self.found = real(path)  # type: ignore[arg-type]

        def __getattr__(self, name: str) -> object:
            return getattr(self.found, name)

        @property
        def f_flag(self) -> int:
            return self.found.f_flag | os.ST_RDONLY

    monkeypatch.setattr(os, "statvfs", ReadOnly)
    path = tmp_path / "sessions" / "x.jsonl"
    with pytest.raises(SessionError) as refused:
        SessionFile.new(path, new_header("x", "t", "/"))
    expected = f"cannot create session folder {path.parent}: Read-only file system"
    assert str(refused.value) == expected
    assert not path.parent.exists()


def test_a_lock_the_filesystem_refuses_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some filesystems (NFS, CIFS, FUSE) have no flock. The first save creates the file,
    then fails to lock it: the empty file it made must not stay, to be called "not a
    session" by every later --continue."""
    import errno
    import fcntl

    from session_file import SessionError, SessionFile, new_header

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    path = tmp_path / "x.jsonl"
    file = SessionFile.new(path, new_header("x", "t", "/"), lock=True)
    with pytest.raises(SessionError, match="No locks available"):
        file.append(b'{"type":"message","id":"e1","parentId":null}\n')
    assert not path.exists() and not file.locked
