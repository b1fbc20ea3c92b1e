"""Check 06.3: scripts of turns (tool calls that work and that fail), model switches, moves and
compactions, named and generated, played with the student's summarize as every model's, each
compaction going on with the student's own summary. At each one: text within the bound; the
newest questions it stands in for, found by walking the whole path (compactions and all) from
the leaf, in it; then "what was the result" answered alike with the compacted conversation and
with the whole one. The step's own summarize is spied on: calling it is no summary of one's own."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from exercises import harness as h
from messages import text_of, user_text
from model import MODELS, ScriptedModel

LIMIT, QUESTIONS, SHOWN = 2_000, 3, 40  # characters; the newest questions; of each, at least
BOUNDED = "a summary is text of at most 2,000 characters"
ASKED = "it holds the newest 3 questions"
RECALLED = "the newest result is recalled"
YOURS = "write summarize yourself"
LONG = "what is 1+1 " + "and then a few words more " * 4
OPS = ["hello", "what is 12*8", "what is 2+3", "what is 1/0", "what was the result", "/compact",
       "/model scripted-v2", "/branch e2", "/branch e6", LONG, "say\n  what  you"]  # fmt: skip
MANY = [op for n in range(2, 40) for op in (f"what is {n}*{n}, and a few words more", "/compact")]
NAMED = [["hello", "what is 12*8", "/compact", "hello", "/compact", "what was the result"],
         ["what is 12*8", "what is 1/0", "/compact", "hello", "/compact", "/compact"], MANY,
         [LONG, "say\n  what  you", "hello", "/compact", "what is 2+3", "hi", "/compact"],
         ["hello", "what is 12*8", "/compact", "what is 2+3", "/branch e2", "hi", "/compact"],
         ["what is 2+3", "/model scripted-v2", "hello", "/compact", "what is 7*6", "/compact"],
         ]  # fmt: skip
CALLS: list[str] = []


def check(module: ModuleType) -> str:
    subject, step_summarize = h.subjects(module)[0], ScriptedModel.summarize
    ScriptedModel.summarize = lambda self, messages: (  # type: ignore[method-assign]
        CALLS.append("it called ScriptedModel.summarize") or step_summarize(self, messages)
    )
    scripts = h.for_all(st.lists(st.sampled_from(OPS), max_size=10),
                        lambda ops: play(subject, ops), 80, NAMED)  # fmt: skip
    return (
        f"in {scripts} scripts, every compaction (up to 38 in a row) went on with your summary: "
        f"within {LIMIT:,} characters, holding the newest {QUESTIONS} questions it stood in for, "
        "and the model recalled the newest result as from the whole conversation"
    )


def play(subject: h.Subject, ops: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        chat = commands.Chat(h.session_in(Path(folder)), [], cursor=0)
        for at, op in enumerate(ops):
            case = "after " + h.lines(ops[: at + 1], 30)
            if op != "/compact":
                commands.run_command(chat, op) if op.startswith("/") else h.say(chat, op)
                continue
            hook = lambda messages, case=case: summarized(subject, chat, messages, case)  # noqa: E731
            for model in MODELS.values():  # the student's summarize, as every model's
                model.summarize = hook  # type: ignore[method-assign]
            try:
                done = commands.compact(chat)
            finally:
                for model in MODELS.values():
                    del model.summarize
            if done is not None:
                recalled(subject, chat, case)


def whole_path(chat: Any) -> list[Any]:
    """The messages on the path from the leaf, every parentId followed: compactions and all."""
    entries, entry_id, found, seen = chat.session.entries, chat.session.leaf_id, [], set()
    while entry_id in entries and entry_id not in seen:
        seen.add(entry_id)
        entry = entries[entry_id]
        found += [entry["message"]] if entry["type"] == "message" else []
        entry_id = entry["parentId"]
    return found[::-1]


def summarized(subject: h.Subject, chat: Any, messages: Any, case: str) -> str:
    """The student's summary of `messages`, once it is within the bound and holds the newest
    questions of the whole path before the last turn (the boundary the step's compact keeps)."""
    del CALLS[:]
    got = subject.call(subject.module.summarize, list(messages))
    if got.error is not None or CALLS:
        said, rule = (CALLS[0], YOURS) if CALLS else (got.said(), BOUNDED)
        raise AssertionError(f"{rule}; {case}: {said}", got.line) from got.error
    if not isinstance(got.value, str) or len(got.value) > LIMIT:
        said = f"{len(got.value):,} characters" if isinstance(got.value, str) else got.said()
        h.fail(BOUNDED, case, said, got.line)
    path = whole_path(chat)
    last = max(at for at, message in enumerate(path) if message["role"] == "user")
    asked = [" ".join(text_of(m).split()) for m in path[:last] if m["role"] == "user"]
    for question in asked[-QUESTIONS:]:
        if question[:SHOWN] not in got.value:
            h.fail(ASKED, case, f"{h.short(question[:SHOWN], 26)} is not in it", got.line)
    return got.value


def recalled(subject: h.Subject, chat: Any, case: str) -> None:
    """ "what was the result", asked of the model with the compacted context and the whole."""
    model, question = MODELS[chat.model], user_text("what was the result")
    got, want = (text_of(model.reply([*messages, question], ["calc"]))
                 for messages in (chat.messages, whole_path(chat)))  # fmt: skip
    if got != want:
        same = len(os.path.commonprefix([got, want])) // 4 * 4  # where they part, said
        said = f"{h.short(got[same:], 24)}, expected {h.short(want[same:], 24)}"
        h.fail(RECALLED, case, said, subject.module.summarize)
