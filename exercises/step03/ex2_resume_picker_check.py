"""Check 03.2: several sessions (one damaged, one unusable), listed newest first, and the chosen
one opened with its messages."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import ModuleType

from loop import run_turn
from messages import Message, user_text
from model import ScriptedModel
from session import Session, persist_new_messages
from tools import default_tools


def saved(folder: Path, name: str, inputs: list[str], seconds_ago: int) -> Path:
    session = Session.create(folder, session_id=name, created_at="2026-01-01T00:00:00Z", cwd="/")
    messages: list[Message] = []
    for text in inputs:
        for _ in run_turn(ScriptedModel(), default_tools(), messages, user_text(text)):
            pass
    persist_new_messages(session, messages, 0)
    age(session.path, seconds_ago)
    return session.path


def age(path: Path, seconds_ago: int) -> None:
    when = 1_800_000_000 - seconds_ago
    os.utime(path, (when, when))


def check(module: ModuleType) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        oldest = saved(folder, "oldest", ["hello"], 400)
        middle = saved(folder, "middle", ["what is 12*8", "what was the result"], 300)
        long_title = "please tell me, what is the sum of 2+3 and why does it matter to you"
        damaged = saved(folder, "damaged", [long_title], 200)
        with damaged.open("ab") as file:  # a crash tore its last line: still usable
            file.write(b'{"type":"message","id":"e5"')
        age(damaged, 200)
        empty = Session.create(folder, session_id="empty", created_at="", cwd="/").path
        age(empty, 150)
        unusable = folder / "unusable.jsonl"
        unusable.write_bytes(b'{"type":"header","version":7}\n')
        age(unusable, 100)

        rows = module.list_sessions(folder)
        names = [Path(row.path).name for row in rows]
        assert len(rows) == 4, (
            f"expected 4 usable sessions (not unusable.jsonl), got {len(rows)}: {names}"
        )
        assert names == ["empty.jsonl", "damaged.jsonl", "middle.jsonl", "oldest.jsonl"], (
            f"expected newest first: empty, damaged, middle, oldest; got {names}"
        )
        titles = [row.title for row in rows]
        expected_titles = [
            "(no messages)",
            "please tell me, what is the sum of 2+3 …",
            "what is 12*8",
            "hello",
        ]
        assert titles == expected_titles, f"titles: expected {expected_titles}, got {titles}"
        counts = [row.messages for row in rows]
        assert counts == [0, 4, 6, 2], f"message counts: expected [0, 4, 6, 2], got {counts}"
        assert rows[-1].modified == oldest.stat().st_mtime, "modified should be the st_mtime"

        assert Path(module.choose(rows, "3")) == middle, 'choose(rows, "3") is the third row'
        assert Path(module.choose(rows, " 1 \n")) == empty, "spaces around the number are fine"
        for answer in ["0", "5", "-1", "two", ""]:
            try:
                module.choose(rows, answer)
            except ValueError:
                continue
            raise AssertionError(f"choose(rows, {answer!r}) should raise ValueError")

        session, messages = module.resume(folder, "3")
        assert session.path == middle and len(messages) == 6, "resume opened the wrong session"
        assert messages[-1]["content"][0]["text"] == "The last result was 96 (12*8).", (
            "the chosen session's messages should come back as they were saved"
        )
    return "sessions listed newest first with titles; the chosen one resumes with its history"
