# >>file prod
"""The header of a session file, checked: the one line a reader trusts before any other.

Five fields, but every way a first line can be wrong is named: cut short, not UTF-8, not JSON, a
key given twice, a version that is not an integer or is not this program's. A file whose header
cannot be read is refused whole, with that reason (never misread as some other format).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, cast

import orjson

from messages import shortened
from session_format import SESSION_VERSION, SessionHeader, UnusableSessionFile

MAX_HEADER_BYTES = 64 * 1024  # a header is a few hundred bytes; a longer first line is not one


def parse_header(path: Path, first_line: bytes) -> SessionHeader:
    first_line = first_line.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark some editors write
    if not first_line:
        raise UnusableSessionFile(path, "not a session (empty file)")
    record = _header_record(path, first_line)
    if not isinstance(record, dict) or record.get("type") != "header":
        raise UnusableSessionFile(path, "not a session (no header line)")
    if "version" not in record:
        raise UnusableSessionFile(path, "not a session (the header has no version)")
    version = record["version"]
    if type(version) is not int:  # 1.0, true and "1" are not the integer 1
        shown = _as_written(first_line, "version", version)
        raise UnusableSessionFile(
            path, f"not a session (the header's version {shown} is not an integer)"
        )
    if version != SESSION_VERSION:
        shown = _as_written(first_line, "version", version)  # 4,000 digits are not all shown
        raise UnusableSessionFile(
            path, f"unsupported version {shown} (this program reads version {SESSION_VERSION})"
        )
    for field in ("id", "createdAt", "cwd"):
        if not isinstance(record.get(field), str):
            raise UnusableSessionFile(path, f"not a session (the header's {field} is not a string)")
    return cast(SessionHeader, record)


def _header_record(path: Path, first_line: bytes) -> Any:
    """The first line's JSON value, or what is wrong with a line meant as the header.

    Stop here: the header is read with Python's own json, not orjson, which reads a number
    too large for a 64-bit integer as a float (version 123456789012345678901234567890 would be
    "not an integer") and refuses 1e400 outright (a "line that is not JSON"). One line, at most
    64 KiB, once per file: speed does not matter here, saying what is wrong does.
    """
    meant_as_header = b'"header"' in first_line  # so the damage is named, not "no header"
    damage = None
    if not first_line.endswith(b"\n"):
        if len(first_line) >= MAX_HEADER_BYTES:
            damage = f"its first line is over {MAX_HEADER_BYTES // 1024} KiB, longer than a header"
        else:
            damage = "the header line is cut short" if meant_as_header else "no header line"
    else:
        try:
            text = first_line.decode("utf-8")
            return json.loads(
                text, parse_int=_header_int, parse_constant=_no_constant, object_pairs_hook=_once
            )
        except _NamedTwice as twice:  # which of the two to believe? neither
            damage = f"the header names {_shown_key(twice.key)} twice"
        except UnicodeDecodeError:  # a ValueError too: caught first
            damage = "the header is not UTF-8 text"
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            damage = "the header is not valid JSON"
        if not meant_as_header:
            return None
    raise UnusableSessionFile(path, f"not a session ({damage})")


def _header_int(digits: str) -> int:
    """An integer of the header. One of 5,000 digits is no version this program reads (and
    int() refuses it); a message shows it as the file has it."""
    return int(digits) if len(digits) <= 100 else -1


class _NamedTwice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the header whose keys are each given once: {"version":1,"version":2} is
    no header a reader can trust (orjson and json would both quietly keep the last)."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _NamedTwice(key)
            seen.add(key)
    return record


def _shown_key(key: str) -> str:
    """A key from the file, short and safe to show in a message."""
    return shortened(json.dumps(key), 40)  # quoted, control characters escaped


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # Python's json reads NaN and Infinity by default


def _as_written(line: bytes, field: str, value: object) -> str:
    """A header value as the file has it: "1" (a string), 1e400 (not shortened to inf)."""
    number = re.search(rb'"%s"\s*:\s*(-?[0-9][0-9.eE+-]{0,40})' % field.encode(), line)
    if number and not isinstance(value, str):
        return shortened(number.group(1).decode(), 40)
    return shortened(orjson.dumps(value).decode(), 40)
