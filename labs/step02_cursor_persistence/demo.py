"""A scripted run of this step: two user turns, saved by a cursor, then the file as a table.

Deterministic (fixed session id and clock, a temporary folder, relative paths): its output is
compared byte for byte with expected-output.txt.
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
from render import render  # noqa: E402
from session import Session, persist_new_messages, read_session  # noqa: E402
from tools import default_tools  # noqa: E402


def main() -> None:
    print("Step 02 demo: the loop fills a list in memory; a cursor copies what is new to disk.")
    with tempfile.TemporaryDirectory() as tmp:
        session = Session.create(
            Path(tmp, ".sessions"), session_id="demo", created_at="2026-01-01T00:00:00Z", cwd=tmp
        )
        shown_as = session.path.relative_to(tmp).as_posix()
        print(f"session file: {shown_as}")
        model, tools = ScriptedModel(), default_tools()
        messages: list[Message] = []
        cursor = 0
        for text in ["hello", "what is 12*8"]:
            print(f"\nyou> {text}")
            render(run_turn(model, tools, messages, user_text(text)), sys.stdout)
            before, cursor = cursor, persist_new_messages(session, messages, cursor)
            print(f"persisted {cursor - before} messages: cursor {before} -> {cursor}")

        size = session.path.stat().st_size
        cursor = persist_new_messages(session, messages, cursor)
        grew = session.path.stat().st_size - size
        print(f"\npersisting again added {grew} bytes to the file: nothing is written twice")

        reading = read_session(session.path)
        version, name, created = (reading.header[key] for key in ("version", "id", "createdAt"))
        print(f"\nsession file {shown_as}: {1 + len(reading.entries)} lines")
        print(f"  header  version={version} id={name} createdAt={created}")
        print(f"  {'id':<4}{'parent':<8}{'kind':<12}text")
        for entry in reading.entries:
            summary, parent = summarize(entry), entry["parentId"] or "-"
            print(f"  {entry['id']:<4}{parent:<8}{summary.kind:<12}{summary.text}")


if __name__ == "__main__":
    main()
