"""The interactive program: python main.py [--continue] [--session-dir DIR] [--fsync]

It parses arguments, reads lines, runs the loop and saves each message the moment it is
finished. With --continue it first rebuilds the most recent session's conversation and aligns
the cursor, so only new messages are written, and answers a tool call the last run never
finished. The session file is locked while the run lasts. Every fault a user can meet ends
here as one `error:` or `warning:` line; Ctrl-C, SIGTERM and SIGHUP end the run in one line.
"""

from __future__ import annotations

import argparse
import errno
import io
import os
import secrets
import signal
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO, NoReturn, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from any directory

from commands import Chat, is_command, run_command  # noqa: E402
from loop import LoopEvent, MessageEnd, TooManyRounds, run_turn  # noqa: E402
from messages import unanswered_calls, user_text  # noqa: E402
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


class Stopped(BaseException):
    """Ctrl-C (SIGINT), SIGTERM or SIGHUP (the terminal closed) arrived. A BaseException, as
    KeyboardInterrupt is, so that the loop's `except Exception` around a tool cannot take it
    for the tool's own failure."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    def line(self) -> str:
        """Which signal, for the run's last line."""
        names = {signal.SIGINT: "interrupted", signal.SIGHUP: "hung up"}
        return names.get(self.signum, "terminated")


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop(signum: int, frame: object) -> NoReturn:
    """The handler of the three stop signals. The first ends the run; later ones are ignored,
    so that a second Ctrl-C cannot cut the line that says what was saved."""
    ignore_stop_signals()
    raise Stopped(signum)


