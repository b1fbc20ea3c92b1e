"""Check 07.1: scripts of turns and /name lines (names holding ESC sequences, a carriage
return, a bidirectional override, a backslash) through the step's dispatcher, played on the
student's code and the solution's: the same file (the names as typed), chat and answers,
word for word; first, names as a file may hold them (trees of entries): `/name` on the chat
open_chat would make, and the session list's title, the same as the solution's."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from hypothesis import strategies as st

from exercises import harness as h

SHOWN = "a name is shown printable, typed or read"
RULES = {"file": "the file keeps the name as typed", "name": "chat.name is the name as typed",
         "leaf": "entries go through append_entry, which moves the leaf", "answer": SHOWN,
         "chat": "a command never becomes a message"}  # fmt: skip
TITLE = "title: the name printable, else a preview"
ODD = ["tax\x1b[2J", "a\rb", "\u202eevil", "C:\\dir\\x1b", "\x9b31m"]
LINES = ["hello", "/name", "/name tax", *(f"/name {name}" for name in ODD), "what is 12*8"]
# The last: a real ESC, then the four characters a user types for it. Shown alike, they are
# two names: compare what was typed, never what is shown.
NAMED = [["/name tax\x1b[31m", "/name", "/name tax\x1b[31m"], ["hello", "/name \u202e\u2066x"],
         ["/name a\rb", "hello", "/name"], ["/name C:\\dir\\x1b"],
         ["/name tax\x1b[31m", "/name tax\\x1b[31m", "/name"]]  # fmt: skip
NAMES = st.fixed_dictionaries({}, optional={"name": h.odd_values("tax", *ODD)})
QUESTIONS = st.sampled_from(["q1", "what is\x1b[2J 2+3", "\u202eevil"]).map(
    lambda text: {"message": {"role": "user", "content": [{"type": "text", "text": text}]}}
)
KINDS = {"session_info": NAMES, "message": QUESTIONS}


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    trees = h.for_all(h.trees(KINDS, 6), lambda tree: restored_alike(pair, tree), 150)
    scripts = h.for_all(st.lists(st.sampled_from(LINES), max_size=6),
                        lambda script: alike(pair, script), 60, NAMED)  # fmt: skip
    return (
        f"{scripts} scripts through the step's dispatcher wrote each name as typed and showed "
        f"it as the solution's printable; at {trees} leaves of trees, names from the file too"
    )


def alike(pair: tuple[h.Subject, h.Subject], script: list[str]) -> None:
    mine, theirs = (h.play(s, script, new_chat, state) for s in pair)
    h.same_plays(script, mine, theirs, RULES, answer_key=list)


def restored_alike(pair: tuple[h.Subject, h.Subject], tree: h.Tree) -> None:
    """The chat open_chat would make at the tree's leaf (the name the file gives), asked
    `/name`; and the title the list would show."""
    name = pair[1].module.session_name_at(tree.entries, tree.leaf)
    got, want = (s.call(s.module.name_command, new_chat(s, None, name), "") for s in pair)
    if got.error is not None or got.value.lines != want.value.lines:
        said = got.said() if got.error else f"it answered {h.short(got.value.lines, 30)}"
        case = f"`/name` at {h.cut(str(tree), 40)}"
        raise AssertionError(f"{SHOWN}; {case}: {said}", got.line) from got.error
    got, want = (s.call(s.module.session_title, tree.entries, tree.leaf) for s in pair)
    if got.error is not None or got.value != want.value:
        said = (
            got.said()
            if got.error
            else f"{h.short(got.value, 30)}, expected {h.short(want.value, 30)}"
        )
        raise AssertionError(f"{TITLE}; {h.cut(str(tree), 40)}: {said}", got.line) from got.error


def new_chat(subject: h.Subject, session: Any, name: str | None = None) -> Any:
    return subject.module.NamedChat(session, [], cursor=0, name=name)


def state(chat: Any) -> dict[str, Any]:
    return {"messages": chat.messages, "cursor": chat.cursor, "name": chat.name,
            "leaf": chat.session.leaf_id}  # fmt: skip
