# >>file prod
"""What a session file is, for every module that reads or writes one: its header's shape and
version, a record as one line, and the errors that name a file and say what is wrong with it.

The bottom of the store: the header's checks, the reader, the lock and the writer all raise
these, and main.py turns each into one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypedDict

import orjson

SESSION_VERSION = 1


class SessionHeader(TypedDict):
    """First line of every session file: which format, which session, made when and where."""

    type: Literal["header"]
    version: int  # a reader refuses a version it does not know instead of misreading it
    id: str
    createdAt: str
    cwd: str


class SessionError(Exception):
    """A session file cannot be created, read or written; main.py prints it as one line."""


class UnusableSessionFile(SessionError):
    """A file that cannot be a session (empty, no header, another version), named, with why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SessionInUse(SessionError):
    """Another run holds the session's lock: two writers would both append the next id."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} is in use by another run; run without --continue to start a new session"
        )
        self.path = path


def new_header(session_id: str, created_at: str, cwd: str) -> SessionHeader:
    return {
        "type": "header",
        "version": SESSION_VERSION,
        "id": session_id,
        "createdAt": created_at,
        "cwd": cwd,
    }


def encode(path: Path, record: Mapping[str, Any]) -> bytes:
    """One record as one line. orjson escapes newlines inside strings, so it is always one."""
    try:
        return orjson.dumps(record) + b"\n"
    except orjson.JSONEncodeError as error:  # e.g. text that is not valid Unicode
        raise SessionError(f"cannot write {path}: {error}") from None
