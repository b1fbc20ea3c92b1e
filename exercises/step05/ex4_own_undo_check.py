"""Check 05.4: the step's own tree properties (tests/test_tree_properties.py: its TreeModel of
what a file means, its OPERATIONS, its reopen_and_compare) with real turns and `/undo`, typed
through the step's dispatcher, among the operations. After each operation the model takes in
what the file gained, whatever the student's /undo wrote; after each /undo, the chat and a
restart must give the model's conversation before the last turn, and the file only grows."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from entries import build_context
from exercises import harness as h
from messages import user_text

TESTS = h.LAB_ROOT / "labs" / "step05_branching" / "tests"
BACK = "/undo gives the conversation before the last turn"
KEPT = "an undo survives a restart"
GROWS = "the file only grows"
STILL = "nothing to undo changes nothing"
TYPED = ["/undo", "/undo", "hello", "what is 12*8", "what was the result"]  # among the operations
UNDO, MODEL, REOPEN, TEAR = "/undo", ("model", "scripted-v2"), ("reopen", None), ("tear", 30)
NAMED = [[UNDO, UNDO, "hello"], ["hello", "what is 12*8", UNDO, UNDO, UNDO],
         ["hello", MODEL, "what is 12*8", UNDO, REOPEN, UNDO],
         ["hello", "what is 12*8", ("branch", 1), "hello", UNDO, TEAR, UNDO]]  # fmt: skip


def check(module: ModuleType) -> str:
    if str(TESTS) not in sys.path:
        sys.path.insert(1, str(TESTS))
    import test_tree_properties as suite

    subject = h.subjects(module)[0]
    typed = st.lists(st.tuples(st.integers(0, 40), st.sampled_from(TYPED)), max_size=8)
    mixed = st.tuples(suite.OPERATIONS, typed).map(lambda drawn: merged(*drawn))
    played = h.for_all(mixed, lambda ops: play(subject, suite, ops), 60, NAMED)
    return (
        f"in {played} sequences of the tree properties' operations with turns and /undo, each "
        "/undo left the chat, and a restart, at the conversation before the last turn, the "
        "file only growing; with nothing to undo, nothing changed"
    )


def merged(operations: list[tuple[str, Any]], typed: list[tuple[int, str]]) -> list[Any]:
    ops: list[Any] = list(operations)  # each typed line put in at its place
    for at, line in sorted(typed, reverse=True):
        ops.insert(min(at, len(ops)), line)
    return ops


def play(subject: h.Subject, suite: ModuleType, ops: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        chat = commands.Chat(h.session_in(Path(folder)), [], cursor=0)
        h.say(chat, "first")
        model = suite.TreeModel()
        synced(chat, model, 0)
        for at, op in enumerate(ops):
            case = "after " + h.lines([shown(o) for o in [*ops[:at], op]], 60)
            before, count = chat.session.path.read_bytes(), len(chat.session.entries)
            if op == "/undo":
                chat = undone(subject, suite, chat, model, case)
            elif isinstance(op, str):
                h.say(chat, op)
            elif op[0] in ("reopen", "tear"):
                if op[0] == "tear":
                    with chat.session.path.open("ab") as file:
                        file.write(b'{"type":"message","id":"e999","parentId":null,'[: op[1]])
                chat = chat_on(suite.reopen_and_compare(chat.session.path, model))
            else:
                moved(chat, op)
            if not chat.session.path.read_bytes().startswith(before):
                h.fail(GROWS, case, "an old byte changed", subject.module.undo_command)
            synced(chat, model, count)


def moved(chat: Any, op: tuple[str, Any]) -> None:
    """The tree properties' message, model and branch, written as they write them."""
    session, (kind, value) = chat.session, op
    if kind == "message":
        session.append_message(user_text(value))
    elif kind == "model":
        session.append_model_change(value)
    elif (target := list(session.entries)[value % len(session.entries)]) != session.leaf_id:
        session.append_branch(target)
    chat.follow(build_context(session.entries, session.leaf_id))


def synced(chat: Any, model: Any, count: int) -> None:
    """The model takes in each entry the file gained, as its kind means."""
    for entry in list(chat.session.entries.values())[count:]:
        adds = {"message": entry.get("message"), "model_change": entry.get("model")}
        model.add(entry["id"], entry["parentId"], adds.get(entry["type"]))


def undone(subject: h.Subject, suite: Any, chat: Any, model: Any, case: str) -> Any:
    """/undo; the chat, what the file means by the model, and a restart, each compared with
    the model's conversation where the last turn began (the entry its question hangs under)."""
    path = model.path()
    asked = [i for i in path if isinstance(model.adds[i], dict) and model.adds[i]["role"] == "user"]
    model.leaf = model.parents[asked[-1]] if asked else model.leaf
    wanted, recorded, model.leaf = model.messages(), model.model(), path[-1] if path else None
    before, count = chat.session.path.read_bytes(), len(chat.session.entries)
    outcome = h.command(subject, chat, "/undo")
    if outcome.error is not None:
        raise AssertionError(f"a command never raises; {case}: {outcome.said()}") from outcome.error
    blame = outcome.line or subject.module.undo_command
    if not asked and chat.session.path.read_bytes() != before:
        h.fail(STILL, case, "it wrote to the file", blame)
    said = h.difference(chat.messages, wanted, "message {}".format, "messages")
    if said or chat.cursor != len(chat.messages) or chat.recorded_model != recorded:
        said = said or f"cursor {chat.cursor}, model {chat.recorded_model}, expected {recorded}"
        h.fail(BACK, case, said, blame)
    synced(chat, model, count)  # what the file means now, by the tree properties' model
    if said := h.difference(model.messages(), wanted, "message {}".format, "messages"):
        h.fail(KEPT, case, f"the file says: {said}", blame)
    try:  # a restart, compared as the tree properties compare one
        return chat_on(suite.reopen_and_compare(chat.session.path, model))
    except AssertionError:
        h.fail(KEPT, case, "a restart resumes another leaf, or conversation", blame)


def chat_on(session: Any) -> Any:
    """A run's chat on a session just reopened: the conversation and model at its leaf."""
    chat = commands.Chat(session, [], cursor=0)
    chat.follow(build_context(session.entries, session.leaf_id))
    return chat


def shown(op: Any) -> str:  # an operation in a FAIL line: `hello`, `branch 3`, `reopen`
    return op if isinstance(op, str) else f"{op[0]} {h.short(op[1], 8)}" if op[1] else op[0]
