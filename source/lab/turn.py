# >>file prod
"""One turn of the production program, from the line typed to the prompt coming back.

Earlier steps render a turn and save it when it ends, and an error ends the run. Here each
message is saved the moment it ends (`saving_each_message`), and a turn that fails or that
Ctrl-C abandons ends in one line while the run goes on (`take_turn`); so does a command that
waits for the model (`run_command_or_fail`). main.py's loop calls them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from commands import Chat, CommandResult, run_command
from interrupted_calls import CANCELLED, repair_interrupted_calls
from loop import LoopEvent, MessageEnd, TooManyRounds, run_turn
from messages import user_text
from model import Model, ModelError
from render import render
from stop_signals import TurnInterrupted, ctrl_c_abandons_the_turn, stop_signals_deferred
from terminal import Terminal, to_stderr, warn
from tools import Tool


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


def take_turn(
    chat: Chat, model: Model, tools: Mapping[str, Tool], line: str, terminal: Terminal
) -> None:
    """One turn, each message saved as it ends. A turn that fails (the endpoint's fault, too
    many rounds) or that Ctrl-C abandons ends in one line, and the prompt comes back.

    Stop here: the turn fails, not the run. What the turn finished is in the file already
    (the user's line, a tool call and its result); the reply that failed never reached `Done`,
    so the loop never appended it, and nothing of it is saved. The next line is a new turn,
    on a conversation the model can still be given.
    """
    events = run_turn(model, tools, chat.messages, user_text(line))
    try:
        with ctrl_c_abandons_the_turn():
            render(saving_each_message(events, chat), terminal)
    except (ModelError, TooManyRounds) as error:
        terminal.end_line()  # a reply cut short ends its line before the error's
        to_stderr(f"error: {error}")
    except TurnInterrupted:
        events.close()  # the reply being read lets go of its connection now
        cut = abandon_turn(chat)
        note = "; the tool call in progress was answered as interrupted" if cut else ""
        ends = "Ctrl-C at the prompt ends the run"
        warn(terminal, f"interrupted: the turn was abandoned{note} ({ends})")
    finally:
        events.close()


def run_command_or_fail(chat: Chat, line: str, terminal: Terminal) -> CommandResult:
    """`run_command`; a command that writes defers its own write. One that asks the model
    (/compact, for a summary) fails as a turn does: its fault, or Ctrl-C while it waits, is
    one line, nothing is written, and the prompt comes back. (Ctrl-C during any other
    command ends the run, as at the prompt.)"""
    try:
        return run_command(chat, line)
    except ModelError as error:
        to_stderr(f"error: {error}")
    except TurnInterrupted:
        why = "the compaction was abandoned, nothing written"  # /compact's, the one that waits
        warn(terminal, f"interrupted: {why} (Ctrl-C at the prompt ends the run)")
    return CommandResult([])


def abandon_turn(chat: Chat) -> int:
    """What Ctrl-C leaves of a turn: every message it finished saved (one the loop appended
    and had not handed on yet too), and each tool call it cut short answered as interrupted,
    in the file, so the next turn gives the model a history it accepts. The calls cut."""
    with stop_signals_deferred():  # a second Ctrl-C waits for this save, then ends the run
        chat.save_new()
        return repair_interrupted_calls(chat, CANCELLED)
