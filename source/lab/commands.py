# >>file 02
"""The commands a user can type. A line that starts with "/" is a command, never a message.

Every command lives in the one table below, and acts on a `Chat`: the session, the messages in
memory and the cursor between them, kept together so that a command that replaces the messages
replaces the cursor with them. A command returns the lines to print; main.py prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

# >> 04
from entries import Context

# << 04
# >> 05
from entries import build_context, path_to_leaf

# << 05
# >> prod
from entries import DAMAGED
from interrupted_calls import repair_interrupted_calls

# << prod
from messages import Message

# >> 05
from messages import tool_calls, unanswered_calls

# << 05
# >> 06
from messages import summary_in

# << 06
# >> prod
from messages import shortened

# << prod
# >> 04 until prod
# from model import MODELS
# << 04 until prod
# >> 04
from model import DEFAULT_MODEL

# << 04
# >> prod
from model_registry import MODELS

# << prod
from session import Session, persist_new_messages

# >> 03
from session import Resumed

# << 03
# >> prod
from stop_signals import ctrl_c_abandons_the_turn, stop_signals_deferred
from terminal_text import printable

SHOWN_NAME = 60  # at most this much of a model's name from a file goes into a line
# << prod


@dataclass
class Chat:
    """What one run of the program holds."""

    session: Session
    messages: list[Message]
    cursor: int  # how many of `messages` are already in the file
    # >> 03 until 05
    # written_this_run: int = 0  # messages this run has added to the file
    # << 03 until 05
    # >> 05
    written_this_run: int = 0  # messages this run has added to the file, on any branch
    # << 05
    # >> 04
    model: str = DEFAULT_MODEL  # the name of the model that answers the next turn
    # The model the file says is in force at the leaf (None: no switch recorded). It differs
    # from `model` when the path asked for a model this program lacks.
    recorded_model: str | None = None
    # << 04
    # >> 03

    @classmethod
    def resume(cls, opened: Resumed) -> ResumedChat:
        # >> 03 until 04
        # """The chat that goes on with a session `Session.open` read: the conversation at the
        # leaf.
        #
        # Stop here: the restored messages are already in the file, so the cursor is set to all
        # of them; at 0, the first save would write the history again.
        # """
        # messages = list(opened.context.messages)  # a copy: the loop appends; a Context is frozen
        # chat = cls(opened.session, messages, cursor=len(messages))
        # << 03 until 04
        # >> 04 until 05
        # """The chat that goes on with a session `Session.open` read: the conversation and the
        # model at the leaf.
        #
        # Stop here: the restored messages are already in the file, so the cursor is set to all
        # of them; at 0, the first save would write the history again.
        # """
        # messages = list(opened.context.messages)  # a copy: the loop appends; a Context is frozen
        # chat = cls(opened.session, messages, cursor=len(messages))
        # model = choose_model(opened.context)
        # chat.model, chat.recorded_model = model.used, model.recorded
        # << 04 until 05
        # >> 05 until prod
        # """The chat that goes on with a session `Session.open` read: the conversation and the
        # model at the leaf.
        #
        # Stop here: the restored messages are already in the file; `follow` sets the cursor to all
        # of them; at 0, the first save would write the history again.
        # """
        # << 05 until prod
        # >> prod
        """The chat that goes on with a session `Session.open` read: the conversation and the
        model at the leaf, and any tool call the last run never finished answered.

        Stop here: the restored messages are already in the file; `follow` sets the cursor to all
        of them; at 0, the first save would write the history again. The repair writes:
        a caller that holds stop signals off during a save holds them off around this too.
        """
        # << prod
        # >> 05
        chat = cls(opened.session, [], cursor=0)
        model = chat.follow(opened.context)
        # << 05
        restored = len(chat.messages)
        # >> 03 until 04
        # return ResumedChat(chat=chat, restored=restored)
        # << 03 until 04
        # >> 04 until prod
        # return ResumedChat(chat=chat, restored=restored, model=model)
        # << 04 until prod
        # >> prod
        repaired = repair_interrupted_calls(chat)
        return ResumedChat(chat=chat, restored=restored, model=model, repaired=repaired)
        # << prod

    # << 03

    def save_new(self) -> int:
        """Write what is new since the cursor, move the cursor; return how many were written."""
        before = self.cursor
        self.cursor = persist_new_messages(self.session, self.messages, self.cursor)
        # >> 03
        self.written_this_run += self.cursor - before
        # << 03
        return self.cursor - before

    # >> 05

    def follow(self, context: Context) -> ModelChoice:
        """Take the conversation and the model rebuilt from a (new) leaf. Every message on
        that path is already in the file, so the cursor is the whole list. Returns the model
        choice, for the caller to say so when it fell back."""
        self.messages = list(context.messages)  # a copy: the loop appends; a Context is frozen
        self.cursor = len(self.messages)
        choice = choose_model(context)
        self.model, self.recorded_model = choice.used, choice.recorded
        return choice

    # << 05


