"""The commands a user can type. A line that starts with "/" is a command, never a message.

Every command lives in the one table below, and acts on a `Chat`: the session, the messages in
memory and the cursor between them, kept together so that a command that replaces the messages
replaces the cursor with them. A command returns the lines to print; main.py prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from messages import Message
from session import Resumed, Session, persist_new_messages


@dataclass
class Chat:
    """What one run of the program holds."""

    session: Session
    messages: list[Message]
    cursor: int  # how many of `messages` are already in the file
    written_this_run: int = 0  # messages this run has added to the file

    @classmethod
    def resume(cls, opened: Resumed) -> ResumedChat:
        """The chat that goes on with a session `Session.open` read: the conversation at the
        leaf.

        Stop here: the restored messages are already in the file, so the cursor is set to all
        of them; at 0, the first save would write the history again.
        """
        messages = list(opened.context.messages)  # a copy: the loop appends; a Context is frozen
        chat = cls(opened.session, messages, cursor=len(messages))
        restored = len(chat.messages)
        return ResumedChat(chat=chat, restored=restored)

    def save_new(self) -> int:
        """Write what is new since the cursor, move the cursor; return how many were written."""
        before = self.cursor
        self.cursor = persist_new_messages(self.session, self.messages, self.cursor)
        self.written_this_run += self.cursor - before
        return self.cursor - before


@dataclass(frozen=True)
class ResumedChat:
    """What `Chat.resume` gives back: the chat, and what the caller must tell the user."""

    chat: Chat
    restored: int  # messages rebuilt from the file


@dataclass(frozen=True)
class CommandResult:
    lines: list[str] = field(default_factory=list)  # what to print
    exit: bool = False  # end the run


@dataclass(frozen=True)
class Command:
    usage: str
    help: str
    run: Callable[[Chat, str], CommandResult]  # (chat, the text after the name)


def exit_command(chat: Chat, argument: str) -> CommandResult:
    return CommandResult(exit=True)


def help_command(chat: Chat, argument: str) -> CommandResult:
    return CommandResult([f"  {c.usage:<14} {c.help}" for c in COMMANDS.values()])


COMMANDS: dict[str, Command] = {
    "/help": Command("/help", "list the commands", help_command),
    "/exit": Command("/exit", "end the run (so does the end of input)", exit_command),
}


def is_command(line: str) -> bool:
    return line.lstrip().startswith("/")


def run_command(chat: Chat, line: str) -> CommandResult:
    """Run the command on `line`. An unknown one changes nothing and says so in one line."""
    name, *rest = line.split(maxsplit=1)  # any whitespace parts name and argument: a tab too
    argument = rest[0].strip() if rest else ""
    command = COMMANDS.get(name)
    if command is None:
        return CommandResult([f"unknown command {name} (/help lists the commands)"])
    return command.run(chat, argument)
