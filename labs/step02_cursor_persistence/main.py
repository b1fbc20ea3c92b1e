"""The interactive program: python main.py [--session-dir DIR]

It parses arguments, reads lines, runs the loop and saves what is new after each turn.
Every fault a user can meet ends here as one `error:` or `warning:` line; Ctrl-C ends the run
in one line that says what was saved.
"""

from __future__ import annotations

try:
    import argparse
    import os
    import secrets
    import sys
    from contextlib import suppress
    from datetime import UTC, datetime
    from pathlib import Path
    from typing import NoReturn

    sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

    from commands import Chat, is_command, run_command  # noqa: E402
    from loop import TooManyRounds, run_turn  # noqa: E402
    from messages import user_text  # noqa: E402
    from model import DEFAULT_MODEL, MODELS, HistoryRefused  # noqa: E402
    from render import counted, render  # noqa: E402
    from session import Session, SessionError  # noqa: E402
    from terminal import (  # noqa: E402
        InputError,
        Terminal,
        read_line,
        to_stderr,
        tolerant_streams,
        warn,
    )
    from tools import default_tools  # noqa: E402
except KeyboardInterrupt:  # Ctrl-C while they run (a tenth of a second): no traceback
    raise SystemExit(130) from None


class UsageError(Exception):
    """Bad input from the command line or the environment."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One `error:` line and status 1, as for any other bad input (argparse would exit 2)."""
        raise UsageError(f"{message} (see --help)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = ArgumentParser(description="Chat with a scripted model; saved as JSONL.")
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


def working_directory() -> str:
    """The header's `cwd`. A deleted folder cannot be recorded."""
    try:
        return os.getcwd()
    except OSError as error:
        raise UsageError(f"the working directory is unusable: {error.strerror}") from None


def run(args: argparse.Namespace, terminal: Terminal) -> int:
    if sys.stdin is None or sys.stdout is None:  # closed (<&-, >&-): no conversation to have
        raise UsageError(f"standard {'input' if sys.stdin is None else 'output'} is closed")
    stdin = sys.stdin.buffer
    tools = default_tools()
    model = MODELS[DEFAULT_MODEL]
    chat = open_session(args, terminal)
    echo = not stdin.isatty()
    try:
        while (line := read_line(stdin, terminal, echo)) is not None:
            if not line.strip():
                continue
            if is_command(line):
                result = run_command(chat, line)
                for shown in result.lines:
                    terminal.say(shown)
                if result.exit:
                    break
                continue
            render(run_turn(model, tools, chat.messages, user_text(line)), terminal)
            # Stop here: the loop has only touched `chat.messages`; this writes what is new.
            chat.save_new()
    except KeyboardInterrupt:  # Ctrl-C: every turn finished before it is in the file
        terminal.say("")
        warn(terminal, f"interrupted: {what_was_saved(chat)}")
        return 130
    except InputError as error:
        raise InputError(f"{error}; {what_was_saved(chat)}") from None
    terminal.say(what_was_saved(chat))
    return 0


def what_was_saved(chat: Chat) -> str:
    """The last line of a run: what this run added to the file, and what the file holds."""
    if not chat.session.exists:
        return "nothing to save: no session file was written"
    return f"{counted(chat.cursor, 'message')} saved to {chat.session.path}"


def open_session(args: argparse.Namespace, terminal: Terminal) -> Chat:
    """The session to write to, with the conversation so far (empty for a new one)."""
    directory = args.session_dir
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=working_directory(),
    )
    terminal.say(f"session file: {session.path}")
    return Chat(session, [], cursor=0)


def main(argv: list[str] | None = None) -> int:
    tolerant_streams()
    terminal = Terminal(sys.stdout)
    try:
        return run(parse_args(argv), terminal)
    except KeyboardInterrupt:  # before the session was opened: nothing to save yet
        to_stderr("warning: interrupted: nothing was saved")
        return 130
    except (UsageError, SessionError, TooManyRounds, HistoryRefused, InputError) as error:
        to_stderr(f"error: {error}")
        return 1
    except OSError as error:  # standard output failed: a closed pipe, a full disk under a log
        to_stderr(f"error: cannot write to standard output: {error.strerror}")
        with suppress(OSError):  # what is left for standard output goes nowhere, not to a
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # second complaint
        return 1


if __name__ == "__main__":
    sys.exit(main())
