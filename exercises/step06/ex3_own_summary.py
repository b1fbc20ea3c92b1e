"""Exercise 06.3: a summary of your own design, that survives compaction after compaction.

Open exercise, about 40 minutes.

A compaction's summary is all the model keeps of what came before its boundary, and the next
compaction summarises that summary again, with what came after it. Exercise 06.2 wrote the
step's own format; here the format is yours. Write `summarize(messages)`, a summariser of your
own design (one line a turn, sections, a line of JSON the model never reads, ...) that keeps
what matters however many times it is summarised again.

What the check holds you to (scripts of turns, tool calls that work and that fail, model
switches, moves and compactions, played with your summarize as the model's; each compaction
goes on with YOUR summary, so the next one is given yours, as a user message whose text
`summary_in(message)` gives). At every compaction:

- It is bounded: text of at most SUMMARY_LIMIT characters, however long the session.
- The newest result is kept: asked "what was the result", the scripted model answers with
  the compacted conversation what it answers with the whole one. It reads a summary's
  results from lines of the form `- NAME(EXPRESSION) -> RESULT` (NAME the tool's, EXPRESSION
  the call's `expression`, RESULT the result's text), and takes the last such line of the
  newest summary: that is its contract, as a real model's is its prompt.
- The newest questions are kept: each of the last QUESTIONS user messages the summary stands
  in for (those an earlier summary stood in for among them) is in it: its text on one line
  (its runs of spaces and line breaks made one space), its first 40 characters at least.
- It is your own: the check fails a summarize that calls the step's ScriptedModel.summarize.

Decide first: how will your next summary find what your last one kept? What goes when the
bound is reached, and what must never go?

The rest is given: `expression_of` (the expression of the call a result answers) and
`/compact`, the step's own with your summarize as the model's, in the step's command table.
Check it with `python -m exercises check 06.3` or the notebook; stuck: `make hint ID=06.3`.
"""

from __future__ import annotations

from collections.abc import Sequence

from commands import COMMANDS, Chat, Command, CommandResult
from commands import compact_command as step_compact_command
from messages import Message, shortened, summary_in, text_of, tool_calls, value_text  # noqa: F401
from model import MODELS

SUMMARY_LIMIT = 2_000  # characters: the check's bound
QUESTIONS = 3  # the newest questions a summary must hold


def summarize(messages: Sequence[Message]) -> str:
    """A summary of your own that can stand in for `messages`, an earlier one's among them."""
    # TODO: your summary.
    raise NotImplementedError("summarize is not written yet")


# --- Given: the expression a result answers, and /compact with your summarize -------------


def expression_of(messages: Sequence[Message], call_id: str) -> str:
    """The expression of the tool call `call_id` names, as text."""
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
