"""A scripted run of this step: two user turns, persisted by cursor, then the file as a table.

Deterministic (fixed session id and clock, a temporary directory, relative paths), so its output
is compared byte for byte with expected-output.txt.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from entries import summarize  # noqa: E402
from loop import run_turn  # noqa: E402
from messages import Message, user_text  # noqa: E402
from model import ScriptedModel  # noqa: E402
from render import printable, render  # noqa: E402
from session import Session, persist_new_messages, read_session  # noqa: E402
from tools import default_tools  # noqa: E402

INPUTS = ["hello", "what is 12*8"]


def print_session_table(path: Path, shown_as: str) -> None:
    reading = read_session(path)
    print(f"session file {shown_as}: {1 + len(reading.entries)} lines")
    header = reading.header
    version, session_id, created = header["version"], header["id"], header["createdAt"]
    print(f"  header  version={version} id={session_id} createdAt={created}")
    print(f"  {'id':<4}{'parent':<8}{'kind':<12}text")
    for entry in reading.entries:
        entry_id, parent = printable(entry["id"]), printable(entry["parentId"] or "-")
        summary = summarize(entry)
        print(f"  {entry_id:<4}{parent:<8}{summary.kind:<12}{summary.text}")


def main() -> None:
    print("Step 02 demo: the loop fills a list in memory; a cursor copies what is new to disk.")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        session = Session.create(
            root / ".sessions", session_id="demo", created_at="2026-01-01T00:00:00Z", cwd=tmp
        )
        shown_as = session.path.relative_to(root).as_posix()
        print(f"session file: {shown_as}")

        model, tools = ScriptedModel(), default_tools()
        messages: list[Message] = []
        cursor = 0
        for text in INPUTS:
            print(f"\nyou> {text}")
            render(run_turn(model, tools, messages, user_text(text)), sys.stdout)
            before = cursor
            cursor = persist_new_messages(session, messages, cursor)
            print(f"persisted {cursor - before} messages: cursor {before} -> {cursor}")

        size_before = session.path.stat().st_size
        cursor = persist_new_messages(session, messages, cursor)
        grew = session.path.stat().st_size - size_before
        print(f"\npersisting again added {grew} bytes to the file: nothing is written twice")

        print()
        print_session_table(session.path, shown_as)


if __name__ == "__main__":
    main()
