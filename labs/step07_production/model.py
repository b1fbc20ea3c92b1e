"""The model interface, and the scripted model the lab runs on (no network, no key).

A real model is given the whole message list on every call and streams its answer back in
pieces; so does the scripted one, and the loop cannot tell them apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from arithmetic_search import _find_stretch
from messages import (
    AssistantMessage,
    Message,
    ToolCallBlock,
    assistant_message,
    history_problem,
    shortened,
    summary_in,
    text_of,
    tool_calls,
    value_text,
)
from tools import Tool


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's text, as soon as the model has it."""

    text: str


@dataclass(frozen=True)
class ToolCallEvent:
    """The model has finished writing one tool call."""

    call: ToolCallBlock


@dataclass(frozen=True)
class Done:
    """The last event of a stream: the finished assistant message."""

    message: AssistantMessage


ModelEvent = TextDelta | ToolCallEvent | Done


class ModelError(Exception):
    """The model could not answer this turn: a real endpoint refused the key, was busy, broke
    off its stream... One exception for every such fault, so the program turns each into one
    `error:` line, and the loop never appends a reply that broke off (it appends `Done` only)."""


class HistoryRefused(Exception):
    """The model refused the conversation, as a chat API refuses (HTTP 400) one whose tool calls
    and results do not pair up, on every later try too. `problem` is the API's own words."""

    def __init__(self, model: str, problem: str) -> None:
        super().__init__(f"{model} refused the conversation: {problem}")
        self.model = model
        self.problem = problem


class Model(Protocol):
    name: str

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        """Answer the conversation so far; the last event is always `Done`."""
        ...

    def summarize(self, messages: Sequence[Message]) -> str:
        """A summary that can stand in for `messages` from now on (what /compact writes)."""
        ...