# >> 04


@dataclass(frozen=True)
class ModelChoice:
    # >> 04 until 05
    # """Which model answers on a path, and which one the path recorded.
    #
    # Made in one place (`choose_model`) and worded in one place (`fallback_message`), so that
    # what a resume chooses and what it warns about cannot drift apart.
    # """
    # << 04 until 05
    # >> 05
    """Which model answers on a path, and which one the path recorded.

    Made in one place (`choose_model`, through `Chat.follow`) and worded in one place
    (`fallback_message`), so that every way of reaching a leaf (a resume, a /branch) says the
    same about either.
    """

    # << 05

    used: str  # the model that answers the next turn
    recorded: str | None  # the path's last model switch; None if the path has none

    @property
    def fell_back(self) -> bool:
        """The path recorded a model this program lacks (a newer program's), so the default
        answers instead."""
        return self.recorded is not None and self.recorded != self.used

    def fallback_message(self) -> str:
        # >> 04 until 05
        # """What to tell the user when the choice `fell_back` (a warning on resume)."""
        # << 04 until 05
        # >> 05
        """What to tell the user when the choice `fell_back` (a warning on resume, a note after
        a move)."""
        # << 05
        # >> 04 until prod
        # return f"the session's model {self.recorded} is not here; using {self.used}"
        # << 04 until prod
        # >> prod
        recorded = printable(shortened(str(self.recorded), SHOWN_NAME))  # a file's: any length
        return f"the session's model {recorded} is not here; using {self.used}"
        # << prod


# << 04
# >> 03


@dataclass(frozen=True)
class ResumedChat:
    """What `Chat.resume` gives back: the chat, and what the caller must tell the user."""

    chat: Chat
    # >> 03 until prod
    # restored: int  # messages rebuilt from the file
    # << 03 until prod
    # >> prod
    restored: int  # messages rebuilt from the file (the repair's results not counted)
    # << prod
    # >> 04
    model: ModelChoice  # worth a warning if it fell back
    # << 04
    # >> prod
    repaired: int  # interrupted tool calls just answered; worth a warning if any
    # << prod


# << 03
# >> 04


def choose_model(context: Context) -> ModelChoice:
    """The model the path recorded, if this program has it; else the default."""
    used = context.model if context.model in MODELS else DEFAULT_MODEL
    return ModelChoice(used=used, recorded=context.model)


# << 04


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


# >> 04


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
        # >> 04 until prod
        # return CommandResult([f"unknown model {argument} (the models: {known})"])
        # << 04 until prod
        # >> prod
        return CommandResult([f"unknown model {printable(argument)} (the models: {known})"])
    if (problem := MODELS.problem(argument)) is not None:  # a real model without its key
        return CommandResult([problem])
        # << prod
    # After a fallback the file still says the other model: choosing the default is a real
    # switch, and must be written down like any other.
    if argument == chat.model and chat.recorded_model in (None, argument):
        return CommandResult([f"already using {argument}"])
    # >> 04 until prod
    # chat.session.append_model_change(argument)
    # chat.model = chat.recorded_model = argument
    # << 04 until prod
    # >> prod
    with stop_signals_deferred():  # a write, like a save: never cut halfway
        chat.session.append_model_change(argument)
        chat.model = chat.recorded_model = argument
    # << prod
    return CommandResult([f"switched to {argument}"])


