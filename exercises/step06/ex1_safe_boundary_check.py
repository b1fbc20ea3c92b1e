"""Check 06.1: sessions made by scripts of turns (a tool call, a failing one, one a kill left
unanswered), model switches, moves and compactions, the step's own; at each leaf, first_kept
for keep 1 to 6 by the student and by the solution, compared. Then one script through the
step's dispatcher: `/compact N` at the student's boundary writes what the solution's writes."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from exercises import harness as h
from messages import assistant_message, user_text

RULE = "the latest user message keeping N, one before it"
RULES = {"file": RULE, "chat": "after /compact, the chat is the context at the leaf",
         "answer": "/compact answers in one line"}  # fmt: skip
LINES = ["hello", "what is 12*8", "what is 1/0", "what was the result", "cut", "/compact",
         "/model scripted-v2", "/branch e2", "/branch e6"]  # fmt: skip
NAMED = [["hello", "what is 12*8", "what was the result"], ["what is 12*8", "what is 2+3"],
         ["hello", "what is 12*8", "/compact", "hello", "what is 1/0", "/compact", "hello"],
         ["hello", "/model scripted-v2", "what is 12*8", "/branch e2", "what is 2+3"],
         ["hello", "cut", "hello"], ["what is 12*8", "/compact", "/compact"]]  # fmt: skip
PLAYED = ["hello", "what is 12*8", "what was the result", "/compact 4", "what is 2+3",
          "/compact 3", "/compact", "/compact 0", "/compact x", "what was the result"]  # fmt: skip


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    sessions = h.for_all(st.lists(st.sampled_from(LINES), max_size=9),
                         lambda ops: alike(pair, ops), 80, NAMED)  # fmt: skip
    mine, theirs = (h.play(s, PLAYED, new_chat, state) for s in pair)
    try:
        h.same_plays(PLAYED, mine, theirs, RULES)
    except AssertionError as error:  # the write is the given command's: blame the boundary
        raise AssertionError(error.args[0], module.first_kept) from None
    return (
        f"first_kept gave the solution's boundary at {sessions} leaves, for keep 1 to 6: a "
        "user message, never a tool result cut from its call; /compact N wrote the solution's"
    )


def build(folder: Path, ops: list[str]) -> Any:
    """The session a script makes, with the step's own commands (its /compact too)."""
    chat = commands.Chat(h.session_in(folder), [], cursor=0)
    for op in ops:
        if op == "/compact":
            commands.compact(chat)
        elif op.startswith("/"):
            commands.run_command(chat, op)
        elif op == "cut":  # a run killed in its tool: the question and the call, no result
            call = {"type": "toolCall", "id": "call_9", "name": "calc",
                    "arguments": {"expression": "7*6"}}  # fmt: skip
            chat.messages += [user_text("what is 7*6"), assistant_message("Let me.", [call])]
            chat.save_new()
            chat.follow(commands.build_context(chat.session.entries, chat.session.leaf_id))
        else:
            h.say(chat, op)
    return chat.session


def alike(pair: tuple[h.Subject, h.Subject], ops: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        session = build(Path(folder), ops)
        for keep in range(1, 7):
            got, want = (s.call(s.module.first_kept, session.entries, session.leaf_id, keep)
                         for s in pair)  # fmt: skip
            case = f"N {keep}, after {h.lines(ops, 28)}"
            if got.error is not None:
                raise AssertionError(f"{RULE}; {case}: {got.said()}") from got.error
            if got.value != want.value:
                said = f"{named(got.value, session)}, expected {named(want.value, session)}"
                h.fail(RULE, case, said, got.line)


def named(entry_id: object, session: Any) -> str:
    """e6 (toolResult), e3 (user), None: an id and what it is."""
    entry = session.entries.get(entry_id) if isinstance(entry_id, str) else None
    if entry is None:
        return h.short(entry_id)
    return f"{entry_id} ({entry.get('message', {}).get('role') or entry['type']})"


def new_chat(subject: h.Subject, session: Any) -> Any:
    return commands.Chat(session, [], cursor=0)


def state(chat: Any) -> dict[str, Any]:
    return {"messages": chat.messages, "cursor": chat.cursor, "leaf": chat.session.leaf_id}