# What may touch a stretch of arithmetic and leave it a whole expression: a quote before it,
# sentence punctuation after it ("what is 12*8?"). Anything else glued on (1e3, 0x10, 1_000,
# 1,000, 2x) makes the stretch a piece of something calc cannot read.
_OPENING_QUOTES = "\"'“‘«"
_CLOSING = re.compile(r"[?!,;:\"'”’»]*+(?:\s|\Z)")
_SHOWN = 60  # at most this much of an unreadable expression is quoted back
_GREETING = re.compile(r"^\s*(hello|hi|hey)\b", re.IGNORECASE)
_ASKS_FOR_RESULT = re.compile(r"\b(result|answer)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Style:
    """Every sentence a scripted model says. Two models may word the same facts differently:
    which one answered shows, and whether the answer is right can still be checked."""

    help: str
    greeting: str  # {help}
    unknown: str  # {help}
    calculating: str
    answer: str  # {expression} {result}
    failed: str  # {expression} {error}
    unreadable: str  # {text}
    recall: str  # {expression} {result}
    no_recall: str


PLAIN = Style(
    help="I can do arithmetic with the calc tool (try: what is 12*8) and recall the last result.",
    greeting="Hello! {help}",
    unknown="I have no answer to that. {help}",
    calculating="Let me calculate that.",
    answer="{expression} = {result}.",
    failed="I could not calculate {expression}: {error}.",
    unreadable="I can only calculate plain arithmetic like 12*8; I cannot read {text}.",
    recall="The last result was {result} ({expression}).",
    no_recall="I have no earlier result in this conversation.",
)
TERSE = Style(
    help="I do arithmetic with calc (e.g. what is 12*8) and recall the last result.",
    greeting="Hi. {help}",
    unknown="Not sure what you mean. {help}",
    calculating="Calling calc.",
    answer="Result: {result} (from {expression}).",
    failed="calc failed on {expression}: {error}.",
    unreadable="Plain arithmetic only (e.g. 12*8); cannot read {text}.",
    recall="Earlier result: {result} (from {expression}).",
    no_recall="No earlier result in this conversation.",
)


class ScriptedModel:
    """A deterministic stand-in for a model: the same history always gets the same answer.

    Arithmetic in the user's message gets a `calc` tool call; a tool result, an answer built
    from it; "what was the result", the newest calc result *in the history it is given* (a
    conversation that has none cannot answer); anything else, a plain reply. Like a real API,
    it first checks the history, and refuses one whose tool calls and results do not pair up.
    """

    # For a subclass that skips __init__ (a test's model failing on purpose): still scripted-v1.
    name: str = "scripted-v1"
    style: Style = PLAIN

    def __init__(self, name: str = "scripted-v1", style: Style = PLAIN) -> None:
        self.name = name
        self.style = style

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        problem = history_problem(messages)
        if problem is not None:
            raise HistoryRefused(self.name, problem)
        reply = self.reply(messages, [tool.name for tool in tools])
        yield from _chunks(text_of(reply))
        for call in tool_calls(reply):
            yield ToolCallEvent(call)
        yield Done(reply)

    def summarize(self, messages: Sequence[Message]) -> str:
        """One line for each user message and each tool result, the newest SUMMARY_LINES: the
        same messages always get the same summary, and "what was the result" still answers.

        Stop here: an earlier summary among `messages` is carried over line by line. Summarise
        only what came after it, and a second compaction loses what the first one summarised.
        """
        lines: list[str] = []
        asked: dict[str, str] = {}  # each call's expression, by id: one pass, not one a result
        for message in messages:
            for call in tool_calls(message):
                asked[call["id"]] = value_text(call["arguments"].get("expression", "?"))
            text = " ".join(text_of(message).split())  # one line, whatever the message held
            if (earlier := summary_in(message)) is not None:
                lines += earlier.splitlines()
            elif message["role"] == "user":
                lines.append(f"- asked: {shortened(text, SUMMARY_WIDTH)}")
            elif message["role"] == "toolResult" and not message["isError"]:
                expression = asked.get(message["toolCallId"], "?")
                line = f"- {message['toolName']}({expression}) -> {text}"
                lines.append(shortened(" ".join(line.split()), SUMMARY_WIDTH))  # one line
        return "\n".join(lines[-SUMMARY_LINES:])

    def reply(self, messages: Sequence[Message], tool_names: Sequence[str]) -> AssistantMessage:
        """The whole answer at once; `stream` cuts it into events."""
        style = self.style
        if not messages:  # nothing to answer: a loop always sends the user's message first
            return assistant_message(style.help)
        last = messages[-1]
        if last["role"] == "toolResult":
            expression = _expression_of_call(messages, last["toolCallId"])
            if last["isError"]:
                error = text_of(last)
                return assistant_message(style.failed.format(expression=expression, error=error))
            result = text_of(last)
            return assistant_message(style.answer.format(expression=expression, result=result))

        text = text_of(last)
        stretch = _find_stretch(text)
        if stretch is not None and "calc" in tool_names:
            # Stop here: the whole expression or none of it. "1e3*2" holds the stretch "3*2";
            # calling calc on that would answer a question nobody asked.
            unreadable = _glued_word(text, stretch)
            if unreadable is not None:
                return assistant_message(style.unreadable.format(text=unreadable))
            call: ToolCallBlock = {
                "type": "toolCall",
                "id": _new_call_id(messages),
                "name": "calc",
                "arguments": {"expression": stretch.group().strip()},
            }
            return assistant_message(style.calculating, [call])
        if _ASKS_FOR_RESULT.search(text):
            return assistant_message(_recall(messages, style))
        if _GREETING.match(text):
            return assistant_message(style.greeting.format(help=style.help))
        return assistant_message(style.unknown.format(help=style.help))


def _glued_word(text: str, stretch: re.Match[str]) -> str | None:
    """The word the stretch is a piece of ("1e3*2" around "3*2"), or None if the stretch is
    a word of its own: only spaces, a quote before it or sentence punctuation after it touch it.

    Each side is read once, from the stretch outwards, and at most _SHOWN characters are
    quoted back: a long line costs one scan, and the reply stays short.
    """
    start, end = stretch.span()
    before = text[max(0, start - _SHOWN) : start]
    glued_before = bool(before) and not before[-1].isspace()
    if glued_before and before[-1] in _OPENING_QUOTES:
        glued_before = len(before) >= 2 and not before[-2].isspace()
    glued_after = not text[end - 1].isspace() and _CLOSING.match(text, end) is None
    if not glued_before and not glued_after:
        return None
    word = stretch.group().strip()
    if glued_before:
        word = before.split()[-1] + word
    if glued_after:
        glued = text[end : end + _SHOWN].split(maxsplit=1)[0]
        word += glued.rstrip("?!,;:\"'”’»") or glued  # "3*2x?" reads "3*2x"
    return shortened(word, _SHOWN)


def _new_call_id(messages: Sequence[Message]) -> str:
    """call_<N>, one past the calls so far, and never an id the history holds already (a
    restored file may hold any ids): an answer is paired with its call by id."""
    used = {call["id"] for message in messages for call in tool_calls(message)}
    number = sum(len(tool_calls(message)) for message in messages) + 1
    while f"call_{number}" in used:  # ids are compared as text, never parsed as numbers
        number += 1
    return f"call_{number}"


def _expression_of_call(messages: Sequence[Message], call_id: str) -> str:
    for message in reversed(messages):
        for call in tool_calls(message):
            if call["id"] == call_id:
                # An argument from a file can be any JSON value, not only the string we wrote.
                return value_text(call["arguments"].get("expression", "?"))
    return "?"


def _recall(messages: Sequence[Message], style: Style) -> str:
    # Stop here: the model remembers nothing between calls. All it knows is the list it was
    # handed, which is why a session that is not restored cannot answer this.
    for message in reversed(messages):
        if message["role"] == "toolResult" and not message["isError"]:
            expression = _expression_of_call(messages, message["toolCallId"])
            return style.recall.format(expression=expression, result=text_of(message))
        if found := _SUMMARISED_RESULT.findall(summary_in(message) or ""):
            expression, result = found[-1]  # a result a compaction summarised: the newest
            return style.recall.format(expression=expression, result=result)
    return style.no_recall


# A summary keeps the newest lines, each cut to a width: its size does not grow with the session.
SUMMARY_LINES = 20
SUMMARY_WIDTH = 80
_SUMMARISED_RESULT = re.compile(r"^- \w+\((.*)\) -> (.*)$", re.MULTILINE)


# A word and the spaces around it: joined back, the pieces are the text exactly.
_PIECE = re.compile(r"\s*\S+\s*|\s+")


def _chunks(text: str, words_per_chunk: int = 3) -> Iterator[TextDelta]:
    """Stream text a few words at a time, as a real model would; what a person saw is what
    the file keeps."""
    words = _PIECE.findall(text)
    for start in range(0, len(words), words_per_chunk):
        yield TextDelta("".join(words[start : start + words_per_chunk]))


DEFAULT_MODEL = "scripted-v1"
