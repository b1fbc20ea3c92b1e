"""Exercise 06.2: carry an earlier summary forward, so a second compaction keeps the first's.

Fill-in exercise, about 25 minutes.

A compaction's summary stands in for what it replaced. The next `/compact` summarises the
messages before its own boundary, and the first of them is the earlier summary itself, as the
model is given it: a user message (`summary_message`). A summariser that leaves it out, and
summarises only the messages after it, loses everything the first compaction held: "what was
the result" no longer answers (notebook 06, section 5). Write `summarize(messages)`, a
summariser that carries it over.

What the check holds you to (at each compaction of many scripts of turns, model switches,
moves and compactions, your summary of the same messages and the solution's, line by line;
then two compactions through the step's dispatcher, and "what was the result"):

- The summary is lines joined by "\n", one for each of these among `messages`, in order:
  - an earlier summary (`summary_in(message)` gives its text; None for any other message):
    its lines, each as it is, in its place;
  - every other user message: `- asked: TEXT`, its text on one line (its runs of spaces and
    line breaks made one space), cut with `shortened(TEXT, SUMMARY_WIDTH)`; a repeated
    question gets its line again;
  - every tool result that is no error: `- NAME(EXPRESSION) -> RESULT`, NAME the tool's,
    EXPRESSION the `expression` of the call it answers, the whole line on one line and cut
    with `shortened` to SUMMARY_WIDTH: the scripted model recalls a result from a line of
    that form.
  Nothing else gives a line: an answer, a tool call, an error result.
- Only the newest SUMMARY_LINES lines are kept: a summary's size does not grow with the
  session.
- It is your own: the step's `ScriptedModel.summarize` is the answer (read it afterwards),
  and the check fails a `summarize` that calls it.

The rest of this file is given: `expression_of` (the expression of the call a result
answers, as a line shows it) and `/compact`, the step's own with your summarize as the
model's, in the step's command table. Check it with `python -m exercises check 06.2` or the
notebook.
"""

from __future__ import annotations

from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text  # noqa: F401
from model import MODELS, SUMMARY_LINES, SUMMARY_WIDTH  # noqa: F401


def summarize(messages: Sequence[Message]) -> str:
    """A summary that can stand in for `messages`: one line per question and result."""
    # TODO: the summary, an earlier one carried over.
    raise NotImplementedError("summarize is not written yet")


# --- Given: the expression a result answers, and /compact with your summarize -------------


def expression_of(messages: Sequence[Message], call_id: str) -> str:
    """The expression of the tool call `call_id` names, as a summary line shows it."""
    for message in reversed(messages):
        for call in tool_calls(message):
            if call["id"] == call_id:
                return value_text(call["arguments"].get("expression", "?"))
    return "?"


def compact_command(chat: Chat, argument: str) -> CommandResult:
    """`/compact`, the step's own, with `summarize` above as the model's summariser."""
    model = MODELS[chat.model]
    model.summarize = summarize  # type: ignore[method-assign]  (this object's, for one call)
    try:
        return step_compact_command(chat, argument)
    finally:
        del model.summarize  # the step's own again


COMMANDS["/compact"] = Command(
    "/compact", "replace all but the last turn with a summary (yours)", compact_command
)
