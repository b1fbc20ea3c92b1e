"""Right, another design: the index keeps the lines as they were read and decides about them
only when first asked (a resume that never looks pays for no parsing), with rules of its own
for what a line must hold, written as a table rather than the step's parse_entry; ids are
taken as text in one set, and the next number kept as a running high-water mark."""

from __future__ import annotations

import re
from collections.abc import Iterator, MutableMapping
from typing import Any

import orjson

from entries import Entry

# What each part of an entry must be for the walk, the model and the renderer to use it.
BLOCKS = {"text": {"text": str}, "toolCall": {"id": str, "name": str, "arguments": dict}}
ROLES = {"user": {}, "toolResult": {"toolCallId": str, "toolName": str, "isError": bool}}
STOP_REASONS = ("stop", "toolUse")
LAB_ID = re.compile(r"e([1-9][0-9]{0,17})")  # the ids this program writes; any other is data
ID_IN_A_LINE = re.compile(rb'^\{"type":"[^"\\]*","id":"([^"\\]*)"')


def usable(record: Any) -> bool:
    """True if every part of the program after the reader can use this record."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        return False
    if record["type"] == "header" or not isinstance(record.get("id"), str):
        return False
    if "parentId" not in record or not isinstance(record["parentId"], str | None):
        return False
    return record["type"] != "message" or usable_message(record.get("message"))


def usable_message(message: Any) -> bool:
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return False
    for block in message["content"]:
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            return False
        for field, kind in BLOCKS.get(block["type"], {}).items():  # an unknown kind: kept
            if not isinstance(block.get(field), kind):
                return False
    role = message.get("role")
    if role == "assistant":
        return message.get("stopReason") in STOP_REASONS
    return role in ROLES and all(isinstance(message.get(f), k) for f, k in ROLES[role].items())


class OwnIndex(MutableMapping[str, Entry]):
    """The lines of a session, read when first asked; then its usable entries by id."""

    def __init__(self) -> None:
        self._unread: list[bytes] = []  # lines added, not decided about yet
        self._entries: dict[str, Entry] = {}
        self._taken: set[str] = set()  # every id a line holds, usable or not
        self._high = 0  # the largest number of an id of the lab's shape seen
        self._damaged = 0

    def add_line(self, line: bytes) -> None:
        self._unread.append(line)

    def _read(self) -> dict[str, Entry]:
        for line in self._unread:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                record = None
            if usable(record) and record["id"] not in self._entries:
                self._take(record["id"])
                self._entries[record["id"]] = record
                continue
            self._damaged += 1
            if (found := ID_IN_A_LINE.match(line)) is not None:
                self._take(found.group(1).decode("utf-8", "surrogateescape"))
        self._unread.clear()
        return self._entries

    def _take(self, entry_id: str) -> None:
        self._taken.add(entry_id)
        if (lab := LAB_ID.fullmatch(entry_id)) is not None:
            self._high = max(self._high, int(lab.group(1)))

    @property
    def damaged(self) -> int:
        self._read()
        return self._damaged

    def last_usable(self) -> str | None:
        return next(reversed(self._read()), None)

    def new_id(self) -> str:
        self._read()
        while f"e{self._high + 1}" in self._taken:
            self._high += 1
        return f"e{self._high + 1}"

    def __getitem__(self, entry_id: str) -> Entry:
        return self._read()[entry_id]

    def __setitem__(self, entry_id: str, entry: Entry) -> None:
        self._read()[entry_id] = entry
        self._take(entry_id)

    def __delitem__(self, entry_id: str) -> None:
        del self._read()[entry_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())
