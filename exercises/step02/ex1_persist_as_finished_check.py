"""Check 02.1: a child runs a turn through persist_as_finished, SIGKILLed in its tool (then no
`finally:` or exit handler runs, as after an exception they would), and keeps what the solution
keeps; here, turns leave the file and count as the solution's, and a failure is not hidden."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from hypothesis import strategies as st

from exercises import harness as h
from loop import LoopEvent, MessageEnd, run_turn
from messages import Message, user_text
from model import ScriptedModel
from tools import default_tools

RULE = "save each message once, at its MessageEnd"
TURNS = st.lists(st.sampled_from(["hello", "what is 12*8", "what was the result"]), max_size=3)


def check(module: ModuleType) -> str:
    pair, blame = h.subjects(module), module.persist_as_finished
    with tempfile.TemporaryDirectory() as folder:
        kept: list[str] = []
        for subject, name in zip(pair, ("mine", "theirs"), strict=True):
            code = "module.persist_as_finished(turn, session)"
            if why := h.killed_in_a_tool(subject, Path(folder, name), "what is 12*8", code):
                if "NotImplementedError: " in why:  # the starter's, in the child
                    raise NotImplementedError(why.partition("NotImplementedError: ")[2])
                h.fail(RULE, "a turn in a child process", why, blame)
            kept.append(roles(Path(folder, name, "killed.jsonl")))
        if kept[0] != kept[1]:
            h.fail(RULE, "SIGKILL in the tool", f"it kept {kept[0]}, expected {kept[1]}", blame)
    h.for_all(TURNS, lambda texts: turns(pair, texts), 30, named=[["what is 12*8", "hello"]])
    with tempfile.TemporaryDirectory() as folder:
        session = h.session_in(Path(folder))
        if pair[0].call(blame, failing_turn(), session).error is None:
            h.fail("a turn's exception goes on", "a model failing mid-turn", "it returned", blame)
        if (got := roles(session.path)) != "user+assistant+toolResult":
            h.fail(RULE, "a model failing mid-turn", f"it kept {got}", blame)
    return (
        "a child SIGKILLed inside its tool kept the solution's 2 messages; 31 sequences of turns "
        "left the file and count as the solution's; a failing model was not hidden"
    )


def failing_turn() -> Iterator[LoopEvent]:
    """A real turn's events up to its tool's result; then the model goes away."""
    events = list(run_turn(ScriptedModel(), default_tools(), [], user_text("what is 12*8")))
    ends = [at for at, event in enumerate(events) if isinstance(event, MessageEnd)]
    yield from events[: ends[2] + 1]
    raise ConnectionError("the model went away mid-turn")


def roles(path: Path) -> str:
    return "+".join(entry["message"]["role"] for entry in h.entries_in(path)) or "no message"


def turns(pair: tuple[h.Subject, h.Subject], texts: list[str]) -> None:
    """The turns through both, each file and count compared with the solution's."""
    with tempfile.TemporaryDirectory() as folder:
        sessions = [h.session_in(Path(folder, name)) for name in ("mine", "theirs")]
        lists: list[list[Message]] = [[], []]
        for number, text in enumerate(texts, start=1):
            got, want = (s.call(s.module.persist_as_finished, run_turn(ScriptedModel(),
                         default_tools(), m, user_text(text)), x)
                         for s, m, x in zip(pair, lists, sessions, strict=True))  # fmt: skip
            files, case = [roles(x.path) for x in sessions], "after " + h.lines(texts[:number])
            if got.error is not None or files[0] != files[1]:
                h.fail(RULE, case, f"it kept {files[0]}, expected {files[1]}", got.line)
            if got.value != want.value:
                said = f"it returned {got.value!r}, expected {want.value!r}"
                h.fail("it returns how many messages it saved", case, said, got.line)