# << 04
# >> 05


def tree_command(chat: Chat, argument: str) -> CommandResult:
    """Every entry of the session as a tree: ● on the active path, ○ off it."""
    # networkx draws it: imported here, by the one command that needs it, not by every start
    # of main.py (it takes longer to import than the rest of the program to start).
    # >> 05 until prod
    # from entry_graph import network_text, tree_graph
    # << 05 until prod
    # >> prod
    try:
        from entry_graph import network_text, tree_graph
    except Exception as error:  # under a memory limit: MemoryError, OSError, even SystemError
        return CommandResult([f"cannot draw the tree: networkx did not load ({error!r:.60})"])
    # << prod

    session = chat.session
    # >> 06
    session.read_all()  # a resume from the end may have left the start of the file unread
    # << 06
    if not session.entries:
        return CommandResult(["(no entries yet)"])
    graph = tree_graph(session.entries, session.leaf_id)
    return CommandResult(network_text(graph).splitlines())


def branch_command(chat: Chat, argument: str) -> CommandResult:
    """`/branch ID`: move the leaf to entry ID; the next message hangs there.

    Stop here: the messages, the cursor and the model are all rebuilt from the new leaf in one
    go (`Chat.follow`). Keep the old messages and the next save would write the abandoned
    branch's history under the new leaf.
    """
    session = chat.session
    # >> 05 until prod
    # shown = argument
    # << 05 until prod
    # >> prod
    shown = printable(argument)
    # << prod
    if not argument:
        return CommandResult(["usage: /branch ID (/tree shows the ids)"])
    # >> 06
    session.read_all()  # the entry may be in the part a resume from the end did not read
    # << 06
    if argument not in session.entries:
        return CommandResult([f"no entry {shown} in this session (/tree shows the ids)"])
    # >> prod
    if session.entries[argument]["type"] == DAMAGED:  # in the tree, so that walks go through
        return CommandResult([f"{shown} is a damaged line: what it held is lost"])
    # << prod
    leaf = None if session.leaf_id is None else session.entries.get(session.leaf_id)
    if argument == session.leaf_id or (
        leaf is not None and leaf["type"] == "branch" and leaf["parentId"] == argument
    ):  # a branch entry adds nothing: a leaf that is one hangs where the path goes on
        return CommandResult([f"already at {argument}"])
    # The next message would follow a tool call that has no result: a history a real model
    # API rejects. Go back to before the call, or on to its result. (Not answered here, as a
    # resume answers a call it finds cut short: that call's result is on another branch.)
    path = path_to_leaf(session.entries, argument).entries
    if unanswered_calls([entry["message"] for entry in path if entry["type"] == "message"]):
        target = session.entries[argument]
        if target["type"] == "message" and tool_calls(target["message"]):
            reason = f"{argument} is a tool call; branch to the entry before it or to its result"
        else:
            reason = f"{argument} follows a tool call that has no result; branch before the call"
        return CommandResult([reason])
    # A branch entry adds nothing to the conversation, so the context at the target is the
    # context at the new leaf: build it once, then move.
    context = build_context(session.entries, argument)
    assert chat.cursor == len(chat.messages), "commands run between turns, after the save"
    # >> 05 until prod
    # session.append_branch(argument)
    # choice = chat.follow(context)
    # << 05 until prod
    # >> prod
    with stop_signals_deferred():  # the move is written and followed, or neither
        session.append_branch(argument)
        choice = chat.follow(context)
    # << prod
    lines = [f"moved to {argument}: {len(chat.messages)} messages on the path, model {chat.model}"]
    if context.chain_break is not None:
        lines.append(f"note: {context.chain_break}; the conversation starts there")
    if choice.fell_back:
        lines.append(f"note: {choice.fallback_message()}")
    return CommandResult(lines)


