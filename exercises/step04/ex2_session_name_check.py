"""Check 04.2: scripts of turns and commands, named and generated, through the step's own
dispatcher, play alike on the student's code and the solution's: after every line the same
file, chat and worded answers. The name and the title are tried on generated trees (branches,
second roots, broken chains, names that are no text), and in a new process, reopened and listed."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

from exercises import harness as h

RULES = {
    "file": "only a new name writes: one entry, under the leaf",
    "chat": "the chat holds the name in force",
    "leaf": "entries go through append_entry, which moves the leaf",
    "answer": "`/name` shows the name; naming says so",
}
NAME = "the name is the path's last session_info's, if text"
TITLE = "title: the name, else the path's first question"
LINES = ["hello", "what is 12*8", "/name", "/name tax questions", "/name tax", "/name 税务 2026",
         "/model scripted-v2"]  # fmt: skip
NAMED = [["/name"], ["hello", "/name tax", "/name tax"], ["/name tax questions 2026"],
         ["/name a", "hello", "/name b"], ["/model scripted-v2", "/name tax"]]  # fmt: skip
KINDS = {"session_info": st.fixed_dictionaries({}, optional={"name": h.odd_values("tax", "b")}),
         "model_change": st.just({"model": "v2"})}  # fmt: skip
RESTART = """
import commands
chat = module.open_chat(args[0])
rows = [[row.path.name, row.title] for row in module.list_sessions(args[1])]
print(json.dumps([chat.name, commands.run_command(chat, "/name").lines, len(chat.messages), rows]))
"""
WRITES: list[h.Writes] = []


def before_load() -> None:
    WRITES.append(h.Writes())


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    scripts = h.for_all(st.lists(st.sampled_from(LINES), max_size=6),
                        lambda script: alike(pair, script), 60, NAMED)  # fmt: skip
    trees = h.for_all(h.trees(KINDS, 6), lambda tree: named_alike(pair, tree), 200, special())
    with tempfile.TemporaryDirectory() as folder:
        restarted = []
        for subject, name in zip(pair, ("mine", "theirs"), strict=True):
            h.play(subject, NAMED[3], new_chat, state, folder=Path(folder, name))
            path = Path(folder, name, "s.jsonl")
            restarted.append(h.in_a_new_process(subject, RESTART, str(path), str(path.parent)))
        if restarted[0] != restarted[1]:
            said = f"open_chat, list_sessions gave {h.short(restarted[0], 50)}"
            h.fail(NAME, "a new process, after " + ", ".join(NAMED[3]), said, module.open_chat)
    return (
        f"{scripts} scripts through the step's dispatcher wrote, answered and left the chat as "
        f"the solution's; names and titles at {trees} leaves of trees, and in a new process "
        "reopening and listing a file, were the solution's"
    )


def new_chat(subject: h.Subject, session: Any) -> Any:
    return subject.module.NamedChat(session, [], cursor=0)


def state(chat: Any) -> dict[str, Any]:
    return {"messages": chat.messages, "cursor": chat.cursor, "model": chat.model,
            "name": chat.name, "leaf": chat.session.leaf_id}  # fmt: skip


def worded(lines: list[str]) -> list[str]:
    """What the docstring words: `session name: NAME` and `session named TEXT`; the rest is
    free, one line."""
    return [line if re.fullmatch(r"session name(: | named )\S.*", line) else "…" for line in lines]


def alike(pair: tuple[h.Subject, h.Subject], script: list[str]) -> None:
    mine, theirs = (h.play(s, script, new_chat, state, WRITES[0]) for s in pair)
    h.same_plays(script, mine, theirs, RULES, worded)


def named_alike(pair: tuple[h.Subject, h.Subject], tree: h.Tree) -> None:
    for function, rule in (("session_name_at", NAME), ("session_title", TITLE)):
        got, want = (s.call(getattr(s.module, function), tree.entries, tree.leaf) for s in pair)
        if got.error is not None:
            raise AssertionError(f"{rule}; {tree}: {got.said()}") from got.error
        if got.value != want.value:
            h.fail(rule, str(tree), f"{got.value!r}, expected {want.value!r}", got.line)


def special() -> list[h.Tree]:
    """The named trees: the file's last name on a branch the leaf left; the path's first name
    and its last; a first question on a tree the leaf left; two questions; no name, no text."""

    def tree(leaf: str, *entries: tuple[str, str | None, dict[str, Any]]) -> h.Tree:
        made = {f"e{n}": {"type": kind, "id": f"e{n}", "parentId": parent, **fields}
                for n, (kind, parent, fields) in enumerate(entries, start=1)}  # fmt: skip
        return h.Tree(made, leaf)

    def said(role: str, text: str) -> dict[str, Any]:
        return {"message": {"role": role, "content": [{"type": "text", "text": text}]}}

    info, message = "session_info", "message"
    return [
        tree("e3", (message, None, said("user", "q")), (info, "e1", {"name": "x"}),
             (message, "e1", said("assistant", "a"))),
        tree("e3", (info, None, {"name": "old"}), (info, "e1", {"name": "new"}),
             (message, "e2", said("user", "q"))),
        tree("e3", (message, None, said("user", "left")), (message, None, said("user", "here")),
             (message, "e2", said("assistant", "a"))),
        tree("e3", (message, None, said("user", "first")), (message, "e1", said("user", "second")),
             ("model_change", "e2", {"model": "v2"})),
        tree("e2", (info, None, {"name": "tax"}), (info, "e1", {"name": 7})),
        tree("e2", (info, None, {"name": "tax"}), ("model_change", "e1", {"model": "v2"})),
    ]  # fmt: skip
