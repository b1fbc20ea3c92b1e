"""Where a resume starts reading: the part of the file its last compaction keeps.

A resume needs the path from the leaf, and a compaction ends that path early: what it
summarises is never read again. This finds the compaction's line, and its first kept entry's,
by their bytes from the end of the file, so a long compacted session resumes in the time its
kept part takes to read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

import orjson

from session_format import UnusableSessionFile
from session_reader import MAX_ENTRY_BYTES, open_for_reading, parse_json

FIRST_BLOCK = 1 << 20  # bytes read at a time, from the end, looking for the last compaction


def where_the_kept_part_starts(path: Path) -> int:
    """Where the lines that the file's last compaction keeps begin: the line of its first kept
    entry, or its own line if it keeps nothing; 0 (read it all) if there is none.

    Stop here: the step before walks back from the leaf, parsing as it goes; this finds the
    two lines by their bytes, which the writer always begins the same way, and reads nothing
    between. Whatever it finds, the walk checks: if the conversation needs an earlier line
    (the leaf is on another branch, the kept entry is no message of this writer's), the
    caller reads the whole file.

    What is skipped must hold no id the part read holds, nor a larger one, or the resume
    would give another conversation than a whole read, and new entries repeated ids. The
    compaction vouches for that: it records where its line begins (`at`), and records it only
    if the lines before it were in order. A copy of it appended later is at another place,
    so the file is read whole.
    """
    try:
        with open_for_reading(path) as file:
            size = file.seek(0, os.SEEK_END)
            at = _last(file, b'\n{"type":"compaction","id":', size)
            if at is None:
                return 0
            file.seek(at + 1)
            compaction = parse_json(file.readline(MAX_ENTRY_BYTES))
            if not isinstance(compaction, dict) or compaction.get("at") != at + 1:
                return 0  # not where it was written: a copy (or none recorded), trust nothing
            kept = compaction.get("firstKeptId", 0)
            if kept is None:
                return at + 1
            if not isinstance(kept, str):
                return 0
            kept_line = _last(file, b'\n{"type":"message","id":%b,' % orjson.dumps(kept), at + 1)
            return 0 if kept_line is None else kept_line + 1
    except (OSError, UnusableSessionFile):
        return 0  # read the whole file, which will say what is wrong with it


def _last(file: BinaryIO, needle: bytes, end: int) -> int | None:
    """Where the last `needle` that begins before `end` is, read FIRST_BLOCK at a time from
    `end` back; None if there is none."""
    while end > 0:
        begin = max(0, end - FIRST_BLOCK)
        file.seek(begin)
        reach = end - begin + len(needle) - 1  # so that a needle across the border is found
        found = file.read(reach).rfind(needle, 0, reach)  # (a needle that begins before end)
        if found != -1:
            return begin + found
        end = begin
    return None
