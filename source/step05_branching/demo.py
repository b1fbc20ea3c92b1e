"""A scripted run of this step: an answer that goes badly, a branch back, a second answer that
goes well, and a restart with --continue that comes back on the branch that went well.

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
from loop import run_turn  # noqa: E402
from messages import user_text  # noqa: E402
from model import DEFAULT_MODEL, MODELS  # noqa: E402
from render import counted, render  # noqa: E402
from session import Session, find_latest_session  # noqa: E402
from tools import default_tools  # noqa: E402


def say(chat: Chat, line: str) -> None:
    """What main.py does with one input line: a command, or a turn and its save. (main.py
    saves each message the moment it ends; with no crash to show, the file is the same.)"""
    print(f"\nyou> {line}")
    if line.startswith("/"):
        for shown in run_command(chat, line).lines:
            print(shown)
        return
    model = MODELS[chat.model]
    render(run_turn(model, default_tools(), chat.messages, user_text(line)), sys.stdout)
    chat.save_new()


def file_size(chat: Chat) -> str:
    lines = chat.session.path.read_bytes().count(b"\n")
    return f"[the file: {lines} lines; the active path: {len(chat.messages)} messages]"


def main() -> None:
    print("Step 05 demo: go back and try again. Moving the leaf forks without deleting a byte.")
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
        say(chat, "hello")
        say(chat, "what is 2**10000")  # too large for calc: this answer goes badly
        print(file_size(chat))
        say(chat, "/branch e2")  # back to before the request, as if it was never asked
        say(chat, "/model scripted-v2")
        say(chat, "what is 2**100")
        print(file_size(chat))
        say(chat, "/tree")
        before = session.path.read_bytes()
        del session, chat  # the process ends: nothing in memory survives, only the file

        print("\n=== run 2: python main.py --continue ===")
        latest = find_latest_session(folder)
        assert latest.path is not None and not latest.passed_over
        resumed = Chat.resume(Session.open(latest.path))  # as main.py resumes
        chat = resumed.chat
        note = f"resumed: {counted(resumed.restored, 'message')} restored, model {chat.model}"
        print(f"session file: {shown_as} ({note})")
        say(chat, "what was the result")  # from the branch that went well
        unchanged = chat.session.path.read_bytes().startswith(before)
        print(
            f"\nevery byte of run 1 is still in the file, unchanged: {'yes' if unchanged else 'NO'}"
        )


if __name__ == "__main__":
    main()
