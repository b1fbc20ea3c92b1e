"""Check 05.3: scripts of turns, model switches and moves, named and generated, through the
step's own dispatcher, play alike on the student's code and the solution's. What is worded
freely is compared by what it must hold: a summary, by the questions and tool results left, in
order, within SUMMARY_LIMIT; a note, by the summary it holds. left_behind and the context are
tried on generated trees; new processes reopen a file, and one an older program wrote."""

from __future__ import annotations

import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

import commands
from exercises import harness as h
from messages import assistant_message, text_of, tool_result, user_text

RULES = {
    "file": "a move sums up what it leaves",
    "chat": "after a move: the context with notes",
    "leaf": "entries go through append_entry, which moves the leaf",
}
LEFT = "left: the old path below the shared part"
CONTEXT = "a note stands where its summary is"
LINES = ["hello", "what is 12*8", "what was the result", "/model scripted-v2",
         *(f"/branch e{n}" for n in range(1, 13))]  # fmt: skip
NAMED = [["hello", "/model scripted-v2", "what is 12*8", "what was the result", "/branch e3"],
         ["hello", "what is 12*8", "/branch e2", "what is 2+3", "/branch e6"],
         ["hello", "what is 12*8", "/branch e2", "/branch e7"], ["what is 12*8", "/branch e2"],
         ["hello", "what is 12*8", "/branch e2", "/model scripted-v2", "/branch e8"],
         ["hello", *(f"what is {n}*{n} then" for n in range(11, 18)), "/branch e2"]]  # fmt: skip
KINDS = {"branch_summary": st.fixed_dictionaries({"fromId": st.sampled_from(["e1", "e2"])},
                                                 optional={"summary": h.odd_values("asked: x")}),
         "model_change": st.just({"model": "v2"})}  # fmt: skip
RESTART = """
import commands
chat = module.open_chat(args[0])
if args[1:]:
    commands.run_command(chat, args[1])
print(json.dumps([chat.messages, chat.session.written, dict(chat.session.entries)]))
"""
WRITES: list[h.Writes] = []


def before_load() -> None:
    WRITES.append(h.Writes())


def check(module: ModuleType) -> str:
    pair = h.subjects(module)
    for script in NAMED:
        alike(pair, script)
    restarted(pair, NAMED[1][:4], [])  # reopened: the note in its place, turns after it
    restarted(pair, ["hello", "what is 12*8", "older e2"], ["/branch e4"])  # refused
    trees = h.for_all(h.trees(KINDS, 7), lambda tree: trees_alike(pair, tree), 200, special())
    scripts = h.for_all(st.lists(st.sampled_from(LINES), max_size=7),
                        lambda script: alike(pair, script), 60) + len(NAMED)  # fmt: skip
    return (
        f"{scripts} scripts of moves through the step's dispatcher wrote summaries holding what "
        f"was left behind, within {SOLUTION[0].SUMMARY_LIMIT} characters (one branch too long to "
        "hold whole), and left the chat as the solution's; left_behind and the context "
        f"agreed with it on {trees} trees; two new processes reopened files alike"
    )


def state(chat: Any) -> dict[str, Any]:
    messages = noted(chat.messages, chat.session.entries)
    return {"messages": messages, "cursor": chat.cursor, "model": chat.model,
            "leaf": chat.session.leaf_id}  # fmt: skip


def noted(messages: list[Any], entries: Any) -> list[Any]:
    """The messages, a note said as `note eN`: a user message in no message entry,
    holding the summary of eN (the longest such): its wording is the student's own."""
    said = [e["message"] for e in entries.values() if e["type"] == "message"]
    summaries = sorted(((e["summary"], e["id"]) for e in entries.values() if e["type"] ==
                        "branch_summary" and isinstance(e.get("summary"), str)),
                       key=lambda pair: -len(pair[0]))  # fmt: skip
    return [next((f"note {i}" for s, i in summaries if s in text_of(m)), m)
            if m["role"] == "user" and m not in said else m for m in messages]  # fmt: skip


def held(lines: list[Any]) -> list[Any]:
    """The file, each summary said as what it must hold: the questions and tool results of
    the messages its move left behind, in order, within the limit."""
    by_id = {e.get("id"): e for e in lines[1:] if isinstance(e, dict)}
    seen = []
    for entry in lines:
        move = by_id.get(entry.get("parentId")) if isinstance(entry, dict) else None
        if isinstance(entry, dict) and entry.get("type") == "branch_summary" and move:
            left = SOLUTION[0].left_behind(by_id, entry.get("fromId"), move.get("parentId"))
            wanted = [text_of(e["message"]) for e in left if e["type"] == "message"
                      and e["message"]["role"] in ("user", "toolResult")]  # fmt: skip
            cut = len(SOLUTION[0].summarize_branch(left)) >= SOLUTION[0].SUMMARY_LIMIT
            entry = {**entry, "summary": holds(entry.get("summary"), wanted, cut)}
        seen.append(entry)
    return seen


