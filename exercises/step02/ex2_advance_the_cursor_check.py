"""Check 02.2: the file is looked at between turns. When each turn begins, it must already hold
every message of the turns before it, once each, in order; after the last turn it holds all 8,
and the cursor chat returns says 8.

"Persist after every turn" is a claim about the file while the program runs, so the check
looks at the file then: a spy stands in for the loop's run_turn (put in place before the
student's module is loaded, so `from loop import run_turn` binds the spy too) and reads the
session file from disk each time a turn begins. A chat that persists only once, after the
last turn, ends with a correct file; but a crash in turn 3 would lose turns 1 and 2, and at
the start of turn 2 its file is still empty.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import orjson

import loop
import session as session_module
from messages import Message, UserMessage, text_of
from model import Model
from session import Session, SessionError, read_session
from tools import Tool

INPUTS = ["hello", "what is 12*8", "what was the result"]
EXPECTED_MESSAGES = 8  # hello: 2; what is 12*8: 4 (with the tool call and result); recall: 2


@dataclass(frozen=True)
class TurnStart:
    """What the spy saw as a turn began: the list in memory, and the file on disk."""

    prompt: str
    in_memory: list[Message]
    in_file: list[Message] | None  # None: no file yet


seen: list[TurnStart] = []
watched: list[Path] = []  # the session file of the chat being checked
persists: list[tuple[int, int]] = []  # (cursor given, cursor returned) of each persist call
real_run_turn = loop.run_turn
real_persist = session_module.persist_new_messages


def spying_run_turn(
    model: Model, tools: Mapping[str, Tool], messages: list[Message], prompt: UserMessage
) -> Iterator[loop.LoopEvent]:
    """The loop's own run_turn, after a look at the file: this is the moment between turns."""
    seen.append(TurnStart(text_of(prompt), list(messages), stored(watched[-1])))
    return real_run_turn(model, tools, messages, prompt)


def spying_persist(session: Session, messages: list[Message], persisted: int) -> int:
    """The step's persist_new_messages, recorded: only to say what went wrong, never required
    (a chat may write its messages another way)."""
    returned = real_persist(session, messages, persisted)
    persists.append((persisted, returned))
    return returned


def before_load() -> None:
    loop.run_turn = spying_run_turn
    session_module.persist_new_messages = spying_persist


def stored(path: Path) -> list[Message] | None:
    if not path.exists():
        return None
    try:
        return [entry["message"] for entry in read_session(path).entries]
    except SessionError as error:
        raise AssertionError(f"the session file cannot be read: {error}") from None


def check(module: ModuleType) -> str:
    chat = module.chat
    with tempfile.TemporaryDirectory() as directory:
        session = Session.create(
            Path(directory), session_id="cursor", created_at="2026-01-01T00:00:00Z", cwd=directory
        )
        watched.append(session.path)
        messages, cursor = chat(session, list(INPUTS))
        at_the_end = stored(session.path)

    prompts = [turn.prompt for turn in seen]
    assert prompts == INPUTS, (
        f"chat ran the turns {prompts}, expected one run_turn per input, in order: {INPUTS}",
        chat,
    )
    assert len(messages) == EXPECTED_MESSAGES, (
        f"three turns should leave {EXPECTED_MESSAGES} messages in the list chat returns, "
        f"not {len(messages)}",
        chat,
    )
    for number, turn in enumerate(seen[1:], start=2):
        problem = compare(turn.in_file, turn.in_memory)
        assert problem is None, (
            f"when turn {number} ({turn.prompt!r}) began, {problem}",
            chat,
        )
    problem = compare(at_the_end, messages)
    assert problem is None, (f"after the last turn, {problem}", chat)
    assert cursor == len(messages), (
        f"the file holds the {len(messages)} messages, but chat returned the cursor {cursor!r}: "
        "return the cursor persist_new_messages gave back after the last turn",
        chat,
    )
    before = [len(turn.in_file or []) for turn in seen]
    return (
        f"the file was read as each of the 3 turns began: it already held every message of "
        f"the turns before ({', '.join(map(str, before))}), once each, in order; after the "
        f"last turn it held all {len(messages)}, and chat returned the cursor {cursor}"
    )


def compare(in_file: list[Message] | None, in_memory: list[Message]) -> str | None:
    """What is wrong with the file, compared with the list it should hold, or None."""
    if (in_file or []) == in_memory:
        return None
    total = len(in_memory)
    if in_file is None:
        held = f"there was no session file yet, with {total} messages in memory"
        in_file = []
    else:
        held = f"the file held {len(in_file)} of the {total} messages in memory"
    if in_memory:
        first = orjson.dumps(in_memory[0])
        copies = sum(orjson.dumps(message) == first for message in in_file)
        if copies > 1:
            return (
                f"the file held {len(in_file)} entries for the {total} messages in memory, "
                f"and the first one ({text_of(in_memory[0])!r}) was written {copies} times: "
                "each persist started again from the same cursor. Keep the cursor that "
                "persist_new_messages returns, and give it that cursor next time"
            )
    if in_file == in_memory[: len(in_file)]:
        for (_, returned), (given, _) in zip(persists, persists[1:], strict=False):
            if given != returned:
                return (
                    f"{held}: persist_new_messages returned the cursor {returned}, but the "
                    f"next call was given {given}. What it returns is the new cursor (how "
                    "many messages of the list are in the file), not a count: keep it as is"
                )
        return (
            f"{held}. Persist after every turn, including the last, from the cursor the "
            "previous persist returned: a crash now would lose what is not in the file"
        )
    return (
        f"the file held {len(in_file)} messages that are not the list's first "
        f"{len(in_file)}, in order: write each message once, in the order of the list"
    )
