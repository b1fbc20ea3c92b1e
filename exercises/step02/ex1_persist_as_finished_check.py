"""Check 02.1: after a turn the file holds exactly the turn's messages, once each; a turn that
fails halfway keeps the messages finished before the failure."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

from loop import run_turn
from messages import Message, user_text
from model import ModelEvent, ScriptedModel
from session import Session, read_session
from tools import Tool, default_tools


class ModelDown(Exception):
    """The model's second call fails: a crash in the middle of a turn."""


class FailsOnSecondCall(ScriptedModel):
    def __init__(self) -> None:
        self.calls = 0

    def stream(self, messages: Sequence[Message], tools: Sequence[Tool]) -> Iterator[ModelEvent]:
        self.calls += 1
        if self.calls == 2:
            raise ModelDown("the model went away mid-turn")
        yield from super().stream(messages, tools)


def new_session(directory: str, name: str) -> Session:
    return Session.create(
        Path(directory), session_id=name, created_at="2026-01-01T00:00:00Z", cwd=directory
    )


def stored(session: Session) -> list[Message]:
    return [entry["message"] for entry in read_session(session.path)[1]]


def check(module: ModuleType) -> str:
    with tempfile.TemporaryDirectory() as directory:
        session = new_session(directory, "whole")
        messages: list[Message] = []
        model, tools = ScriptedModel(), default_tools()
        for text, added in [("what is 12*8", 4), ("hello", 2)]:
            before = len(messages)
            count = module.persist_as_finished(
                run_turn(model, tools, messages, user_text(text)), session
            )
            assert len(messages) == before + added, (
                f"the turn {text!r} did not run to its end: consume all the events"
            )
            got = stored(session)
            assert len(got) == len(messages), (
                f"after the turn {text!r} the file holds {len(got)} messages, expected "
                f"{len(messages)}: append each MessageEnd's message, once"
            )
            assert got == messages, "the file must hold the list's messages, in the same order"
            assert count == added, (
                f"the turn {text!r} appended {added} messages but persist_as_finished "
                f"returned {count}"
            )

        crashed = new_session(directory, "crashed")
        messages = []
        events = run_turn(FailsOnSecondCall(), tools, messages, user_text("what is 12*8"))
        try:
            module.persist_as_finished(events, crashed)
        except ModelDown:
            pass
        else:
            raise AssertionError("the model failed mid-turn but persist_as_finished did not raise")
        roles = [message["role"] for message in stored(crashed)]
        assert roles == ["user", "assistant", "toolResult"], (
            f"a turn that failed at its second model call should leave its 3 finished messages "
            f"(user, assistant, toolResult) in the file, found {roles or 'none'}"
        )
    return "each message reaches the file when it is finished; a failed turn keeps 3 of 4"
