"""A scripted run of this step: a session that switches model between two turns, then a restart
with --continue that brings back the model in force, not only the messages.

Both runs happen in this one process, as a student would do them by hand: the second run knows
nothing of the first but the file. Deterministic (fixed session id and clock, a temporary
directory, relative paths), so its output is compared byte for byte with expected-output.txt.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from commands import Chat, run_command  # noqa: E402
from entries import summarize  # noqa: E402
from loop import run_turn  # noqa: E402
from messages import user_text  # noqa: E402
from model import DEFAULT_MODEL, MODELS  # noqa: E402
from render import counted, render  # noqa: E402
from session import Session, find_latest_session, read_session  # noqa: E402
from tools import default_tools  # noqa: E402


def print_session_table(path: Path, shown_as: str) -> None:
    reading = read_session(path)
    lines = path.read_bytes().count(b"\n")
    print(f"session file {shown_as}: {lines} lines")
    print(f"  {'id':<4}{'parent':<8}{'kind':<12}text")
    for entry in reading.entries:
        entry_id, parent = entry["id"], entry["parentId"] or "-"
        summary = summarize(entry)
        print(f"  {entry_id:<4}{parent:<8}{summary.kind:<12}{summary.text}")


def counts(chat: Chat) -> str:
    lines = chat.session.path.read_bytes().count(b"\n")
    return f"[file: {lines} lines, {chat.cursor} messages; model {chat.model}]"


def say(chat: Chat, line: str) -> None:
    """What main.py does with one input line: a command, or a turn followed by a save."""
    print(f"\nyou> {line}")
    if line.startswith("/"):
        for shown in run_command(chat, line).lines:
            print(shown)
    else:
        model = MODELS[chat.model]
        render(run_turn(model, default_tools(), chat.messages, user_text(line)), sys.stdout)
        chat.save_new()
    print(counts(chat))


def main() -> None:
    print("Step 04 demo: a model switch is an entry; --continue restores the model in force.")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / ".sessions"

        print("\n=== run 1: python main.py ===")
        session = Session.create(
            folder, session_id="demo", created_at="2026-01-01T00:00:00Z", cwd=tmp
        )
        shown_as = session.path.relative_to(root).as_posix()
        print(f"session file: {shown_as} (model {DEFAULT_MODEL})")
        chat = Chat(session, [], cursor=0)
        for line in ["what is 12*8", "/model scripted-v2", "/model scripted-v2", "what is 2+3"]:
            say(chat, line)
        print()
        print_session_table(session.path, shown_as)
        del session, chat  # the process ends: nothing in memory survives, only the file

        print("\n=== run 2: python main.py --continue ===")
        latest = find_latest_session(folder)
        assert latest.path is not None and not latest.passed_over
        opened = Session.open(latest.path)
        resumed = Chat.resume(opened)  # as main.py resumes
        chat = resumed.chat
        note = f"resumed: {counted(resumed.restored, 'message')} restored, model {chat.model}"
        print(f"session file: {shown_as} ({note})")
        print(f"  the model comes from the last model_change on the path: {opened.context.model}")
        say(chat, "what was the result")
        say(chat, "/model")


if __name__ == "__main__":
    main()