# << 05
# >> 06


@dataclass(frozen=True)
class Compacted:
    """What a compaction did, for the line that says so."""

    summarised: int  # messages the summary stands in for
    kept: int  # messages the model is still given as they are

    def __str__(self) -> str:
        return f"compacted: a summary stands in for {self.summarised:,} messages; {self.kept} kept"


def compact(chat: Chat) -> Compacted | None:
    """Replace everything before the last turn with a summary: one compaction entry, whose
    first kept entry is that turn's user message. None, and nothing written, if there is
    nothing before it but an earlier summary.

    Stop here: the boundary is a user's message, where a turn starts. Keep "the last N
    messages" instead, and the first one kept can be a tool result whose call was summarised
    away: a history a real model API refuses.
    """
    session = chat.session
    path = path_to_leaf(session.entries, session.leaf_id).entries  # it starts at what is kept
    turns = [
        i for i, e in enumerate(path) if e["type"] == "message" and e["message"]["role"] == "user"
    ]
    if not turns or turns[-1] == 0:
        return None
    summarised = build_context(session.entries, path[turns[-1] - 1]["id"]).messages
    if all(summary_in(message) is not None for message in summarised):
        return None
    # >> 06 until prod
    # summary = MODELS[chat.model].summarize(summarised)  # an earlier summary is among them
    # << 06 until prod
    # >> prod
    # A real model's summary is a request: Ctrl-C while it waits abandons it (TurnInterrupted,
    # which main.py and turn.py report), and nothing is written yet.
    with ctrl_c_abandons_the_turn():
        summary = MODELS[chat.model].summarize(summarised)  # an earlier summary is among them
    # << prod
    # A switch before the first kept is written again, first: after, a crash could lose it.
    kept_a_switch = any(entry["type"] == "model_change" for entry in path[turns[-1] :])
    # >> 06 until prod
    # if chat.recorded_model and not kept_a_switch:
    #     session.append_model_change(chat.recorded_model)
    # session.append_compaction(summary, path[turns[-1]]["id"])
    # chat.follow(build_context(session.entries, session.leaf_id))
    # << 06 until prod
    # >> prod
    with stop_signals_deferred():  # the writes, like a save: never cut halfway
        if chat.recorded_model and not kept_a_switch:
            session.append_model_change(chat.recorded_model)
        session.append_compaction(summary, path[turns[-1]]["id"])
        chat.follow(build_context(session.entries, session.leaf_id))
    # << prod
    return Compacted(summarised=len(summarised), kept=len(chat.messages) - 1)


def compact_command(chat: Chat, argument: str) -> CommandResult:
    """`/compact`: a summary replaces all but the last turn; the file gains a line (or two)."""
    done = compact(chat)
    if done is None:
        return CommandResult(["nothing to compact: only the last turn, or a summary, is there"])
    return CommandResult([str(done)])


# << 06


COMMANDS: dict[str, Command] = {
    "/help": Command("/help", "list the commands", help_command),
    # >> 04
    "/model": Command("/model [NAME]", "list the models, or switch to NAME", model_command),
    # << 04
    # >> 05
    "/tree": Command("/tree", "show every entry; ● marks the active path", tree_command),
    "/branch": Command(
        "/branch ID", "go back to entry ID; the next message hangs there", branch_command
    ),
    # << 05
    # >> 06
    "/compact": Command(
        "/compact", "replace all but the last turn with a summary", compact_command
    ),
    # << 06
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
        # >> 02 until prod
        # return CommandResult([f"unknown command {name} (/help lists the commands)"])
        # << 02 until prod
        # >> prod
        return CommandResult([f"unknown command {printable(name)} (/help lists the commands)"])
        # << prod
    return command.run(chat, argument)
