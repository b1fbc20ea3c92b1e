"""Check 06.2: sessions made by scripts of turns, model switches, moves and compactions (the
step's own /compact, writing the solution's summary): at each compaction, the student's
summarize and the solution's given the same messages, compared line by line. Then a script of
two compactions through the step's dispatcher, /compact with the student's summarize: the
same file, the same answer to "what was the result"."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from exercises import harness as h
from messages import summary_in
from model import MODELS, SUMMARY_LINES, ScriptedModel

CARRY = "carry the earlier summary"
LINES = "one line per question, result"
BOUND = "only the newest SUMMARY_LINES"
YOURS = "write summarize yourself"
LONG = "what is 1+1 " + "and then a few words more " * 4
OPS = ["hello", "what is 12*8", "what is 2+3", "what is 1/0", "what was the result", "/compact",
       "/model scripted-v2", "/branch e2", "/branch e6", LONG, "say\n  what  you"]  # fmt: skip
NAMED = [["hello", "what is 12*8", "/compact", "hello", "/compact"],
         ["hello", "hello", "what is 2+3", "/compact", "what is 2+3", "/compact", "hi"],
         [*(f"what is {n}*{n}" for n in range(2, 14)), "/compact", "hello", "/compact"],
         [LONG, "say\n  what  you", "hello", "/compact"],
         ["what is (2+\n3)", "hi", "/compact"]]  # fmt: skip
PLAYED = ["hello", "what is 12*8", "/compact", "hello", "/compact", "what was the result"]
CALLS: list[str] = []


def check(module: ModuleType) -> str:
    pair, step_summarize = h.subjects(module), ScriptedModel.summarize
    ScriptedModel.summarize = lambda self, messages: (  # type: ignore[method-assign]
        CALLS.append("it called ScriptedModel.summarize") or step_summarize(self, messages)
    )
    scripts = h.for_all(st.lists(st.sampled_from(OPS), max_size=9),
                        lambda ops: alike(pair, ops), 80, NAMED)  # fmt: skip
    mine, theirs = (h.play(s, PLAYED, new_chat, state) for s in pair)
    try:
        h.same_plays(PLAYED, mine, theirs, {"file": CARRY, "chat": CARRY}, width=40)
    except AssertionError as error:  # the write is the given command's: blame summarize
        raise AssertionError(error.args[0], module.summarize) from None
    return (
        f"summarize wrote the solution's lines at every compaction of {scripts} scripts, "
        "an earlier summary carried over; after two /compact, 96 was still recalled"
    )


def alike(pair: tuple[h.Subject, h.Subject], ops: list[str]) -> None:
    """The script, with the step's commands; each compaction's summary compared."""
    done: list[str] = []

    def compared(messages: Any) -> str:
        del CALLS[:]
        got, want = (s.call(s.module.summarize, list(messages)) for s in pair)
        case = f"after {h.lines(done, 16)}"
        if got.error is not None or CALLS:
            said, rule = (CALLS[0], YOURS) if CALLS else (got.said(), LINES)
            raise AssertionError(f"{rule}; {case}: {said}", got.line) from got.error
        mine, theirs = (str(value).splitlines() for value in (got.value, want.value))
        if mine != theirs:
            carried = any(summary_in(message) is not None for message in messages)
            newest = len(theirs) < SUMMARY_LINES or carried or mine[-1:] == theirs[-1:]
            rule = BOUND if len(mine) > SUMMARY_LINES or not newest else CARRY if carried else LINES
            said = f"{len(mine)} lines, expected {len(theirs)}"
            for at, (line, wanted) in enumerate(zip(mine, theirs, strict=False)):
                if line != wanted:  # the first line that differs, said short
                    said = f"line {at + 1} is {h.short(line, 25)}, expected {h.short(wanted, 25)}"
                    break
            if len(mine) > SUMMARY_LINES:
                said = f"{len(mine)} lines, at most {SUMMARY_LINES}"
            h.fail(rule, case, said, got.line)
        return str(want.value)  # the session goes on with the solution's summary

    with tempfile.TemporaryDirectory() as folder:
        chat = commands.Chat(h.session_in(Path(folder)), [], cursor=0)
        for model in MODELS.values():
            model.summarize = compared  # type: ignore[method-assign]
        try:
            for op in ops:
                done.append(op)
                if op == "/compact":
                    commands.compact(chat)
                elif op.startswith("/"):
                    commands.run_command(chat, op)
                else:
                    h.say(chat, op)
        finally:
            for model in MODELS.values():
                del model.summarize


def new_chat(subject: h.Subject, session: Any) -> Any:
    return commands.Chat(session, [], cursor=0)


def state(chat: Any) -> dict[str, Any]:
    return {"messages": chat.messages, "cursor": chat.cursor, "leaf": chat.session.leaf_id}
