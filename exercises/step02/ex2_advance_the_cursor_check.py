"""Check 02.2: three turns write 8 entries, each message once, in order; the cursor says 8."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from types import ModuleType

import orjson

from session import Session, read_session

INPUTS = ["hello", "what is 12*8", "what was the result"]


def check(module: ModuleType) -> str:
    with tempfile.TemporaryDirectory() as directory:
        session = Session.create(
            Path(directory), session_id="cursor", created_at="2026-01-01T00:00:00Z", cwd=directory
        )
        messages, cursor = module.chat(session, list(INPUTS))
        _, entries = read_session(session.path)
    stored = [entry["message"] for entry in entries]
    assert len(messages) == 8, f"three turns should make 8 messages in memory, not {len(messages)}"
    if len(stored) != len(messages):
        copies = Counter(orjson.dumps(message) for message in stored)
        first = orjson.dumps(messages[0])
        raise AssertionError(
            f"8 messages in memory but {len(stored)} entries in the file; the first message "
            f"('hello') was written {copies[first]} times: each persist started again from "
            "the same cursor"
        )
    assert stored == messages, "the file must hold the messages in the order of the list"
    assert cursor == len(stored), (
        f"the file holds {len(stored)} messages but chat returned the cursor {cursor}: "
        "keep the value persist_new_messages returns"
    )
    return "3 turns, 8 messages, 8 entries: the cursor moved after every turn"
