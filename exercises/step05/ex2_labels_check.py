"""Check 05.2: scripts of turns, labels and moves, named and generated, through the step's own
dispatcher, play alike on the student's code and the solution's: after every line the same
file (each entry with at least the solution's fields) and chat. label_target is tried on
generated trees (names and targets that are no text among them); a new process finds a label."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from exercises import harness as h

RULES = {
    "file": "a label: one entry under the leaf; bad input, none",
    "file /branch": "/branch NAME goes to its latest label's target",
    "chat": "a label leaves the chat; a move rebuilds it as the step's",
    "leaf": "entries go through append_entry, which moves the leaf",
    "answer": "a command answers in one line",
}
TARGET = "the latest label of a name names its target, if text"
LINES = ["hello", "what is 12*8", "/label good", "/label good e2", "/label bad e4", "/label e5",
         "/label", "/label a e1 b", "/branch good", "/branch bad", "/branch e2", "/branch none",
         "/model scripted-v2", "/label eve"]  # fmt: skip
NAMED = [["hello", "/label good", "what is 12*8", "/branch good"], ["hello", "/label good e1 x"],
         ["hello", "/label a", "what is 12*8", "/label a", "/branch a"],
         ["hello", "what is 12*8", "/label good e2"], ["hello", "/label lost e99"],
         ["hello", "what is 12*8", "/label good", "/branch e2", "/branch good"],
         ["hello", "/model scripted-v2", "/label switched"], ["hello", "/label e2"],
         ["what is 12*8", "/label call e2", "/branch call"],
         ["hello", "/label zwölf✓"],
         ["hello", "/label eve", "/label e1x", "/label E2", "/branch eve"]]  # fmt: skip
KINDS = {"label": st.fixed_dictionaries({}, optional={
    "name": h.odd_values("good", "bad"), "targetId": h.odd_values("e1", "e2")})}  # fmt: skip
RESTART = """
import commands
chat = module.open_chat(args[0])
commands.run_command(chat, "/branch good")
print(json.dumps(chat.session.leaf_id))
"""
WRITES: list[h.Writes] = []


def before_load() -> None:
    WRITES.append(h.Writes())


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    for script in NAMED:
        alike(pair, script)
    with tempfile.TemporaryDirectory() as folder:
        restarted = []
        for subject, name in zip(pair, ("mine", "theirs"), strict=True):
            h.play(subject, NAMED[5][:4], new_chat, state, folder=Path(folder, name))
            restarted.append(h.in_a_new_process(subject, RESTART, f"{folder}/{name}/s.jsonl"))
        if restarted[0] != restarted[1]:
            said = f"/branch good left the leaf at {restarted[0]}, expected {restarted[1]}"
            h.fail(TARGET, "a new process, given the file only", said, module.label_target)
    scripts = h.for_all(st.lists(st.sampled_from(LINES), max_size=7),
                        lambda script: alike(pair, script), 80) + len(NAMED)  # fmt: skip
    trees = h.for_all(h.trees(KINDS, 6), lambda tree: found_alike(pair, tree), 200, special())
    return (
        f"{scripts} scripts of labels and moves through the step's dispatcher wrote and left "
        f"the chat as the solution's; label_target agreed with it on {trees} trees; a new "
        "process found a label written on a branch since left"
    )


def new_chat(subject: h.Subject, session: Any) -> Any:
    return commands.Chat(session, [], cursor=0)


def state(chat: Any) -> dict[str, Any]:
    return {"messages": chat.messages, "cursor": chat.cursor, "model": chat.model,
            "leaf": chat.session.leaf_id}  # fmt: skip


def alike(pair: tuple[h.Subject, h.Subject], script: list[str]) -> None:
    mine, theirs = (h.play(s, script, new_chat, state, WRITES[0]) for s in pair)
    h.same_plays(script, mine, theirs, RULES)


def found_alike(pair: tuple[h.Subject, h.Subject], tree: h.Tree) -> None:
    for name in ("good", "bad"):
        got, want = (s.call(s.module.label_target, tree.entries, name) for s in pair)
        case = f"{name!r} in {h.cut(str(tree)[:-6], 70)}"  # the leaf plays no part
        if got.error is not None:
            raise AssertionError(f"{TARGET}; {case}: {got.said()}") from got.error
        if got.value != want.value:
            h.fail(TARGET, case, f"{h.short(got.value)}, expected {want.value!r}", got.line)


def special() -> list[h.Tree]:
    """The named trees: a name labelled twice; a latest label naming no text; a label of no
    name's; a label whose name is a list among the others."""

    def labels(*fields: dict[str, Any]) -> h.Tree:
        return h.Tree({f"e{n}": {"type": "label", "id": f"e{n}", "parentId": None, **f}
                       for n, f in enumerate(fields, start=1)}, "e1")  # fmt: skip

    good, bad = {"name": "good", "targetId": "e1"}, {"name": "good", "targetId": "e2"}
    return [labels(good, bad), labels(good, {"name": "good", "targetId": ["e1"]}),
            labels({"name": ["good"], "targetId": "e1"}, good)]  # fmt: skip
