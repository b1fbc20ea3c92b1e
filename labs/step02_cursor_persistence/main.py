"""The interactive program: python main.py [--session-dir DIR]

It parses arguments, reads lines, runs the loop and persists after each turn, nothing else.
Every fault a user can meet ends here as one `error:` or `warning:` line.
"""

from __future__ import annotations

import argparse
import io
import os
import secrets
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO, NoReturn, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from commands import Chat, is_command, run_command  # noqa: E402
from loop import TooManyRounds, run_turn  # noqa: E402
from messages import user_text  # noqa: E402
from model import ScriptedModel  # noqa: E402
from render import printable, render  # noqa: E402
from session import Session, SessionError  # noqa: E402
from tools import default_tools, slowed  # noqa: E402

DELAY_VARIABLE = "LAB_TOOL_DELAY"  # seconds each tool call sleeps; for the crash experiment
# One typed line at most; a longer one is refused in one line and read past in bounded pieces
# (so `main.py < /dev/zero` runs in constant memory). Several MB still go through.
MAX_INPUT_BYTES = 4 * 1024 * 1024


class UsageError(Exception):
    """Bad input from the command line or the environment."""


class OutputError(Exception):
    """Standard output cannot be written (a closed pipe, a full disk under a log file)."""


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


class Terminal(io.TextIOBase):
    """Standard output that never costs a saved message: the first failed write is kept and
    every later one dropped, so the turn still runs to its end and is saved; then the run
    ends with one line saying why."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        if self.failure is None:
            try:
                self.out.write(text)
            except OSError as error:
                self.failure = error
        return len(text)

    def flush(self) -> None:
        if self.failure is None:
            try:
                self.out.flush()
            except OSError as error:
                self.failure = error

    def say(self, line: str) -> None:
        self.write(line + "\n")
        self.flush()

    def check(self) -> None:
        if self.failure is not None:
            raise OutputError(f"cannot write to standard output: {self.failure.strerror}")


def warn(terminal: Terminal, message: str) -> None:
    """A `warning:` line on stderr, after whatever stdout already holds."""
    terminal.flush()
    with suppress(OSError):  # nowhere left to say it; the run goes on
        print(f"warning: {message}", file=sys.stderr, flush=True)


def new_session_id(now: datetime) -> str:
    """Sorts by time; the random suffix keeps two runs in the same second apart."""
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def tool_delay() -> float:
    raw = os.environ.get(DELAY_VARIABLE, "0")
    try:
        seconds = float(raw)
    except ValueError:
        raise UsageError(
            f"{DELAY_VARIABLE} must be a number of seconds, not {printable(repr(raw))}"
        ) from None
    if not 0 <= seconds <= 60:
        raise UsageError(f"{DELAY_VARIABLE} must be between 0 and 60 seconds, not {raw}")
    return seconds


def working_directory() -> str:
    """The header's `cwd`. A deleted folder or a name that is not UTF-8 cannot be recorded."""
    try:
        cwd = os.getcwd()
    except OSError as error:
        raise UsageError(f"the working directory is unusable: {error.strerror}") from None
    try:
        cwd.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(
            f"the working directory's name is not UTF-8 text: {printable(cwd)}"
        ) from None
    return cwd


def read_line(stdin: BinaryIO, terminal: Terminal, echo: bool) -> str | None:
    """The next line typed, or None at the end of input.

    Each line is decoded on its own: a bad byte costs its own line, never the good lines
    before it (a text stream decodes in chunks, so one bad byte can fail lines it read ahead).
    """
    while True:
        terminal.write("you> ")
        terminal.flush()
        raw = stdin.readline(MAX_INPUT_BYTES + 1)
        if not raw:
            terminal.say("")
            return None
        if len(raw) > MAX_INPUT_BYTES and not raw.endswith(b"\n"):
            while (rest := stdin.readline(1024 * 1024)) and not rest.endswith(b"\n"):
                pass
            terminal.say("")
            warn(terminal, f"a line over {MAX_INPUT_BYTES:,} bytes was skipped")
            continue
        try:
            line = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
        except UnicodeDecodeError:
            terminal.say("")
            warn(terminal, "a line that is not UTF-8 text was skipped")
            continue
        if echo:  # a pipe does not show what it "typed"; print it so the transcript reads well
            terminal.say(printable(line))
        return line


@contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """Ctrl-C waits until the save is over, so a save is never cut halfway and the last
    line printed can say exactly what is in the file."""
    interrupted = False

    def remember(signum: int, frame: object) -> None:
        nonlocal interrupted
        interrupted = True

    previous = signal.signal(signal.SIGINT, remember)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if interrupted:
            raise KeyboardInterrupt


def run(args: argparse.Namespace, terminal: Terminal) -> int:
    if sys.stdin is None:
        raise UsageError("standard input is closed")
    stdin = sys.stdin.buffer
    tools = default_tools()
    delay = tool_delay()
    if delay:
        tools = slowed(tools, delay)
    chat = open_session(args.session_dir, terminal)
    model = ScriptedModel()
    echo = not stdin.isatty()
    in_turn = False
    try:
        while terminal.failure is None and (line := read_line(stdin, terminal, echo)) is not None:
            if not line.strip():
                continue
            if is_command(line):
                result = run_command(chat, line)
                for shown in result.lines:
                    terminal.say(shown)
                if result.exit:
                    break
                continue
            in_turn = True
            render(run_turn(model, tools, chat.messages, user_text(line)), terminal)
            with stop_signals_deferred():
                # Stop here: the loop has only touched `chat.messages`; this writes what is new.
                chat.save_new()
            in_turn = False
        terminal.check()
    except KeyboardInterrupt:
        lost = "; the turn in progress was not saved" if in_turn else ""
        terminal.say("")
        warn(terminal, f"interrupted{lost}: {what_was_saved(chat)}")
        return 130
    terminal.say(what_was_saved(chat))
    terminal.check()
    return 0


def what_was_saved(chat: Chat) -> str:
    """The last line of a run: what the file holds."""
    if not chat.session.exists:
        return "nothing to save: no session file was written"
    return f"{chat.cursor} messages saved to {printable(str(chat.session.path))}"


def open_session(directory: Path, terminal: Terminal) -> Chat:
    """A new session to write to (created on disk by its first save)."""
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=working_directory(),
    )
    terminal.say(f"session file: {printable(str(session.path))}")
    return Chat(session, [], cursor=0)


def main(argv: list[str] | None = None) -> int:
    terminal = Terminal(sys.stdout)
    try:
        return run(parse_args(argv), terminal)
    except KeyboardInterrupt:  # before the session was open: nothing to save yet
        return 130
    except (UsageError, SessionError, TooManyRounds, OutputError) as error:
        terminal.flush()
        with suppress(OSError):
            print(f"error: {printable(str(error))}", file=sys.stderr, flush=True)
        return 1
    finally:
        if terminal.failure is not None:  # keep Python from complaining at exit, too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
