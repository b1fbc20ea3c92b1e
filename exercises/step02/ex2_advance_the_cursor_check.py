"""Check 02.2: "persist after every turn" is a claim about the file while the program runs, so
a spy stands in for the loop's run_turn (before the student's module binds it) and reads the
file as each turn begins. The student's chat and the solution's run the same inputs, named and
generated: the file at each turn's start, and what chat returns, must be the solution's."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

import loop
from exercises import harness as h
from messages import Message, UserMessage
from model import Model
from tools import Tool

RULE = "save each turn, once, before the next"
TEXTS = st.lists(st.sampled_from(["hello", "what is 12*8", "what was the result"]), max_size=4)
WATCHED: list[Path] = []  # the file of the chat under way
SEEN: list[int] = []  # how many entries that file held as each turn began
REAL_RUN_TURN = loop.run_turn


def spying_run_turn(
    model: Model, tools: Mapping[str, Tool], messages: list[Message], prompt: UserMessage
) -> Iterator[loop.LoopEvent]:
    """The loop's own run_turn, after a look at the file: the moment between two turns."""
    SEEN.append(len(h.entries_in(WATCHED[-1])))
    return REAL_RUN_TURN(model, tools, messages, prompt)


def before_load() -> None:
    loop.run_turn = spying_run_turn


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    named = [["hello", "what is 12*8", "what was the result"]]
    tried = h.for_all(TEXTS, lambda inputs: alike(pair, inputs), 40, named=named)
    return (
        f"on {tried} sequences of turns the file held, as each turn began, every message of "
        "the turns before it once, as the solution's did, and chat returned its messages and "
        "the cursor at their end"
    )


def alike(pair: tuple[h.Subject, h.Subject], inputs: list[str]) -> None:
    results, seen = [], []
    for subject in pair:
        with tempfile.TemporaryDirectory() as folder:
            session = h.session_in(Path(folder))
            WATCHED.append(session.path)
            del SEEN[:]
            results.append(subject.call(subject.module.chat, session, list(inputs)))
            seen.append([*SEEN, len(h.entries_in(session.path))])  # and once at the end
    (got, want), blame = results, pair[0].module.chat
    case = f"turns {h.cut(', '.join(inputs), 30)}"
    if got.error is not None:
        raise AssertionError(f"{RULE}; {case}: {got.said()}") from got.error
    for number, (mine, theirs) in enumerate(zip(*seen, strict=True), start=1):
        if mine != theirs:
            when = f"turn {number} began" if number <= len(inputs) else "the end came"
            said = f"{when} with {mine} saved, expected {theirs}"
            h.fail(RULE, case, said, blame if number <= len(inputs) else got.line)
    if got.value != want.value:
        said = h.difference(list(got.value), list(want.value), ["messages", "the cursor"].pop)
        h.fail("chat returns the messages and the cursor", case, said, got.line)