def holds(summary: object, wanted: list[str], cut: bool) -> str:
    """Said "all" for text of at most SUMMARY_LIMIT characters (a "…" counts) holding each text
    wanted, in order; where the solution's is cut (too much to hold), those it holds, in order."""
    if not isinstance(summary, str):
        return f"{h.short(summary, 30)}, no text"
    if len(summary) > (limit := SOLUTION[0].SUMMARY_LIMIT):
        return f"{len(summary)} characters, over {limit}"
    at, kept = 0, not wanted
    for text in wanted:
        if (found := summary.find(text, at)) >= 0:
            at, kept = found, True
        elif not cut:
            return f"no {text!r}"
    return "all" if kept else "none of what was left"


SOLUTION: list[ModuleType] = []


def alike(pair: tuple[h.Subject, h.Subject], script: list[str]) -> None:
    SOLUTION[:] = [pair[1].module]
    mine, theirs = (h.play(s, script, new_chat, state, WRITES[0], seen_as=held) for s in pair)
    h.same_plays(script, mine, theirs, RULES, lambda lines: 0, width=28)


def new_chat(subject: h.Subject, session: Any) -> Any:
    return commands.Chat(session, [], cursor=0)


def restarted(pair: tuple[h.Subject, h.Subject], script: list[str], typed: list[str]) -> None:
    """Both reopen the same file in a new process, type a line, and must see and write alike.
    "older e2" is a move made by the step's own /branch, as an older program made it."""
    with tempfile.TemporaryDirectory() as folder:
        chat = commands.Chat(h.session_in(Path(folder)), [], cursor=0)
        for line in script:
            if line.startswith("older "):
                commands.branch_command(chat, line.split()[1])
            elif line.startswith("/"):
                h.command(pair[1], chat, line)  # the solution's, as the file's writer
            else:
                h.say(chat, line)
        seen = [h.in_a_new_process(s, RESTART, str(chat.session.path), *typed) for s in pair]
    (mine, wrote, entries), (theirs, wrote_too, _) = seen
    case = f"reopened after {len(script)} lines{', ' + typed[0] if typed else ''}"
    if wrote != wrote_too:
        said = f"it wrote {wrote} entries, expected {wrote_too}"
        h.fail("a refused /branch writes nothing", case, said, pair[0].module.branch_command)
    said = h.difference(noted(mine, entries), noted(theirs, entries), "message {}".format)
    if said:
        h.fail(CONTEXT, case, said, pair[0].module.open_chat)


def trees_alike(pair: tuple[h.Subject, h.Subject], tree: h.Tree) -> None:
    leaves = [*tree.entries, None]
    for old, target in [(a, b) for a in leaves[:3] for b in leaves[-3:] if a and b]:
        got, want = (s.call(s.module.left_behind, tree.entries, old, target) for s in pair)
        case = f"{str(tree).rsplit(' at ', 1)[0]} from {old} to {target}"
        if got.error is not None or [e["id"] for e in got.value] != [e["id"] for e in want.value]:
            said = got.said() if got.error else f"{[e['id'] for e in got.value]}"
            h.fail(LEFT, case, f"{said}, expected {[e['id'] for e in want.value]}", got.line)
    got, want = (s.call(s.module.context_with_summaries, tree.entries, tree.leaf) for s in pair)
    if got.error is not None:
        raise AssertionError(f"{CONTEXT}; {tree}: {got.said()}") from got.error
    mine, theirs = (noted(c.value.messages, tree.entries) for c in (got, want))
    said = h.difference(mine, theirs, lambda at: f"message {at + 1}", "messages") or h.difference(
        [got.value.model, got.value.chain_break], [want.value.model, want.value.chain_break],
        ["the model", "the chain break"].__getitem__)  # fmt: skip
    if said:
        h.fail(CONTEXT, str(tree), said, got.line)


def special() -> list[h.Tree]:
    """A path with a summary among tool calls and results that do not pair up: a call whose
    result is lost (a kind no step knows where it was), a stray result, a call at the end."""
    call = {"type": "toolCall", "id": "c1", "name": "calc", "arguments": {"expression": "6*7"}}
    chain = [{"message": user_text("6*7?")}, {"message": assistant_message("", [call])},
             {"type": "x_later_kind"}, {"type": "branch_summary", "fromId": "e1", "summary": "x"},
             {"message": tool_result({**call, "id": "c9"}, "81")},
             {"message": assistant_message("", [{**call, "id": "c2"}])}]  # fmt: skip
    entries = {f"e{n}": {"type": "message", "id": f"e{n}", "parentId": f"e{n - 1}" if n > 1
                         else None, **fields} for n, fields in enumerate(chain, 1)}  # fmt: skip
    return [h.Tree(entries, "e6", "unpaired tool calls")]
