"""Check 04.1: scripts of turns and commands, named and generated, through the step's own
dispatcher, play alike on the student's code and the solution's: after every line the same
file (each entry with at least the solution's fields), chat and worded answers; a FAIL points
at the line that wrote (Writes). The restore is tried on generated trees, and in a new process
that knows nothing but the file."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

from exercises import harness as h

RULES = {
    "file": "only a switch writes: one entry, under the leaf",
    "chat": "the chat holds the level in force",
    "leaf": "entries go through append_entry, which moves the leaf",
    "answer": "`/thinking` shows the level; a switch says so",
}
RESTORE = "the last level change on the path, if valid"
LINES = ["hello", "what is 12*8", "/thinking", "/thinking high", "/thinking low", "/thinking off",
         "/thinking ultra", "/thinking high please", "/model scripted-v2"]  # fmt: skip
SCRIPTS = st.lists(st.sampled_from(LINES), max_size=6)
NAMED = [["/thinking", "/thinking low", "/thinking"], ["/thinking off"], ["/thinking ultra"],
         ["hello", "/thinking high", "/thinking high"], ["/model scripted-v2", "/thinking medium"],
         ["/thinking high", "what is 2+3"]]  # fmt: skip
LEVELS = h.odd_values("off", "low", "medium", "high")
KINDS = {"thinking_level_change": st.fixed_dictionaries({}, optional={"thinkingLevel": LEVELS}),
         "model_change": st.just({"model": "v2"}), "x_later_kind": st.just({})}  # fmt: skip
RESTART = """
import commands
chat = module.open_chat(args[0])
shown = commands.run_command(chat, "/thinking").lines
print(json.dumps([chat.thinking, shown, len(chat.messages)]))
"""
WRITES: list[h.Writes] = []


def before_load() -> None:
    WRITES.append(h.Writes())


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    scripts = h.for_all(SCRIPTS, lambda script: alike(pair, script), 60, NAMED)
    trees = h.for_all(h.trees(KINDS, 6), lambda tree: restored_alike(pair, tree), 200, branched())
    with tempfile.TemporaryDirectory() as folder:
        restarted = []
        for subject, name in zip(pair, ("mine", "theirs"), strict=True):
            h.play(subject, NAMED[3], new_chat, state, folder=Path(folder, name))
            restarted.append(h.in_a_new_process(subject, RESTART, f"{folder}/{name}/s.jsonl"))
        if restarted[0] != restarted[1]:
            said = f"open_chat gave {h.short(restarted[0], 60)}, expected {restarted[1]}"
            h.fail(RESTORE, "a new process, after " + ", ".join(NAMED[3]), said, module.open_chat)
    return (
        f"{scripts} scripts through the step's dispatcher wrote, answered and left the chat as "
        f"the solution's; the level restored at {trees} leaves of trees, and by a new process "
        "reopening a file, was the solution's: the last change on the path, if a level"
    )


def new_chat(subject: h.Subject, session: Any) -> Any:
    return subject.module.ThinkingChat(session, [], cursor=0)


def state(chat: Any) -> dict[str, Any]:
    return {"messages": chat.messages, "cursor": chat.cursor, "model": chat.model,
            "thinking": chat.thinking, "leaf": chat.session.leaf_id}  # fmt: skip


def worded(lines: list[str]) -> list[str]:
    """What the docstring words: the two answers that start `thinking level`; a refusal is
    free, one line."""
    return [line if re.fullmatch(r"thinking level(:| set to) \w+", line) else "…" for line in lines]


def alike(pair: tuple[h.Subject, h.Subject], script: list[str]) -> None:
    mine, theirs = (h.play(s, script, new_chat, state, WRITES[0]) for s in pair)
    h.same_plays(script, mine, theirs, RULES, worded)


def restored_alike(pair: tuple[h.Subject, h.Subject], tree: h.Tree) -> None:
    got, want = (s.call(s.module.thinking_level_at, tree.entries, tree.leaf) for s in pair)
    if got.error is not None:
        raise AssertionError(f"{RESTORE}; {tree}: {got.said()}") from got.error
    if got.value != want.value:
        h.fail(RESTORE, str(tree), f"{got.value!r}, expected {want.value!r}", got.line)


def branched() -> list[h.Tree]:
    """The named trees: the file's last change on a branch the leaf left; the path's first
    change and its last; a change beyond a broken chain; a model switch after the change."""

    def tree(leaf: str, *entries: tuple[str, str | None, dict[str, Any]]) -> h.Tree:
        made = {f"e{n}": {"type": kind, "id": f"e{n}", "parentId": parent, **fields}
                for n, (kind, parent, fields) in enumerate(entries, start=1)}  # fmt: skip
        return h.Tree(made, leaf)

    low, high = {"thinkingLevel": "low"}, {"thinkingLevel": "high"}
    message = {"message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}
    level = "thinking_level_change"
    return [
        tree("e3", ("message", None, message), (level, "e1", high), ("message", "e1", message)),
        tree("e3", (level, None, low), (level, "e1", high), ("message", "e2", message)),
        tree("e3", (level, None, high), ("message", "e0", message), ("message", "e2", message)),
        tree("e2", (level, None, high), ("model_change", "e1", {"model": "v2"})),
        tree("e2", (level, None, high), (level, "e1", {"thinkingLevel": "ultra"})),
    ]
