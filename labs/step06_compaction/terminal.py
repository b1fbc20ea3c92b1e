"""The terminal: what the user types, what the program prints.

None of it is about sessions: what is typed reaches the program a line at a time, whatever bytes
it holds (not UTF-8, a character the terminal cannot show), and costs at most one line of output.
"""

from __future__ import annotations

import sys
from contextlib import suppress
from typing import BinaryIO, TextIO


class InputError(Exception):
    """Standard input cannot be read (a terminal gone, a descriptor not open for reading)."""


class Terminal:
    """Standard output, as the program writes to it: a reply as it streams, and whole lines."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()

    def say(self, line: str) -> None:
        """One line of the program's own."""
        self.out.write(line + "\n")
        self.out.flush()


def warn(terminal: Terminal, message: str) -> None:
    """A `warning:` line on stderr, after whatever stdout already holds."""
    terminal.flush()
    to_stderr(f"warning: {message}")


def to_stderr(line: str) -> None:
    """One line on standard error."""
    print(line, file=sys.stderr, flush=True)


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
        try:
            raw = stdin.readline()
        except OSError as error:  # EIO: the terminal went away; EBADF: not open for reading...
            terminal.say("")  # end the prompt's line: the error is a line of its own
            raise InputError(f"cannot read standard input: {error.strerror}") from None
        if not raw:
            terminal.say("")
            return None
        try:
            line = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
        except UnicodeDecodeError:
            terminal.say("")
            warn(terminal, "a line that is not UTF-8 text was skipped")
            continue
        if echo:  # a pipe does not show what it "typed"; print it so the transcript reads well
            terminal.say(line)
        return line
