# >>file 02
# >> 02 until prod
# """The terminal: what the user types, what the program prints.
#
# None of it is about sessions: what is typed reaches the program a line at a time, whatever bytes
# it holds (not UTF-8, a character the terminal cannot show), and costs at most one line of output.
# """
# << 02 until prod
# >> prod
"""The terminal: what the user types, what the program prints.

None of it is about sessions: what is typed reaches the program a line at a time, whatever bytes
it holds (not UTF-8, a character the terminal cannot show), and costs at most one line of output.
Whatever the terminal does (a closed pipe, a line of 2 GB, a terminal that went away) costs at
most one line of output and never a saved message.
"""
# << prod

from __future__ import annotations

# >> prod
import errno
import io
import os
import select

# << prod
import sys
from contextlib import suppress
from typing import BinaryIO, TextIO

# >> prod
from terminal_text import printable

# One typed line at most; a longer one is refused in one line and read past in bounded pieces
# (so `main.py < /dev/zero` runs in constant memory). Several MB still go through.
MAX_INPUT_BYTES = 4 * 1024 * 1024


class OutputError(Exception):
    """Standard output cannot be written (a closed pipe, a full disk under a log file)."""


# << prod


class InputError(Exception):
    """Standard input cannot be read (a terminal gone, a descriptor not open for reading)."""


# >> 02 until prod
# class Terminal:
#     """Standard output, as the program writes to it: a reply as it streams, and whole lines."""
#
#     def __init__(self, out: TextIO) -> None:
#         self.out = out
#
#     def write(self, text: str) -> int:
#         return self.out.write(text)
#
#     def flush(self) -> None:
#         self.out.flush()
#
#     def say(self, line: str) -> None:
#         """One line of the program's own."""
#         self.out.write(line + "\n")
#         self.out.flush()
#
#
# << 02 until prod
# >> prod
class Terminal(io.TextIOBase):
    """Standard output that never costs a saved message: the first failed write is kept and
    every later one dropped, so the turn still runs to its end and is saved; then the run
    ends with one line saying why. A closed standard output (None) fails from the start."""

    def __init__(self, out: TextIO | None) -> None:
        self.out = out
        self.failure: OSError | None = None
        self.mid_line = False  # the last text written did not end its line
        if out is None:
            self.failure = OSError(errno.EBADF, "it is closed")

    def write(self, text: str) -> int:
        if text:
            self.mid_line = not text.endswith("\n")
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

    def end_line(self) -> None:
        """Finish a line cut short (a reply that broke off mid-stream), so that what standard
        error says next starts a line of its own on the screen, not the end of the answer."""
        if self.mid_line:
            self.write("\n")
        self.flush()

    def check(self) -> None:
        if self.failure is not None:
            raise OutputError(f"cannot write to standard output: {self.failure.strerror}")


# << prod


def warn(terminal: Terminal, message: str) -> None:
    """A `warning:` line on stderr, after whatever stdout already holds."""
    # >> 02 until prod
    # terminal.flush()
    # << 02 until prod
    # >> prod
    terminal.end_line()
    # << prod
    to_stderr(f"warning: {message}")


def to_stderr(line: str) -> None:
    # >> 02 until prod
    # """One line on standard error."""
    # print(line, file=sys.stderr, flush=True)
    # << 02 until prod
    # >> prod
    """One line on standard error, escaped. Closed (None: print would fall back to standard
    output) or failing, there is nowhere left to say it."""
    if sys.stderr is not None:
        with suppress(OSError):
            print(printable(line), file=sys.stderr, flush=True)
    # << prod


def tolerant_streams() -> None:
    """A terminal whose encoding cannot show a character (PYTHONIOENCODING=ascii, a Latin-1
    locale) gets its escape, never a UnicodeEncodeError in the middle of a turn."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]


def read_line(stdin: BinaryIO, terminal: Terminal, echo: bool) -> str | None:
    """The next line typed, or None at the end of input. Each line is decoded on its own: a
    bad byte costs its own line, never lines a text stream would have decoded with it."""
    while True:
        terminal.write("you> ")
        terminal.flush()
        # >> 02 until prod
        # try:
        #     raw = stdin.readline()
        # except OSError as error:  # EIO: the terminal went away; EBADF: not open for reading...
        #     terminal.say("")  # end the prompt's line: the error is a line of its own
        #     raise InputError(f"cannot read standard input: {error.strerror}") from None
        # if not raw:
        #     terminal.say("")
        #     return None
        # try:
        #     line = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
        # except UnicodeDecodeError:
        #     terminal.say("")
        #     warn(terminal, "a line that is not UTF-8 text was skipped")
        #     continue
        # if echo:  # a pipe does not show what it "typed"; print it so the transcript reads well
        #     terminal.say(line)
        # return line
        # << 02 until prod
        # >> prod
        try:
            raw = _next_raw_line(stdin, MAX_INPUT_BYTES + 1)
        except InputError:
            terminal.say("")  # end the prompt's line: the error is a line of its own
            raise
        if not raw:
            terminal.say("")
            return None
        if len(raw) > MAX_INPUT_BYTES and not raw.endswith(b"\n"):
            while (rest := _next_raw_line(stdin, 1024 * 1024)) and not rest.endswith(b"\n"):
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
        else:  # a terminal showed the line as it was typed, and its Enter ended it
            terminal.mid_line = False
        return line
        # << prod


# >> prod


def _next_raw_line(stdin: BinaryIO, limit: int) -> bytes:
    """Up to `limit` bytes, to the end of a line or of the input.

    Stop here: a non-blocking standard input (a parent can leave one behind) gives b"" when
    nothing has arrived *yet*, the very answer that means "end of input", and half a line
    when half has arrived. Taken at its word, everything typed after that is silently lost.
    So on such an input, wait until it can be read: readable and still b"" is the real end.
    The pieces are kept in a list and joined once: a 4 MB line that arrives 128 bytes at a
    time, added to a string piece by piece, was copied 32,000 times (seconds of CPU).
    """
    pieces: list[bytes] = []
    size, waited = 0, False
    try:
        while True:
            try:
                piece = stdin.readline(limit - size)
            except BlockingIOError:  # what some streams say instead of b""
                piece = b""
            pieces.append(piece)
            size += len(piece)
            if piece.endswith(b"\n") or size >= limit or _blocking(stdin):
                return b"".join(pieces)
            if waited and not piece:
                return b"".join(pieces)  # readable, and yet nothing: the real end of input
            select.select([stdin], [], [])
            waited = True
    except OSError as error:  # EIO: the terminal went away; EBADF: not open for reading...
        raise InputError(f"cannot read standard input: {error.strerror}") from None


def _blocking(stdin: BinaryIO) -> bool:
    try:
        return os.get_blocking(stdin.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return True  # not a descriptor (a test's BytesIO): its b"" is the end


# << prod
