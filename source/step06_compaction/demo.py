"""A scripted run of this step: turns and compactions, each carrying the one before it over,
then a restart with --continue that gives the model the latest summary and the turn it kept,
still recalls a result only the summary holds, and branches back to the whole history.

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
from messages import preview, summary_in, user_text  # noqa: E402
from model import DEFAULT_MODEL, MODELS  # noqa: E402
from render import counted, render  # noqa: E402
from session import Session, find_latest_session  # noqa: E402
from tools import default_tools  # noqa: E402


def say(chat: Chat, line: str) -> None:
    """What main.py does with one input line: a command, or a turn and its save."""
    print(f"\nyou> {line}")
    if line.startswith("/"):
        for shown in run_command(chat, line).lines:
            print(shown)
        return
    model = MODELS[chat.model]
    render(run_turn(model, default_tools(), chat.messages, user_text(line)), sys.stdout)
    chat.save_new()


def what_the_model_is_given(chat: Chat) -> None:
    lines = chat.session.path.read_bytes().count(b"\n")
    print(f"[the file: {lines} lines; the model is given {len(chat.messages)} messages:]")
    for message in chat.messages:
        summary = summary_in(message)
        if summary is None:
            print(f"  {message['role']}: {preview(message, 60)}")
        else:
            print("  user: (the summary)")
            print("\n".join(f"    {line}" for line in summary.splitlines()))


def main() -> None:
    print("Step 06 demo: a summary stands in for what the model no longer needs.")
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
        for line in ("hello", "what is 12*8", "what is 2+3", "/compact"):
            say(chat, line)
        what_the_model_is_given(chat)
        for line in ("what is 7*6", "/compact", "what was the result", "/compact"):
            say(chat, line)  # each compaction carries the one before it over
        say(chat, "/compact")  # again at once: the last turn is all there is
        before = session.path.read_bytes()
        del session, chat  # the process ends: nothing in memory survives, only the file

        print("\n=== run 2: python main.py --continue ===")
        latest = find_latest_session(folder)
        assert latest.path is not None and not latest.passed_over
        resumed = Chat.resume(Session.open(latest.path))  # as main.py resumes
        chat = resumed.chat
        note = f"resumed: {counted(resumed.restored, 'message')} restored, model {chat.model}"
        print(f"session file: {shown_as} ({note})")
        what_the_model_is_given(chat)
        say(chat, "what was the result")  # no tool result is left: the summary has it
        say(chat, "/branch e6")  # before every compaction: the whole history comes back
        say(chat, "what was the result")
        say(chat, "/tree")
        unchanged = chat.session.path.read_bytes().startswith(before)
        print(
            f"\nevery byte of run 1 is still in the file, unchanged: {'yes' if unchanged else 'NO'}"
        )


if __name__ == "__main__":
    main()