def ignore_stop_signals() -> None:
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


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
    parser.add_argument(
        "--fsync",
        action="store_true",
        help="wait until the disk has each saved line (survives a power loss; slower)",
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


@contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """A stop signal waits until the save is over, so a save is never cut halfway and the
    last line printed can say exactly what is in the file."""
    arrived: list[int] = []

    def remember(signum: int, frame: object) -> None:
        arrived.append(signum)

    previous = {signum: signal.signal(signum, remember) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if arrived:  # only after a save that finished: a failed one reports its own error
        stop(arrived[0], None)


def saving_each_message(events: Iterable[LoopEvent], chat: Chat) -> Iterator[LoopEvent]:
    """The loop's events, passed on unchanged, each message saved the moment it is finished.

    Stop here: the loop still never touches disk. On `MessageEnd` the message is already the
    last of `chat.messages`, so `save_new` writes it (and only it) through the cursor. Saving
    at the end of the turn instead, a kill during a long tool call would lose the user's
    line and the tool call; now it loses only the call's result, which the next --continue
    answers as interrupted.
    """
    for event in events:
        if isinstance(event, MessageEnd):
            with stop_signals_deferred():
                chat.save_new()
        yield event


def run(args: argparse.Namespace, terminal: Terminal) -> int:
    if sys.stdin is None:
        raise UsageError("standard input is closed")
    stdin = sys.stdin.buffer
    tools = default_tools()
    delay = tool_delay()
    if delay:
        tools = slowed(tools, delay)
    for signum in STOP_SIGNALS:  # from here on, each ends the run in one line
        signal.signal(signum, stop)
    chat = open_session(args, terminal)
    reported = chat.session.entries.damaged  # the damaged lines open_session has named
    echo = not stdin.isatty()
    try:
        while terminal.failure is None and (line := read_line(stdin, terminal, echo)) is not None:
            if not line.strip():
                continue
            if is_command(line):
                # /model and /branch write too: never cut halfway either.
                with stop_signals_deferred():
                    result = run_command(chat, line)
                for shown in result.lines:
                    terminal.say(shown)
                # Entries off the path are checked when a command first uses them (/tree,
                # /branch): damage found then is named too, never silently dropped.
                reported = report_damage(chat, terminal, reported)
                if result.exit:
                    break
                continue
            model = MODELS[chat.model]  # a /model command may have switched it
            events = run_turn(model, tools, chat.messages, user_text(line))
            render(saving_each_message(events, chat), terminal)
        terminal.check()
    except Stopped as stopped:  # every finished message is in the file already
        cut = unanswered_calls(chat.messages[: chat.cursor])
        note = "; the tool call in progress was stopped (--continue answers it)" if cut else ""
        terminal.say("")
        warn(terminal, f"{stopped.line()}: {what_was_saved(chat)}{note}")
        return 128 + stopped.signum
    finally:
        ignore_stop_signals()  # the run is ending anyway: let it say how, in one line
        chat.session.close()
    terminal.say(what_was_saved(chat))
    terminal.check()
    return 0


def report_damage(chat: Chat, terminal: Terminal, reported: int) -> int:
    """One `warning:` line for the damaged lines found since `reported`; the new count."""
    if (found := chat.session.entries.damaged - reported) > 0:
        lines = "line" if found == 1 else "lines"
        shown = printable(str(chat.session.path))
        warn(terminal, f"skipped {found} more damaged {lines} in {shown}")
    return chat.session.entries.damaged


def what_was_saved(chat: Chat) -> str:
    """The last line of a run: what this run added to the file, and the conversation's length
    (with branches, the file holds more than the path)."""
    if not chat.session.exists:
        return "nothing to save: no session file was written"
    path = printable(str(chat.session.path))
    added = chat.written_this_run
    return f"{added} new messages saved to {path} ({chat.cursor} on the active path)"


def open_session(args: argparse.Namespace, terminal: Terminal) -> Chat:
    """The session to write to, locked, with the conversation so far (empty for a new one)."""
    directory = args.session_dir
    if args.continue_latest:
        latest = find_latest_session(directory)
        for unusable in latest.passed_over:
            warn(terminal, f"{printable(str(unusable))}; passed over")
        if latest.path is not None:
            opened = Session.open(latest.path, lock=True, fsync=args.fsync)
            shown = printable(str(latest.path))
            if opened.skipped:
                lines = "line" if opened.skipped == 1 else "lines"
                warn(terminal, f"skipped {opened.skipped} damaged {lines} in {shown}")
            if (chain_break := opened.context.chain_break) is not None:
                start = chain_break.entry_id
                warn(terminal, f"{shown}: {chain_break}; the conversation starts at {start}")
            with stop_signals_deferred():  # its repair is a save like any other: never cut halfway
                resumed = Chat.resume(opened)
            if resumed.model.fell_back:
                warn(terminal, resumed.model.fallback_message())
            if resumed.repaired:
                calls = "tool call" if resumed.repaired == 1 else "tool calls"
                warn(
                    terminal,
                    f"repaired {resumed.repaired} interrupted {calls} in {shown} "
                    "(an error result each; not run again)",
                )
            note = f"resumed: {resumed.restored} messages restored, model {resumed.chat.model}"
            terminal.say(f"session file: {shown} ({note})")
            return resumed.chat
        terminal.say(f"no session to continue in {printable(str(directory))}; starting a new one")
    now = datetime.now(UTC)
    session = Session.create(
        directory,
        session_id=new_session_id(now),
        created_at=now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        cwd=working_directory(),
        lock=True,  # taken when the first save creates the file
        fsync=args.fsync,
    )
    terminal.say(f"session file: {printable(str(session.path))} (model {DEFAULT_MODEL})")
    return Chat(session, [], cursor=0)


def main(argv: list[str] | None = None) -> int:
    tolerant_streams()
    terminal = Terminal(sys.stdout)
    try:
        return run(parse_args(argv), terminal)
    except KeyboardInterrupt:  # before the handlers were set: nothing to save yet
        return 130
    except Stopped as stopped:  # while the session was being opened
        to_stderr(f"warning: {stopped.line()} while opening the session")
        return 128 + stopped.signum
    except (UsageError, SessionError, TooManyRounds, OutputError, MemoryError) as error:
        terminal.flush()
        shown = "out of memory" if isinstance(error, MemoryError) else str(error)
        to_stderr(f"error: {shown}")
        return 1
    finally:
        if terminal.failure is not None and sys.stdout is not None:  # no complaint at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
