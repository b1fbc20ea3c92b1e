"""The interactive program: python main.py [--continue] [--session-dir DIR]

It parses arguments, reads lines, runs the loop and persists after each turn. With --continue it
first replays the most recent session and aligns the cursor, so only new messages are written.
"""

from __future__ import annotations

import argparse
import io
import os
import secrets
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from loop import TooManyRounds, run_turn  # noqa: E402
from messages import Message, user_text  # noqa: E402
from model import ScriptedModel  # noqa: E402
from render import render  # noqa: E402
from session import Session, SessionError, find_latest_session, persist_new_messages  # noqa: E402
from tools import default_tools, slowed  # noqa: E402

DELAY_VARIABLE = "LAB_TOOL_DELAY"  # seconds each tool call sleeps; for the crash experiment


class UsageError(Exception):
    """Bad input from the command line or the environment."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One `error:` line and status 1, as for any other bad input (argparse would exit 2)."""
        raise UsageError(f"{message} (see --help)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = ArgumentParser(description="Chat with a scripted model; saved as JSONL.")
    parser.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume the most recent usable session in DIR (a new one if there is none)",
    )
    parser.add_argument(
        "--session-dir",
        type=Path,
        default=Path(".sessions"),
        metavar="DIR",
        help="where session files go (default: .sessions)",
    )
    return parser.parse_args(argv)


def new_session_id(now: datetime) -> str:
    """Sorts by time; the random suffix keeps two runs in the same second apart."""
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def tool_delay() -> float:
    raw = os.environ.get(DELAY_VARIABLE, "0")
    try:
        seconds = float(raw)
    except ValueError:
        raise UsageError(f"{DELAY_VARIABLE} must be a number of seconds, not {raw!r}") from None
    if not 0 <= seconds <= 60:
        raise UsageError(f"{DELAY_VARIABLE} must be between 0 and 60 seconds, not {raw}")
    return seconds


def read_line(echo: bool) -> str | None:
    """The next line typed, or None at the end of input."""
    try:
        line = input("you> ")
    except EOFError:
        print()
        return None
    if echo:  # a pipe does not show what it "typed"; print it so the transcript reads well
        print(line)
    return line


def run(args: argparse.Namespace) -> int:
    # Decode input strictly: bytes that are not UTF-8 become one error line, not a broken file.
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="strict")
    tools = default_tools()
    delay = tool_delay()
    if delay:
        tools = slowed(tools, delay)
    session, messages = open_session(args.session_dir, args.continue_latest)
    # Stop here: the restored messages are already in the file. Start the cursor at 0 and the
    # first persist writes the whole history again; the next --continue would restore it twice.
    persisted = len(messages)  # the cursor: how many of `messages` are already in the file
    restored = persisted

    model = ScriptedModel()
    echo = not sys.stdin.isatty()
    while (line := read_line(echo)) is not None and line.strip() != "/exit":
        if not line.strip():
            continue
        render(run_turn(model, tools, messages, user_text(line)), sys.stdout)
        # Stop here: the loop has only touched `messages`; this line writes what is new.
        persisted = persist_new_messages(session, messages, persisted)

    print(f"{persisted - restored} new messages saved to {session.path} ({persisted} in all)")
    return 0


def open_session(directory: Path, continue_latest: bool) -> tuple[Session, list[Message]]:
    """The session to write to, and the conversation so far (empty for a new session)."""
    if continue_latest:
        latest, passed_over = find_latest_session(directory)
        for unusable in passed_over:
            print(f"warning: {unusable}; passed over", file=sys.stderr, flush=True)
        if latest is not None:
            session, messages, skipped = Session.open(latest)
            if skipped:
                lines = "line" if skipped == 1 else "lines"
                print(f"warning: skipped {skipped} damaged {lines} in {latest}", file=sys.stderr)
            note = f"resumed: {len(messages)} messages restored"
            print(f"session file: {session.path} ({note})", flush=True)
            return session, messages
        print(f"no session to continue in {directory}; starting a new one")
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=str(Path.cwd()),
    )
    print(f"session file: {session.path}", flush=True)
    return session, []


def main(argv: list[str] | None = None) -> int:
    try:
        return run(parse_args(argv))
    except (UsageError, SessionError, TooManyRounds) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except UnicodeDecodeError:
        print("error: standard input is not UTF-8 text", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: the turn in progress was not saved", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
