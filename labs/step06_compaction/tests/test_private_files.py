"""A session holds everything said, so only its owner may read it: a new session file is 0600
and a session folder the program makes is 0700, whatever the umask of the run that made them.
A folder the user made stays as the user made it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from harness import new_session, run

from messages import user_text


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def run_with_umask(umask: int, cwd: Path, *arguments: str) -> None:
    done = run(cwd, b"hello\n", *arguments, preexec_fn=lambda: os.umask(umask))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o000], ids=["022", "002", "000"])
def test_a_run_makes_its_folder_and_file_private_whatever_the_umask(
    tmp_path: Path, umask: int
) -> None:
    run_with_umask(umask, tmp_path)
    folder = tmp_path / ".sessions"
    [session_file] = folder.glob("*.jsonl")
    assert (mode(folder), mode(session_file)) == (0o700, 0o600)


def test_a_folder_the_user_made_is_left_as_it_is(tmp_path: Path) -> None:
    """The user chose who may list their folder; the program only keeps its own files private."""
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)
    run_with_umask(0o022, tmp_path, "--session-dir", "shared")
    [session_file] = folder.glob("*.jsonl")
    assert (mode(folder), mode(session_file)) == (0o755, 0o600)


def test_only_the_session_folder_itself_is_made_private(tmp_path: Path) -> None:
    """Folders above it are made as any program makes them (mkdir -p): they may be shared."""
    run_with_umask(0o022, tmp_path, "--session-dir", "above/sessions")
    assert (mode(tmp_path / "above"), mode(tmp_path / "above" / "sessions")) == (0o755, 0o700)


def test_a_session_made_through_the_api_is_private_too(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        session = new_session(tmp_path / "new", "s1")
        session.append_message(user_text("my password is hunter2"))
    finally:
        os.umask(old)
    assert (mode(tmp_path / "new"), mode(session.path)) == (0o700, 0o600)
