"""The interactive program: python main.py [--continue] [--session-dir DIR]

It parses arguments, reads lines, runs the loop and persists after each turn. With --continue it
first rebuilds the most recent session's conversation and aligns the cursor, so only new
messages are written. Every fault a user can meet ends here as one `error:` or `warning:` line.
"""

from __future__ import annotations

import argparse
import errno
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
from model import DEFAULT_MODEL, MODELS  # noqa: E402
from render import printable, render  # noqa: E402
from session import Session, SessionError, find_latest_session  # noqa: E402
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


class Terminal(io.TextIOBase):
    """Standard output that never costs a saved message: the first failed write is kept and
    every later one dropped, so the turn still runs to its end and is saved; then the run
    ends with one line saying why. A closed standard output (None) fails from the start."""

    def __init__(self, out: TextIO | None) -> None:
        self.out = out
        self.failure: OSError | None = None
        if out is None:
            self.failure = OSError(errno.EBADF, "it is closed")

    def write(self, text: str) -> int:
        if self.failure is None and self.out is not None:
            try:
                self.out.write(text)
            except OSError as error:
                self.failure = error
        return len(text)

    def flush(self) -> None:
        if self.failure is None and self.out is not None:
            try:
                self.out.flush()
            except OSError as error:
                self.failure = error

    def say(self, line: str) -> None:
        """One line of the program's own, escaped here too: whatever it quotes (a command typed,
        an id from a file) cannot move the cursor or start a line of its own."""
        self.write(printable(line) + "\n")
        self.flush()

    def check(self) -> None:
        if self.failure is not None:
            raise OutputError(f"cannot write to standard output: {self.failure.strerror}")


def warn(terminal: Terminal, message: str) -> None:
    """A `warning:` line on stderr, after whatever stdout already holds."""
    terminal.flush()
    to_stderr(f"warning: {message}")


def to_stderr(line: str) -> None:
    """One line on standard error, escaped. Closed (None: print would fall back to standard
    output) or failing, there is nowhere left to say it."""
    if sys.stderr is not None:
        with suppress(OSError):
            print(printable(line), file=sys.stderr, flush=True)


def tolerant_streams() -> None:
    """A terminal whose encoding cannot show a character (PYTHONIOENCODING=ascii, a Latin-1
    locale) gets its escape, never a UnicodeEncodeError in the middle of a turn."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


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


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the run ends as it does on Ctrl-C, with one line saying what is
    saved, and status 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def how_it_ended(interrupt: KeyboardInterrupt) -> tuple[str, int]:
    """What to call an interrupt, and the exit status it gives."""
    if isinstance(interrupt, Stopped):
        return f"stopped by {signal.Signals(interrupt.signum).name}", 128 + interrupt.signum
    return "interrupted", 130


@contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait until the save is over, so a turn is never saved in
    part (a tool call without its result) and the last line printed can say exactly what is
    in the file."""
    received: list[int] = []

    def remember(signum: int, frame: object) -> None:
        received.append(signum)

    previous = {signum: signal.signal(signum, remember) for signum in ENDING_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if received:  # only after a save that finished: a failed one reports its own error
        raise KeyboardInterrupt if received[0] == signal.SIGINT else Stopped(received[0])


def run(args: argparse.Namespace, terminal: Terminal) -> int:
    if sys.stdin is None:
        raise UsageError("standard input is closed")
    stdin = sys.stdin.buffer
    tools = default_tools()
    delay = tool_delay()
    if delay:
        tools = slowed(tools, delay)
    try:
        chat = open_session(args.session_dir, args.continue_latest, terminal)
    except KeyboardInterrupt as interrupt:
        how, status = how_it_ended(interrupt)
        warn(terminal, f"{how} while starting: nothing was saved")
        return status
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
            model = MODELS[chat.model]  # a /model command may have switched it
            render(run_turn(model, tools, chat.messages, user_text(line)), terminal)
            with stop_signals_deferred():
                # Stop here: the loop has only touched `chat.messages`; this writes what is new.
                chat.save_new()
                in_turn = False  # saved: a signal held back during the save ends a finished turn
        terminal.check()
    except KeyboardInterrupt as interrupt:
        how, status = how_it_ended(interrupt)
        lost = "; the turn in progress was not saved" if in_turn else ""
        terminal.say("")
        warn(terminal, f"{how}{lost}: {what_was_saved(chat)}")
        return status
    terminal.say(what_was_saved(chat))
    terminal.check()
    return 0


def what_was_saved(chat: Chat) -> str:
    """The last line of a run: what this run added to the file, and what the file holds."""
    if not chat.session.exists:
        return "nothing to save: no session file was written"
    added, path = chat.cursor - chat.restored, printable(str(chat.session.path))
    return f"{added} new messages saved to {path} ({chat.cursor} in all)"


def open_session(directory: Path, continue_latest: bool, terminal: Terminal) -> Chat:
    """The session to write to, with the conversation so far (empty for a new session)."""
    if continue_latest:
        latest = find_latest_session(directory)
        for unusable in latest.passed_over:
            warn(terminal, f"{printable(str(unusable))}; passed over")
        if latest.path is not None:
            resumed = Session.open(latest.path)
            shown = printable(str(latest.path))
            if resumed.skipped:
                lines = "line" if resumed.skipped == 1 else "lines"
                warn(terminal, f"skipped {resumed.skipped} damaged {lines} in {shown}")
            if (chain_break := resumed.context.chain_break) is not None:
                start = chain_break.entry_id
                warn(terminal, f"{shown}: {chain_break}; the conversation starts at {start}")
            messages = resumed.context.messages
            # Stop here: the restored messages are already in the file. Start the cursor at 0
            # and the first save writes the whole history again.
            chat = Chat(resumed.session, messages, cursor=len(messages), restored=len(messages))
            chat.model = restored_model(resumed.context.model, terminal)
            chat.recorded_model = resumed.context.model
            note = f"resumed: {len(messages)} messages restored, model {chat.model}"
            terminal.say(f"session file: {shown} ({note})")
            return chat
        terminal.say(f"no session to continue in {printable(str(directory))}; starting a new one")
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=working_directory(),
    )
    terminal.say(f"session file: {printable(str(session.path))} (model {DEFAULT_MODEL})")
    return Chat(session, [], cursor=0)


def restored_model(recorded: str | None, terminal: Terminal) -> str:
    """The model in force at the leaf, if this program has it; else the default, said once."""
    if recorded is None:
        return DEFAULT_MODEL
    if recorded not in MODELS:
        warn(
            terminal,
            f"the session's model {printable(recorded)} is not here; using {DEFAULT_MODEL}",
        )
        return DEFAULT_MODEL
    return recorded


def main(argv: list[str] | None = None) -> int:
    tolerant_streams()
    terminal = Terminal(sys.stdout)
    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return run(parse_args(argv), terminal)
    except KeyboardInterrupt as interrupt:  # the run had already said what it saved
        return how_it_ended(interrupt)[1]
    except (UsageError, SessionError, TooManyRounds, OutputError, MemoryError) as error:
        terminal.flush()
        shown = "out of memory" if isinstance(error, MemoryError) else str(error)
        to_stderr(f"error: {shown}")
        return 1
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if terminal.failure is not None and sys.stdout is not None:  # no complaint at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
