"""The commands a user can type. A line that starts with "/" is a command, never a message.

Every command lives in the one table below, and acts on a `Chat`: the session, the messages in
memory and the cursor between them, kept together so that a command that replaces the messages
replaces the cursor with them. A command returns the lines to print; main.py prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from entries import Context
from messages import Message
from model import DEFAULT_MODEL, MODELS
from session import Resumed, Session, persist_new_messages


@dataclass
class Chat:
    """What one run of the program holds."""

    session: Session
    messages: list[Message]
    cursor: int  # how many of `messages` are already in the file
    written_this_run: int = 0  # messages this run has added to the file
    model: str = DEFAULT_MODEL  # the name of the model that answers the next turn
    # The model the file says is in force at the leaf (None: no switch recorded). It differs
    # from `model` when the path asked for a model this program lacks.
    recorded_model: str | None = None

    @classmethod
    def resume(cls, opened: Resumed) -> ResumedChat:
        """The chat that goes on with a session `Session.open` read: the conversation and the
        model at the leaf.

        Stop here: the restored messages are already in the file, so the cursor is set to all
        of them; at 0, the first save would write the history again.
        """
        messages = list(opened.context.messages)  # a copy: the loop appends; a Context is frozen
        chat = cls(opened.session, messages, cursor=len(messages))
        model = choose_model(opened.context)
        chat.model, chat.recorded_model = model.used, model.recorded
        restored = len(chat.messages)
        return ResumedChat(chat=chat, restored=restored, model=model)

    def save_new(self) -> int:
        """Write what is new since the cursor, move the cursor; return how many were written."""
        before = self.cursor
        self.cursor = persist_new_messages(self.session, self.messages, self.cursor)
        self.written_this_run += self.cursor - before
        return self.cursor - before


@dataclass(frozen=True)
class ModelChoice:
    """Which model answers on a path, and which one the path recorded.

    Made in one place (`choose_model`) and worded in one place (`fallback_message`), so that
    what a resume chooses and what it warns about cannot drift apart.
    """

    used: str  # the model that answers the next turn
    recorded: str | None  # the path's last model switch; None if the path has none

    @property
    def fell_back(self) -> bool:
        """The path recorded a model this program lacks (a newer program's), so the default
        answers instead."""
        return self.recorded is not None and self.recorded != self.used

    def fallback_message(self) -> str:
        """What to tell the user when the choice `fell_back` (a warning on resume)."""
        return f"the session's model {self.recorded} is not here; using {self.used}"


@dataclass(frozen=True)
class ResumedChat:
    """What `Chat.resume` gives back: the chat, and what the caller must tell the user."""

    chat: Chat
    restored: int  # messages rebuilt from the file
    model: ModelChoice  # worth a warning if it fell back


def choose_model(context: Context) -> ModelChoice:
    """The model the path recorded, if this program has it; else the default."""
    used = context.model if context.model in MODELS else DEFAULT_MODEL
    return ModelChoice(used=used, recorded=context.model)


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


def model_command(chat: Chat, argument: str) -> CommandResult:
    """`/model` lists the models; `/model NAME` switches and records the switch in the file.

    Stop here: the switch is appended as an entry, through the same write path as a message,
    so `--continue` can find it on the path from the leaf. Nothing else changes: the messages
    and the cursor stay as they are.
    """
    if not argument:
        return CommandResult(
            [f"{'*' if name == chat.model else ' '} {name}" for name in MODELS]
            + ["(* answers now; /model NAME switches)"]
        )
    if argument not in MODELS:
        known = ", ".join(MODELS)
        return CommandResult([f"unknown model {argument} (the models: {known})"])
    # After a fallback the file still says the other model: choosing the default is a real
    # switch, and must be written down like any other.
    if argument == chat.model and chat.recorded_model in (None, argument):
        return CommandResult([f"already using {argument}"])
    chat.session.append_model_change(argument)
    chat.model = chat.recorded_model = argument
    return CommandResult([f"switched to {argument}"])


COMMANDS: dict[str, Command] = {
    "/help": Command("/help", "list the commands", help_command),
    "/model": Command("/model [NAME]", "list the models, or switch to NAME", model_command),
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
