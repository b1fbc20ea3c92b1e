"""A scripted run of this step: a new session, then a restart with --continue.

Both runs happen in this one process, as a student would do them by hand: the second run knows
nothing of the first but the file. It finds the file, walks it from the leaf, aligns the cursor
and goes on.
Deterministic (fixed session id and clock, a temporary directory, relative paths), so its output
is compared byte for byte with expected-output.txt.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from commands import Chat  # noqa: E402
from entries import summarize  # noqa: E402
from loop import run_turn  # noqa: E402
from messages import user_text  # noqa: E402
from model import ScriptedModel  # noqa: E402
from render import counted, render  # noqa: E402
from session import Session, find_latest_session, read_session  # noqa: E402
from tools import default_tools  # noqa: E402


def print_session_table(path: Path, shown_as: str) -> None:
    reading = read_session(path)
    lines = path.read_bytes().count(b"\n")
    print(f"session file {shown_as}: {lines} lines")
    header = reading.header
    version, session_id, created = header["version"], header["id"], header["createdAt"]
    print(f"  header  version={version} id={session_id} createdAt={created}")
    print(f"  {'id':<4}{'parent':<8}{'kind':<12}text")
    for entry in reading.entries:
        entry_id, parent = entry["id"], entry["parentId"] or "-"
        summary = summarize(entry)
        print(f"  {entry_id:<4}{parent:<8}{summary.kind:<12}{summary.text}")


def talk(chat: Chat, inputs: list[str], shown_as: str) -> None:
    """What main.py does after it has a session: run each turn, persist what is new."""
    model, tools = ScriptedModel(), default_tools()
    for text in inputs:
        print(f"\nyou> {text}")
        render(run_turn(model, tools, chat.messages, user_text(text)), sys.stdout)
        chat.save_new()
    saved = counted(chat.written_this_run, "new message")
    print(f"{saved} saved to {shown_as} ({chat.cursor} in all)")


def main() -> None:
    print("Step 03 demo: a session survives a restart; --continue replays it and goes on.")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / ".sessions"

        print("\n=== run 1: python main.py ===")
        session = Session.create(
            folder, session_id="demo", created_at="2026-01-01T00:00:00Z", cwd=tmp
        )
        shown_as = session.path.relative_to(root).as_posix()
        print(f"session file: {shown_as}")
        talk(Chat(session, [], cursor=0), ["hello", "what is 12*8"], shown_as)
        print()
        print_session_table(session.path, shown_as)
        first_run = session.path.read_bytes()
        del session  # the process ends: nothing in memory survives, only the file

        print("\n=== run 2: python main.py --continue ===")
        latest = find_latest_session(folder)
        assert latest.path is not None and not latest.passed_over
        opened = Session.open(latest.path)
        resumed = Chat.resume(opened)  # as main.py resumes
        chat, session, messages = resumed.chat, opened.session, resumed.chat.messages
        restored = counted(resumed.restored, "message")
        print(f"session file: {shown_as} (resumed: {restored} restored)")
        print(
            f"  the path from the leaf {session.leaf_id}: {', '.join(m['role'] for m in messages)}"
        )
        print(f"  damaged lines skipped: {opened.skipped}")
        print(f"  new entries hang under {session.leaf_id}; cursor {chat.cursor}: all saved")
        talk(chat, ["what was the result"], shown_as)
        print()
        print_session_table(session.path, shown_as)
        unchanged = session.path.read_bytes().startswith(first_run)
        print(f"the first 7 lines are unchanged, byte for byte: {'yes' if unchanged else 'NO'}")


if __name__ == "__main__":
    main()
